/* test_record.c: unit tests of the recorder's pieces: perf.data writing
 * (src/perf/encode.c), the ring read sequence, the writers, synthesized
 * records, build ids and event names. */
#include "perf/encode.h"
#include "record/host.h"
#include "record/buildid.h"
#include "record/events.h"
#include "record/ring.h"
#include "record/synth.h"
#include "record/writer.h"
#include "test.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int tmpfile_fd(char *path)
{
	strcpy(path, "/tmp/scorch-unit-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	return fd;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	struct stat st;
	fstat(fd, &st);
	uint8_t *p = malloc(st.st_size + 1);
	CHECK(read(fd, p, st.st_size) == st.st_size);
	close(fd);
	*n = st.st_size;
	return p;
}

TEST(record_enc_string_pads_to_64)
{
	struct buf b;
	buf_init(&b, 0);
	CHECK_EQ(perf_enc_string(&b, "x86_64"), 0);
	CHECK_EQ(b.len, 4 + 64);
	uint32_t len;
	memcpy(&len, b.data, 4);
	CHECK_EQ(len, 64);
	CHECK_STR((char *)b.data + 4, "x86_64");
	CHECK_EQ(b.data[4 + 63], 0);
	buf_release(&b);
}

static void two_attrs(struct perf_wattr *a, uint64_t *ids)
{
	memset(a, 0, 2 * sizeof(*a));
	for (int i = 0; i < 2; i++) {
		a[i].attr.size = sizeof(a[i].attr);
		a[i].attr.type = PERF_TYPE_SOFTWARE;
		a[i].attr.config = (uint64_t)i;
		a[i].attr.sample_type = EVENTS_SAMPLE_BASE;
		a[i].attr.sample_id_all = 1;
		a[i].name = i ? "task-clock" : "cpu-clock";
	}
	ids[0] = 11, ids[1] = 12, ids[2] = 21;
	a[0].ids = ids, a[0].nr_ids = 2;
	a[1].ids = ids + 2, a[1].nr_ids = 1;
}

TEST(record_file_header_layout)
{
	struct perf_wattr a[2];
	uint64_t ids[3];
	two_attrs(a, ids);
	char path[64];
	int fd = tmpfile_fd(path);
	uint64_t data_off = perf_file_data_offset(a, 2);
	CHECK_EQ(data_off, 104 + 3 * 8 + 2 * (128 + 16));
	/* 16 bytes of data, then two features */
	uint8_t data[16] = { 0 };
	struct perf_event_header h = { PERF_RECORD_FINISHED_ROUND, 0, 8 };
	memcpy(data, &h, 8);
	memcpy(data + 8, &h, 8);
	CHECK_EQ(perf_pwrite_all(fd, data, 16, data_off), 0);
	struct perf_feats f;
	perf_feats_init(&f);
	CHECK_EQ(perf_enc_string(perf_feats_begin(&f, HEADER_HOSTNAME), "host"), 0);
	CHECK_EQ(perf_feats_add_sample_time(&f, 5, 9), 0);
	CHECK_EQ(perf_file_write_features(fd, data_off + 16, &f), 0);
	CHECK_EQ(perf_file_write_header(fd, a, 2, 16, f.bits), 0);
	close(fd);
	size_t n;
	uint8_t *p = slurp(path, &n);
	unlink(path);
	struct perf_file_header fh;
	memcpy(&fh, p, sizeof(fh));
	CHECK(fh.magic == PERF_MAGIC2);
	CHECK_EQ(fh.size, 104);
	CHECK_EQ(fh.attr_size, 128 + 16);
	CHECK_EQ(fh.attrs.offset, 104 + 24);
	CHECK_EQ(fh.attrs.size, 2 * 144);
	CHECK_EQ(fh.data.offset, data_off);
	CHECK_EQ(fh.data.size, 16);
	CHECK(fh.adds_features[0] == ((1ULL << HEADER_HOSTNAME) | (1ULL << HEADER_SAMPLE_TIME)));
	/* attr 1's ids section points at id 21 */
	struct perf_file_section ids1;
	memcpy(&ids1, p + fh.attrs.offset + 144 + 128, sizeof(ids1));
	CHECK_EQ(ids1.size, 8);
	uint64_t id;
	memcpy(&id, p + ids1.offset, 8);
	CHECK_EQ(id, 21);
	/* feature table: hostname first (bit order), then sample_time */
	struct perf_file_section s[2];
	memcpy(s, p + data_off + 16, sizeof(s));
	CHECK_EQ(s[0].offset, data_off + 16 + 32);
	CHECK_EQ(s[0].size, 68);
	CHECK_STR((char *)p + s[0].offset + 4, "host");
	CHECK_EQ(s[1].size, 16);
	uint64_t t[2];
	memcpy(t, p + s[1].offset, 16);
	CHECK_EQ(t[0], 5);
	CHECK_EQ(t[1], 9);
	CHECK_EQ(n, s[1].offset + 16);
	free(p);
	perf_feats_release(&f);
}

TEST(record_pipe_head_records)
{
	struct perf_wattr a[2];
	uint64_t ids[3];
	two_attrs(a, ids);
	struct perf_feats f;
	perf_feats_init(&f);
	perf_enc_string(perf_feats_begin(&f, HEADER_ARCH), "x86_64");
	perf_feats_add_sample_time(&f, 1, 2); /* not in the head: known at the end */
	struct buf b;
	buf_init(&b, 0);
	CHECK_EQ(perf_pipe_head(&b, a, 2, &f), 0);
	struct perf_pipe_file_header ph;
	memcpy(&ph, b.data, 16);
	CHECK(ph.magic == PERF_MAGIC2);
	CHECK_EQ(ph.size, 16);
	struct perf_event_header h;
	memcpy(&h, b.data + 16, 8);
	CHECK_EQ(h.type, PERF_RECORD_HEADER_ATTR);
	CHECK_EQ(h.size, 8 + 128 + 16);
	size_t off = 16 + h.size;
	memcpy(&h, b.data + off, 8);
	CHECK_EQ(h.type, PERF_RECORD_HEADER_ATTR);
	CHECK_EQ(h.size, 8 + 128 + 8);
	off += h.size;
	memcpy(&h, b.data + off, 8);
	CHECK_EQ(h.type, PERF_RECORD_HEADER_FEATURE);
	uint64_t feat;
	memcpy(&feat, b.data + off + 8, 8);
	CHECK_EQ(feat, HEADER_ARCH);
	CHECK_EQ(off + h.size, b.len);
	buf_release(&b);
	perf_feats_release(&f);
}

TEST(record_build_id_entry)
{
	struct perf_build_id bid = { .pid = -1, .misc = PERF_RECORD_MISC_KERNEL, .size = 20,
				     .filename = "[kernel.kallsyms]" };
	for (int i = 0; i < 20; i++)
		bid.id[i] = (uint8_t)i;
	struct buf b;
	buf_init(&b, 0);
	CHECK_EQ(perf_enc_build_id(&b, 0, &bid), 0);
	CHECK_EQ(b.len, 8 + 4 + 24 + 64);
	struct perf_event_header h;
	memcpy(&h, b.data, 8);
	CHECK_EQ(h.size, b.len);
	CHECK_EQ(h.misc, PERF_RECORD_MISC_KERNEL | (1 << 15));
	CHECK_EQ(b.data[12 + 19], 19);
	CHECK_EQ(b.data[12 + 20], 20); /* size byte */
	CHECK_STR((char *)b.data + 36, "[kernel.kallsyms]");
	buf_release(&b);
}

TEST(record_host_features)
{
	struct perf_feats f;
	perf_feats_init(&f);
	char *argv[] = { "record", "--", "true" };
	struct host_info hi = { "scorch-test", "/bin/scorch", 3, argv, -1 };
	CHECK_EQ(host_add_features(&f, &hi), 0);
	CHECK(f.sec[HEADER_HOSTNAME].len > 4);
	CHECK_EQ(f.sec[HEADER_NRCPUS].len, 8);
	CHECK_EQ(f.sec[HEADER_CLOCKID].len, 8);
	uint32_t n;
	memcpy(&n, f.sec[HEADER_CMDLINE].data, 4);
	CHECK_EQ(n, 4); /* exe + 3 args */
	CHECK_STR((char *)f.sec[HEADER_CMDLINE].data + 8, "/bin/scorch");
	perf_feats_release(&f);
}

/* A fake kernel ring: metadata page + 2 data pages. */
struct fake_ring {
	struct ring r;
	uint8_t *mem;
};

static void fake_ring_init(struct fake_ring *f)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	f->mem = mmap(NULL, pg * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(f->mem != MAP_FAILED);
	memset(&f->r, 0, sizeof(f->r));
	f->r.base = f->mem;
	f->r.data = f->mem + pg;
	f->r.size = pg * 2;
}

/* "Kernel" writes a record of size sz with a fill byte at head. */
static void fake_put(struct fake_ring *f, uint16_t sz, uint8_t fill)
{
	struct perf_event_mmap_page *pc = (void *)f->r.base;
	uint64_t head = pc->data_head, mask = f->r.size - 1;
	uint8_t rec[1024];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sz };
	memset(rec, fill, sz);
	memcpy(rec, &h, 8);
	for (uint16_t i = 0; i < sz; i++)
		f->r.data[(head + i) & mask] = rec[i];
	pc->data_head = head + sz;
}

