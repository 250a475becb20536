/*
 * load.h: unaligned loads of native-endian integers from byte buffers (file
 * and record bytes are not aligned for their fields). memcpy compiles to a
 * single load.
 */
#ifndef SCORCH_UTIL_LOAD_H
#define SCORCH_UTIL_LOAD_H

#include <stdint.h>
#include <string.h>

static inline uint16_t load_u16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t load_u32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t load_u64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

#endif
