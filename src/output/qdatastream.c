/*
 * qdatastream.c: the QDataStream appenders that are not inline (see
 * qdatastream.h).
 */
#include "output/qdatastream.h"
#include <string.h>

void qds_put_f64(struct buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	qds_put_u64(b, u);
}

void qds_put_bytes(struct buf *b, const void *p, size_t n)
{
	qds_put_u32(b, (uint32_t)n);
	buf_append(b, p, n);
}

void qds_put_null_bytes(struct buf *b)
{
	qds_put_u32(b, 0xffffffffu);
}

/* Decode one UTF-8 code point; invalid input gives U+FFFD and consumes one byte. */
static uint32_t utf8_next(const unsigned char **ps)
{
	const unsigned char *s = *ps;
	uint32_t c = s[0];
	int n = 0;
	if (c < 0x80) {
		*ps = s + 1;
		return c;
	} else if ((c & 0xe0) == 0xc0) {
		n = 1, c &= 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		n = 2, c &= 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		n = 3, c &= 0x07;
	} else {
		*ps = s + 1;
		return 0xfffd;
	}
	for (int i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*ps = s + 1;
			return 0xfffd;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*ps = s + n + 1;
	if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0xfffd;
	return c;
}

void qds_put_qstring(struct buf *b, const char *utf8)
{
	if (!utf8) {
		qds_put_u32(b, 0xffffffffu);
		return;
	}
	size_t at = b->len;
	qds_put_u32(b, 0);
	const unsigned char *s = (const unsigned char *)utf8;
	while (*s) {
		uint32_t c = utf8_next(&s);
		if (c >= 0x10000) {
			c -= 0x10000;
			qds_put_u16(b, (uint16_t)(0xd800 | (c >> 10)));
			qds_put_u16(b, (uint16_t)(0xdc00 | (c & 0x3ff)));
		} else {
			qds_put_u16(b, (uint16_t)c);
		}
	}
	if (b->len >= at + 4) {
		uint32_t n = (uint32_t)(b->len - at - 4);
		b->data[at] = (uint8_t)(n >> 24);
		b->data[at + 1] = (uint8_t)(n >> 16);
		b->data[at + 2] = (uint8_t)(n >> 8);
		b->data[at + 3] = (uint8_t)n;
	}
}
