/*
 * script.c: perf script's default format (see script.h).
 *
 * perf 6.1 picks the fields of a sample by its event type (hardware,
 * software, tracepoint, hw cache, raw, breakpoint, other PMUs), each type's
 * defaults trimmed by what the first attr of that type samples (no
 * PERF_SAMPLE_CPU: no cpu column, and so on):
 *
 *   every type   comm tid [cpu] time
 *   not trace    period (printed fixed or not), then "event: "
 *   tracepoint   the event's fields (libtraceevent, see tpformat.h); ip,
 *                symbol and DSO only when a tracepoint samples call chains
 *   raw          data address, data source decoded, weight, instruction
 *                latency (WEIGHT_STRUCT), then ip symbol DSO
 *   others       ip symbol+offset (DSO)
 *
 * The comm is right-aligned in 16 columns, except when the sample's call
 * chain is printed (unpadded); the tid in 5 columns; the cpu as [%03d]; the
 * time as %5lu.%06lu; the period in 10 columns; event names padded to the
 * longest one. A call chain is one line per frame and a blank line. The
 * decoded data source is padded to the longest one printed so far (perf
 * keeps that width across samples).
 *
 * -F (script_parse_fields) replaces each type's fields with the ones given,
 * or adds and removes some (+f,-f), as perf does: the fields it names are
 * checked against the first event of each type (script_check_fields, at
 * the start; a pipe's at its first sample), and perf's own additions (a
 * tracepoint's ip when it samples call chains) are left out; a type left
 * with no field prints nothing. -G (hide_callchain) prints the sample's
 * own ip on the header line (the resolver then unwinds nothing: ip_only).
 *
 * With -j (blocks) a sample whose names are decided in order is kept and
 * its text made when its block is written, possibly on another thread
 * (script_format, sink_jobs.format): the common field sets only, once the
 * fields are decided (published with a release store); tracepoint fields
 * and data sources depend on earlier samples (libtraceevent's state, the
 * data source width), so their outputs are not cut in blocks.
 * format_sample makes the same bytes as in sample(), so any -j gives the
 * same output.
 */
#include "output/script.h"
#include "output/tpformat.h"
#include "util/buf.h"
#include "util/fmt.h"
#include "util/hash.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

enum {
	SF_TID = 1u << 0,
	SF_CPU = 1u << 1,
	SF_TIME = 1u << 2,
	SF_PERIOD = 1u << 3,
	SF_TRACE = 1u << 4,
	SF_IP = 1u << 5,
	SF_DSO = 1u << 6,
	SF_SYMOFF = 1u << 7,
	SF_ADDR = 1u << 8,
	SF_DATA_SRC = 1u << 9,
	SF_WEIGHT = 1u << 10,
	SF_INS_LAT = 1u << 11,
	SF_SYM = 1u << 12,
	SF_COMM = 1u << 13,
	SF_PID = 1u << 14,
	SF_EVNAME = 1u << 15,
	SF_NS = 1u << 16,  /* --ns: the time with 9 decimals (not a field) */
	SF_SET = 1u << 31, /* the type's fields are decided */
};

/* -F's names (perf's), the fields this prints */
static const struct {
	const char *name;
	uint32_t fl;
} field_names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "time", SF_TIME },
	{ "cpu", SF_CPU }, { "event", SF_EVNAME }, { "trace", SF_TRACE }, { "ip", SF_IP },
	{ "sym", SF_SYM }, { "dso", SF_DSO }, { "addr", SF_ADDR }, { "symoff", SF_SYMOFF },
	{ "period", SF_PERIOD }, { "data_src", SF_DATA_SRC }, { "weight", SF_WEIGHT },
	{ "ins_lat", SF_INS_LAT },
};

/* perf 6.1's other -F names: known, not printed by scorch */
static const char *const fields_unsupported[] = {
	"srcline", "iregs", "uregs", "brstack", "brstacksym", "flags", "bpf-output",
	"brstackinsn", "brstackinsnlen", "brstackoff", "callindent", "insn", "insnlen", "synth",
	"phys_addr", "metric", "misc", "srccode", "ipc", "tod", "data_page_size",
	"code_page_size",
};

#define SCRIPT_TYPES 7 /* PERF_TYPE_HARDWARE..BREAKPOINT, then every other PMU */

/*
 * The text of call-chain frames already made, by what it is made of (the
 * address, symbol, offset, DSO, inlined, the fields): a recording's frames
 * repeat (a 0.2 GB build recording: 451k frames, 29.5k distinct lines).
 * Direct-mapped; the texts in an arena, all dropped when it is full (a new
 * generation). Names are compared by pointer: symbol and DSO names live
 * as long as the pipeline (the perfparser stream's frame cache counts on
 * the same). Only the sink's own thread uses it (script_sample, not
 * format() as a block is written).
 */
#define FTEXT_MIN_BITS 11      /* to start with: a small recording's frames barely repeat */
#define FTEXT_BITS 14          /* once it has looked up 8 frames an entry */
#define FTEXT_ARENA ((size_t)1 << 20)

struct ftext {
	uint64_t addr, sym_off;
	const char *sym, *dso;
	uint32_t fl, gen;
	uint32_t at, len;        /* the text in the arena */
	bool inlined;
};

struct ftcache {
	struct ftext *e;         /* 1 << bits, allocated at first use */
	unsigned bits;
	uint64_t lookups;        /* since the table was made */
	char *text;
	size_t len, cap;         /* cap: the arena's size (0: no cache) */
	uint32_t gen;            /* entries of another generation are empty */
};

struct script {
	FILE *out;
	struct script_opts o;
	char line[8192];
	int name_width; /* perf pads event names to the longest one; -1 unset */
	uint32_t fields[SCRIPT_TYPES];
	int data_src_width;
	struct tpformat *tp;
	bool tp_tried;
	struct buf text;
	struct buf sbuf;  /* one sample's text, made in order */
	struct buf *const *direct; /* blocks: the block's text, appended to directly (sink_jobs.set_text) */
	int ready;        /* name_width and fields decided: script_format may run (atomic) */
	uint64_t t_first, t_prev; /* --reltime's first time, --deltatime's last (0: none yet) */
	struct ftcache fc;
};

#define SAMPLE_TEXT_MAX (4u << 20)

static int clampk(int k, size_t n)
{
	return k < 0 ? 0 : (size_t)k >= n ? (int)n - 1 : k;
}

static unsigned type_slot(uint32_t type)
{
	return type < SCRIPT_TYPES - 1 ? type : SCRIPT_TYPES - 1;
}

