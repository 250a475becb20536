/* test_kident.c: the running-kernel decision (kident.c) on made-up notes,
 * kallsyms and releases. */
#include "test.h"
#include "analyze/kernel/kident.h"
#include <stdint.h>
#include <unistd.h>

/* one ELF note: namesz, descsz, type, name, desc (each padded to 4) */
static size_t note(uint8_t *p, const char *name, uint32_t type, const uint8_t *desc, uint32_t dn)
{
	uint32_t nn = (uint32_t)strlen(name) + 1;
	memcpy(p, &nn, 4);
	memcpy(p + 4, &dn, 4);
	memcpy(p + 8, &type, 4);
	memset(p + 12, 0, ((nn + 3) & ~3u) + ((dn + 3) & ~3u));
	memcpy(p + 12, name, nn);
	memcpy(p + 12 + ((nn + 3) & ~3u), desc, dn);
	return 12 + ((nn + 3) & ~3u) + ((dn + 3) & ~3u);
}

static const uint8_t ID[20] = { 0x85, 0xc7, 0xe4, 0xe2, 0xed, 0x76, 0xf4, 0x41, 0x7e, 0x8a,
				0xaa, 0xd7, 0xc6, 0xb0, 0x40, 0xd2, 0xbb, 0x89, 0x7a, 0x26 };

TEST(kident_notes_build_id)
{
	uint8_t b[256], id[20];
	size_t n = note(b, "Linux", 6, (const uint8_t *)"\1\1\0\0", 4);
	n += note(b + n, "GNU", 3, ID, 20);
	size_t idn = 0;
	CHECK_EQ(kident_notes_build_id(b, n, id, &idn), 0);
	CHECK_EQ(idn, 20);
	CHECK(!memcmp(id, ID, 20));
	/* every truncation is refused or finds nothing, never reads past */
	for (size_t k = 0; k < n; k++) {
		uint8_t *c = malloc(k ? k : 1);
		memcpy(c, b, k);
		CHECK(kident_notes_build_id(c, k, id, &idn) == -1);
		free(c);
	}
	/* a huge namesz */
	uint32_t big = 0xfffffff0u;
	memcpy(b, &big, 4);
	CHECK(kident_notes_build_id(b, n, id, &idn) == -1);
}

static char *tmpfile_with(const void *p, size_t n)
{
	char *path = strdup("/tmp/scorch-kident-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, p, n) == (ssize_t)n);
	close(fd);
	return path;
}

TEST(kident_decides)
{
	uint8_t b[64];
	size_t n = note(b, "GNU", 3, ID, 20);
	char *notes = tmpfile_with(b, n);
	const char *ks_text = "ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff81001000 t foo\n";
	char *ks = tmpfile_with(ks_text, strlen(ks_text));
	struct kident_paths paths = { notes, ks, "6.1.0-test" };
	char why[300];
	struct kident_evidence ev = { 0 };
	/* nothing known: as perf, the running kernel's symbols */
	CHECK(kident_same(&ev, &paths, why, sizeof why));
	/* the build id decides when there is one */
	ev.build_id = ID;
	ev.build_id_size = 20;
	ev.osrelease = "3.4.0"; /* not looked at with a build id */
	CHECK(kident_same(&ev, &paths, why, sizeof why));
	uint8_t other[20];
	memcpy(other, ID, 20);
	other[3] ^= 1;
	ev.build_id = other;
	CHECK(!kident_same(&ev, &paths, why, sizeof why));
	CHECK(strstr(why, "build id") != NULL);
	/* without one: release, module paths, the reference symbol */
	memset(&ev, 0, sizeof ev);
	ev.osrelease = "3.4.0";
	CHECK(!kident_same(&ev, &paths, why, sizeof why));
	ev.osrelease = "6.1.0-test";
	CHECK(kident_same(&ev, &paths, why, sizeof why));
	ev.module_path = "/lib/modules/3.4.0/kernel/drivers/input/joydev.ko";
	CHECK(!kident_same(&ev, &paths, why, sizeof why));
	ev.module_path = "/lib/modules/6.1.0-test/kernel/drivers/input/joydev.ko";
	CHECK(kident_same(&ev, &paths, why, sizeof why));
	ev.ref_name = "_stext";
	ev.ref_addr = 0xffffffff81000190ull;
	CHECK(!kident_same(&ev, &paths, why, sizeof why));
	ev.ref_addr = 0xffffffff81000000ull;
	CHECK(kident_same(&ev, &paths, why, sizeof why));
	unlink(notes);
	unlink(ks);
	free(notes);
	free(ks);
}
