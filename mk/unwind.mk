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

# The source of what a cache image keeps (unwind_dwarf.c's rules kept across
# runs; inlines.c's .debug_aranges table and addresses in no function, made
# with dwdie.c; namecache.c's demangled names, made by demangle*.c): its images say which source made them, so a build that
# makes them differently never uses an older build's (a version to count
# up by hand would be forgotten). $(B)/gen/srchash.h: the first 64 bits of
# the files' SHA-1, worked out on every make, rewritten only when they change.
SRCHASH_DEMANGLE := src/analyze/demangle/demangle.c src/analyze/demangle/demangle_rust.c
$(B)/gen/srchash.h: FORCE
	@mkdir -p $(dir $@)
	@{ printf '#define UNWIND_SRC_HASH 0x%sULL\n' $$(sha1sum src/analyze/unwind/unwind_dwarf.c | cut -c1-16); \
	   printf '#define INLINES_SRC_HASH 0x%sULL\n' $$(cat src/analyze/dwarf/inlines.c src/analyze/dwarf/dwdie.c | sha1sum | cut -c1-16); \
	   printf '#define DEMANGLE_SRC_HASH 0x%sULL\n' $$(cat $(SRCHASH_DEMANGLE) | sha1sum | cut -c1-16); } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(B)/obj/src/analyze/unwind/unwind_dwarf.o $(B)/obj/src/analyze/dwarf/inlines.o $(B)/obj/src/analyze/cache/namecache.o: $(B)/gen/srchash.h
