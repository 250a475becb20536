/*
 * encode.c: perf.data writing (see encode.h for the layout). Every value comes
 * from the caller (the recorder probes the host: record/host.c); the
 * encodings follow perf's reader so that perf, hotspot-perfparser and our own
 * reader accept the file.
 */
#include "perf/encode.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_ALIGN 64

void perf_feats_init(struct perf_feats *f)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < HEADER_LAST_FEATURE; i++)
		buf_init(&f->sec[i], 64u << 20);
}

void perf_feats_release(struct perf_feats *f)
{
	for (unsigned i = 0; i < HEADER_LAST_FEATURE; i++)
		buf_release(&f->sec[i]);
	memset(f->bits, 0, sizeof(f->bits));
}

struct buf *perf_feats_begin(struct perf_feats *f, unsigned bit)
{
	f->bits[bit / 64] |= 1ULL << (bit % 64);
	f->sec[bit].len = 0;
	return &f->sec[bit];
}

void perf_feats_clear(struct perf_feats *f, unsigned bit)
{
	f->bits[bit / 64] &= ~(1ULL << (bit % 64));
	f->sec[bit].len = 0;
}

static int feat_has(const struct perf_feats *f, unsigned bit)
{
	return (f->bits[bit / 64] >> (bit % 64)) & 1;
}

int perf_enc_u32(struct buf *b, uint32_t v)
{
	return buf_append(b, &v, 4);
}

int perf_enc_u64(struct buf *b, uint64_t v)
{
	return buf_append(b, &v, 8);
}

int perf_enc_string(struct buf *b, const char *s)
{
	size_t olen = strlen(s) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	int rc = perf_enc_u32(b, (uint32_t)len);
	if (!rc)
		rc = buf_reserve(b, len);
	if (rc)
		return rc;
	memcpy(b->data + b->len, s, olen);
	memset(b->data + b->len + olen, 0, len - olen);
	b->len += len;
	return 0;
}

int perf_feats_add_event_desc(struct perf_feats *f, const struct perf_wattr *a, size_t n)
{
	struct buf *b = perf_feats_begin(f, HEADER_EVENT_DESC);
	int rc = perf_enc_u32(b, (uint32_t)n);
	if (!rc)
		rc = perf_enc_u32(b, (uint32_t)sizeof(struct perf_event_attr));
	for (size_t i = 0; i < n && !rc; i++) {
		rc = buf_append(b, &a[i].attr, sizeof(a[i].attr));
		if (!rc)
			rc = perf_enc_u32(b, (uint32_t)a[i].nr_ids);
		if (!rc)
			rc = perf_enc_string(b, a[i].name ? a[i].name : "");
		if (!rc)
			rc = buf_append(b, a[i].ids, a[i].nr_ids * 8);
	}
	return rc;
}

int perf_feats_add_sample_time(struct perf_feats *f, uint64_t first, uint64_t last)
{
	struct buf *b = perf_feats_begin(f, HEADER_SAMPLE_TIME);
	int rc = perf_enc_u64(b, first);
	return rc ? rc : perf_enc_u64(b, last);
}

/*
 * Build-id entry: struct perf_event_header (type 0 in the feature), s32 pid,
 * u8 build_id[20], u8 size, u8 pad[3], filename NUL-padded to 64 bytes.
 * misc carries PERF_RECORD_MISC_KERNEL/USER and PERF_RECORD_MISC_BUILD_ID_SIZE.
 */
