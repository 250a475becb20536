# fuzz.mk: libFuzzer harnesses (clang), one per parser entry point.
# `make fuzz` builds, in build/fuzz, the library once with ASan+UBSan and
# libFuzzer's coverage instrumentation (build/fuzz/libscorch.a) and links each
# harness tests/fuzz/fuzz_X.c against it as build/fuzz/fuzz_X;
# tests/e2e/fuzz.sh runs each for a bounded time with the seed corpus.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined

fuzz:
	$(MAKE) B=build/fuzz CC=clang WARN= OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
		$(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)

$(B)/fuzz_%: tests/fuzz/fuzz_%.c $(B)/libscorch.a $(B)/ldflags
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fsanitize=fuzzer -o $@ $< $(B)/libscorch.a $(LDLIBS)