/* perf's defaults for a type, trimmed by the sample_type of its first attr. */
static uint32_t type_fields(unsigned slot, uint64_t st, bool tp_ip)
{
	uint32_t f = SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME;
	if (slot == PERF_TYPE_TRACEPOINT)
		f |= SF_TRACE | (tp_ip ? SF_IP | SF_SYM | SF_DSO | SF_SYMOFF : 0);
	else
		f |= SF_PERIOD | SF_IP | SF_SYM | SF_DSO | SF_SYMOFF;
	if (slot == PERF_TYPE_RAW)
		f |= SF_ADDR | SF_DATA_SRC | SF_WEIGHT | SF_INS_LAT;
	if (!(st & PERF_SAMPLE_TID))
		f &= ~SF_TID;
	if (!(st & PERF_SAMPLE_CPU))
		f &= ~SF_CPU;
	if (!(st & PERF_SAMPLE_TIME))
		f &= ~SF_TIME;
	if (!(st & PERF_SAMPLE_IP))
		f &= ~SF_IP;
	if (!(st & PERF_SAMPLE_ADDR))
		f &= ~SF_ADDR;
	if (!(st & PERF_SAMPLE_DATA_SRC))
		f &= ~SF_DATA_SRC;
	if (!(st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)))
		f &= ~SF_WEIGHT;
	if (!(st & PERF_SAMPLE_WEIGHT_STRUCT))
		f &= ~SF_INS_LAT;
	return f | SF_SET;
}

/* -F applied to a type's fields as perf decides them */
static uint32_t user_fields(const struct script_opts *o, unsigned slot, uint32_t def)
{
	if (o->fields_mode == 1) {
		/* perf: tracepoint fields only for tracepoints ("not valid for
		 * ... events. Ignoring."); a type left with no field is not
		 * printed at all (SF_SET alone) */
		uint32_t f = o->fields_set;
		if (slot != PERF_TYPE_TRACEPOINT)
			f &= ~SF_TRACE;
		return f | SF_SET;
	}
	if (o->fields_mode == 2)
		return ((def | o->fields_add) & ~o->fields_del) | SF_SET;
	return def;
}

/* The next comma-separated item of *p (len in *len), or NULL at the end. */
/* Whether the len bytes at p are the word w. */
static bool word_is(const char *w, const char *p, size_t len)
{
	return strlen(w) == len && !memcmp(w, p, len);
}

int script_parse_fields(const char *spec, struct script_opts *o, char *msg, size_t n)
{
	o->fields_mode = 0;
	o->fields_set = o->fields_add = o->fields_del = 0;
	const char *p = spec;
	if (!*p) {
		snprintf(msg, n, "-F: no field given");
		return -1;
	}
	int mode = *p == '+' || *p == '-' ? 2 : 1;
	const char *it;
	size_t len;
	while ((it = parse_list_next(&p, &len))) {
		char sign = 0;
		if (len && (*it == '+' || *it == '-')) {
			sign = *it;
			it++;
			len--;
		}
		if ((mode == 2) != (sign != 0)) {
			snprintf(msg, n, "-F: cannot mix +-field with overridden fields");
			return -1;
		}
		uint32_t fl = 0;
		for (size_t i = 0; i < sizeof(field_names) / sizeof(*field_names); i++)
			if (word_is(field_names[i].name, it, len))
				fl = field_names[i].fl;
		if (!fl) {
			bool known = false;
			for (size_t i = 0; i < sizeof(fields_unsupported) / sizeof(*fields_unsupported); i++)
				known |= word_is(fields_unsupported[i], it, len);
			if (memchr(it, ':', len))
				snprintf(msg, n, "-F: '%.*s': fields for one event type (type:fields) are not "
						 "supported; the fields apply to every event",
					 (int)len, it);
			else if (known)
				snprintf(msg, n, "-F: field '%.*s' is not supported by scorch", (int)len, it);
			else
				snprintf(msg, n, "-F: invalid field '%.*s' (fields: comm,tid,pid,time,cpu,event,"
						 "trace,ip,sym,dso,addr,symoff,period,data_src,weight,ins_lat)",
					 (int)len, it);
			return -1;
		}
		if (mode == 1)
			o->fields_set |= fl;
		else if (sign == '+')
			o->fields_add |= fl, o->fields_del &= ~fl;
		else
			o->fields_del |= fl, o->fields_add &= ~fl;
	}
	o->fields_mode = mode;
	return 0;
}

/* "SEC[.FRAC]" (FRAC up to 9 digits) as ns; len 0 is 0 (open) */
static bool parse_time(const char *s, size_t len, uint64_t *ns)
{
	*ns = 0;
	return !len || !parse_seconds_ns(s, len, ns);
}

static int add_cpu(void *ctx, uint64_t cpu)
{
	uint64_t *cpus = ctx;
	cpus[cpu / 64] |= (uint64_t)1 << (cpu % 64);
	return 0;
}

int script_parse_filter(enum script_filter which, const char *v, struct script_opts *o, char *msg, size_t n)
{
	struct parse_bad bad;
	switch (which) {
	case SCRIPT_PIDS:
	case SCRIPT_TIDS: {
		struct thread_filter *f = &o->threads;
		const char *bad;
		size_t bad_len;
		int rc = which == SCRIPT_PIDS ? thread_filter_ids(v, &f->pids, &f->nr_pids, &bad, &bad_len)
					      : thread_filter_ids(v, &f->tids, &f->nr_tids, &bad, &bad_len);
		if (rc)
			snprintf(msg, n, "%s: '%.*s' is not a %s", which == SCRIPT_PIDS ? "--pid" : "--tid",
				 (int)bad_len, bad, which == SCRIPT_PIDS ? "process id" : "thread id");
		return rc ? -1 : 0;
	}
	case SCRIPT_COMMS:
		if (thread_filter_comms(&o->threads, v)) {
			snprintf(msg, n, "--comms: out of memory");
			return -1;
		}
		return 0;
	case SCRIPT_CPUS:
		o->cpu_filter = true;
		if (parse_cpu_list(v, SCRIPT_MAX_CPUS, add_cpu, o->cpus, &bad)) {
			snprintf(msg, n, "-C: '%.*s' is not a CPU or a range of CPUs (0 to %d)", (int)bad.len,
				 bad.item, SCRIPT_MAX_CPUS - 1);
			return -1;
		}
		return 0;
	case SCRIPT_TIME: {
		const char *comma = strchr(v, ',');
		size_t sl = comma ? (size_t)(comma - v) : strlen(v);
		if (!comma || strchr(comma + 1, ',') || !parse_time(v, sl, &o->time_start) ||
		    !parse_time(comma + 1, strlen(comma + 1), &o->time_end) ||
		    (o->time_end && o->time_start > o->time_end)) {
			snprintf(msg, n, "--time: '%s' is not START,STOP (seconds, either may be empty%s)", v,
				 strchr(v, '%') ? "; percentages are not supported" : "");
			return -1;
		}
		o->time_filter = true;
		return 0;
	}
	}
	return 0;
}

