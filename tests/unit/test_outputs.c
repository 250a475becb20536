/* test_outputs.c: pprof encoding decoded back, the gzip wrapper, speedscope
 * and flame writers' structure, JSON escaping, the progress line. */
#include "output/flame.h"
#include "output/pprof.h"
#include "output/progress.h"
#include "output/speedscope.h"
#include "test.h"
#include <zlib.h>

static const char *DSO = "/usr/bin/demo";
static const char *MAIN = "main", *WORK = "work", *INL = "inl_helper", *FILE_C = "demo.c";

/* main -> work, with inl_helper inlined into work at the same ip */
static void add(struct profile_sink *s, uint32_t tid, const char *comm, bool with_inline)
{
	struct perf_event ev = { .type = PERF_RECORD_SAMPLE };
	ev.s.period = 1000;
	ev.s.time = 5000 + tid;
	struct perf_attr attr = { .name = "cpu-clock" };
	attr.attr.type = PERF_TYPE_SOFTWARE;
	attr.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	struct map m = { .start = 0x400000, .end = 0x500000, .pgoff = 0, .build_id_size = 2,
			 .build_id = { 0xab, 0xcd } };
	struct frame fr[3];
	memset(fr, 0, sizeof(fr));
	int n = 0;
	if (with_inline)
		fr[n++] = (struct frame){ .ip = 0x401010, .rel = 0x1010, .sym = INL, .dso = DSO,
					  .file = FILE_C, .line = 7, .inlined = true, .map = &m };
	fr[n++] = (struct frame){ .ip = 0x401010, .rel = 0x1010, .sym = WORK, .dso = DSO,
				  .file = FILE_C, .line = 20, .map = &m };
	fr[n++] = (struct frame){ .ip = 0x401100, .rel = 0x1100, .sym = MAIN, .dso = DSO,
				  .file = FILE_C, .line = 30, .map = &m };
	struct resolved_sample rs = { .ev = &ev, .attr = &attr, .comm = comm, .pid = 100,
				      .tid = tid, .frames = fr, .nr_frames = (uint32_t)n };
	profile_sink_sample(s, &rs);
}

/* ---- a minimal protobuf reader ---- */
struct pb {
	const uint8_t *p, *end;
};
static uint64_t varint(struct pb *b)
{
	uint64_t v = 0;
	for (int sh = 0; b->p < b->end; sh += 7) {
		uint8_t c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			break;
	}
	return v;
}
/* next field: returns field number, sets wire type, value or sub-buffer */
static int field(struct pb *b, int *wt, uint64_t *v, struct pb *sub)
{
	if (b->p >= b->end)
		return 0;
	uint64_t k = varint(b);
	*wt = (int)(k & 7);
	if (*wt == 0) {
		*v = varint(b);
	} else if (*wt == 2) {
		uint64_t n = varint(b);
		CHECK(n <= (uint64_t)(b->end - b->p));
		sub->p = b->p;
		sub->end = b->p + n;
		b->p += n;
	} else {
		CHECK(!"unexpected wire type");
	}
	return (int)(k >> 3);
}

