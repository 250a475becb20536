/* tpinfo.c: tracing data from tracefs; see tpinfo.h. */
#include "record/tpinfo.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	for (size_t i = 0; i < 2; i++) {
		char p[128];
		struct stat st;
		snprintf(p, sizeof(p), "%s/events/header_page", roots[i]);
		if (stat(p, &st) == 0)
			return roots[i];
	}
	return NULL;
}

/* Append the file's bytes preceded by its size in hdr (4 or 8) bytes. A
 * missing file is recorded as empty. */
static int put_file(struct buf *out, const char *path, size_t hdr)
{
	size_t at = out->len;
	uint64_t zero = 0;
	int rc = buf_append(out, &zero, hdr);
	if (rc)
		return rc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint64_t size = 0;
	for (;;) {
		if ((rc = buf_reserve(out, 65536)))
			break;
		ssize_t r = read(fd, out->data + out->len, 65536);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				rc = -errno;
			break;
		}
		out->len += (size_t)r;
		size += (uint64_t)r;
	}
	close(fd);
	if (hdr == 4) {
		uint32_t s32 = (uint32_t)size;
		memcpy(out->data + at, &s32, 4);
	} else {
		memcpy(out->data + at, &size, 8);
	}
	return rc;
}

int tpinfo_build(struct buf *out, const char *const *names, size_t n, struct err *e)
{
	const char *root = tracefs_root();
	if (!root)
		return err_set(e, -ENOENT, "tracepoints need tracefs (/sys/kernel/tracing)");
	char path[512];
	static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t endian = 0, lsize = (uint8_t)sizeof(long);
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE), zero32 = 0;
	int rc = buf_append(out, magic, sizeof(magic));
	if (!rc)
		rc = buf_append(out, "0.6", 4);
	if (!rc)
		rc = buf_append(out, &endian, 1);
	if (!rc)
		rc = buf_append(out, &lsize, 1);
	if (!rc)
		rc = buf_append(out, &page, 4);
	if (!rc)
		rc = buf_append(out, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if (!rc)
		rc = put_file(out, path, 8);
	if (!rc)
		rc = buf_append(out, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", root);
	if (!rc)
		rc = put_file(out, path, 8);
	if (!rc) /* no ftrace-internal formats */
		rc = buf_append(out, &zero32, 4);

	/* systems in first-seen order, each with its events */
	uint32_t nsys = 0;
	char sys[64][64];
	for (size_t i = 0; i < n; i++) {
		size_t l = strcspn(names[i], ":");
		bool seen = false;
		for (uint32_t s = 0; s < nsys; s++)
			if (strlen(sys[s]) == l && !strncmp(sys[s], names[i], l))
				seen = true;
		if (!seen && nsys < 64 && l < 64)
			snprintf(sys[nsys++], 64, "%.*s", (int)l, names[i]);
	}
	if (!rc)
		rc = buf_append(out, &nsys, 4);
	for (uint32_t s = 0; s < nsys && !rc; s++) {
		rc = buf_append(out, sys[s], strlen(sys[s]) + 1);
		uint32_t cnt = 0;
		for (size_t i = 0; i < n; i++)
			if (!strncmp(names[i], sys[s], strlen(sys[s])) && names[i][strlen(sys[s])] == ':')
				cnt++;
		if (!rc)
			rc = buf_append(out, &cnt, 4);
		for (size_t i = 0; i < n && !rc; i++) {
			if (strncmp(names[i], sys[s], strlen(sys[s])) || names[i][strlen(sys[s])] != ':')
				continue;
			char ev[128];
			snprintf(ev, sizeof(ev), "%s", names[i] + strlen(sys[s]) + 1);
			ev[strcspn(ev, ":")] = 0;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, sys[s], ev);
			rc = put_file(out, path, 8);
		}
	}
	if (!rc) /* kallsyms: empty, as perf writes it */
		rc = buf_append(out, &zero32, 4);
	snprintf(path, sizeof(path), "%s/printk_formats", root);
	if (!rc)
		rc = put_file(out, path, 4);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", root);
	if (!rc)
		rc = put_file(out, path, 8);
	if (rc)
		return err_set(e, rc, "reading tracing data: %s", strerror(-rc));
	return 0;
}