int perf_enc_build_id(struct buf *b, uint32_t type, const struct perf_build_id *bid)
{
	size_t flen = strlen(bid->filename) + 1;
	size_t fpad = (flen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	size_t size = 8 + 4 + 24 + fpad;
	if (size > 0xffff)
		return -ENAMETOOLONG;
	struct perf_event_header h = { .type = type, .misc = bid->misc | (1 << 15), .size = (uint16_t)size };
	uint8_t id[24] = { 0 };
	memcpy(id, bid->id, bid->size > 20 ? 20 : bid->size);
	id[20] = bid->size;
	int rc = buf_reserve(b, size);
	if (rc)
		return rc;
	buf_append(b, &h, 8);
	buf_append(b, &bid->pid, 4);
	buf_append(b, id, 24);
	memset(b->data + b->len, 0, fpad);
	memcpy(b->data + b->len, bid->filename, flen);
	b->len += fpad;
	return 0;
}

int perf_feats_add_build_ids(struct perf_feats *f, const struct perf_build_id *bids, size_t n)
{
	if (!n) { /* perf leaves the bit out too; hotspot-perfparser warns about empty ones */
		perf_feats_clear(f, HEADER_BUILD_ID);
		return 0;
	}
	struct buf *b = perf_feats_begin(f, HEADER_BUILD_ID);
	for (size_t i = 0; i < n; i++) {
		int rc = perf_enc_build_id(b, 0, &bids[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int perf_feats_add_compressed(struct perf_feats *f, uint32_t level, uint32_t ratio,
			      uint32_t mmap_len)
{
	struct buf *b = perf_feats_begin(f, HEADER_COMPRESSED);
	uint32_t v[5] = { 0, PERF_COMP_ZSTD, level, ratio, mmap_len };
	return buf_append(b, v, sizeof(v));
}

uint64_t perf_file_data_offset(const struct perf_wattr *a, size_t n)
{
	uint64_t off = PERF_FILE_HEADER_SIZE;
	for (size_t i = 0; i < n; i++)
		off += a[i].nr_ids * 8 + sizeof(struct perf_event_attr) + sizeof(struct perf_file_section);
	return off;
}

int perf_pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t w = pwrite(fd, c, n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		c += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

int perf_file_write_header(int fd, const struct perf_wattr *a, size_t n, uint64_t data_size,
			   const uint64_t *feat_bits)
{
	struct buf b;
	buf_init(&b, 0);
	uint64_t ids_off = PERF_FILE_HEADER_SIZE, nids = 0;
	for (size_t i = 0; i < n; i++)
		nids += a[i].nr_ids;
	uint64_t attrs_off = ids_off + nids * 8;
	uint64_t entry = sizeof(struct perf_event_attr) + sizeof(struct perf_file_section);
	struct perf_file_header h = {
		.magic = PERF_MAGIC2,
		.size = PERF_FILE_HEADER_SIZE,
		.attr_size = entry,
		.attrs = { attrs_off, entry * n },
		.data = { attrs_off + entry * n, data_size },
		.event_types = { 0, 0 },
	};
	if (feat_bits)
		memcpy(h.adds_features, feat_bits, sizeof(h.adds_features));
	int rc = buf_append(&b, &h, sizeof(h));
	for (size_t i = 0; i < n && !rc; i++)
		rc = buf_append(&b, a[i].ids, a[i].nr_ids * 8);
	uint64_t id_off = ids_off;
	for (size_t i = 0; i < n && !rc; i++) {
		struct perf_file_section s = { id_off, a[i].nr_ids * 8 };
		id_off += s.size;
		rc = buf_append(&b, &a[i].attr, sizeof(a[i].attr));
		if (!rc)
			rc = buf_append(&b, &s, sizeof(s));
	}
	if (!rc)
		rc = perf_pwrite_all(fd, b.data, b.len, 0);
	buf_release(&b);
	return rc;
}

int perf_file_write_features(int fd, uint64_t off, const struct perf_feats *f)
{
	struct buf b;
	buf_init(&b, 0);
	unsigned nr = 0;
	for (unsigned i = 0; i < HEADER_LAST_FEATURE; i++)
		nr += feat_has(f, i);
	uint64_t pos = off + nr * sizeof(struct perf_file_section);
	int rc = 0;
	for (unsigned i = 0; i < HEADER_LAST_FEATURE && !rc; i++) {
		if (!feat_has(f, i))
			continue;
		struct perf_file_section s = { pos, f->sec[i].len };
		pos += s.size;
		rc = buf_append(&b, &s, sizeof(s));
	}
	for (unsigned i = 0; i < HEADER_LAST_FEATURE && !rc; i++)
		if (feat_has(f, i))
			rc = buf_append(&b, f->sec[i].data, f->sec[i].len);
	if (!rc)
		rc = perf_pwrite_all(fd, b.data, b.len, off);
	buf_release(&b);
	return rc;
}

int perf_pipe_feature(struct buf *out, const struct perf_feats *f, unsigned bit)
{
	if (bit >= HEADER_LAST_FEATURE || !feat_has(f, bit))
		return 0;
	size_t size = 16 + f->sec[bit].len;
	if (size > 0xffff)
		return -E2BIG;
	struct perf_event_header h = { .type = PERF_RECORD_HEADER_FEATURE, .size = (uint16_t)size };
	uint64_t id = bit;
	int rc = buf_append(out, &h, 8);
	if (!rc)
		rc = buf_append(out, &id, 8);
	if (!rc)
		rc = buf_append(out, f->sec[bit].data, f->sec[bit].len);
	return rc;
}

int perf_pipe_head(struct buf *out, const struct perf_wattr *a, size_t n,
		   const struct perf_feats *f)
{
	struct perf_pipe_file_header ph = { PERF_MAGIC2, sizeof(ph) };
	int rc = buf_append(out, &ph, sizeof(ph));
	for (size_t i = 0; i < n && !rc; i++) {
		size_t size = 8 + sizeof(a[i].attr) + a[i].nr_ids * 8;
		if (size > 0xffff)
			return -E2BIG;
		struct perf_event_header h = { .type = PERF_RECORD_HEADER_ATTR, .size = (uint16_t)size };
		rc = buf_append(out, &h, 8);
		if (!rc)
			rc = buf_append(out, &a[i].attr, sizeof(a[i].attr));
		if (!rc)
			rc = buf_append(out, a[i].ids, a[i].nr_ids * 8);
	}
	for (unsigned bit = 0; bit < HEADER_LAST_FEATURE && !rc; bit++)
		if (bit != HEADER_BUILD_ID && bit != HEADER_SAMPLE_TIME && bit != HEADER_TRACING_DATA)
			rc = perf_pipe_feature(out, f, bit);
	if (!rc && feat_has(f, HEADER_TRACING_DATA)) {
		/* { header (size 16), u32 size, u32 pad } then the tracing data,
		 * padded to 8, outside the record's own size, as perf does */
		const struct buf *td = &f->sec[HEADER_TRACING_DATA];
		size_t aligned = (td->len + 7) & ~(size_t)7;
		struct perf_event_header h = { .type = PERF_RECORD_HEADER_TRACING_DATA, .size = 16 };
		uint32_t sz[2] = { (uint32_t)aligned, 0 };
		rc = buf_append(out, &h, 8);
		if (!rc)
			rc = buf_append(out, sz, 8);
		if (!rc)
			rc = buf_append(out, td->data, td->len);
		if (!rc && aligned > td->len)
			rc = buf_append(out, "\0\0\0\0\0\0\0", aligned - td->len);
	}
	return rc;
}

int perf_pipe_build_ids(struct buf *out, const struct perf_build_id *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = perf_enc_build_id(out, PERF_RECORD_HEADER_BUILD_ID, &b[i]);
		if (rc)
			return rc;
	}
	return 0;
}
