/*
 * tpformat.c: see tpformat.h. A thin layer over libtraceevent (Debian's
 * libtraceevent-dev, the library perf links): the tep handle is set up from
 * the tracing data as perf's trace_report() does (file byte order, long and
 * page size, header_page, ftrace and event formats, kallsyms functions,
 * printk strings) and each sample is printed with TEP_PRINT_INFO.
 *
 * The library trusts the formats and data it is given (a truncated print
 * fmt, a division by zero in one, crash it: tests/fuzz/fuzz_tracing.c), and
 * a recording is untrusted input. So it runs in a helper process, forked at
 * the first tracepoint sample: each sample's raw data goes to it over a
 * socket and its text comes back. If the helper dies, tracepoint fields are
 * no longer printed and the caller says so once; scorch itself never
 * crashes on a hostile format.
 */
#include "output/tpformat.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <errno.h>
#include <event-parse.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <trace-seq.h>
#include <unistd.h>

#define TPFORMAT_TEXT_MAX (64u << 20) /* kallsyms / printk text copied for the library */

/* libtraceevent reads fields at the offsets the format gives (and dynamic
 * arrays at offsets in the data: 16 bits of offset, 16 of length) without
 * checking them against the record size. Each record is copied into a
 * zeroed scratch area that covers every offset a format or the data can
 * name, so a hostile file reads zeros, never past an allocation. */
#define TPFORMAT_DYN_REACH (1u << 17)
#define TPFORMAT_FIELD_REACH (1 << 20) /* a format naming more is not printed */

struct tpl {
	struct tep_handle *tep;
	struct trace_seq seq;
	uint8_t *scratch;       /* all zero except while a record is in it */
	size_t scratch_cap;
};

static size_t fields_end(struct tep_format_field *f)
{
	size_t end = 0;
	for (; f; f = f->next) {
		if (f->offset < 0 || f->size < 0 || f->offset > TPFORMAT_FIELD_REACH ||
		    f->size > TPFORMAT_FIELD_REACH)
			return SIZE_MAX;
		size_t e = (size_t)f->offset + (size_t)f->size;
		if (e > end)
			end = e;
	}
	return end;
}

/*
 * libtraceevent's format parser trusts its input (a truncated print fmt
 * crashes it: tests/fuzz/fuzz_tracing.c). A format goes to it only when its
 * text is printable and every field line is complete; a print fmt with
 * unbalanced quotes or brackets, or nested deeper than perf's own formats
 * go, is cut off (*len shortened): the library then prints the fields as
 * name=value pairs, as perf does for a format it cannot evaluate.
 */
#define TPFORMAT_MAX_DEPTH 32

static bool format_sane(const char *t, size_t *len)
{
	size_t n = *len, pf = n;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f)
			return false;
		if ((i == 0 || t[i - 1] == '\n') && pf == n && !strncmp(t + i, "print fmt:", 10 < n - i ? 10 : n - i))
			pf = i;
	}
	/* field lines before the print fmt: "field:...;" with offset, size */
	for (size_t i = 0; i < pf;) {
		const char *nl = memchr(t + i, '\n', pf - i);
		size_t e = nl ? (size_t)(nl - t) : pf;
		const char *f = memmem(t + i, e - i, "field:", 6);
		if (f && (!memmem(t + i, e - i, "offset:", 7) || !memmem(t + i, e - i, "size:", 5) ||
			  t[e - 1] != ';'))
			return false;
		i = e + 1;
	}
	if (pf == n)
		return true;
	bool str = false;
	int depth = 0;
	size_t i = pf + 10;
	for (; i < n && t[i] != '\n'; i++) {
		char c = t[i];
		if (str) {
			if (c == '\\' && i + 1 < n && t[i + 1] != '\n')
				i++;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == '(' || c == '[' || c == '{') {
			if (++depth > TPFORMAT_MAX_DEPTH)
				break;
		} else if (c == ')' || c == ']' || c == '}') {
			if (--depth < 0)
				break;
		}
	}
	if (str || depth != 0)
		*len = pf; /* no print fmt: fields only */
	return true;
}

static char *text_dup(const struct tracing_text *t)
{
	if (!t->p || !t->len || t->len > TPFORMAT_TEXT_MAX)
		return NULL;
	return xstrndup(t->p, t->len);
}

