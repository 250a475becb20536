# unwind.mk: the differential unwinding harness (tests/tools/unwind_diff.c):
# scorch's DWARF unwinder beside libdwfl's on the same registers and stack
# copies. A test tool only: it links libdwfl's unwinder, build/scorch does not.
all: $(B)/unwind-diff

$(B)/unwind-diff: $(B)/obj/tests/tools/unwind_diff.o $(B)/libscorch.a
	$(CC) $(CFLAGS) -o $@ $< $(B)/libscorch.a $(LDFLAGS) $(LDLIBS)

-include $(B)/obj/tests/tools/unwind_diff.d

# The C++ workload with exceptions (the unwinding corpus, bench/unwind_corpus.sh).
all: build/workloads/exceptions
build/workloads/exceptions: tests/workloads/exceptions.cpp
	@mkdir -p $(dir $@)
	g++ -O2 -g -o $@ $<
