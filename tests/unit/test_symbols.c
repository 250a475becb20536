/* test_symbols.c: the DSO cache (src/analyze/symbols/symbols.c): kallsyms and perf
 * maps found and loaded through it, ELF symbols and DWARF names of this very
 * binary. The parsers and the table shape have their own tests
 * (test_kallsyms.c, test_perfmap.c, test_symtab.c). */
#include "analyze/dwarf/inlines.h"
#include "analyze/symbols/symbols.h"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char *write_tmp(const char *dir, const char *name, const char *text)
{
	static char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
	return path;
}

TEST(symbols_kallsyms_aliases_and_modules)
{
	char dir[] = "/tmp/scorch-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	const char *p = write_tmp(dir, "kallsyms",
				  "ffffffff81000000 T _stext\n"
				  "ffffffff81000100 T __ia32_sys_x\n"
				  "ffffffff81000100 T __x64_sys_x\n"
				  "ffffffff81000200 W weak_fn\n"
				  "ffffffff81000200 t local_fn\n"
				  "ffffffff81000300 T last_text\n"
				  "ffffffffc0000000 t mod_fn\t[mymod]\n"
				  "ffffffffc0000040 t mod_fn2\t[mymod]\n");
	/* parsed (and the cache image stored); then from the image, which is
	 * patched in between to show it is the one read; then parsed again
	 * after the source changed */
	char xdg[PATH_MAX];
	snprintf(xdg, sizeof xdg, "%s/xdg", dir);
	const char *old = cachedir_config()->xdg_cache_home;
	char *saved = old ? strdup(old) : NULL;
	test_cache_config(xdg, false);
	for (int pass = 0; pass < 3; pass++) {
		struct symbols_config c = { .kallsyms = p, .buildid_dir = dir };
		struct symbols *s = symbols_new(&c);
		/* same address: perf gives the size to the last one, which then wins */
		CHECK_STR(symbols_kernel_find(s, 0xffffffff81000105ULL)->name, "__x64_sys_x");
		CHECK_STR(symbols_kernel_find(s, 0xffffffff81000200ULL)->name, "local_fn");
		/* the last vmlinux symbol ends at the next page boundary + a page */
		CHECK_STR(symbols_kernel_find(s, 0xffffffff81001fffULL)->name, "last_text");
		CHECK(symbols_kernel_find(s, 0xffffffff81002000ULL) == NULL);
		CHECK(symbols_kernel_find(s, 0xffffffff80000000ULL) == NULL);
		const struct sym *m = symbols_kernel_find(s, 0xffffffffc0000010ULL);
		CHECK_STR(m->name, pass == 1 ? "MOD_FN" : "mod_fn");
		CHECK(symbols_kernel_find(s, 0xffffffffc0000011ULL) == m);
		CHECK_EQ(m->start, 0xffffffffc0000000ULL);
		CHECK_EQ(m->end, 0xffffffffc0000040ULL);
		CHECK_STR(symbols_kernel_module(s, m), "[mymod]");
		CHECK(symbols_kernel_module(s, symbols_kernel_find(s, 0xffffffff81000000ULL)) == NULL);
		/* the lookup remembered by address answers as the two calls do,
		 * the first time and again (addresses in and around both ranges,
		 * more than its table has entries, so some take another's slot) */
		int mods = 0;
		for (int round = 0; round < 2; round++) {
			for (uint64_t a = 0xffffffff80ffe000ULL; a < 0xffffffff81003000ULL; a += 0x8) {
				uint64_t b = a - 0xffffffff80ffe000ULL + 0xffffffffbffff000ULL;
				for (int k = 0; k < 2; k++) {
					uint64_t x = k ? b : a;
					const char *mod = "unset";
					const struct sym *y = symbols_kernel_lookup(s, x, &mod);
					const struct sym *want = symbols_kernel_find(s, x);
					const char *wmod = want ? symbols_kernel_module(s, want) : NULL;
					CHECK(y == want);
					CHECK(mod == wmod || (mod && wmod && !strcmp(mod, wmod)));
					mods += mod != NULL;
				}
			}
		}
		CHECK(mods > 0);
		symbols_free(s);
		/* the one image */
		char img[PATH_MAX + 64];
		snprintf(img, sizeof img, "%s/scorch/kallsyms-v1", xdg);
		DIR *d = opendir(img);
		CHECK(d != NULL);
		struct dirent *de;
		int n = 0;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.') {
				n++;
				snprintf(img + strlen(img), 64, "/%.40s", de->d_name);
			}
		if (d)
			closedir(d);
		CHECK_EQ(n, 1);
		if (pass == 0) {
			/* "mod_fn" -> "MOD_FN" in the image's names */
			FILE *f = fopen(img, "r+b");
			CHECK(f != NULL);
			char buf[4096];
			size_t got = fread(buf, 1, sizeof buf, f);
			char *at = memmem(buf, got, "mod_fn", 7);
			CHECK(at != NULL);
			fseek(f, at - buf, SEEK_SET);
			fwrite("MOD_FN", 1, 6, f);
			fclose(f);
		} else if (pass == 1) {
			/* the source changes: its mtime is 1 s later */
			struct stat st;
			CHECK(stat(p, &st) == 0);
			struct timespec ts[2] = { st.st_atim, st.st_mtim };
			ts[1].tv_sec += 1;
			CHECK(utimensat(AT_FDCWD, p, ts, 0) == 0);
		}
	}
	test_cache_config(saved, false);
	free(saved);
}

