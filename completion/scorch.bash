
# The static part of scorch's bash completion (the data above comes from
# the man pages). Self-contained: works with or without the bash-completion
# package. Words are taken from COMP_LINE split on blanks, so "sched:x" and
# "--opt=x" stay one word; the candidates are then cut to the part bash
# itself sees as the word (COMP_WORDBREAKS splits at ':' and '=').

# _scorch_kind CMD OPT: the kind of OPT's value (file, dir, event, list:a,b,
# none); fails when OPT takes no separate value.
_scorch_kind()
{
	local v="_scorch_vals_${1//-/_}" k
	k=${!v}
	[[ $k == *" $2="* ]] || return 1
	k=${k#*" $2="}
	printf '%s\n' "${k%% *}"
}

# _scorch_values KIND CUR: COMPREPLY for a value
_scorch_values()
{
	local kind=$1 cur=$2 pre=""
	case $kind in
	file)
		compopt -o filenames 2> /dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	dir)
		compopt -o filenames 2> /dev/null
		COMPREPLY=($(compgen -d -- "$cur")) ;;
	event)
		[[ $cur == *,* ]] && pre=${cur%,*},
		COMPREPLY=($(compgen -P "$pre" -W "$("$_scorch_self" list --raw-dump 2> /dev/null)" -- "${cur##*,}")) ;;
	list:*)
		kind=${kind#list:}
		COMPREPLY=($(compgen -W "${kind//,/ }" -- "$cur")) ;;
	esac
}

_scorch()
{
	local line=${COMP_LINE:0:COMP_POINT} cur="" words=() i n cmd prev kind
	read -r -a words <<< "$line"
	if [[ $line != *[[:blank:]] && ${#words[@]} -gt 0 ]]; then
		cur=${words[-1]}
		unset 'words[-1]'
	fi
	n=${#words[@]}
	_scorch_self=${words[0]:-scorch}
	COMPREPLY=()
	if ((n == 1)); then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--version --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_scorch_commands" -- "$cur"))
		fi
	else
		cmd=${words[1]}
		for ((i = 2; i < n; i++)); do
			[[ ${words[i]} == -- ]] && break
		done
		prev=${words[n - 1]}
		if ((i < n)); then # after "--": a command, then its arguments
			if ((i == n - 1)); then
				COMPREPLY=($(compgen -c -- "$cur" | sort -u))
			else
				compopt -o filenames 2> /dev/null
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
		elif [[ $prev == -* ]] && kind=$(_scorch_kind "$cmd" "$prev"); then
			_scorch_values "$kind" "$cur"
		elif [[ $cur == --*=* ]] && kind=$(_scorch_kind "$cmd" "${cur%%=*}"); then
			_scorch_values "$kind" "${cur#*=}"
			COMPREPLY=("${COMPREPLY[@]/#/${cur%%=*}=}")
		elif [[ $cur == -* ]]; then
			local o="_scorch_opts_${cmd//-/_}"
			COMPREPLY=($(compgen -W "${!o} --help" -- "$cur"))
		else
			compopt -o filenames 2> /dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
	fi
	# bash replaces only its own last word (split at COMP_WORDBREAKS)
	local bw=${COMP_WORDS[COMP_CWORD]}
	[[ -n $bw && -z ${bw//[$COMP_WORDBREAKS]/} ]] && bw=""
	local cut=$((${#cur} - ${#bw}))
	if ((cut > 0)); then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]:cut}
		done
	fi
}
complete -F _scorch scorch
