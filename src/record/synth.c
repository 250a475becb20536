/* synth.c: /proc and /sys -> COMM, MMAP, MMAP2 records; see synth.h. */
#include "record/synth.h"
#include "perf/perf_format.h"
#include <linux/perf_event.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>

static int put_trailer(struct buf *out, pid_t pid, pid_t tid, uint64_t id)
{
	uint32_t pt[2] = { (uint32_t)pid, (uint32_t)tid };
	uint64_t time = 0, cpu = 0;
	int rc = buf_append(out, pt, 8);
	if (!rc)
		rc = buf_append(out, &time, 8);
	if (!rc)
		rc = buf_append(out, &cpu, 8);
	if (!rc)
		rc = buf_append(out, &id, 8);
	return rc;
}

/* NUL-terminated string padded to a multiple of 8. */
static int put_str8(struct buf *out, const char *s)
{
	size_t n = strlen(s) + 1, pad = (n + 7) & ~(size_t)7;
	int rc = buf_reserve(out, pad);
	if (rc)
		return rc;
	memset(out->data + out->len, 0, pad);
	memcpy(out->data + out->len, s, n);
	out->len += pad;
	return 0;
}

/* One record: header (type, misc; its size set at the end), pid and
 * tid, the fixed fields (blen bytes), a name (padded to 8) and the
 * sample_id trailer. */
static int put_record(struct buf *out, uint32_t type, uint16_t misc, pid_t pid, pid_t tid,
		      const void *body, size_t blen, const char *name, uint64_t id)
{
	size_t at = out->len;
	struct perf_event_header h = { type, misc, 0 };
	uint32_t pt[2] = { (uint32_t)pid, (uint32_t)tid };
	int rc = buf_append(out, &h, 8);
	if (!rc)
		rc = buf_append(out, pt, 8);
	if (!rc && blen)
		rc = buf_append(out, body, blen);
	if (!rc)
		rc = put_str8(out, name);
	if (!rc)
		rc = put_trailer(out, pid, tid, id);
	if (!rc)
		((struct perf_event_header *)(void *)(out->data + at))->size = (uint16_t)(out->len - at);
	return rc;
}

static int put_mmap(struct buf *out, uint16_t misc, pid_t pid, pid_t tid, uint64_t start,
		    uint64_t len, uint64_t pgoff, const char *name, uint64_t id)
{
	uint64_t v[3] = { start, len, pgoff };
	return put_record(out, PERF_RECORD_MMAP, misc, pid, tid, v, sizeof v, name, id);
}

int synth_comm(struct buf *out, pid_t pid, pid_t tid, const char *comm, uint64_t id)
{
	char c[16]; /* the kernel's TASK_COMM_LEN */
	size_t n = strnlen(comm, sizeof c - 1);
	memcpy(c, comm, n);
	c[n] = 0;
	return put_record(out, PERF_RECORD_COMM, 0, pid, tid, NULL, 0, c, id);
}

/* Length of the kernel's text from /proc/iomem ("Kernel code" spans _text
 * to _etext physically); 0 when hidden (not root) or absent. */
static uint64_t kernel_code_len(void)
{
	FILE *fp = fopen("/proc/iomem", "r");
	if (!fp)
		return 0;
	char line[256];
	uint64_t len = 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long a, b;
		if (strstr(line, ": Kernel code") && sscanf(line, " %llx-%llx", &a, &b) == 2 && b > a) {
			len = b - a + 1;
			break;
		}
	}
	fclose(fp);
	return len;
}

int synth_kernel(struct buf *out, uint64_t id)
{
	FILE *fp = fopen("/proc/kallsyms", "r");
	if (!fp)
		return 0;
	/* _text is near the start of kallsyms, _etext near the end of its
	 * megabytes (~0.1 s to read): take the length from /proc/iomem when
	 * it is visible and stop reading early */
	uint64_t code_len = kernel_code_len();
	char line[512];
	uint64_t text = 0, etext = 0, stext = 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long a;
		char t, name[256];
		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		else if (!strcmp(name, "_stext"))
			stext = a;
		else if (!strcmp(name, "_etext"))
			etext = a;
		if (text && stext && (etext || code_len))
			break;
	}
	fclose(fp);
	if (!text)
		text = stext;
	if (!text) /* kptr_restrict hides addresses: nothing to say */
		return 0;
	uint64_t len = etext > text ? etext - text : code_len ? code_len : ~0ULL - text;
	return put_mmap(out, PERF_RECORD_MISC_KERNEL, -1, 0, text, len, text,
			"[kernel.kallsyms]_text", id);
}

