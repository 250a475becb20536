# fuzz.mk: libFuzzer harnesses (clang), one per parser entry point, built
# with ASan+UBSan over the whole library. `make fuzz` builds them;
# tests/e2e/fuzz.sh runs each for a bounded time with the seed corpus.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
# -I/-D flags of the normal build (generated headers, optional libraries)
FUZZ_CFLAGS = -std=gnu11 -O1 -g $(filter -I% -D%,$(CFLAGS)) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -pthread

fuzz: $(FUZZ_BIN)

build/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(wildcard src/*/*.h) build/gen/flame_html.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(LDLIBS)