TEST(record_ring_read_wraps_and_releases)
{
	struct fake_ring f;
	fake_ring_init(&f);
	struct perf_event_mmap_page *pc = (void *)f.r.base;
	uint64_t start = f.r.size - 24; /* the next record straddles the end */
	pc->data_head = pc->data_tail = start;
	fake_put(&f, 64, 0xab);
	fake_put(&f, 32, 0xcd);
	CHECK_EQ(ring_pending(&f.r), 96);
	uint8_t out[256];
	size_t n = ring_read(&f.r, out, sizeof(out));
	CHECK_EQ(n, 96);
	CHECK_EQ(pc->data_tail, start + 96);
	CHECK_EQ(out[8], 0xab);
	CHECK_EQ(out[63], 0xab); /* bytes after the wrap point */
	CHECK_EQ(out[64 + 8], 0xcd);
	CHECK_EQ(ring_pending(&f.r), 0);
	munmap(f.mem, (size_t)sysconf(_SC_PAGESIZE) * 3);
}

TEST(record_ring_read_whole_records_only)
{
	struct fake_ring f;
	fake_ring_init(&f);
	struct perf_event_mmap_page *pc = (void *)f.r.base;
	fake_put(&f, 40, 1);
	fake_put(&f, 40, 2);
	fake_put(&f, 40, 3);
	uint8_t out[100];
	size_t n = ring_read(&f.r, out, sizeof(out)); /* room for 2.5 records */
	CHECK_EQ(n, 80);
	CHECK_EQ(pc->data_tail, 80);
	n = ring_read(&f.r, out, sizeof(out));
	CHECK_EQ(n, 40);
	CHECK_EQ(out[8], 3);
	munmap(f.mem, (size_t)sysconf(_SC_PAGESIZE) * 3);
}

