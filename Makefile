# scorch build. Outputs under $(B) = build/ (normal), build/asan/ (ASan+UBSan)
# and build/fuzz/ (libFuzzer, clang). Sources are found by wildcard: one
# library (libscorch.a) from src/*/ except src/cli, and the scorch binary from
# src/cli. Extra rules live in mk/*.mk.
#
# Configuration: $(B)/config.mk (scripts/configure.sh: pkg-config flags and
# the optional libraries found) is remade on every run, after
# scripts/deps.sh --build has installed missing build packages, and make
# restarts with it when it changed; so on a machine with nothing but make the
# first `make` installs, configures and builds in one go. Objects depend on
# $(B)/cflags and binaries on $(B)/ldflags, stamps of the final flags that
# change only when the flags do: a changed configuration rebuilds what it
# affects, an unchanged one rebuilds nothing.

CC      ?= cc
CXX     ?= g++
B       ?= build
DEPS    ?= scripts/deps.sh
CSTD    := -std=gnu11
WARN    ?= -Wall -Wextra -Werror -Wno-unused-parameter
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -D_GNU_SOURCE -Isrc -I$(B)/gen $(CONFIG_CFLAGS) -MMD -MP -pthread
LDLIBS  += $(CONFIG_LIBS) -lpthread -lm -lrt

LIB_SRC := $(wildcard src/util/*.c src/perf/*.c src/analyze/*.c src/analyze/*/*.c src/output/*.c src/record/*.c src/live/*.c src/archive/*.c)
CLI_SRC := $(wildcard src/cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/obj/%.o)

.PHONY: all deps test demo deb bench clean asan unit fuzz FORCE
all: $(B)/scorch $(B)/scorch-perfparser $(B)/unit-tests

# Goals that need no configuration (and so install nothing).
NOCONFIG_GOALS := clean deps deb
ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(B)/config.mk
endif

# `make test` (and `make bench`) installs the test packages here too,
# before configuring and building: the configuration depends on some of them (valgrind's header)
$(B)/config.mk: FORCE
	@$(DEPS) $(if $(filter test bench,$(MAKECMDGOALS)),,--build)
	@mkdir -p $(B)
	@scripts/configure.sh > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# stamp NAME TEXT: $(B)/NAME holds TEXT; rewritten (new mtime) only on change
define stamp
	@mkdir -p $(B)
	@printf '%s\n' '$(2)' > $(B)/$(1).tmp
	@if cmp -s $(B)/$(1).tmp $(B)/$(1); then rm -f $(B)/$(1).tmp; else mv $(B)/$(1).tmp $(B)/$(1); fi
endef
$(B)/cflags: FORCE
	$(call stamp,cflags,$(CC) $(CFLAGS))
$(B)/ldflags: FORCE
	$(call stamp,ldflags,$(CC) $(LDFLAGS) $(LDLIBS))

deps:
	$(DEPS)

$(B)/obj/%.o: %.c $(B)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/libscorch.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/scorch: $(CLI_OBJ) $(B)/libscorch.a $(B)/ldflags
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libscorch.a $(LDFLAGS) $(LDLIBS)

$(B)/scorch-perfparser: $(B)/scorch
	ln -sf scorch $@

$(B)/unit-tests: $(UNIT_OBJ) $(B)/libscorch.a $(B)/ldflags
	$(CC) $(CFLAGS) -o $@ $(UNIT_OBJ) $(B)/libscorch.a $(LDFLAGS) $(LDLIBS)

# Sanitizer build of everything, in build/asan.
# (on every CPU: its configuration is made once, before any object)
asan:
	$(MAKE) -j$(shell nproc) B=build/asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" build/asan/scorch build/asan/unit-tests

-include $(wildcard mk/*.mk)

# make test installs the test peers (perf, hotspot, chromium, ...) first,
# in $(B)/config.mk's rule; a plain build needs only the build packages.
test: all asan
	tests/run.sh

demo: all
	scripts/demo.sh

# scorch against its peers, medians of several runs: bench/RESULTS.md
bench: all
	bench/run-all.sh

# the Debian package, ../scorch_VERSION_ARCH.deb: installs what its build
# needs (debian/control's Build-Depends, debhelper), then builds it
deb:
	$(DEPS) --deb
	dpkg-buildpackage -us -uc -b

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
