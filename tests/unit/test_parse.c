/* test_parse.c: option values (util/parse.h): numbers, sizes, durations,
 * seconds, id and CPU lists, with their edges and refusals. */
#include "test.h"
#include "util/parse.h"
#include <errno.h>
#include <stdint.h>

TEST(parse_u64_forms_and_limits)
{
	uint64_t v;
	CHECK_EQ(parse_u64("0", PARSE_NUL, 0, 10, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(parse_u64("4000", PARSE_NUL, 0, UINT64_MAX, &v), 0);
	CHECK_EQ(v, 4000);
	CHECK(parse_u64("18446744073709551615", PARSE_NUL, 0, UINT64_MAX, &v) == 0 && v == UINT64_MAX);
	CHECK_EQ(parse_u64("18446744073709551616", PARSE_NUL, 0, UINT64_MAX, &v), -ERANGE);
	CHECK_EQ(parse_u64("11", PARSE_NUL, 0, 10, &v), -ERANGE);
	/* nothing else around it, no sign, no empty */
	CHECK_EQ(parse_u64("", PARSE_NUL, 0, 10, &v), -EINVAL);
	CHECK_EQ(parse_u64("-1", PARSE_NUL, 0, 10, &v), -EINVAL);
	CHECK_EQ(parse_u64("+1", PARSE_NUL, 0, 10, &v), -EINVAL);
	CHECK_EQ(parse_u64(" 1", PARSE_NUL, 0, 10, &v), -EINVAL);
	CHECK_EQ(parse_u64("1x", PARSE_NUL, 0, 10, &v), -EINVAL);
	/* hex and octal only when asked (perf's options) */
	CHECK_EQ(parse_u64("0x10", PARSE_NUL, 0, 100, &v), -EINVAL);
	CHECK(parse_u64("0x10", PARSE_NUL, PARSE_C, 100, &v) == 0 && v == 16);
	CHECK(parse_u64("010", PARSE_NUL, PARSE_C, 100, &v) == 0 && v == 8);
	CHECK(parse_u64("010", PARSE_NUL, 0, 100, &v) == 0 && v == 10);
	CHECK_EQ(parse_u64("08", PARSE_NUL, PARSE_C, 100, &v), -EINVAL);
	CHECK_EQ(parse_u64("0x", PARSE_NUL, PARSE_C, 100, &v), -EINVAL);
	/* Qt's toUInt: blanks around, a plus */
	CHECK(parse_u64("  +7\t", PARSE_NUL, PARSE_BLANKS, 100, &v) == 0 && v == 7);
	CHECK_EQ(parse_u64(" ", PARSE_NUL, PARSE_BLANKS, 100, &v), -EINVAL);
	/* a part of a string */
	CHECK(parse_u64("12-34", 2, 0, 100, &v) == 0 && v == 12);
}

TEST(parse_i64_signs_and_limits)
{
	int64_t v;
	CHECK(parse_i64("-5", PARSE_NUL, 0, -10, 10, &v) == 0 && v == -5);
	CHECK(parse_i64("-9223372036854775808", PARSE_NUL, 0, INT64_MIN, INT64_MAX, &v) == 0 &&
	      v == INT64_MIN);
	CHECK_EQ(parse_i64("9223372036854775808", PARSE_NUL, 0, INT64_MIN, INT64_MAX, &v), -ERANGE);
	CHECK_EQ(parse_i64("-11", PARSE_NUL, 0, -10, 10, &v), -ERANGE);
	CHECK_EQ(parse_i64("-", PARSE_NUL, 0, -10, 10, &v), -EINVAL);
	CHECK_EQ(parse_i64("+3", PARSE_NUL, 0, -10, 10, &v), -EINVAL);
	CHECK(parse_i64(" +3 ", PARSE_NUL, PARSE_BLANKS, -10, 10, &v) == 0 && v == 3);
	CHECK(parse_i64("-0", PARSE_NUL, 0, -10, 10, &v) == 0 && v == 0);
}

TEST(parse_size_units)
{
	uint64_t v;
	CHECK(parse_size("4096", &v) == 0 && v == 4096);
	CHECK(parse_size("64K", &v) == 0 && v == 65536);
	CHECK(parse_size("64kb", &v) == 0 && v == 65536);
	CHECK(parse_size("100M", &v) == 0 && v == 100u << 20);
	CHECK(parse_size("2G", &v) == 0 && v == 2ull << 30);
	CHECK(parse_size("12B", &v) == 0 && v == 12);
	CHECK_EQ(parse_size("K", &v), -EINVAL);
	CHECK_EQ(parse_size("", &v), -EINVAL);
	CHECK_EQ(parse_size("1T", &v), -EINVAL);
	CHECK_EQ(parse_size("1KK", &v), -EINVAL);
	CHECK_EQ(parse_size("-1K", &v), -EINVAL);
	CHECK_EQ(parse_size("17179869184G", &v), -ERANGE);
	CHECK_EQ(parse_size("99999999999999999999", &v), -ERANGE);
	CHECK(parse_size("0", &v) == 0 && v == 0);
	CHECK_EQ(parse_size("x", &v), -EINVAL);
}

TEST(parse_durations_and_seconds)
{
	uint64_t v;
	CHECK(parse_duration_ms("30s", &v) == 0 && v == 30000);
	CHECK(parse_duration_ms("5m", &v) == 0 && v == 300000);
	CHECK(parse_duration_ms("1h", &v) == 0 && v == 3600000);
	CHECK(parse_duration_ms("2d", &v) == 0 && v == 172800000);
	CHECK_EQ(parse_duration_ms("30", &v), -EINVAL);
	CHECK_EQ(parse_duration_ms("s", &v), -EINVAL);
	CHECK_EQ(parse_duration_ms("3ss", &v), -EINVAL);
	CHECK_EQ(parse_duration_ms("1.5s", &v), -EINVAL);
	CHECK_EQ(parse_duration_ms("999999999999999999d", &v), -ERANGE);
	CHECK(parse_seconds_ns("12", PARSE_NUL, &v) == 0 && v == 12000000000ull);
	CHECK(parse_seconds_ns("12.5", PARSE_NUL, &v) == 0 && v == 12500000000ull);
	CHECK(parse_seconds_ns("0.000000001", PARSE_NUL, &v) == 0 && v == 1);
	CHECK(parse_seconds_ns("3.", PARSE_NUL, &v) == 0 && v == 3000000000ull);
	CHECK_EQ(parse_seconds_ns("0.0000000001", PARSE_NUL, &v), -EINVAL);
	CHECK_EQ(parse_seconds_ns(".5", PARSE_NUL, &v), -EINVAL);
	CHECK_EQ(parse_seconds_ns("1.2.3", PARSE_NUL, &v), -EINVAL);
	CHECK_EQ(parse_seconds_ns("18446744073", PARSE_NUL, &v), -ERANGE);
}

struct got {
	uint64_t v[8];
	int n, max;
};

static int take(void *ctx, uint64_t x)
{
	struct got *g = ctx;
	if (g->n >= g->max)
		return -E2BIG;
	g->v[g->n++] = x;
	return 0;
}

TEST(parse_id_and_cpu_lists)
{
	struct got g = { .max = 8 };
	struct parse_bad bad;
	CHECK_EQ(parse_id_list("1,20,300", 1, 1000, take, &g, &bad), 0);
	CHECK(g.n == 3 && g.v[0] == 1 && g.v[1] == 20 && g.v[2] == 300);
	g.n = 0;
	CHECK_EQ(parse_id_list("", 1, 1000, take, &g, &bad), 0);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(parse_id_list("5,", 1, 1000, take, &g, &bad), 0); /* a comma at the end ends it */
	g.n = 0;
	CHECK_EQ(parse_id_list("5,x7,9", 1, 1000, take, &g, &bad), -EINVAL);
	CHECK(bad.len == 2 && !memcmp(bad.item, "x7", 2));
	g.n = 0;
	CHECK_EQ(parse_id_list("5,,9", 1, 1000, take, &g, &bad), -EINVAL);
	CHECK_EQ(bad.len, 0);
	g.n = 0;
	CHECK_EQ(parse_id_list("0", 1, 1000, take, &g, &bad), -ERANGE);
	g = (struct got){ .max = 2 };
	CHECK_EQ(parse_id_list("1,2,3", 1, 1000, take, &g, &bad), -E2BIG);
	CHECK(bad.len == 1 && bad.item[0] == '3');

	g = (struct got){ .max = 8 };
	CHECK_EQ(parse_cpu_list("0-2,5", 8, take, &g, &bad), 0);
	CHECK(g.n == 4 && g.v[0] == 0 && g.v[2] == 2 && g.v[3] == 5);
	g.n = 0;
	CHECK_EQ(parse_cpu_list("7", 8, take, &g, &bad), 0);
	g.n = 0;
	CHECK_EQ(parse_cpu_list("8", 8, take, &g, &bad), -ERANGE);
	CHECK_EQ(parse_cpu_list("3-1", 8, take, &g, &bad), -EINVAL);
	CHECK(bad.len == 3 && !memcmp(bad.item, "3-1", 3));
	CHECK_EQ(parse_cpu_list("1-", 8, take, &g, &bad), -EINVAL);
	CHECK_EQ(parse_cpu_list("-1", 8, take, &g, &bad), -EINVAL);
	CHECK_EQ(parse_cpu_list("0-9", 8, take, &g, &bad), -ERANGE);
	CHECK_EQ(parse_cpu_list("0", 0, take, &g, &bad), -ERANGE);
}