struct wctx {
	int done, failed, last_err;
};

static void wdone(void *ctx, struct wbuf *b, int err)
{
	struct wctx *c = ctx;
	c->done++;
	if (err) {
		c->failed++;
		c->last_err = err;
	}
	(void)b;
}

static void writer_roundtrip(enum record_io io, const char *want)
{
	char path[64];
	int fd = tmpfile_fd(path);
	struct wctx c = { 0 };
	struct writer *w = writer_open(io, fd, false, 4, wdone, &c);
	CHECK_STR(w->ops->name, want);
	static uint8_t d[3][100000];
	struct wbuf b[3];
	for (int i = 0; i < 3; i++) {
		memset(d[i], 'a' + i, sizeof(d[i]));
		b[i] = (struct wbuf){ .data = d[i], .len = sizeof(d[i]), .cap = sizeof(d[i]),
				      .off = (uint64_t)i * sizeof(d[i]) };
	}
	/* out of order: the offsets, not the order, place the bytes */
	CHECK_EQ(writer_submit(w, &b[2]), 0);
	CHECK_EQ(writer_submit(w, &b[0]), 0);
	CHECK_EQ(writer_submit(w, &b[1]), 0);
	CHECK_EQ(writer_barrier(w), 0);
	CHECK_EQ(c.done, 3);
	CHECK_EQ(c.failed, 0);
	writer_free(w);
	close(fd);
	size_t n;
	uint8_t *p = slurp(path, &n);
	unlink(path);
	CHECK_EQ(n, 300000);
	CHECK_EQ(p[0], 'a');
	CHECK_EQ(p[99999], 'a');
	CHECK_EQ(p[100000], 'b');
	CHECK_EQ(p[299999], 'c');
	free(p);
}

TEST(record_writer_sync)
{
	writer_roundtrip(RECORD_IO_SYNC, "sync");
}

TEST(record_writer_aio)
{
	writer_roundtrip(RECORD_IO_AIO, "posix-aio");
}

TEST(record_writer_uring_or_fallback)
{
	struct writer *w = writer_uring_new(1, 2);
	if (!w) {
		writer_roundtrip(RECORD_IO_URING, "posix-aio"); /* the fallback */
		return;
	}
	w->done = wdone;
	writer_free(w);
	writer_roundtrip(RECORD_IO_URING, "io_uring");
}