TEST(symbols_kallsyms_hidden)
{
	char dir[] = "/tmp/scorch-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	const char *p = write_tmp(dir, "kallsyms", "0000000000000000 T _stext\n0000000000000000 T foo\n");
	struct symbols_config c = { .kallsyms = p, .buildid_dir = dir };
	struct symbols *s = symbols_new(&c);
	CHECK(symbols_kernel_find(s, 0) == NULL);
	symbols_free(s);
}

TEST(symbols_perf_map)
{
	char dir[] = "/tmp/scorch-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char sub[PATH_MAX];
	snprintf(sub, sizeof sub, "%s/tmp", dir);
	CHECK(mkdir(sub, 0700) == 0);
	write_tmp(sub, "perf-4242.map",
		  "7f0000001000 10 jit_a\n7f0000001010 20 Lua::jit b\ngarbage line\n");
	struct symbols_config c = { .sysroot = dir, .buildid_dir = dir };
	struct symbols *s = symbols_new(&c);
	const struct symtab *t = symbols_perfmap(s, 4242);
	CHECK(t != NULL);
	CHECK_EQ(t->nr, 2);
	CHECK_STR(symtab_find(t, 0x7f0000001005ULL)->name, "jit_a");
	CHECK_STR(symtab_find(t, 0x7f000000102fULL)->name, "Lua::jit b");
	CHECK(symtab_find(t, 0x7f0000001030ULL) == NULL);
	CHECK(symbols_perfmap(s, 4243) == NULL);
	symbols_free(s);
}

/* A function of this binary to look up. */
__attribute__((noinline)) int unit_probe_function(int x)
{
	return x * 3 + 1;
}

/* rel (file offset) of an address of this process, from /proc/self/maps */
static bool self_rel(uint64_t addr, char *path, size_t n, uint64_t *rel)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	bool ok = false;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi, off;
		char perms[8], file[512] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &lo, &hi, perms, &off, file) < 4)
			continue;
		if (addr >= lo && addr < hi) {
			snprintf(path, n, "%s", file);
			*rel = addr - lo + off;
			ok = true;
			break;
		}
	}
	if (f)
		fclose(f);
	return ok;
}

TEST(symbols_elf_and_dwarf_of_self)
{
	char path[512];
	uint64_t rel;
	CHECK(self_rel((uint64_t)(uintptr_t)&unit_probe_function, path, sizeof path, &rel));
	struct symbols_config c = { .buildid_dir = "/nonexistent" };
	struct symbols *s = symbols_new(&c);
	struct dso *d = symbols_dso(s, symbols_intern(s, path), NULL, 0);
	CHECK(d != NULL && !d->missing);
	/* the same DSO object for the same file */
	CHECK(symbols_dso(s, symbols_intern(s, path), NULL, 0) == d);
	const struct sym *y = dso_find_sym(d, rel);
	CHECK(y != NULL);
	CHECK_STR(y->name, "unit_probe_function");
	CHECK_EQ(rel - y->start, 0);
	uint64_t svma;
	CHECK(dso_rel_to_svma(d, rel, &svma));
	const struct inline_entry *e;
	unsigned ne = dso_inlines(d, rel, &e);
	CHECK(ne >= 1);
	CHECK_STR(e[ne - 1].name, "unit_probe_function");
	CHECK(e[0].file && strstr(e[0].file, "test_symbols.c"));
	CHECK(e[0].line > 0);
	/* a missing file: found missing once, no symbols, no crash */
	struct dso *m = symbols_dso(s, symbols_intern(s, "/nonexistent/libgone.so"), NULL, 0);
	CHECK(m != NULL && m->missing);
	CHECK(dso_find_sym(m, 0x1000) == NULL);
	symbols_free(s);
}
