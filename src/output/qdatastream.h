/*
 * qdatastream.h: Qt's QDataStream encoding (version 19, Qt 5.15), as far as
 * the perfparser stream uses it: big-endian integers, bool = 1 byte, float
 * written as an 8-byte double, QByteArray = be32 length (0xffffffff: null)
 * + bytes, QString = be32 byte length + UTF-16BE, QVector/QList = be32
 * count + elements, QVariant = be32 type id, u8 null flag, value.
 * Shared by the stream encoder (perfparser.c) and the tracepoint field
 * encoder (perfparser_trace.c).
 */
#ifndef SCORCH_OUTPUT_QDATASTREAM_H
#define SCORCH_OUTPUT_QDATASTREAM_H

#include "util/buf.h"
#include <stddef.h>
#include <stdint.h>

/* QVariant type ids (QMetaType) used for tracepoint field values. */
enum qds_variant_type {
	QDS_V_INVALID = 0,
	QDS_V_INT = 2,
	QDS_V_UINT = 3,
	QDS_V_LONGLONG = 4,
	QDS_V_ULONGLONG = 5,
	QDS_V_LIST = 9,
	QDS_V_BYTEARRAY = 12,
	QDS_V_SHORT = 33,
	QDS_V_USHORT = 36,
	QDS_V_UCHAR = 37,
	QDS_V_SCHAR = 40,
};

/* Appenders, big-endian. The integers' are inline: a sample's event is a dozen
 * of them, and the call cost more than the stores. Without memory the
 * value is dropped (the caller reports the error at its flush: buf_reserve fails the same way
 * again). */
static inline void qds_put_u8(struct buf *b, uint8_t v)
{
	if (buf_reserve(b, 1) == 0)
		b->data[b->len++] = v;
}
static inline void qds_put_u16(struct buf *b, uint16_t v)
{
	if (buf_reserve(b, 2) == 0) {
		b->data[b->len++] = (uint8_t)(v >> 8);
		b->data[b->len++] = (uint8_t)v;
	}
}
static inline void qds_put_u32(struct buf *b, uint32_t v)
{
	if (buf_reserve(b, 4) == 0) {
		uint8_t *p = b->data + b->len;
		p[0] = (uint8_t)(v >> 24);
		p[1] = (uint8_t)(v >> 16);
		p[2] = (uint8_t)(v >> 8);
		p[3] = (uint8_t)v;
		b->len += 4;
	}
}
static inline void qds_put_u64(struct buf *b, uint64_t v)
{
	qds_put_u32(b, (uint32_t)(v >> 32));
	qds_put_u32(b, (uint32_t)v);
}
void qds_put_f64(struct buf *b, double v);
void qds_put_bytes(struct buf *b, const void *p, size_t n);   /* QByteArray */
void qds_put_null_bytes(struct buf *b);                        /* null QByteArray */
void qds_put_qstring(struct buf *b, const char *utf8);         /* QString from UTF-8 */

#endif