static void writer_error(enum record_io io)
{
	int fd = open("/dev/null", O_RDONLY); /* writes fail with EBADF */
	struct wctx c = { 0 };
	struct writer *w = writer_open(io, fd, false, 2, wdone, &c);
	static uint8_t d[4096];
	struct wbuf b = { .data = d, .len = sizeof(d), .cap = sizeof(d) };
	writer_submit(w, &b);
	int rc = writer_barrier(w);
	CHECK_EQ(rc, -EBADF);
	CHECK_EQ(c.failed, 1);
	CHECK_EQ(c.last_err, -EBADF);
	/* sticky: the next buffer fails at once */
	struct wbuf b2 = { .data = d, .len = sizeof(d), .cap = sizeof(d) };
	CHECK_EQ(writer_submit(w, &b2), -EBADF);
	CHECK_EQ(c.failed, 2);
	writer_free(w);
	close(fd);
}

TEST(record_writer_errors_reported)
{
	writer_error(RECORD_IO_SYNC);
	writer_error(RECORD_IO_AIO);
	writer_error(RECORD_IO_URING);
}

TEST(record_synth_comm_layout)
{
	struct buf b;
	buf_init(&b, 0);
	CHECK_EQ(synth_comm(&b, 42, 43, "a-very-long-command-name", 77), 0);
	struct perf_event_header h;
	memcpy(&h, b.data, 8);
	CHECK_EQ(h.type, PERF_RECORD_COMM);
	CHECK_EQ(h.size, b.len);
	CHECK_EQ(h.size % 8, 0);
	CHECK_STR((char *)b.data + 16, "a-very-long-com"); /* TASK_COMM_LEN */
	uint64_t id;
	memcpy(&id, b.data + b.len - 8, 8);
	CHECK_EQ(id, 77);
	uint32_t pid;
	memcpy(&pid, b.data + b.len - EVENTS_TRAILER_SIZE, 4);
	CHECK_EQ(pid, 42);
	buf_release(&b);
}

TEST(record_synth_self_maps)
{
	struct buf b;
	buf_init(&b, 0);
	CHECK_EQ(synth_process(&b, getpid(), 0, true, false, 5), 0);
	size_t off = 0;
	int comm = 0, mmap2 = 0, self = 0;
	char exe[512] = { 0 };
	CHECK(readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0);
	while (off < b.len) {
		struct perf_event_header h;
		memcpy(&h, b.data + off, 8);
		CHECK(h.size >= 8 && h.size % 8 == 0);
		if (h.type == PERF_RECORD_COMM)
			comm++;
		if (h.type == PERF_RECORD_MMAP2) {
			mmap2++;
			uint32_t prot;
			memcpy(&prot, b.data + off + 64, 4);
			CHECK(prot & PROT_EXEC);
			if (!strcmp((char *)b.data + off + 72, exe))
				self++;
		}
		off += h.size;
	}
	CHECK(comm >= 1);
	CHECK(mmap2 >= 2);
	CHECK_EQ(self, 1);
	buf_release(&b);
}

TEST(record_buildid_notes)
{
	uint8_t notes[64] = { 0 };
	uint32_t hdr[3] = { 4, 20, 3 }; /* namesz, descsz, NT_GNU_BUILD_ID */
	memcpy(notes, hdr, 12);
	memcpy(notes + 12, "GNU", 4);
	for (int i = 0; i < 20; i++)
		notes[16 + i] = (uint8_t)(0xa0 + i);
	uint8_t id[20];
	CHECK_EQ(buildid_parse_notes(notes, 36, id), 20);
	CHECK_EQ(id[0], 0xa0);
	CHECK_EQ(id[19], 0xb3);
	CHECK(buildid_parse_notes(notes, 30, id) < 0); /* truncated */
	CHECK(buildid_read_elf("/proc/self/exe", id) == 20);
}

TEST(record_buildid_hits)
{
	struct buildid b;
	buildid_init(&b);
	buildid_mmap(&b, 10, 0x1000, 0x1000, "/proc/self/exe", false);
	buildid_mmap(&b, 10, 0x5000, 0x1000, "/no/such/lib.so", false);
	buildid_mmap(&b, 10, 0x9000, 0x1000, "[vdso]", false);
	buildid_fork(&b, 11, 10);
	buildid_hit(&b, 11, 0x1800, false); /* the child sees the parent's maps */
	buildid_exec(&b, 10);
	buildid_hit(&b, 10, 0x5800, false); /* gone after exec */
	struct perf_build_id *l;
	size_t n;
	CHECK_EQ(buildid_collect(&b, &l, &n), 0);
	CHECK_EQ(n, 1);
	CHECK_STR(l[0].filename, "/proc/self/exe");
	CHECK_EQ(l[0].misc, PERF_RECORD_MISC_USER);
	buildid_free_list(l, n);
	buildid_release(&b);
}

