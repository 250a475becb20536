/*
 * fuzz_kallsyms.c: libFuzzer harness for the kallsyms parser (a file from
 * perf's build-id cache or --kallsyms is untrusted) and for the image of
 * its parsed table that kscache.c keeps on disk (a file under the user's
 * cache directory, also untrusted).
 *
 * Text input: read through fmemopen, as symbols.c reads the real file
 * through fopen; every symbol is looked up by its start and its end - 1
 * and its module name formatted, checking the table's invariants. Then the
 * table's image is made and read back (kscache_image, kscache_parse), and
 * every lookup through the image must give what the parsed table gives:
 * the same symbol (start, end, name) and the same module.
 *
 * Input starting with the image magic ("SCKSYMS1"): read as an image for
 * the identity its header names; when it is accepted, lookups at the
 * addresses its entries hold (and next to them) must not crash.
 *
 * A DSO's symbol table has an image of its own (symcache.c, also under the
 * cache directory): every parsed kallsyms table is also written as one and
 * read back (symcache_image, symcache_parse), and lookups through it must
 * give the same symbols; input starting with its magic ("SCSYMTB1") is
 * read as such an image, and lookups in an accepted one must not crash.
 *
 * A DSO's demangled names kept across runs (namecache.c): input starting
 * with "SCNAMES1" is lines, each a name; their entry is made, must be
 * taken back with every name found by its line, then is changed with the
 * input's bytes and read again: refused, or every name found inside it.
 */
#include "analyze/kernel/kallsyms.h"
#include "analyze/cache/kscache.h"
#include "analyze/cache/namecache.h"
#include "util/hash.h"
#include "analyze/cache/symcache.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void same_sym(const struct sym *a, const struct sym *b)
{
	if (!a != !b)
		abort();
	if (a && (a->start != b->start || a->end != b->end || strcmp(a->name, b->name)))
		abort();
}

static void same_mod(const char *a, const char *b)
{
	if (!a != !b || (a && strcmp(a, b)))
		abort();
}

static volatile size_t sink;

static void image_input(const uint8_t *data, size_t size)
{
	struct cacheimg_id id;
	if (size < 8 + sizeof id)
		return;
	memcpy(&id, data + 8, sizeof id);
	/* an aligned copy, as the mapping is */
	uint8_t *p = malloc(size);
	if (!p)
		return;
	memcpy(p, data, size);
	struct kallsyms k;
	struct arena a;
	arena_init(&a);
	if (kscache_parse(&k, p, size, &id) == 0) {
		size_t n = kallsyms_count(&k);
		for (size_t i = 0; i < n && i < 4096; i++) {
			uint64_t s, e;
			memcpy(&s, k.img.start + 8 * i, 8);
			memcpy(&e, k.img.end + 8 * i, 8);
			uint64_t probe[4] = { s, s - 1, e, e - 1 };
			for (int j = 0; j < 4; j++) {
				const struct sym *y = kallsyms_find(&k, probe[j]);
				if (y && (y->start > probe[j] || probe[j] >= y->end))
					abort();
				if (y)
					sink += strlen(y->name);
				kallsyms_module(&k, y, &a);
			}
		}
		kallsyms_release(&k);
	}
	arena_release(&a);
	free(p);
}

static void symtab_image_input(const uint8_t *data, size_t size)
{
	struct symcache_id id;
	if (size < 8 + sizeof id)
		return;
	memcpy(&id, data + 8, sizeof id);
	uint8_t *p = malloc(size);
	if (!p)
		return;
	memcpy(p, data, size);
	struct symtab t;
	if (symcache_parse(&t, p, size, &id) == 0) {
		for (size_t i = 0; i < t.nr && i < 4096; i++) {
			uint64_t probe[4] = { t.syms[i].start, t.syms[i].start - 1, t.syms[i].end,
					      t.syms[i].end - 1 };
			for (int j = 0; j < 4; j++) {
				const struct sym *y = symtab_find(&t, probe[j]);
				if (y && (y->start > probe[j] || probe[j] >= y->end))
					abort();
				if (y)
					sink += strlen(y->name);
			}
		}
		symtab_release(&t);
	}
	free(p);
}

