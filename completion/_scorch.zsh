# The static part of scorch's zsh completion (the data above comes from the
# man pages).

_scorch_events() {
  local -a ev
  ev=(${=${"$(${_scorch_self:-scorch} list --raw-dump 2>/dev/null)"}})
  compset -P '*,'
  compadd -a ev
}

_scorch() {
  local curcontext=$curcontext state line ret=1
  local -a _scorch_args
  typeset -A opt_args
  _scorch_self=${words[1]}
  _arguments -C \
    '(- :)--version[print the version]' \
    '(- :)'{-h,--help}'[print the commands]' \
    '1:command:->command' \
    '*::argument:->argument' && ret=0
  case $state in
  command)
    _describe -t commands 'scorch command' _scorch_commands && ret=0 ;;
  argument)
    curcontext=${curcontext%:*:*}:scorch-$words[1]:
    _scorch_cmd_args $words[1]
    case $words[1] in
    record) _arguments -s -S $_scorch_args '*:: :_normal' && ret=0 ;;
    *) _arguments -s -S $_scorch_args '--help[print the options]' '*:file:_files' && ret=0 ;;
    esac ;;
  esac
  return ret
}

_scorch "$@"