static struct tpl *tpl_new(const struct tracing_info *ti)
{
	struct tep_handle *tep = tep_alloc();
	if (!tep)
		return NULL;
	/* the library prints its parse complaints on stderr; perf's are
	 * quiet unless -v, and unparsed formats still print their fields */
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_file_bigendian(tep, ti->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									  : TEP_LITTLE_ENDIAN);
	if (ti->long_size == 4 || ti->long_size == 8)
		tep_set_long_size(tep, ti->long_size);
	if (ti->page_size)
		tep_set_page_size(tep, (int)ti->page_size);
	char *hp = text_dup(&ti->header_page);
	if (hp)
		tep_parse_header_page(tep, hp, ti->header_page.len,
				      ti->long_size == 4 || ti->long_size == 8 ? ti->long_size : 8);
	free(hp);
	for (size_t i = 0; i < ti->nr; i++) {
		const struct tracing_event *ev = &ti->events[i];
		if (ev->id == UINT64_MAX || ev->format_len > TPFORMAT_TEXT_MAX)
			continue;
		size_t len = ev->format_len;
		if (!format_sane(ev->format, &len))
			continue;
		tep_parse_event(tep, ev->format, len, ev->system);
	}
	/* kallsyms and printk lines are split here and registered one by one:
	 * libtraceevent's own parsers of these texts read past a malformed
	 * line (found by tests/fuzz/fuzz_tracing.c) */
	char *ks = text_dup(&ti->kallsyms);
	for (char *save = NULL, *l = ks ? strtok_r(ks, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		/* "ADDR TYPE NAME [MODULE]" */
		char *end, *type, *name, *mod;
		unsigned long long addr = strtoull(l, &end, 16);
		if (end == l || !(type = strtok_r(end, " \t", &end)) || !(name = strtok_r(NULL, " \t", &end)))
			continue;
		mod = strtok_r(NULL, " \t[]", &end);
		tep_register_function(tep, name, addr, mod);
	}
	free(ks);
	char *pk = text_dup(&ti->printk);
	for (char *save = NULL, *l = pk ? strtok_r(pk, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		/* ADDR : "FORMAT" */
		char *end, *q = strstr(l, " : \"");
		unsigned long long addr = strtoull(l, &end, 16);
		if (end == l || !q)
			continue;
		/* the library drops the closing quote and a "\n" before it by
		 * looking 3 bytes back: shorter strings are not given to it */
		char *fmt = q + 4;
		if (strlen(fmt) >= 3)
			tep_register_print_string(tep, fmt, addr);
	}
	free(pk);
	struct tpl *tf = xcalloc(1, sizeof(*tf));
	tf->tep = tep;
	trace_seq_init(&tf->seq);
	return tf;
}

static int tpl_print(struct tpl *tf, uint64_t id, uint32_t cpu, const uint8_t *raw,
		     size_t raw_size, struct buf *out)
{
	if (!tf || id > INT32_MAX || !raw || !raw_size || raw_size > INT32_MAX)
		return 0;
	struct tep_event *ev = tep_find_event(tf->tep, (int)id);
	if (!ev)
		return 0;
	size_t need = fields_end(ev->format.common_fields);
	size_t own = fields_end(ev->format.fields);
	if (own > need)
		need = own;
	if (need == SIZE_MAX || raw_size > (size_t)TPFORMAT_FIELD_REACH)
		return 0;
	if (raw_size > need)
		need = raw_size;
	need += TPFORMAT_DYN_REACH;
	if (need > tf->scratch_cap) {
		free(tf->scratch);
		tf->scratch = xcalloc(1, need);
		tf->scratch_cap = need;
	}
	memcpy(tf->scratch, raw, raw_size);
	struct tep_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.cpu = (int)cpu;
	rec.size = (int)raw_size;
	rec.data = tf->scratch;
	trace_seq_reset(&tf->seq);
	tep_print_event(tf->tep, &tf->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&tf->seq);
	memset(tf->scratch, 0, raw_size);
	if (tf->seq.len > 0 && buf_append(out, tf->seq.buffer, (size_t)tf->seq.len))
		return -1;
	return 0;
}

/* ---- the helper process ---- */

/* A sample's text is a function of its event id, CPU and raw bytes alone
 * (the helper knows only the recording's tracing data), and most samples
 * repeat one seen shortly before (sched_switch between the same threads):
 * the last answers are kept in a direct-mapped table, so a repeat costs a
 * hash and a compare instead of a round trip through the helper. */
#define MEMO_SLOTS 4096
#define MEMO_RAW 128  /* larger samples are always asked for */
#define MEMO_TEXT 256 /* as are longer answers */

struct memo {
	uint32_t id, cpu;
	uint16_t raw_size;    /* 0: empty */
	uint16_t text_len;
	uint8_t raw[MEMO_RAW];
	char text[MEMO_TEXT];
};

struct tpformat {
	pid_t pid;
	int fd;
	bool dead;
	struct memo *memo;    /* MEMO_SLOTS, from the first print */
};

/* Move all n bytes of p over the socket, in (read) or out (send: no
 * SIGPIPE when the other side is gone); EINTR retried. 0 or -1. */
static int move_all(int fd, void *p, size_t n, bool out)
{
	for (size_t k = 0; k < n;) {
		ssize_t r = out ? send(fd, (char *)p + k, n - k, MSG_NOSIGNAL)
				: read(fd, (char *)p + k, n - k);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		k += (size_t)r;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	return move_all(fd, p, n, false);
}

static int write_all(int fd, const void *p, size_t n)
{
	return move_all(fd, (void *)p, n, true);
}

/* The child: { u32 id, cpu, size; raw } in, { u32 len; text } out, until EOF. */
static void helper(int fd, const struct tracing_info *ti)
{
	struct tpl *l = tpl_new(ti);
	struct buf in, out;
	buf_init(&in, TPFORMAT_FIELD_REACH);
	buf_init(&out, TPFORMAT_TEXT_MAX);
	for (;;) {
		uint32_t h[3];
		if (read_all(fd, h, sizeof h) || h[2] > TPFORMAT_FIELD_REACH)
			break;
		in.len = 0;
		if (buf_reserve(&in, h[2]) || read_all(fd, in.data, h[2]))
			break;
		out.len = 0;
		if (l)
			tpl_print(l, h[0], h[1], in.data, h[2], &out);
		uint32_t n = (uint32_t)out.len;
		if (write_all(fd, &n, 4) || write_all(fd, out.data, n))
			break;
	}
	_exit(0);
}

struct tpformat *tpformat_new(const struct tracing_info *ti)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return NULL;
	pid_t pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return NULL;
	}
	if (pid == 0) {
		close(sv[0]);
		helper(sv[1], ti);
	}
	close(sv[1]);
	struct tpformat *tf = xcalloc(1, sizeof(*tf));
	tf->pid = pid;
	tf->fd = sv[0];
	return tf;
}

void tpformat_free(struct tpformat *tf)
{
	if (!tf)
		return;
	close(tf->fd);
	waitpid(tf->pid, NULL, 0);
	free(tf->memo);
	free(tf);
}

int tpformat_print(struct tpformat *tf, uint64_t id, uint32_t cpu, const uint8_t *raw,
		   size_t raw_size, struct buf *out)
{
	if (!tf || tf->dead || id > INT32_MAX || !raw || !raw_size || raw_size > TPFORMAT_FIELD_REACH)
		return 0;
	struct memo *m = NULL;
	if (raw_size <= MEMO_RAW) {
		if (!tf->memo)
			tf->memo = xcalloc(MEMO_SLOTS, sizeof *tf->memo);
		m = &tf->memo[hash_u64(hash_bytes(raw, raw_size) ^ (id << 32 | cpu)) % MEMO_SLOTS];
		if (m->raw_size == raw_size && m->id == (uint32_t)id && m->cpu == cpu &&
		    !memcmp(m->raw, raw, raw_size))
			return buf_append(out, m->text, m->text_len) ? -1 : 0;
	}
	uint32_t h[3] = { (uint32_t)id, cpu, (uint32_t)raw_size }, n;
	if (write_all(tf->fd, h, sizeof h) || write_all(tf->fd, raw, raw_size) ||
	    read_all(tf->fd, &n, 4) || n > TPFORMAT_TEXT_MAX) {
		tf->dead = true;
		return -2;
	}
	char tmp[4096];
	int rc = 0;
	if (m && n <= MEMO_TEXT) {
		if (read_all(tf->fd, m->text, n)) {
			m->raw_size = 0;
			tf->dead = true;
			return -2;
		}
		m->id = (uint32_t)id;
		m->cpu = cpu;
		m->raw_size = (uint16_t)raw_size;
		m->text_len = (uint16_t)n;
		memcpy(m->raw, raw, raw_size);
		return buf_append(out, m->text, n) ? -1 : 0;
	}
	while (n) {
		uint32_t k = n < sizeof tmp ? n : (uint32_t)sizeof tmp;
		if (read_all(tf->fd, tmp, k)) {
			tf->dead = true;
			return -2;
		}
		if (!rc && buf_append(out, tmp, k))
			rc = -1;
		n -= k;
	}
	return rc;
}
