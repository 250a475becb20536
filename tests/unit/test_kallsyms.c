/* test_kallsyms.c: the /proc/kallsyms parser (src/analyze/kernel/kallsyms.c), from
 * a buffer: perf's alias and size rules, modules, hidden addresses, lines
 * that do not parse. */
#include "analyze/kernel/kallsyms.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *text, struct kallsyms *k, struct arena *a)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	CHECK(f != NULL);
	arena_init(a);
	int rc = kallsyms_read(k, f, a);
	fclose(f);
	return rc;
}

TEST(kallsyms_aliases_sizes_modules)
{
	struct kallsyms k;
	struct arena a;
	CHECK_EQ(parse("ffffffff81000100 T __ia32_sys_x\n"
		       "ffffffff81000000 T _stext\n"
		       "ffffffff81000100 T __x64_sys_x\n"
		       "ffffffff81000180 d data_sym\n"
		       "ffffffff810001c0 r rodata_skipped\n"
		       "ffffffff81000300 T last_text\n"
		       "ffffffffc0000000 t mod_fn\t[mymod]\n",
		       &k, &a), 0);
	CHECK_EQ(k.t.nr, 5);
	/* sorted; the last alias wins (it alone got a size) */
	CHECK_STR(symtab_find(&k.t, 0xffffffff81000105ULL)->name, "__x64_sys_x");
	CHECK_STR(symtab_find(&k.t, 0xffffffff810001c0ULL)->name, "data_sym");
	/* vmlinux meets a module: the next page after start + 4096 */
	const struct sym *l = symtab_find(&k.t, 0xffffffff81000300ULL);
	CHECK_EQ(l->end, 0xffffffff81002000ULL);
	const struct sym *m = symtab_find(&k.t, 0xffffffffc0000010ULL);
	CHECK_STR(kallsyms_module(&k, m, &a), "[mymod]");
	CHECK(kallsyms_module(&k, l, &a) == NULL);
	/* the last symbol ends at its page's end */
	CHECK_EQ(m->end, 0xffffffffc0001000ULL);
	kallsyms_release(&k);
	arena_release(&a);
}

TEST(kallsyms_hidden_and_garbage)
{
	struct kallsyms k;
	struct arena a;
	CHECK_EQ(parse("0000000000000000 T _stext\n0000000000000000 t foo\n", &k, &a), KALLSYMS_HIDDEN);
	CHECK_EQ(k.t.nr, 0);
	kallsyms_release(&k);
	arena_release(&a);
	CHECK_EQ(parse("", &k, &a), KALLSYMS_HIDDEN);
	kallsyms_release(&k);
	arena_release(&a);
	/* no address, no type, a type without its space, too short: skipped */
	CHECK_EQ(parse("zzz T nope\nffffffff81000000\nffffffff81000000 Tx\n"
		       "ffffffff81000000 T\nffffffff81000010 t ok\n",
		       &k, &a), 0);
	CHECK_EQ(k.t.nr, 1);
	CHECK_STR(k.t.syms[0].name, "ok");
	kallsyms_release(&k);
	arena_release(&a);
}

/* Input already in address order (as /proc/kallsyms lists the kernel) is not
 * sorted again: the table must be the one the sorting path builds. */
TEST(kallsyms_in_order_same_table)
{
	const char *shuffled = "ffffffff81000100 T __ia32_sys_x\n"
			       "ffffffff81000000 T _stext\n"
			       "ffffffff81000100 T __x64_sys_x\n"
			       "ffffffff81000300 W weak_fn\n"
			       "ffffffffc0000000 t mod_fn\t[mymod]\n";
	const char *ordered = "ffffffff81000000 T _stext\n"
			      "ffffffff81000100 T __ia32_sys_x\n"
			      "ffffffff81000100 T __x64_sys_x\n"
			      "ffffffff81000300 W weak_fn\n"
			      "ffffffffc0000000 t mod_fn\t[mymod]\n"
			      "1ffffffff81000400 T too_long_address\n";
	struct kallsyms k1, k2;
	struct arena a1, a2;
	CHECK_EQ(parse(shuffled, &k1, &a1), 0);
	CHECK_EQ(parse(ordered, &k2, &a2), 0);
	CHECK_EQ(k1.t.nr, k2.t.nr);
	for (size_t i = 0; i < k1.t.nr && i < k2.t.nr; i++) {
		CHECK_EQ(k1.t.syms[i].start, k2.t.syms[i].start);
		CHECK_EQ(k1.t.syms[i].end, k2.t.syms[i].end);
		CHECK_STR(k1.t.syms[i].name, k2.t.syms[i].name);
	}
	CHECK_STR(symtab_find(&k2.t, 0xffffffff81000100ULL)->name, "__x64_sys_x");
	kallsyms_release(&k1);
	kallsyms_release(&k2);
	arena_release(&a1);
	arena_release(&a2);
}

