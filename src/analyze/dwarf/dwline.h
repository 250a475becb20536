/*
 * dwline.h: a CU's DWARF line table (.debug_line, versions 2 to 5), decoded
 * by scorch instead of libdw.
 *
 * Why: libdw's dwarf_getsrclines (elfutils 0.188) allocates every row
 * separately and sorts them with qsort on the first lookup in a CU, and
 * dwarf_getsrcfiles runs all of it too; on a Python profile that was half
 * of the analysis. Here a table is one array, built by concatenating the
 * sequences in address order (a full sort only when they overlap).
 *
 * The answers are libdw's, by construction and by test (tests/unit and
 * its comparison with libdw, tests/unit/test_dwline.c): the same rows, the
 * same order (address, end_sequence first, then table order), the same
 * lookup (the last row at or below the address, none if it ends a
 * sequence), the same file names (absolute names as written, else the
 * directory, "/", the name; directory 0 of DWARF < 5 is DW_AT_comp_dir).
 * Whatever libdw would reject, or this decoder does not know (a form,
 * vendor opcodes, a compressed section, big-endian), makes dwline_open
 * return NULL: the caller then asks libdw, which gives its own answer.
 */
#ifndef SCORCH_DWLINE_H
#define SCORCH_DWLINE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dwline_row {
	uint64_t addr;
	int32_t line;
	uint32_t file;
	uint16_t column;
	uint8_t end_sequence;
	uint32_t idx;            /* position in the line program */
};

struct dwline {
	struct dwline_row *rows; /* dwline_open_full: sorted as libdw sorts them */
	size_t nrows;            /* of the table, kept or not */
	char **files;            /* libdw's Dwarf_Files order, each made (joined)
				  * when dwline_file first asks for it: read
				  * them through dwline_file */
	const char *(*fparts)[2]; /* each file's directory (or NULL) and name, in
				  * the sections (and comp_dir), for that */
	size_t nfiles;
	struct dwline_lazy *lazy; /* dwline_open: what finds rows without keeping them */
	bool scanned_full;        /* dwline_open found the rows must be sorted: all kept */
};

/* The sections a table reads (NULL/0 when absent). */
struct dwline_sections {
	const uint8_t *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
};

/* The sections of e (the ELF libdw reads: compressed ones are decompressed
 * in place, as libdw does) into sec; false when .debug_line is missing or
 * unreadable, or e is not little-endian. */
bool dwline_sections_of(Elf *e, struct dwline_sections *sec);
/* The table at offset off of .debug_line for a CU with this comp_dir (may
 * be NULL; it must outlive the table, as sec's bytes) and address size; NULL when libdw must decide. Rows are decoded
 * when asked for, a block at a time (rows stays NULL), unless the table's
 * sequences overlap: see dwline.c. */
struct dwline *dwline_open(const struct dwline_sections *sec, uint64_t off, const char *comp_dir,
			   unsigned address_size);
/* What dwline_open's scan found for t (its index), for a later run of the
 * same file to open the table without the scan: the index's size (8-byte
 * aligned), written to out (that many bytes) unless out is NULL; 0 when t
 * has none (a table from dwline_open_full, or whose program defines files).
 * The layout is this build's (host byte order, versioned). */
size_t dwline_index(const struct dwline *t, void *out);
/* dwline_open with idx (size bytes, 8-byte aligned, from dwline_index on
 * the same table of the same file; it must outlive the table) in place of
 * the scan; *used says whether it was (it is not when it does not check
 * against the table: then the table is scanned, as by dwline_open). The
 * answers are dwline_open's either way. */
struct dwline *dwline_open_indexed(const struct dwline_sections *sec, uint64_t off,
				   const char *comp_dir, unsigned address_size, const void *idx,
				   size_t size, bool *used);
/* The same table with every row decoded and kept in rows (tests, fuzzing). */
struct dwline *dwline_open_full(const struct dwline_sections *sec, uint64_t off,
				const char *comp_dir, unsigned address_size);
/* The row for addr (dwarf_getsrc_die's) into *out; false when none. Not
 * for two threads at once on one table (it keeps the last block). */
bool dwline_find(struct dwline *t, uint64_t addr, struct dwline_row *out);
/* File idx's name (dwarf_filesrc's), or NULL when out of range. Not for
 * two threads at once on one table (it makes the name on first use). */
const char *dwline_file(struct dwline *t, uint64_t idx);
void dwline_free(struct dwline *t);

#endif