TEST(pprof_encodes_profile_proto)
{
	struct pprof pp;
	pprof_init(&pp);
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	pprof_sink_config(&pp, &c);
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	add(&s, 100, "demo", true);
	add(&s, 100, "demo", true);
	add(&s, 101, "worker", false);
	struct buf out;
	buf_init(&out, 0);
	CHECK_EQ(pprof_encode(&pp, &s, false, &out), 0);

	struct pb b = { out.data, out.data + out.len }, sub, sub2;
	int wt;
	uint64_t v;
	char *strs[64];
	int nstr = 0, nsample = 0, nloc = 0, nfun = 0, nmap = 0, ntype = 0;
	uint64_t total_samples = 0, total_period = 0, max_lines = 0;
	int f;
	while ((f = field(&b, &wt, &v, &sub))) {
		if (f == 6) {
			CHECK(nstr < 64);
			strs[nstr++] = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
		} else if (f == 1) {
			ntype++;
		} else if (f == 2) {
			nsample++;
			int g;
			while ((g = field(&sub, &wt, &v, &sub2)))
				if (g == 2) {
					total_samples += varint(&sub2);
					total_period += varint(&sub2);
				}
		} else if (f == 4) {
			nloc++;
			uint64_t lines = 0;
			int g;
			while ((g = field(&sub, &wt, &v, &sub2)))
				if (g == 4)
					lines++;
			if (lines > max_lines)
				max_lines = lines;
		} else if (f == 5) {
			nfun++;
		} else if (f == 3) {
			nmap++;
		}
	}
	CHECK_EQ(ntype, 2);
	CHECK_EQ(nsample, 2);      /* two distinct (stack, thread) */
	CHECK_EQ(total_samples, 3);
	CHECK_EQ(total_period, 3000);
	CHECK_EQ(nloc, 3);         /* main; work+inl_helper; work alone */
	CHECK_EQ(max_lines, 2);    /* the inline chain as two lines */
	CHECK_EQ(nfun, 3);
	CHECK_EQ(nmap, 1);
	CHECK(nstr > 5);
	CHECK_STR(strs[0], "");
	int seen_cpu = 0, seen_ns = 0, seen_build = 0, seen_worker = 0;
	for (int i = 0; i < nstr; i++) {
		seen_cpu |= !strcmp(strs[i], "cpu");
		seen_ns |= !strcmp(strs[i], "nanoseconds");
		seen_build |= !strcmp(strs[i], "abcd");
		seen_worker |= !strcmp(strs[i], "worker");
		free(strs[i]);
	}
	CHECK(seen_cpu && seen_ns && seen_build && seen_worker);

	/* gzip'd: inflates back to the same bytes */
	struct buf gz;
	buf_init(&gz, 0);
	CHECK_EQ(pprof_encode(&pp, &s, true, &gz), 0);
	CHECK(gz.len > 10 && gz.data[0] == 0x1f && gz.data[1] == 0x8b);
	uint8_t *raw = malloc(out.len + 16);
	z_stream z;
	memset(&z, 0, sizeof(z));
	CHECK_EQ(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz.data;
	z.avail_in = (uInt)gz.len;
	z.next_out = raw;
	z.avail_out = (uInt)(out.len + 16);
	CHECK_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
	CHECK_EQ(z.total_out, out.len);
	CHECK(!memcmp(raw, out.data, out.len));
	inflateEnd(&z);
	free(raw);
	buf_release(&gz);
	buf_release(&out);
	profile_sink_release(&s);
	pprof_release(&pp);
}

TEST(speedscope_threads_in_time_order)
{
	struct speedscope sp;
	speedscope_init(&sp);
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	speedscope_sink_config(&sp, &c);
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	add(&s, 100, "demo", true);
	add(&s, 100, "demo", true);
	add(&s, 100, "demo", false);
	add(&s, 101, "worker", false);
	CHECK_EQ(sp.nr, 2);
	CHECK_EQ(sp.threads[0].nr, 2); /* two runs: the equal stacks merged */
	CHECK_EQ(sp.threads[0].runs[0].weight, 2000);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_EQ(speedscope_write(&sp, &s, f), 0);
	fclose(f);
	CHECK(strstr(text, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
	CHECK(strstr(text, "\"unit\":\"nanoseconds\""));
	CHECK(strstr(text, "demo (pid 100, tid 100)"));
	CHECK(strstr(text, "\"weights\":[2000,1000]"));
	CHECK(strstr(text, "{\"name\":\"inl_helper\",\"file\":\"demo.c\",\"line\":7}"));
	free(text);
	profile_sink_release(&s);
	speedscope_release(&sp);
}

TEST(flame_html_and_svg)
{
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	add(&s, 100, "demo", true);
	add(&s, 101, "</script><b>", false);
	struct flame_config fc;
	flame_config_init(&fc);
	fc.title = "t & \"q\"";
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_EQ(flame_write_html(&s.prof, &fc, f), 0);
	fclose(f);
	CHECK(!strstr(text, "/*SCORCH_DATA*/"));
	CHECK(strstr(text, "\\u003c/script\\u003e"));
	CHECK(!strstr(text, "</script><b>"));
	/* inl_helper: kind user (0) + inlined (32) */
	CHECK(strstr(text, "[\"inl_helper\",\"/usr/bin/demo\",32]"));
	/* root first: frame -1, depth 0, weight 2000, 2 samples */
	CHECK(strstr(text, "\"nodes\":[-1,0,2000,2"));
	CHECK(strstr(text, "</html>"));
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	CHECK_EQ(flame_write_svg(&s.prof, &fc, f), 0);
	fclose(f);
	CHECK(strstr(text, "<svg"));
	CHECK(strstr(text, "&lt;/script&gt;&lt;b&gt;"));
	CHECK(strstr(text, "t &amp; &quot;q&quot;"));
	CHECK(strstr(text, "font-style=\"italic\""));
	free(text);
	profile_sink_release(&s);
}

TEST(json_escapes)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_put_str(f, "a\"b\\c\nd\x01<");
	fclose(f);
	CHECK_STR(text, "\"a\\\"b\\\\c\\nd\\u0001\\u003c\"");
	free(text);
}

TEST(progress_line)
{
	char buf[256];
	progress_format(buf, sizeof(buf), "scorch: reading", 50 << 20, 100 << 20, 3.2, 80);
	CHECK(strstr(buf, "scorch: reading ["));
	CHECK(strstr(buf, " 50% 50.0 MiB/100.0 MiB 3s"));
	CHECK((int)strlen(buf) <= 80);
	progress_format(buf, sizeof(buf), "x", 3 << 20, 0, 1, 80);
	CHECK_STR(buf, "x: 3.0 MiB read, 1 s");
	/* disabled: nothing happens */
	struct progress pr;
	progress_init(&pr, NULL, "x", 80);
	progress_update(&pr, 1, 2);
	CHECK(!pr.drawn);
	/* enabled with no delay: draws to the stream, clears it */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	progress_init(&pr, f, "x", 80);
	pr.delay = 0;
	progress_update(&pr, 1, 2);
	CHECK(pr.drawn);
	progress_clear(&pr);
	fclose(f);
	CHECK(text[0] == '\r' && strstr(text, " 50%") && strstr(text, "\033[K"));
	free(text);
}