/* Path of module name under /lib/modules/RELEASE from modules.dep, or
 * "[name]" as perf writes when it cannot find the file. */
static void module_path(const char *name, char *out, size_t n)
{
	struct utsname u;
	snprintf(out, n, "[%s]", name);
	if (uname(&u))
		return;
	char dep[512], line[1024];
	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", u.release);
	FILE *fp = fopen(dep, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		const char *base = strrchr(line, '/');
		base = base ? base + 1 : line;
		size_t bl = strcspn(base, ".");
		/* module names use '_' where file names may use '-' */
		if (bl != strlen(name))
			continue;
		bool same = true;
		for (size_t i = 0; i < bl && same; i++) {
			char a = base[i] == '-' ? '_' : base[i], b = name[i] == '-' ? '_' : name[i];
			same = a == b;
		}
		if (same) {
			if ((size_t)snprintf(out, n, "/lib/modules/%.*s/%.*s", 200, u.release, 900, line) >= n)
				snprintf(out, n, "[%s]", name);
			break;
		}
	}
	fclose(fp);
}

int synth_modules(struct buf *out, uint64_t id)
{
	FILE *fp = fopen("/proc/modules", "r");
	if (!fp)
		return 0;
	char line[1024];
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), fp)) {
		char name[256];
		unsigned long long size, addr;
		char *at = strstr(line, " 0x");
		if (sscanf(line, "%255s %llu", name, &size) != 2 || !at ||
		    sscanf(at, " %llx", &addr) != 1 || !addr)
			continue;
		char path[1600];
		module_path(name, path, sizeof(path));
		rc = put_mmap(out, PERF_RECORD_MISC_KERNEL, -1, 0, addr, size, 0, path, id);
	}
	fclose(fp);
	return rc;
}

static int read_comm(pid_t pid, pid_t tid, char *out, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -errno;
	char *r = fgets(out, (int)n, fp);
	fclose(fp);
	if (!r)
		return -EIO;
	out[strcspn(out, "\n")] = 0;
	return 0;
}

static int synth_maps(struct buf *out, pid_t pid, bool data, uint64_t id)
{
	char path[64], line[4096 + 256];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int consumed = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
			   &min, &ino, &consumed) < 7)
			continue;
		char *name = line + consumed;
		name[strcspn(name, "\n")] = 0;
		bool exec = perms[2] == 'x';
		if (!exec && (!data || name[0] != '/'))
			continue;
		if (!*name)
			name = "//anon";
		uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
				(exec ? PROT_EXEC : 0);
		uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		struct {
			uint64_t start, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
		} b = { start, end - start, pgoff, maj, min, ino, 0, prot, flags };
		_Static_assert(sizeof b == 56, "MMAP2's fixed fields");
		rc = put_record(out, PERF_RECORD_MMAP2,
				PERF_RECORD_MISC_USER | (exec ? 0 : PERF_RECORD_MISC_MMAP_DATA), pid, pid,
				&b, sizeof b, name, id);
	}
	fclose(fp);
	return rc;
}

int synth_process(struct buf *out, pid_t pid, pid_t tid, bool maps, bool data, uint64_t id)
{
	char comm[64];
	int rc = 0;
	if (tid > 0) {
		if (read_comm(pid, tid, comm, sizeof(comm)) == 0)
			rc = synth_comm(out, pid, tid, comm, id);
	} else {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		DIR *d = opendir(path);
		if (!d)
			return 0;
		/* the main thread first, so a reader learns the process's name */
		if (read_comm(pid, pid, comm, sizeof(comm)) == 0)
			rc = synth_comm(out, pid, pid, comm, id);
		struct dirent *de;
		while (!rc && (de = readdir(d))) {
			pid_t t = (pid_t)atoi(de->d_name);
			if (t <= 0 || t == pid)
				continue;
			if (read_comm(pid, t, comm, sizeof(comm)) == 0)
				rc = synth_comm(out, pid, t, comm, id);
		}
		closedir(d);
	}
	if (!rc && maps)
		rc = synth_maps(out, pid, data, id);
	return rc;
}

int synth_all(struct buf *out, bool data, uint64_t id)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		rc = synth_process(out, (pid_t)atoi(de->d_name), 0, true, data, id);
	}
	closedir(d);
	return rc;
}
