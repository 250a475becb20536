# scorch build. Outputs under build/ (normal) and build/asan/ (ASan+UBSan).
# Sources are found by wildcard: one library (libscorch.a) from src/*/ except
# src/cli, and the scorch binary from src/cli. Extra rules live in mk/*.mk.

CC      ?= cc
PKGS    := libdw libelf libzstd liburing libtraceevent
CSTD    := -std=gnu11
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
OPT     ?= -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
HAVE_DEBUGINFOD := $(shell pkg-config --exists libdebuginfod 2>/dev/null && echo 1)
ifeq ($(HAVE_DEBUGINFOD),1)
# loaded with dlopen at run time when DEBUGINFOD_URLS is set (src/analyze/symbols.c)
PKG_CFLAGS += -DHAVE_DEBUGINFOD=1 $(shell pkg-config --cflags libdebuginfod)
PKG_LIBS   += -ldl
endif
CFLAGS  += $(CSTD) $(WARN) $(OPT) -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) -MMD -MP -pthread
LDLIBS  += $(PKG_LIBS) -lz -lpthread -lm -lrt

B       ?= build
LIB_SRC := $(wildcard src/util/*.c src/perf/*.c src/analyze/*.c src/output/*.c src/record/*.c)
CLI_SRC := $(wildcard src/cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/obj/%.o)

.PHONY: all deps test demo clean asan unit fuzz
all: deps-check $(B)/scorch $(B)/scorch-perfparser $(B)/unit-tests

deps-check:
	@scripts/deps.sh --check || scripts/deps.sh

deps:
	scripts/deps.sh

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/libscorch.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/scorch: $(CLI_OBJ) $(B)/libscorch.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libscorch.a $(LDFLAGS) $(LDLIBS)

$(B)/scorch-perfparser: $(B)/scorch
	ln -sf scorch $@

$(B)/unit-tests: $(UNIT_OBJ) $(B)/libscorch.a
	$(CC) $(CFLAGS) -o $@ $(UNIT_OBJ) $(B)/libscorch.a $(LDFLAGS) $(LDLIBS)

# Sanitizer build of everything, in build/asan.
asan:
	$(MAKE) B=build/asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" build/asan/scorch build/asan/unit-tests

-include $(wildcard mk/*.mk)

test: all asan
	tests/run.sh

demo: all
	scripts/demo.sh

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
