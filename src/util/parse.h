/*
 * parse.h: the one parser of option values: numbers, sizes with units,
 * durations, seconds with decimals, comma lists, id lists and CPU lists.
 * Every command parses its values here, so one spelling means the same
 * thing everywhere; the limits are the caller's (a range, the CPUs there
 * are) and so is the message, which names the option.
 *
 * A value is the whole of s[0..len) (len PARSE_NUL: up to the NUL): no
 * sign, no blanks, nothing after it, unless the flags say otherwise.
 * Results: 0 with the value set; -EINVAL when it is not one; -ERANGE when
 * it is one but out of the range (or of 64 bits).
 */
#ifndef SCORCH_PARSE_H
#define SCORCH_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define PARSE_NUL ((size_t)-1)

enum parse_flags {
	PARSE_C = 1 << 0,      /* also 0x hex and 0-prefixed octal, as C and perf's options */
	PARSE_BLANKS = 1 << 1, /* blanks around it and a '+' before it (Qt's toUInt/toInt) */
};

/* A decimal number (PARSE_C: also hex, octal) in 0..max. */
int parse_u64(const char *s, size_t len, unsigned flags, uint64_t max, uint64_t *v);
/* The same with an optional '-', in min..max. */
int parse_i64(const char *s, size_t len, unsigned flags, int64_t min, int64_t max, int64_t *v);

/* A size: a decimal number, then an optional unit K, M or G (powers of
 * 1024; either case) or B, then an optional B: "4096", "64K", "100MB". */
int parse_size(const char *s, uint64_t *bytes);

/* A duration: a decimal number and one unit, s, m, h or d: "30s", "5m". */
int parse_duration_ms(const char *s, uint64_t *ms);

/* Seconds with up to 9 decimals, "SEC[.FRAC]", in ns. */
int parse_seconds_ns(const char *s, size_t len, uint64_t *ns);

/* The next item of the comma-separated list at *p (its length in *len;
 * an empty item has length 0), or NULL at the end. A comma at the end
 * ends the list; *p moves past the item and its comma. */
const char *parse_list_next(const char **p, size_t *len);

/* Where a list went wrong: the item that is not a value (what to name in
 * the message), and the reason (-EINVAL, -ERANGE, or what add returned). */
struct parse_bad {
	const char *item;
	size_t len;
};

/* A list of decimal ids "1,20,300", each in lo..hi: add(ctx, id) for each
 * in order; a nonzero return stops the list and is returned (bad names
 * the item). An empty item is not an id. */
int parse_id_list(const char *s, uint64_t lo, uint64_t hi, int (*add)(void *ctx, uint64_t id),
		  void *ctx, struct parse_bad *bad);

/* A CPU list "0-3,8": CPUs and ranges A-B (B >= A), every CPU below
 * ncpu: add(ctx, cpu) for each CPU in order; as parse_id_list otherwise. */
int parse_cpu_list(const char *s, uint64_t ncpu, int (*add)(void *ctx, uint64_t cpu), void *ctx,
		   struct parse_bad *bad);

#endif