/* A process whose leader exited is forgotten two passes later, not
 * before (samples written before the EXIT may still be in other rings);
 * a thread's EXIT does not end it; a FORK reusing the pid keeps it. */
TEST(record_buildid_forgets_ended_processes)
{
	struct buildid b;
	buildid_init(&b);
	buildid_mmap(&b, 10, 0x1000, 0x1000, "/a.so", false);
	buildid_mmap(&b, 20, 0x1000, 0x1000, "/b.so", false);
	buildid_mmap(&b, 30, 0x1000, 0x1000, "/c.so", false);
	buildid_exit(&b, 10, 11); /* a thread */
	buildid_exit(&b, 10, 10);
	buildid_exit(&b, 10, 10); /* twice: one entry */
	buildid_exit(&b, 20, 20);
	buildid_exit(&b, 99, 99); /* unknown */
	CHECK_EQ(b.nr_ended, 2);
	buildid_pass_end(&b);     /* the pass the EXITs were read in */
	buildid_pass_end(&b);
	CHECK(hmap_get(&b.procs, 10) != NULL);
	buildid_hit(&b, 10, 0x1800, false); /* still counted */
	CHECK(b.dsos[0].hit);
	buildid_fork(&b, 20, 30); /* pid 20 used again: a new process */
	buildid_pass_end(&b);
	CHECK(hmap_get(&b.procs, 10) == NULL);
	CHECK(hmap_get(&b.procs, 20) != NULL);
	CHECK(hmap_get(&b.procs, 30) != NULL);
	CHECK_EQ(b.forgotten, 1);
	CHECK_EQ(b.nr_ended, 0);
	buildid_hit(&b, 10, 0x1800, false); /* no crash, no maps */
	buildid_hit(&b, 20, 0x1800, false); /* the new 20 has 30's maps */
	CHECK(b.dsos[2].hit && !b.dsos[1].hit);
	/* the cached last process is forgotten with it */
	buildid_hit(&b, 30, 0x1800, false);
	buildid_exit(&b, 30, 30);
	for (int i = 0; i < 3; i++)
		buildid_pass_end(&b);
	CHECK(hmap_get(&b.procs, 30) == NULL);
	buildid_hit(&b, 30, 0x1800, false);
	buildid_release(&b);
}

TEST(record_event_names)
{
	struct record_event ev;
	struct err e = { 0 };
	CHECK_EQ(record_event_parse("cpu-clock", &ev, &e), 0);
	CHECK_EQ(ev.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ(ev.config, PERF_COUNT_SW_CPU_CLOCK);
	CHECK_EQ(record_event_parse("cycles:u", &ev, &e), 0);
	CHECK_EQ(ev.type, PERF_TYPE_HARDWARE);
	CHECK(ev.excl_kernel && !ev.excl_user);
	CHECK_STR(ev.name, "cycles:u");
	CHECK_EQ(record_event_parse("page-faults", &ev, &e), 0);
	CHECK_EQ(ev.config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_EQ(record_event_parse("no-such-event", &ev, &e), -ENOENT);
	CHECK(strstr(e.msg, "no-such-event"));
	struct err e2 = { 0 };
	CHECK_EQ(record_event_parse("nosys:nothing", &ev, &e2), -ENOENT);
}

/* A pipe to a slow reader: short writes and EAGAIN (non-blocking) are
 * resumed until every byte went through, in order. */
TEST(record_writer_seq_partial_writes)
{
	int p[2];
	CHECK(pipe(p) == 0);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		uint8_t buf[1000];
		size_t total = 0;
		int bad = 0;
		ssize_t n;
		while ((n = read(p[0], buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (buf[i] != (uint8_t)((total + (size_t)i) % 251))
					bad = 1;
			total += (size_t)n;
			usleep(200);
		}
		_exit(bad ? 2 : total == 300000 ? 0 : 3);
	}
	close(p[0]);
	struct wctx c = { 0 };
	struct writer *w = writer_open(RECORD_IO_URING, p[1], true, 4, wdone, &c);
	CHECK_STR(w->ops->name, "sync"); /* pipes always write in order */
	static uint8_t d[300000];
	for (size_t i = 0; i < sizeof(d); i++)
		d[i] = (uint8_t)(i % 251);
	struct wbuf b[3];
	for (int i = 0; i < 3; i++) {
		b[i] = (struct wbuf){ .data = d + i * 100000, .len = 100000, .cap = 100000 };
		CHECK_EQ(writer_submit(w, &b[i]), 0);
	}
	CHECK_EQ(writer_barrier(w), 0);
	CHECK_EQ(c.done, 3);
	writer_free(w);
	close(p[1]);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