/* A long line is one line (its name whole); a file larger than the read
 * window (64 KB) loses no line at the window's edges; a line longer than
 * the window is parsed in pieces, and the lines after it still parse. */
TEST(kallsyms_long_lines_and_big_file)
{
	size_t nlines = 40000, cap = nlines * 40 + 4096 + 100100;
	char *text = malloc(cap), *p = text;
	/* a 1048-byte line: one symbol */
	p += sprintf(p, "ffffffff80000000 T ");
	memset(p, 'n', 1004);
	p += 1004;
	p += sprintf(p, "ffffffff80000100 T piece\n");
	for (size_t i = 0; i < nlines; i++)
		p += sprintf(p, "%016llx T f%zu\n", 0xffffffff81000000ULL + i * 16, i);
	/* 100 KB line, then one more symbol */
	p += sprintf(p, "ffffffff90000000 T ");
	memset(p, 'x', 100000);
	p += 100000;
	p += sprintf(p, "\nffffffff90100000 T after_long\n");
	struct kallsyms k;
	struct arena a;
	CHECK_EQ(parse(text, &k, &a), 0);
	CHECK_EQ(k.t.nr, nlines + 3);
	CHECK_EQ(strlen(symtab_find(&k.t, 0xffffffff90000000ULL)->name), 65536 - 19);
	CHECK_STR(symtab_find(&k.t, 0xffffffff90100000ULL)->name, "after_long");
	CHECK_EQ(strlen(k.t.syms[0].name), 1004 + strlen("ffffffff80000100 T piece"));
	CHECK_STR(symtab_find(&k.t, 0xffffffff81000000ULL + 12345 * 16 + 3)->name, "f12345");
	CHECK_STR(symtab_find(&k.t, 0xffffffff81000000ULL + (nlines - 1) * 16)->name, "f39999");
	kallsyms_release(&k);
	arena_release(&a);
	free(text);
}

/* the 16-digit fast path (SWAR) against the digit-by-digit one: upper and
 * lower case, and every neighbour of a hex digit range ("/:@G`g") in each
 * position rejects the line, as the slow path does */
TEST(kallsyms_hex16_fast_path)
{
	struct kallsyms k;
	struct arena a;
	CHECK_EQ(parse("FFFFFFFF8100ABCD T up\nffffffff8100abd0 T low\n0123456789abcdef T mixed\n",
		       &k, &a), 0);
	CHECK_EQ(k.t.nr, 3);
	CHECK_EQ(k.t.syms[0].start, 0x0123456789abcdefULL);
	CHECK_STR(symtab_find(&k.t, 0xffffffff8100abcdULL)->name, "up");
	CHECK_STR(symtab_find(&k.t, 0xffffffff8100abd0ULL)->name, "low");
	kallsyms_release(&k);
	arena_release(&a);
	const char bad[] = "/:@G`g\x80";
	for (int pos = 0; pos < 16; pos++)
		for (const char *b = bad; *b; b++) {
			char text[64];
			snprintf(text, sizeof text, "ffffffff81000000 T ok\nffffffff81001000 T bad\n");
			text[22 + pos] = *b;
			CHECK_EQ(parse(text, &k, &a), 0);
			CHECK_EQ(k.t.nr, 1);
			CHECK_STR(k.t.syms[0].name, "ok");
			kallsyms_release(&k);
			arena_release(&a);
		}
}

/* modules are kept by number: interleaved lines of two modules, and the
 * last module before vmlinux in the file, each keep their own name */
TEST(kallsyms_module_numbers)
{
	struct kallsyms k;
	struct arena a;
	CHECK_EQ(parse("ffffffffc0000000 t a\t[m1]\n"
		       "ffffffffc0001000 t b\t[m2]\n"
		       "ffffffffc0002000 t c\t[m1]\n"
		       "ffffffff81000000 T _stext\n",
		       &k, &a), 0);
	CHECK_EQ(k.nr_mods, 2);
	CHECK_STR(kallsyms_module(&k, symtab_find(&k.t, 0xffffffffc0000000ULL), &a), "[m1]");
	CHECK_STR(kallsyms_module(&k, symtab_find(&k.t, 0xffffffffc0001000ULL), &a), "[m2]");
	CHECK_STR(kallsyms_module(&k, symtab_find(&k.t, 0xffffffffc0002000ULL), &a), "[m1]");
	CHECK(kallsyms_module(&k, symtab_find(&k.t, 0xffffffff81000000ULL), &a) == NULL);
	kallsyms_release(&k);
	arena_release(&a);
}