void script_opts_release(struct script_opts *o)
{
	thread_filter_release(&o->threads);
}

/* Whether --pid, --tid, --comms, -C and --time keep the sample. */
static bool script_keeps(const struct script_opts *o, const struct resolved_sample *rs)
{
	const struct perf_sample *s = &rs->ev->s;
	/* the command as the sample's line names it */
	if (!thread_filter_keeps(&o->threads, s->pid, s->tid, rs->comm ? rs->comm : s->tid ? "" : "swapper"))
		return false;
	if (o->cpu_filter && (s->cpu >= SCRIPT_MAX_CPUS || !(o->cpus[s->cpu / 64] & ((uint64_t)1 << (s->cpu % 64)))))
		return false;
	if (o->time_filter && ((o->time_start && s->time < o->time_start) || (o->time_end && s->time > o->time_end)))
		return false;
	return true;
}

static void decide_fields(struct script *sc, const struct perf_evlist *el, bool pipe)
{
	if (pipe) {
		/* perf decides each type when its first attr arrives: the
		 * defaults, trimmed, then ip and symbol (not offset or DSO)
		 * when the attrs so far sample call chains or stacks */
		uint64_t all = 0;
		for (size_t i = 0; i < el->nr; i++) {
			uint64_t st = el->attrs[i].attr.sample_type;
			all |= st;
			unsigned slot = type_slot(el->attrs[i].attr.type);
			if (sc->fields[slot])
				continue;
			/* (to -F's fields too, unless -F took them away; not
			 * with -G) */
			sc->fields[slot] = user_fields(&sc->o, slot, type_fields(slot, st, false));
			if (!sc->o.hide_callchain &&
			    ((all & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ||
			     ((all & PERF_SAMPLE_REGS_USER) && (all & PERF_SAMPLE_STACK_USER))))
				sc->fields[slot] |= (SF_IP | SF_SYM) & ~sc->o.fields_del;
		}
		return;
	}
	/* perf prints a tracepoint's ip and symbols when any tracepoint
	 * samples call chains */
	bool tp_ip = false;
	for (size_t i = 0; i < el->nr; i++)
		if (el->attrs[i].attr.type == PERF_TYPE_TRACEPOINT &&
		    (el->attrs[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN) && !sc->o.fields_mode &&
		    !sc->o.hide_callchain)
			tp_ip = true; /* perf's defaults only: not with -F or -G */
	for (size_t i = 0; i < el->nr; i++) {
		unsigned slot = type_slot(el->attrs[i].attr.type);
		if (!sc->fields[slot])
			sc->fields[slot] = user_fields(&sc->o, slot, type_fields(slot, el->attrs[i].attr.sample_type, tp_ip));
	}
}

static uint32_t fields_of(struct script *sc, const struct perf_attr *pa)
{
	unsigned slot = type_slot(pa ? pa->attr.type : PERF_TYPE_HARDWARE);
	if (!sc->fields[slot]) /* an attr the evlist did not have at the first sample */
		__atomic_store_n(&sc->fields[slot],
				 user_fields(&sc->o, slot, type_fields(slot, pa ? pa->attr.sample_type : 0, false)),
				 __ATOMIC_RELAXED); /* a block's writer may read it (script_format) */
	return sc->fields[slot];
}

/* ---- perf's name of an attr the file does not name (no event_desc) ---- */

static int add_modifiers(const struct perf_event_attr *a, char *b, size_t n)
{
	/* evsel__add_modifiers: ":" then k/u/h when something is excluded,
	 * the precision, then H/G when host/guest differ from the default */
	size_t r = 0;
	bool colon = false, guest_default = false;
#define MOD(cond, c) do { if (cond) { if (!colon) { colon = true; if (r + 1 < n) b[r++] = ':'; } \
	if (r + 1 < n) b[r++] = (c); } } while (0)
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(!a->exclude_kernel, 'k');
		MOD(!a->exclude_user, 'u');
		MOD(!a->exclude_hv, 'h');
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		MOD(1, 'p');
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		MOD(!a->exclude_host, 'H');
		MOD(!a->exclude_guest, 'G');
	}
#undef MOD
	if (n)
		b[r < n ? r : n - 1] = 0;
	return (int)r;
}

