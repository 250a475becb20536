/*
 * jitdump.h: jit-PID.dump, the file JITs write for perf (V8's --perf-prof,
 * the JVM and .NET agents): every function they compile, with its address,
 * name, code bytes and source lines. perf reads it through `perf inject
 * --jit`, which turns each function into an ELF file and a mapping; scorch
 * reads it directly, when the recording shows the process mapped the file
 * (the JIT's marker).
 *
 * Layout (perf's tools/perf/util/jitdump.h; all fields in the writer's byte
 * order, told by the magic):
 *
 *   header   u32 magic 'JiTD' (0x4A695444), u32 version, u32 total_size,
 *            u32 elf_mach, u32 pad, u32 pid, u64 timestamp, u64 flags
 *   record   u32 id, u32 total_size, u64 timestamp, then by id:
 *     0 CODE_LOAD   u32 pid, u32 tid, u64 vma, u64 code_addr, u64 code_size,
 *                   u64 code_index, name (NUL-terminated), code bytes
 *     1 CODE_MOVE   u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *                   u64 new_code_addr, u64 code_size, u64 code_index
 *     2 DEBUG_INFO  u64 code_addr, u64 nr_entry, entries of
 *                   { u64 addr, i32 line, i32 discrim, file name (NUL-
 *                   terminated; "\xff" alone: the previous entry's) },
 *                   for the CODE_LOAD of code_addr that follows
 *     3 CODE_CLOSE  end
 *     4 UNWINDING_INFO  skipped
 *
 * A function's time is its record's timestamp (CLOCK_MONOTONIC unless the
 * header's flags say the CPU's timestamp counter). Where several functions
 * covered an address in turn, a sample is named by the one loaded last
 * before the sample's time when the recording's clock is CLOCK_MONOTONIC
 * (perf record -k monotonic), else by the one loaded last.
 *
 * The file is untrusted input: every length is checked against its record
 * and the file. A record whose size does not fit ends the reading there;
 * the functions before it are kept and the fault is told (offset and
 * what). A DEBUG_INFO record whose entries do not parse, or whose file
 * names are not text, only loses its lines. The lines are used as written:
 * V8 adds 0x40 (an ELF header's size) to its entries' addresses, for the
 * ELF files perf inject makes, and perf 6.1 reads them as written too.
 */
#ifndef SCORCH_JITDUMP_H
#define SCORCH_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jitdump_line {
	uint64_t addr;
	const char *file;       /* in the dump's bytes */
	uint32_t line;
};

struct jitdump_fn {
	uint64_t start, size;   /* avma */
	uint64_t time;          /* its record's timestamp */
	const char *name;       /* in the dump's bytes, NUL-terminated */
	const uint8_t *code;    /* size bytes of machine code (NULL after a move
				 * without a known load) */
	size_t line0, nr_lines; /* its entries in lines[] */
};

struct jitdump {
	uint8_t *map;           /* the file (mmap), or the bytes given to parse */
	size_t size;
	bool mapped;
	bool swapped;           /* written in the other byte order */
	bool arch_time;         /* timestamps are the CPU's counter, not CLOCK_MONOTONIC */
	uint32_t pid;
	struct jitdump_fn *fns; /* sorted by start, then time */
	size_t nr, cap;
	struct jitdump_line *lines;
	size_t nr_lines, cap_lines;
	uint64_t max_size;      /* the largest function */
	size_t damaged_lines;   /* DEBUG_INFO records whose entries were dropped */
	/* the first fault: bad is set, at byte offset bad_off */
	bool bad;
	uint64_t bad_off;
	char bad_msg[96];
};

/* Parse n bytes at p (kept by reference: they must outlive j). 0, or
 * -EINVAL when the file is not a jitdump at all (bad header); a fault later
 * is only noted in bad/bad_off/bad_msg. */
int jitdump_parse(struct jitdump *j, const uint8_t *p, size_t n);
/* Whether path names a JIT's marker mapping, jit-PID.dump (perf's
 * jit_detect): the process that maps it writes that dump. */
bool jitdump_is_marker(const char *path);
/* Map the file at path and parse it; 0, -errno, or -EINVAL as above. */
int jitdump_open(struct jitdump *j, const char *path);
void jitdump_release(struct jitdump *j);

/* The function that covered avma at time (UINT64_MAX: the last one that
 * did), or NULL. When none was loaded before time, the first loaded after
 * it (a sample a little ahead of its record). */
const struct jitdump_fn *jitdump_find(const struct jitdump *j, uint64_t avma, uint64_t time);
/* The source line of avma in f (the last entry at or below it): false when
 * f has none. */
bool jitdump_line(const struct jitdump *j, const struct jitdump_fn *f, uint64_t avma,
		  const char **file, uint32_t *line);

#endif