/* The DSO table image of t gives the same lookups as t. */
static void symtab_roundtrip(const struct symtab *t, size_t size)
{
	struct symcache_id id = { .bin = { .dev = 1, .ino = 2, .size = size }, .version = 1 };
	size_t isize;
	uint8_t *img = symcache_image(t, &id, &isize);
	struct symtab c;
	if (t->nr && (!img || symcache_parse(&c, img, isize, &id)))
		abort();
	if (!img)
		return;
	struct symcache_id other = id;
	other.dbg.ino = 3;
	struct symtab d;
	if (symcache_parse(&d, img, isize, &other) == 0 || symcache_parse(&d, img, isize - 1, &id) == 0)
		abort(); /* another identity, a cut image: refused */
	for (size_t i = 0; i < t->nr; i++) {
		const struct sym *y = &t->syms[i];
		uint64_t probe[4] = { y->start, y->start - 1, y->end, y->end - 1 };
		for (int j = 0; j < 4; j++)
			same_sym(symtab_find(t, probe[j]), symtab_find(&c, probe[j]));
	}
	symtab_release(&c);
	free(img);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void names_input(const uint8_t *data, size_t size)
{
	/* the lines (NUL-free), by hash, hashes unique */
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	size_t cap = 1, n = 0;
	for (size_t i = 0; i < size; i++)
		cap += text[i] == '\n';
	uint64_t *pairs = malloc(cap * 2 * sizeof *pairs); /* hash, line start */
	for (char *line = text, *end; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = 0;
		pairs[2 * n] = hash_bytes(line, strlen(line));
		pairs[2 * n + 1] = (uint64_t)(line - text);
		n++;
	}
	qsort(pairs, n, 2 * sizeof *pairs, u64_cmp);
	uint64_t *hs = malloc((n + 1) * sizeof *hs);
	const char **names = malloc((n + 1) * sizeof *names);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!m || hs[m - 1] != pairs[2 * i]) {
			hs[m] = pairs[2 * i];
			names[m++] = text + pairs[2 * i + 1];
		}
	size_t esize;
	uint8_t *e = namecache_entry(m, hs, names, &esize);
	if (e) {
		struct namecache *c = namecache_over(e, esize);
		if (!c)
			abort();
		for (size_t i = 0; i < m; i++) {
			const char *got = namecache_find(c, names[i]);
			if (!got || strcmp(got, names[i]))
				abort();
		}
		namecache_close(c);
		for (size_t k = 8; k < size && k < 72; k++)
			e[((size_t)data[k] * 131 + k) % esize] ^= data[k] | 1;
		c = namecache_over(e, esize);
		if (c) {
			for (size_t i = 0; i < m; i++) {
				const char *got = namecache_find(c, names[i]);
				if (got && ((const uint8_t *)got < e ||
					    (const uint8_t *)got + strlen(got) >= e + esize))
					abort();
			}
			namecache_close(c);
		}
		free(e);
	}
	free(names);
	free(hs);
	free(pairs);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (size >= 8 && !memcmp(data, "SCKSYMS1", 8)) {
		image_input(data, size);
		return 0;
	}
	if (size >= 8 && !memcmp(data, "SCSYMTB1", 8)) {
		symtab_image_input(data, size);
		return 0;
	}
	if (size >= 8 && !memcmp(data, "SCNAMES1", 8)) {
		names_input(data + 8, size - 8);
		return 0;
	}
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct arena a;
	arena_init(&a);
	struct kallsyms k;
	int rc = kallsyms_read(&k, f, &a);
	fclose(f);
	if (rc == 0) {
		for (size_t i = 0; i < k.t.nr; i++) {
			const struct sym *y = &k.t.syms[i];
			if (i && y->start <= k.t.syms[i - 1].start)
				abort(); /* sorted, aliases removed */
			if (y->end > y->start) {
				if (!symtab_find(&k.t, y->start))
					abort();
				symtab_find(&k.t, y->end - 1);
			}
			kallsyms_module(&k, y, &a);
		}
		symtab_roundtrip(&k.t, size);
		/* the image gives the same answers */
		struct cacheimg_id id = { .dev = 1, .ino = 2, .size = size };
		size_t isize;
		uint8_t *img = kscache_image(&k, &id, &isize);
		struct kallsyms c;
		if (k.t.nr && (!img || kscache_parse(&c, img, isize, &id)))
			abort();
		for (size_t i = 0; img && i < k.t.nr; i++) {
			const struct sym *y = &k.t.syms[i];
			uint64_t probe[4] = { y->start, y->start - 1, y->end, y->end - 1 };
			for (int j = 0; j < 4; j++) {
				const struct sym *p = kallsyms_find(&k, probe[j]), *q = kallsyms_find(&c, probe[j]);
				same_sym(p, q);
				same_mod(kallsyms_module(&k, p, &a), kallsyms_module(&c, q, &a));
			}
		}
		if (img) {
			kallsyms_release(&c);
			free(img);
		}
	} else if (k.t.nr) {
		abort(); /* hidden: nothing loaded */
	}
	kallsyms_release(&k);
	arena_release(&a);
	return 0;
}