static const char *const cache_names[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node" };
static const char *const cache_ops[][2] = { { "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" } };

void script_event_name(const struct perf_event_attr *a, char *b, size_t n)
{
	int k = 0;
	uint64_t c = a->config;
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		k = snprintf(b, n, "%s", perf_hw_name(c) ? perf_hw_name(c) : "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		k = snprintf(b, n, "%s", perf_sw_name(c) ? perf_sw_name(c) : "unknown-software");
		break;
	case PERF_TYPE_HW_CACHE: {
		unsigned t = c & 0xff, op = (c >> 8) & 0xff, res = (c >> 16) & 0xff;
		if (t >= sizeof(cache_names) / sizeof(*cache_names) || op > 2 || res > 1)
			k = snprintf(b, n, "unknown-ext-hardware-cache-type");
		else if (res)
			k = snprintf(b, n, "%s-%s-misses", cache_names[t], cache_ops[op][0]);
		else
			k = snprintf(b, n, "%s-%s", cache_names[t], cache_ops[op][1]);
		break;
	}
	case PERF_TYPE_RAW:
		k = snprintf(b, n, "raw 0x%" PRIx64, c);
		break;
	case PERF_TYPE_BREAKPOINT:
		k = snprintf(b, n, "mem:0x%" PRIx64 ":%s%s%s", (uint64_t)a->bp_addr,
			     a->bp_type & HW_BREAKPOINT_R ? "r" : "", a->bp_type & HW_BREAKPOINT_W ? "w" : "",
			     a->bp_type & HW_BREAKPOINT_X ? "x" : "");
		break;
	default:
		snprintf(b, n, "unknown attr type: %u", a->type);
		return;
	}
	k = clampk(k, n);
	add_modifiers(a, b + k, n - (size_t)k);
}

/* The name perf prints: the recorded one, else perf's own for the attr. */
static const char *event_name(const struct perf_attr *pa, char *b, size_t n)
{
	if (!pa || !pa->name)
		return "unknown";
	if (pa->name_recorded || pa->attr.type == PERF_TYPE_TRACEPOINT)
		return pa->name;
	script_event_name(&pa->attr, b, n);
	return b;
}

int script_check_fields(const struct script_opts *o, const struct perf_evlist *el, char *msg, size_t n)
{
	if (!o->fields_mode)
		return 0;
	uint32_t req = o->fields_mode == 1 ? o->fields_set : o->fields_add;
	bool seen[SCRIPT_TYPES] = { false };
	for (size_t i = 0; i < el->nr; i++) {
		const struct perf_attr *a = &el->attrs[i];
		uint64_t st = a->attr.sample_type;
		/* perf checks the first event of each type, the dummy event
		 * (side-band records only) not counted */
		unsigned slot = type_slot(a->attr.type);
		if ((a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_DUMMY) || seen[slot])
			continue;
		seen[slot] = true;
		uint32_t eff = user_fields(o, slot, type_fields(slot, st, false));
		char nb[160];
		const char *name = event_name(a, nb, sizeof nb);
		static const struct {
			uint32_t fl;
			uint64_t st;
			const char *what, *field;
		} need[] = {
			{ SF_IP, PERF_SAMPLE_IP, "IP", "ip" },
			{ SF_ADDR, PERF_SAMPLE_ADDR, "ADDR", "addr" },
			{ SF_DATA_SRC, PERF_SAMPLE_DATA_SRC, "DATA_SRC", "data_src" },
			{ SF_WEIGHT, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT", "weight" },
			{ 0, 0, NULL, NULL }, /* symbols, offsets, DSOs: below */
			{ SF_TID, PERF_SAMPLE_TID, "TID", "tid" },
			{ SF_PID, PERF_SAMPLE_TID, "TID", "pid" },
			{ SF_TIME, PERF_SAMPLE_TIME, "TIME", "time" },
			{ SF_CPU, PERF_SAMPLE_CPU, "CPU", "cpu" },
			{ SF_INS_LAT, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", "ins_lat" },
		};
		for (size_t k = 0; k < sizeof(need) / sizeof(*need); k++) {
			if (!need[k].fl) {
				const char *why = NULL;
				bool addr = st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);
				if ((eff & SF_SYM) && !addr)
					why = "Display of symbols requested but neither sample IP nor sample "
					      "address available. Hence, no addresses to convert to symbols.";
				else if ((eff & SF_SYMOFF) && !(eff & SF_SYM))
					why = "Display of offsets requested but symbol is not selected.";
				else if ((eff & SF_DSO) && !addr)
					why = "Display of DSO requested but no address to convert.";
				if (why) {
					snprintf(msg, n, "%s", why);
					return -1;
				}
				continue;
			}
			if ((req & need[k].fl) && !(st & need[k].st)) {
				snprintf(msg, n, "Samples for '%s' event do not have %s attribute set. "
						 "Cannot print '%s' field.", name, need[k].what, need[k].field);
				return -1;
			}
		}
	}
	return 0;
}

/* format_header's line put together by hand (one per sample: snprintf's
 * format parsing was most of its cost), when buf has room for all of it
 * whatever the numbers; else -1 and the caller uses snprintf (the same
 * text, cut at the buffer's end). */
static int format_header_fast(char *buf, size_t n, const struct perf_sample *s, uint64_t t,
			      const char *comm, const char *name, bool callchain_mode, int name_width,
			      uint32_t fl)
{
	size_t lc = strlen(comm), ln = strlen(name);
	if (name_width < 0 || name_width > 4096 || (fl & (SF_PID | SF_NS)) ||
	    n < 16 + lc + ln + (size_t)name_width + 4 * FMT_ROOM + 16)
		return -1;
	char *p = buf;
	if (fl & SF_COMM) {
		if (!callchain_mode && lc < 16) { /* "%16s" */
			memset(p, ' ', 16 - lc);
			p += 16 - lc;
		}
		memcpy(p, comm, lc);
		p += lc;
		*p++ = ' ';
	}
	if (fl & SF_TID) { /* "%5d " */
		p += fmt_sdec(p, (int)s->tid, 5);
		*p++ = ' ';
	}
	if (fl & SF_CPU) { /* "[%03u] " */
		*p++ = '[';
		p += fmt_dec(p, s->cpu, 3, 1);
		*p++ = ']';
		*p++ = ' ';
	}
	if (fl & SF_TIME) { /* "%5lu.%06lu: " */
		p += fmt_dec(p, t / 1000000000u, 5, 0);
		*p++ = '.';
		p += fmt_dec(p, (t % 1000000000u) / 1000, 6, 1);
		*p++ = ':';
		*p++ = ' ';
	}
	if (fl & SF_PERIOD) { /* "%10lu " */
		p += fmt_dec(p, s->period, 10, 0);
		*p++ = ' ';
	}
	if (fl & SF_EVNAME) {
		if ((size_t)name_width > ln) { /* "%*s: " */
			memset(p, ' ', (size_t)name_width - ln);
			p += (size_t)name_width - ln;
		}
		memcpy(p, name, ln);
		p += ln;
		*p++ = ':';
		*p++ = ' ';
	}
	*p = 0;
	return (int)(p - buf);
}

/* t: the time shown (the sample's, or --reltime's, --deltatime's) */
static int format_header(char *buf, size_t n, const struct resolved_sample *rs, uint64_t t,
			 const struct perf_attr *pa, bool callchain_mode, int name_width, uint32_t fl)
{
	const struct perf_sample *s = &rs->ev->s;
	char commbuf[32];
	const char *comm = rs->comm;
	if (!comm && s->tid == 0)
		comm = "swapper"; /* perf names the idle task */
	if (!comm) {
		snprintf(commbuf, sizeof(commbuf), ":%d", (int)s->tid);
		comm = commbuf;
	}
	char nb[160];
	const char *name = event_name(pa, nb, sizeof nb);
	int fast = format_header_fast(buf, n, s, t, comm, name, callchain_mode, name_width, fl);
	if (fast >= 0)
		return fast;
	int k = 0;
	if (n)
		buf[0] = 0;
	if (fl & SF_COMM)
		k = clampk(callchain_mode ? snprintf(buf, n, "%s ", comm) : snprintf(buf, n, "%16s ", comm), n);
	if ((fl & SF_PID) && (fl & SF_TID))
		k = clampk(k + snprintf(buf + k, n - k, "%5d/%-5d ", (int)s->pid, (int)s->tid), n);
	else if (fl & SF_PID)
		k = clampk(k + snprintf(buf + k, n - k, "%5d ", (int)s->pid), n);
	else if (fl & SF_TID)
		k = clampk(k + snprintf(buf + k, n - k, "%5d ", (int)s->tid), n);
	if (fl & SF_CPU)
		k = clampk(k + snprintf(buf + k, n - k, "[%03u] ", s->cpu), n);
	if ((fl & SF_TIME) && (fl & SF_NS))
		k = clampk(k + snprintf(buf + k, n - k, "%5" PRIu64 ".%09" PRIu64 ": ",
			      (uint64_t)(t / 1000000000u), (uint64_t)(t % 1000000000u)), n);
	else if (fl & SF_TIME)
		k = clampk(k + snprintf(buf + k, n - k, "%5" PRIu64 ".%06" PRIu64 ": ",
			      (uint64_t)(t / 1000000000u), (uint64_t)((t % 1000000000u) / 1000)), n);
	if (fl & SF_PERIOD) /* perf prints it, fixed or not */
		k = clampk(k + snprintf(buf + k, n - k, "%10" PRIu64 " ", s->period), n);
	if (fl & SF_EVNAME)
		k = clampk(k + snprintf(buf + k, n - k, "%*s: ", name_width, name), n);
	return k;
}

int script_format_header(char *buf, size_t n, const struct resolved_sample *rs,
			 const struct perf_attr *pa, bool callchain_mode, int name_width)
{
	uint64_t st = pa ? pa->attr.sample_type : PERF_SAMPLE_TID;
	unsigned slot = type_slot(pa ? pa->attr.type : PERF_TYPE_HARDWARE);
	return format_header(buf, n, rs, rs->ev->s.time, pa, callchain_mode, name_width,
			     type_fields(slot, st | PERF_SAMPLE_TID, false));
}

static uint64_t frame_addr(const struct frame *f)
{
	/* perf prints user frames of a call chain DSO-relative, kernel ones absolute */
	if (f->map && f->kind == FRAME_USER)
		return f->rel;
	return f->ip;
}

int script_format_frame(char *buf, size_t n, const struct frame *f)
{
	const char *dso = f->dso ? f->dso : "[unknown]";
	/* perf prints an inline frame as "sym+off (inlined)", without the DSO */
	if (f->sym && f->inlined)
		return snprintf(buf, n, "%16" PRIx64 " %s+0x%" PRIx64 " (inlined)", frame_addr(f),
				f->sym, f->sym_off);
	if (f->sym)
		return snprintf(buf, n, "%16" PRIx64 " %s+0x%" PRIx64 " (%s)", frame_addr(f), f->sym,
				f->sym_off, dso);
	return snprintf(buf, n, "%16" PRIx64 " [unknown] (%s)", frame_addr(f), dso);
}

/*
 * The default frame line is the hot path of `scorch script` on a DWARF
 * recording (tens of frames per sample): it is put together by hand, as
 * snprintf's format parsing cost more than the rest of the line. A line
 * writer that stops at the buffer's end, like snprintf (which is what the
 * other field sets still use).
 */
struct linew {
	char *p, *end; /* end: the last byte, kept for the NUL */
};

static void lw_str(struct linew *w, const char *s)
{
	size_t len = strlen(s), room = (size_t)(w->end - w->p);
	if (len > room)
		len = room;
	memcpy(w->p, s, len);
	w->p += len;
}

/* v in lower-case hex; at least `width` characters, padded on the left */
static void lw_hex(struct linew *w, uint64_t v, int width)
{
	/* digits: 1 for 0, else one per started nibble (from the top bit) */
	if ((size_t)(w->end - w->p) >= 16 && width <= 16) {
		/* the common case: room for all of it (fmt_hex stores 16 bytes
		 * at most), no check per byte */
		w->p += fmt_hex(w->p, v, width);
		return;
	}
	char d[16];
	int n = 0;
	do {
		d[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (int i = n; i < width && w->p < w->end; i++)
		*w->p++ = ' ';
	while (n && w->p < w->end)
		*w->p++ = d[--n];
}

/* "%16lx sym+0xoff (dso)", "(inlined)" for inline frames, "[unknown]"
 * without a symbol; the length written (NUL excluded) */
static int format_frame_default(char *buf, size_t n, const struct frame *f, uint64_t addr)
{
	if (!n)
		return 0;
	struct linew w = { buf, buf + n - 1 };
	lw_hex(&w, addr, 16);
	if (f->sym) {
		lw_str(&w, " ");
		lw_str(&w, f->sym);
		lw_str(&w, "+0x");
		lw_hex(&w, f->sym_off, 0);
	} else {
		lw_str(&w, " [unknown]");
	}
	if (f->sym && f->inlined) {
		lw_str(&w, " (inlined)");
	} else {
		lw_str(&w, " (");
		lw_str(&w, f->dso ? f->dso : "[unknown]");
		lw_str(&w, ")");
	}
	*w.p = 0;
	return (int)(w.p - buf);
}

/* One frame as perf prints it with the type's fields: symbol, +offset, DSO;
 * the length written. */
static int format_frame_fl(char *buf, size_t n, const struct frame *f, uint64_t addr, uint32_t fl)
{
	const char *dso = f->dso ? f->dso : "[unknown]";
	if ((fl & (SF_SYM | SF_SYMOFF | SF_DSO)) == (SF_SYM | SF_SYMOFF | SF_DSO))
		return format_frame_default(buf, n, f, addr);
	int k = clampk(snprintf(buf, n, "%16" PRIx64, addr), n);
	if (fl & SF_SYM) {
		if (f->sym && (fl & SF_SYMOFF))
			k = clampk(k + snprintf(buf + k, n - k, " %s+0x%" PRIx64, f->sym, f->sym_off), n);
		else
			k = clampk(k + snprintf(buf + k, n - k, " %s", f->sym ? f->sym : "[unknown]"), n);
	}
	if ((fl & SF_DSO) && !(f->sym && f->inlined))
		k = clampk(k + snprintf(buf + k, n - k, " (%s)", dso), n);
	if (f->sym && f->inlined)
		k = clampk(k + snprintf(buf + k, n - k, " (inlined)"), n);
	return k;
}

/* Frame f's text (format_frame_fl's) from the cache c, made there when
 * missing: *text and its length. line (n bytes) is scratch space. */
static int frame_text(struct ftcache *c, const struct frame *f, uint64_t addr, uint32_t fl,
		      char *line, size_t n, const char **text)
{
	bool inl = f->inlined;
	uint64_t h = hash_u64(addr ^ ((uint64_t)(uintptr_t)f->sym << 17) ^ ((uint64_t)(uintptr_t)f->dso << 3) ^
			      f->sym_off ^ ((uint64_t)fl << 40) ^ inl);
	struct ftext *e = NULL;
	if (c->e && c->bits < FTEXT_BITS && ++c->lookups > ((uint64_t)8 << c->bits)) {
		/* a bigger table, empty (what was kept is made again) */
		free(c->e);
		c->e = NULL;
	}
	if (!c->e) {
		c->bits = c->bits ? FTEXT_BITS : FTEXT_MIN_BITS;
		c->lookups = 0;
		c->e = xcalloc((size_t)1 << c->bits, sizeof(*c->e));
	}
	e = &c->e[h & (((size_t)1 << c->bits) - 1)];
	if (e->gen == c->gen && e->addr == addr && e->sym == f->sym && e->dso == f->dso &&
	    e->sym_off == f->sym_off && e->fl == fl && e->inlined == inl) {
		*text = c->text + e->at;
		return (int)e->len;
	}
	int len = format_frame_fl(line, n, f, addr, fl);
	*text = line;
	if (!c->gen)
		return len;
	if (!c->text)
		c->text = xmalloc(c->cap);
	if ((size_t)len > c->cap - c->len) {
		if ((size_t)len > c->cap / 16)
			return len; /* too long to keep */
		c->gen++; /* full: every entry dropped */
		c->len = 0;
		if (!c->gen)
			return len; /* wrapped (never): no more caching */
	}
	memcpy(c->text + c->len, line, (size_t)len);
	*e = (struct ftext){ .addr = addr, .sym_off = f->sym_off, .sym = f->sym, .dso = f->dso,
			     .fl = fl, .gen = c->gen, .at = (uint32_t)c->len, .len = (uint32_t)len,
			     .inlined = inl };
	c->len += (size_t)len;
	return len;
}

/* ---- perf's data source decoding (union perf_mem_data_src) ---- */

static const char *const mem_lvl[] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
static const char *const mem_lvlnum[16] = {
	[0x09] = "CXL", [0x0a] = "I/O", [0x0b] = "Any cache", [0x0c] = "LFB/MAB",
	[0x0d] = "RAM", [0x0e] = "PMEM", [0x0f] = "N/A",
};
static const char *const mem_hops[8] = {
	"N/A", "core, same node", "node, same socket", "socket, same board", "board",
};
static const char *const snoop_access[] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const snoopx_access[] = { "Fwd", "Peer" };
static const char *const tlb_access[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };

/* Append the names of m's set bits, " or "-separated; returns how many. */
static int bits_or(struct buf *b, uint64_t m, const char *const *names, size_t nn, int printed)
{
	for (size_t i = 0; m && i < nn; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (printed++)
			buf_append(b, " or ", 4);
		buf_append(b, names[i], strlen(names[i]));
	}
	return printed;
}

static void puts_buf(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

/* The end of a data source part begun at at: "N/A" when it printed
 * nothing, then " hit" and " miss" for bits 1 and 2 of m. */
static void na_hit_miss(struct buf *b, size_t at, uint64_t m)
{
	if (b->len == at)
		puts_buf(b, "N/A");
	if (m & 2)
		puts_buf(b, " hit");
	if (m & 4)
		puts_buf(b, " miss");
}

void script_data_src(uint64_t v, char *out, size_t n)
{
	uint64_t op = v & 0x1f, lvl = (v >> 5) & 0x3fff, snoop = (v >> 19) & 0x1f;
	uint64_t lock = (v >> 24) & 0x3, dtlb = (v >> 26) & 0x7f, lvl_num = (v >> 33) & 0xf;
	uint64_t remote = (v >> 37) & 1, snoopx = (v >> 38) & 0x3, blk = (v >> 40) & 0x7;
	uint64_t hops = (v >> 43) & 0x7;
	struct buf b;
	buf_init(&b, 4096);
	puts_buf(&b, "|OP ");
	puts_buf(&b, op & 1 ? "N/A" : op & 2 ? "LOAD" : op & 4 ? "STORE" : op & 8 ? "PFETCH" : op & 16 ? "EXEC" : "No");
	puts_buf(&b, "|LVL ");
	size_t at = b.len;
	if (remote)
		puts_buf(&b, "Remote ");
	int printed = 0;
	if (hops) {
		puts_buf(&b, mem_hops[hops] ? mem_hops[hops] : "N/A");
		puts_buf(&b, " ");
	} else {
		printed = bits_or(&b, lvl & ~(uint64_t)0x6, mem_lvl, sizeof(mem_lvl) / sizeof(*mem_lvl), 0);
	}
	if (lvl_num) {
		if (printed++)
			puts_buf(&b, " or ");
		if (mem_lvlnum[lvl_num]) {
			puts_buf(&b, mem_lvlnum[lvl_num]);
		} else {
			char l[8];
			snprintf(l, sizeof l, "L%u", (unsigned)lvl_num);
			puts_buf(&b, l);
		}
	}
	na_hit_miss(&b, at, lvl);
	puts_buf(&b, "|SNP ");
	at = b.len;
	printed = bits_or(&b, snoop, snoop_access, 5, 0);
	bits_or(&b, snoopx, snoopx_access, 2, printed);
	na_hit_miss(&b, at, 0);
	puts_buf(&b, "|TLB ");
	at = b.len;
	bits_or(&b, dtlb & ~(uint64_t)0x6, tlb_access, 7, 0);
	na_hit_miss(&b, at, dtlb);
	puts_buf(&b, "|LCK ");
	puts_buf(&b, lock & 1 ? "N/A" : lock & 2 ? "Yes" : "No");
	puts_buf(&b, "|BLK ");
	if (!blk || (blk & 1)) {
		puts_buf(&b, " N/A");
	} else {
		if (blk & 2)
			puts_buf(&b, " Data");
		if (blk & 4)
			puts_buf(&b, " Addr");
	}
	snprintf(out, n, "%.*s", (int)b.len, b.len ? (const char *)b.data : "");
	buf_release(&b);
}

/* ---- one sample ---- */

static bool sample_cc(const struct script *sc, uint32_t fl, const struct perf_attr *pa)
{
	return (fl & SF_IP) && pa && (pa->attr.sample_type & PERF_SAMPLE_CALLCHAIN) && !sc->o.hide_callchain;
}

/* The text of a sample whose fields have no tracepoint fields and no data
 * source, appended to out: what script_sample's stream writes make for it.
 * line: scratch space of n bytes. 0, or nonzero when out cannot hold it. */
static int format_sample(const struct script *sc, const struct resolved_sample *rs, uint64_t t, uint32_t fl,
			 bool cc, struct buf *out, char *line, size_t n, struct ftcache *fc)
{
	const struct perf_attr *pa = rs->attr;
	const struct perf_sample *s = &rs->ev->s;
	int rc = 0;
	format_header(line, n, rs, t, pa, cc, sc->name_width, fl);
	rc |= buf_append(out, line, strlen(line));
	if (sc->o.headers_only)
		return rc | buf_append(out, "\n", 1);
	char num[40];
	if (fl & SF_ADDR)
		rc |= buf_append(out, num, (size_t)snprintf(num, sizeof num, "%16" PRIx64, s->addr));
	if (fl & SF_WEIGHT) {
		bool ws = pa && (pa->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
		rc |= buf_append(out, num, (size_t)snprintf(num, sizeof num, "%16" PRIu64,
							     ws ? s->weight & 0xffffffffu : s->weight));
	}
	if (fl & SF_INS_LAT)
		rc |= buf_append(out, num, (size_t)snprintf(num, sizeof num, "%16" PRIu64,
							     (s->weight >> 32) & 0xffff));
	if ((fl & SF_IP) && cc) {
		rc |= buf_append(out, "\n", 1);
		for (uint32_t i = 0; i < rs->nr_frames && !rc; i++) {
			if (rs->frames[i].inlined && !sc->o.show_inline)
				continue;
			const char *text = line;
			int len = fc && fc->cap ? frame_text(fc, &rs->frames[i], frame_addr(&rs->frames[i]), fl, line, n, &text)
				     : format_frame_fl(line, n, &rs->frames[i], frame_addr(&rs->frames[i]), fl);
			if (buf_reserve(out, (size_t)len + 2))
				return 1;
			out->data[out->len++] = '\t';
			memcpy(out->data + out->len, text, (size_t)len);
			out->len += (size_t)len;
			out->data[out->len++] = '\n';
		}
	} else if (fl & SF_IP) {
		struct frame none = { .ip = s->ip };
		const struct frame *f = rs->nr_frames ? &rs->frames[0] : &none;
		format_frame_fl(line, n, f, f->ip, fl & ~SF_SET);
		rc |= buf_append(out, " ", 1);
		rc |= buf_append(out, line, strlen(line));
	}
	rc |= buf_append(out, "\n", 1); /* after a call chain: the blank line */
	return rc;
}

/* The fields of a sample, with --ip's additions. */
static uint32_t sample_fields(const struct script *sc, uint32_t fl)
{
	if (sc->o.all_ip)
		fl |= SF_IP | SF_SYM | SF_SYMOFF | SF_DSO;
	if (sc->o.ns && (fl & ~SF_SET))
		fl |= SF_NS;
	return fl;
}

/* sink_jobs.format, on the thread writing a block: reads only what is decided for good. */
static int script_format(void *ctx, const struct resolved_sample *rs, struct buf *out)
{
	const struct script *sc = ctx;
	if (!script_keeps(&sc->o, rs))
		return 0; /* not kept: no text */
	if (sc->o.raw || sc->o.reltime || sc->o.deltatime || !__atomic_load_n(&sc->ready, __ATOMIC_ACQUIRE))
		return 1; /* (the times before it: in order) */
	const struct perf_attr *pa = rs->attr;
	unsigned slot = type_slot(pa ? pa->attr.type : PERF_TYPE_HARDWARE);
	uint32_t fl = __atomic_load_n(&sc->fields[slot], __ATOMIC_RELAXED);
	if (!fl)
		return 1;
	fl = sample_fields(sc, fl);
	if (!(fl & ~SF_SET))
		return 0; /* -F left this event type nothing: no text */
	if (fl & (SF_TRACE | SF_DATA_SRC))
		return 1;
	char line[sizeof(sc->line)];
	return format_sample(sc, rs, rs->ev->s.time, fl, sample_cc(sc, fl, pa), out, line, sizeof line, NULL);
}

static void print_ip(struct script *sc, const struct resolved_sample *rs, bool cc, uint32_t fl)
{
	if (cc) {
		fputc('\n', sc->out);
		for (uint32_t i = 0; i < rs->nr_frames; i++) {
			if (rs->frames[i].inlined && !sc->o.show_inline)
				continue;
			int len = format_frame_fl(sc->line, sizeof(sc->line), &rs->frames[i],
						  frame_addr(&rs->frames[i]), fl);
			sc->line[len] = '\n';
			putc('\t', sc->out);
			fwrite(sc->line, 1, (size_t)len + 1, sc->out);
		}
	} else {
		struct frame none = { .ip = rs->ev->s.ip };
		const struct frame *f = rs->nr_frames ? &rs->frames[0] : &none;
		format_frame_fl(sc->line, sizeof(sc->line), f, f->ip, fl & ~SF_SET);
		fprintf(sc->out, " %s", sc->line);
	}
}

static void print_trace(struct script *sc, struct pipeline *p, const struct perf_attr *pa,
			const struct perf_sample *s)
{
	if (!s->raw || !s->raw_size)
		return;
	if (!sc->tp_tried) {
		/* the first tracepoint sample: libtraceevent reads the formats */
		const struct perf_header *h = input_header(pipeline_input(p));
		sc->tp_tried = true;
		if (h->tracing.header_ok)
			sc->tp = tpformat_new(&h->tracing);
	}
	sc->text.len = 0;
	if (tpformat_print(sc->tp, pa->attr.config, s->cpu, s->raw, s->raw_size, &sc->text) == -2) {
		const struct pipeline_config *c = pipeline_config(p);
		const char *msg = "libtraceevent failed on this recording's tracepoint formats or "
				  "data: tracepoint fields are not printed from here on";
		if (c->warn)
			c->warn(c->warn_ctx, msg);
		else
			fprintf(stderr, "scorch: %s: %s\n", c->input ? c->input : "-", msg);
	}
	if (sc->text.len)
		fwrite(sc->text.data, 1, sc->text.len, sc->out);
}

/* At the first sample: the event name width and each type's fields, from
 * the attrs known by then (perf decides them then too). */
static void decide(struct script *sc, struct pipeline *p)
{
	struct perf_evlist *el = input_evlist(pipeline_input(p));
	sc->name_width = 0;
	char nb[160];
	for (size_t i = 0; i < el->nr; i++) {
		int len = (int)strlen(event_name(&el->attrs[i], nb, sizeof nb));
		if (len > sc->name_width)
			sc->name_width = len;
	}
	decide_fields(sc, el, input_header(pipeline_input(p))->pipe);
	__atomic_store_n(&sc->ready, 1, __ATOMIC_RELEASE);
}

/* Block-parallel runs: the first sample decides, whichever block it is in. */
static void script_sample_seen(void *ctx, struct pipeline *p)
{
	struct script *sc = ctx;
	if (!sc->o.raw && sc->name_width < 0)
		decide(sc, p);
}

bool script_blocks_ok(const struct script_opts *o, const struct perf_evlist *el)
{
	/* a raw line is made by sample() only; tracepoint fields and data
	 * sources depend on the samples before (libtraceevent, the width) */
	if (o->raw || o->reltime || o->deltatime)
		return false; /* (a time shown depends on the samples before) */
	struct script sc = { .o = *o };
	decide_fields(&sc, el, false);
	for (size_t i = 0; i < el->nr; i++) {
		unsigned slot = type_slot(el->attrs[i].attr.type);
		if (sample_fields(&sc, sc.fields[slot]) & (SF_TRACE | SF_DATA_SRC))
			return false;
	}
	return true;
}

static int script_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct script *sc = ctx;
	const struct perf_attr *pa = rs->attr;
	const struct perf_sample *s = &rs->ev->s;
	if (sc->o.raw) {
		if (!script_keeps(&sc->o, rs))
			return 0;
		uint64_t ip0 = s->ip;
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			if (s->callchain[i] < PERF_CONTEXT_MAX) {
				ip0 = s->callchain[i];
				break;
			}
		fprintf(sc->out, "%s\t%d\t%d\t%llu\t%llu\t%llx\t%u\t%s\t%llx\n",
			rs->comm ? rs->comm : (s->tid ? "" : "swapper"), (int)s->pid, (int)s->tid,
			(unsigned long long)s->time, (unsigned long long)s->period,
			(unsigned long long)s->ip, s->cpu, pa && pa->name ? pa->name : "", (unsigned long long)ip0);
		return 0;
	}
	if (sc->name_width < 0) {
		struct input *in = pipeline_input(p);
		char msg[256];
		/* a pipe's attrs come with it: -F is checked at the first sample */
		if (sc->o.fields_mode && input_header(in)->pipe &&
		    script_check_fields(&sc->o, input_evlist(in), msg, sizeof msg))
			return pipeline_fail(p, msg);
		decide(sc, p);
	}
	if (!script_keeps(&sc->o, rs))
		return 0; /* --pid, --tid, --comms, -C, --time (decided at the first sample all the same) */
	uint32_t fl = sample_fields(sc, fields_of(sc, pa));
	if (!(fl & ~SF_SET))
		return 0; /* -F left this event type nothing to print: perf prints no line */
	bool cc = sample_cc(sc, fl, pa);
	uint64_t t = s->time; /* perf's --reltime, --deltatime: of the samples shown with a time */
	if ((fl & SF_TIME) && sc->o.reltime) {
		if (!sc->t_first)
			sc->t_first = s->time;
		t = s->time - sc->t_first;
	} else if ((fl & SF_TIME) && sc->o.deltatime) {
		t = sc->t_prev ? s->time - sc->t_prev : 0;
		sc->t_prev = s->time;
	}
	if (!(fl & (SF_TRACE | SF_DATA_SRC))) {
		if (sc->direct) {
			/* into the block's text, after what went to the FILE */
			if (__fpending(sc->out) && fflush(sc->out))
				return -5;
			struct buf *tb = *sc->direct;
			size_t at = tb->len;
			if (!format_sample(sc, rs, t, fl, cc, tb, sc->line, sizeof(sc->line), &sc->fc) &&
			    tb->len - at <= SAMPLE_TEXT_MAX)
				return 0;
			tb->len = at; /* as sbuf's cap would have had it: the FILE's way */
		} else {
			sc->sbuf.len = 0;
			if (!format_sample(sc, rs, t, fl, cc, &sc->sbuf, sc->line, sizeof(sc->line), &sc->fc)) {
				fwrite(sc->sbuf.data, 1, sc->sbuf.len, sc->out);
				return ferror(sc->out) ? -5 : 0;
			}
		}
	}
	format_header(sc->line, sizeof(sc->line), rs, t, pa, cc, sc->name_width, fl);
	fputs(sc->line, sc->out);
	if (sc->o.headers_only) {
		fputc('\n', sc->out);
		return 0;
	}
	if ((fl & SF_TRACE) && pa)
		print_trace(sc, p, pa, s);
	if (fl & SF_ADDR)
		fprintf(sc->out, "%16" PRIx64, s->addr);
	if (fl & SF_DATA_SRC) {
		char dec[256], out[300];
		script_data_src(s->data_src, dec, sizeof dec);
		int len = snprintf(out, sizeof out, "%16" PRIx64 " %s", s->data_src, dec);
		if (len > sc->data_src_width)
			sc->data_src_width = len;
		fprintf(sc->out, "%-*s", sc->data_src_width, out);
	}
	if (fl & SF_WEIGHT) {
		bool ws = pa && (pa->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
		fprintf(sc->out, "%16" PRIu64, ws ? s->weight & 0xffffffffu : s->weight);
	}
	if (fl & SF_INS_LAT)
		fprintf(sc->out, "%16" PRIu64, (s->weight >> 32) & 0xffff);
	if (fl & SF_IP)
		print_ip(sc, rs, cc, fl);
	fputc('\n', sc->out); /* after a call chain: the blank line */
	return ferror(sc->out) ? -5 : 0;
}

/* -F asks for what the file's events have (a pipe's: at the first sample) */
static int script_begin(void *ctx, struct pipeline *p)
{
	struct script *sc = ctx;
	struct input *in = pipeline_input(p);
	char msg[256];
	if (sc->o.fields_mode && !input_header(in)->pipe &&
	    script_check_fields(&sc->o, input_evlist(in), msg, sizeof msg))
		return pipeline_fail(p, msg);
	if (sc->o.cpu_filter && !input_header(in)->pipe) {
		const struct perf_evlist *el = input_evlist(in);
		size_t i = 0;
		while (i < el->nr && !(el->attrs[i].attr.sample_type & PERF_SAMPLE_CPU))
			i++;
		if (i == el->nr)
			return pipeline_fail(p, "File does not contain CPU events. Remove -C option to proceed.");
	}
	return 0;
}

static int script_end(void *ctx, struct pipeline *p, int rc)
{
	struct script *sc = ctx;
	int r = fflush(sc->out) ? -5 : 0;
	tpformat_free(sc->tp);
	buf_release(&sc->text);
	buf_release(&sc->sbuf);
	free(sc->fc.e);
	free(sc->fc.text);
	free(sc);
	return r;
}

static void script_set_text(void *ctx, struct buf *const *text)
{
	struct script *sc = ctx;
	sc->direct = text;
}

int script_sink_init(struct sink *sink, FILE *out, const struct script_opts *o)
{
	struct script *sc = xcalloc(1, sizeof(*sc));
	sc->out = out;
	sc->name_width = -1;
	sc->fc.gen = 1;
	sc->fc.cap = FTEXT_ARENA;
	buf_init(&sc->text, 1 << 20);
	buf_init(&sc->sbuf, SAMPLE_TEXT_MAX);
	if (o)
		sc->o = *o;
	memset(sink, 0, sizeof(*sink));
	sink->ctx = sc;
	sink->begin = script_begin;
	sink->sample = script_sample;
	sink->end = script_end;
	static const struct sink_jobs jobs = { .format = script_format, .sample_seen = script_sample_seen,
					       .set_text = script_set_text };
	sink->jobs = &jobs;
	return 0;
}
