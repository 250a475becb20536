# resolve.mk: the resolver's test workloads (tests/workloads/*) built into
# $(B)/workloads/ (the tests run build/workloads/*).
#
# Workloads: calls-fp (frame pointers), calls-nofp (no frame pointers),
# calls-stripped + .debug/calls-stripped.debug (separate debug file found via
# .gnu_debuglink), recurse, threads, forkexec, dlopen + libplugin.so,
# cxx (C++ templates, std containers, threads), jit (code in anonymous
# memory described by /tmp/perf-PID.map), demo.

WL      := $(B)/workloads
WL_SRC  := tests/workloads
WL_CF   := -O2 -g -Wall
WORKLOADS := $(WL)/calls-fp $(WL)/calls-nofp $(WL)/calls-stripped $(WL)/recurse \
	$(WL)/threads $(WL)/forkexec $(WL)/dlopen $(WL)/libplugin.so $(WL)/cxx $(WL)/demo \
	$(WL)/jit $(WL)/calls-minidebug

.PHONY: workloads
all: workloads
workloads: $(WORKLOADS)

$(WL)/calls-fp: $(WL_SRC)/calls.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o $@ $<
$(WL)/calls-nofp: $(WL_SRC)/calls.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -fomit-frame-pointer -o $@ $<
# Stripped binary, its debug info in .debug/ beside it, linked by debuglink.
$(WL)/calls-stripped: $(WL_SRC)/calls.c
	@mkdir -p $(WL)/.debug
	$(CC) $(WL_CF) -fomit-frame-pointer -Wl,--build-id -o $@.full $<
	objcopy --only-keep-debug $@.full $(WL)/.debug/calls-stripped.debug
	objcopy --strip-all --add-gnu-debuglink=$(WL)/.debug/calls-stripped.debug $@.full $@
	rm -f $@.full
# Stripped binary carrying its function symbols as MiniDebugInfo
# (.gnu_debugdata: an xz-compressed ELF with a .symtab), Fedora's recipe.
$(WL)/calls-minidebug: $(WL_SRC)/calls.c
	@mkdir -p $(WL)/mini
	$(CC) $(WL_CF) -fomit-frame-pointer -o $(WL)/mini/full $<
	nm -D $(WL)/mini/full --format=posix --defined-only | awk '{print $$1}' | sort > $(WL)/mini/dynsyms
	nm $(WL)/mini/full --format=posix --defined-only | awk '$$2 ~ /[TtW]/ {print $$1}' | sort > $(WL)/mini/funcsyms
	comm -13 $(WL)/mini/dynsyms $(WL)/mini/funcsyms > $(WL)/mini/keep
	objcopy --only-keep-debug $(WL)/mini/full $(WL)/mini/debug
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=$(WL)/mini/keep $(WL)/mini/debug $(WL)/mini/mini
	rm -f $(WL)/mini/mini.xz && xz -k $(WL)/mini/mini
	strip --strip-all -R .comment -o $@ $(WL)/mini/full
	objcopy --add-section .gnu_debugdata=$(WL)/mini/mini.xz $@
$(WL)/recurse: $(WL_SRC)/recurse.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -fno-omit-frame-pointer -fno-optimize-sibling-calls -o $@ $<
$(WL)/threads: $(WL_SRC)/threads.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -pthread -o $@ $<
$(WL)/forkexec: $(WL_SRC)/forkexec.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -o $@ $<
$(WL)/libplugin.so: $(WL_SRC)/plugin.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -fPIC -shared -o $@ $<
$(WL)/dlopen: $(WL_SRC)/dlopen.c $(WL)/libplugin.so
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -o $@ $< -ldl
$(WL)/cxx: $(WL_SRC)/cxx.cpp
	@mkdir -p $(WL)
	$(CXX) $(WL_CF) -pthread -o $@ $<
$(WL)/jit: $(WL_SRC)/jit.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -fno-omit-frame-pointer -o $@ $<
$(WL)/demo: $(WL_SRC)/demo.c
	@mkdir -p $(WL)
	$(CC) $(WL_CF) -fno-omit-frame-pointer -o $@ $<
