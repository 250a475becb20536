/*
 * dwdie.c: a CU's DIEs from .debug_info (see dwdie.h).
 *
 * The walks mirror elfutils 0.188's dwarf_child, dwarf_siblingof,
 * dwarf_ranges and dwarf_haspc for the DIEs inlines.c visits; where those
 * would fail or this reader is unsure, it gives up (libdw walks) or asks
 * libdw about one DIE. Every read is bounds-checked: the input is a file.
 */
#include "analyze/dwarf/dwdie.h"
#include "analyze/symbols/elffile.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/ksort.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

bool dwdie_sections_of(Elf *e, struct dwdie_sections *s)
{
	GElf_Ehdr eh;
	memset(s, 0, sizeof(*s));
	return e && gelf_getehdr(e, &eh) && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
	       elffile_section_bytes(e, ".debug_info", &s->info, &s->info_size) &&
	       elffile_section_bytes(e, ".debug_abbrev", &s->abbrev, &s->abbrev_size) &&
	       elffile_section_bytes(e, ".debug_ranges", &s->ranges, &s->ranges_size) &&
	       elffile_section_bytes(e, ".debug_rnglists", &s->rnglists, &s->rnglists_size) &&
	       elffile_section_bytes(e, ".debug_str", &s->str, &s->str_size) &&
	       elffile_section_bytes(e, ".debug_line_str", &s->line_str, &s->line_str_size) &&
	       s->info && s->abbrev;
}

/* One attribute specification of an abbreviation. */
struct aspec {
	uint32_t name, form;
	int32_t size;        /* form_size */
	int64_t implicit;    /* DW_FORM_implicit_const: the value */
};

struct abbrev {
	uint32_t tag;
	bool children;
	uint32_t first, n;   /* its specs: spec[first .. first + n) */
	int32_t fixed;       /* bytes of all its values when all are of fixed size, else -1 */
	bool sib_any;        /* it has a DW_AT_sibling */
	int32_t sib_at;      /* where its DW_AT_sibling value is when fixed, else -1 */
	uint32_t sib_form;
	bool wanted;         /* its values are read: pc below, or scope */
	bool pc;             /* a tag whose ranges are asked for, with DW_AT_low_pc,
			      * DW_AT_high_pc or DW_AT_ranges */
	bool scope;          /* walked into for types (namespace, class, ...) */
};

struct dwdie_cu {
	const struct dwdie_sections *s;
	const uint8_t *sec;          /* .debug_info: DIE offsets count from here */
	const uint8_t *start, *end;  /* the unit, header included */
	const uint8_t *die;          /* the CU DIE */
	unsigned version, addr_size, off_size;
	struct abbrev *ab;           /* by code - 1 */
	size_t nab;
	struct aspec *spec;
	size_t nspec;
	bool types;
	/* the base address of DW_AT_ranges lists (__libdw_cu_base_address),
	 * when this reader knows it; else such lists are libdw's */
	bool base_ok;
	uint64_t base;
	/* dwdie_inlines' scopes: DIE offset -> struct kids *, made on a
	 * scope's first walk (or taken from the store); nkids_rg: the
	 * ranges they keep (KIDS_RANGES_MAX) */
	struct hmap kids;
	size_t nkids_rg;
	const struct dwdie_store *store;
};

#define cu dwdie_cu

struct rd {
	const uint8_t *p, *end;
};

/* A LEB128's value bits into *v; *bits: how many it had (7 a byte), *last:
 * its last byte (a signed one's sign is its 0x40). */
static bool leb(struct rd *r, uint64_t *v, unsigned *bits, uint8_t *last)
{
	uint64_t x = 0;
	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;
		if (shift < 64)
			x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			*bits = shift + 7;
			*last = b;
			return true;
		}
	}
	return false;
}

static bool uleb_slow(struct rd *r, uint64_t *v)
{
	unsigned bits;
	uint8_t last;
	return leb(r, v, &bits, &last);
}

static inline __attribute__((always_inline)) bool uleb(struct rd *r, uint64_t *v)
{
	if (__builtin_expect(r->p < r->end && !(*r->p & 0x80), 1)) {
		*v = *r->p++;
		return true;
	}
	return uleb_slow(r, v);
}

static bool sleb(struct rd *r, int64_t *v)
{
	uint64_t x;
	unsigned bits;
	uint8_t last;
	if (!leb(r, &x, &bits, &last))
		return false;
	if (bits < 64 && (last & 0x40))
		x |= ~(uint64_t)0 << bits;
	*v = (int64_t)x;
	return true;
}

static bool fixed(struct rd *r, unsigned n, uint64_t *v)
{
	if ((size_t)(r->end - r->p) < n)
		return false;
	uint64_t x = 0;
	for (unsigned i = 0; i < n; i++)
		x |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	*v = x;
	return true;
}

/* A unit's initial length (4 bytes, or the 0xffffffff escape and 8): the
 * offset size into *osize, r's end set to the unit's end; false when it
 * is a reserved value or does not fit. */
static bool unit_length(struct rd *r, uint64_t *len, unsigned *osize)
{
	*osize = 4;
	if (!fixed(r, 4, len))
		return false;
	if (*len == 0xffffffff) {
		if (!fixed(r, 8, len))
			return false;
		*osize = 8;
	} else if (*len >= 0xfffffff0) {
		return false;
	}
	if (*len > (uint64_t)(r->end - r->p))
		return false;
	r->end = r->p + *len;
	return true;
}

/* The header of the compile unit at off of .debug_info, as this reader
 * takes units (DWARF 2 to 5; DWARF 5: DW_UT_compile). */
struct unit_hdr {
	const uint8_t *start, *end, *die;
	unsigned version, addr_size, off_size;
	uint64_t abbrev_off;
};

static bool unit_header(const struct dwdie_sections *s, uint64_t off, struct unit_hdr *h)
{
	if (off >= s->info_size)
		return false;
	struct rd r = { s->info + off, s->info + s->info_size };
	uint64_t len, version, x;
	h->start = r.p;
	if (!unit_length(&r, &len, &h->off_size) || !fixed(&r, 2, &version) || version < 2 ||
	    version > 5)
		return false;
	h->version = (unsigned)version;
	if (version == 5) {
		if (!fixed(&r, 1, &x) || x != DW_UT_compile || !fixed(&r, 1, &x))
			return false;
		h->addr_size = (unsigned)x;
		if (!fixed(&r, h->off_size, &h->abbrev_off))
			return false;
	} else {
		if (!fixed(&r, h->off_size, &h->abbrev_off) || !fixed(&r, 1, &x))
			return false;
		h->addr_size = (unsigned)x;
	}
	h->end = r.end;
	h->die = r.p;
	return true;
}

/* A form's value size when it does not depend on the data; 0 for none
 * (flag_present, implicit_const); -1 variable; -2 unknown. */
static int form_size(const struct cu *c, uint64_t form)
{
	switch (form) {
	case DW_FORM_addr:
		return (int)c->addr_size;
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4: case DW_FORM_strx4:
	case DW_FORM_addrx4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return (int)c->off_size;
	case DW_FORM_ref_addr:
		return (int)(c->version == 2 ? c->addr_size : c->off_size);
	case DW_FORM_string: case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2:
	case DW_FORM_block4: case DW_FORM_exprloc: case DW_FORM_sdata: case DW_FORM_udata:
	case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx:
	case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
	case DW_FORM_indirect:
		return -1;
	default:
		return -2;
	}
}

/* Skip one value of form; *form_out: the form read (DW_FORM_indirect
 * names it in the data). */
static bool skip_value(const struct cu *c, struct rd *r, uint64_t form, int sz,
		       uint64_t *form_out)
{
	uint64_t n;
	if (form == DW_FORM_indirect) {
		if (!uleb(r, &form) || form == DW_FORM_indirect || form == DW_FORM_implicit_const)
			return false;
		sz = form_size(c, form);
	}
	*form_out = form;
	if (sz >= 0) {
		if ((size_t)(r->end - r->p) < (size_t)sz)
			return false;
		r->p += sz;
		return true;
	}
	if (sz == -2)
		return false;
	switch (form) {
	case DW_FORM_string: {
		const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
		if (!z)
			return false;
		r->p = z + 1;
		return true;
	}
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
		if (!fixed(r, form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4, &n))
			return false;
		break;
	case DW_FORM_block: case DW_FORM_exprloc:
		if (!uleb(r, &n))
			return false;
		break;
	default: /* LEB128 values */
		return uleb(r, &n);
	}
	if ((uint64_t)(r->end - r->p) < n)
		return false;
	r->p += n;
	return true;
}

/* The CU's abbreviation table; false when this reader will not take it. */
static bool read_abbrevs(const struct dwdie_sections *s, uint64_t off, struct cu *c)
{
	if (off >= s->abbrev_size)
		return false;
	struct rd r = { s->abbrev + off, s->abbrev + s->abbrev_size };
	size_t cap_ab = 0, cap_spec = 0;
	for (;;) {
		uint64_t code, tag, name, form;
		if (!uleb(&r, &code))
			return false;
		if (!code)
			return true;
		/* codes are given in order 1, 2, ... by every producer seen;
		 * others go to libdw */
		if (code != c->nab + 1 || !uleb(&r, &tag) || r.p >= r.end || tag > UINT32_MAX)
			return false;
		if (c->nab == cap_ab) {
			cap_ab = cap_ab ? cap_ab * 2 : 64;
			c->ab = xrealloc(c->ab, cap_ab * sizeof *c->ab);
		}
		struct abbrev *a = &c->ab[c->nab++];
		*a = (struct abbrev){ .tag = (uint32_t)tag, .children = *r.p++ != 0,
				      .first = (uint32_t)c->nspec };
		/* the values of a subprogram, an inlined subroutine or a block
		 * are read when it may have ranges (a declaration has no
		 * DW_AT_low_pc, DW_AT_high_pc, DW_AT_ranges: dwarf_ranges
		 * gives it none) */
		a->scope = c->types && (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
					tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
					tag == DW_TAG_module);
		bool pc_tag = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
			      tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
			      tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt ||
			      tag == DW_TAG_common_block;
		int total = 0;
		a->sib_at = -1;
		bool sib_seen = false;
		for (;;) {
			if (!uleb(&r, &name) || !uleb(&r, &form))
				return false;
			if (!name && !form)
				break;
			if (name > UINT32_MAX || form > UINT32_MAX)
				return false;
			int64_t implicit = 0;
			if (form == DW_FORM_implicit_const && !sleb(&r, &implicit))
				return false;
			int sz = form_size(c, form);
			if (sz == -2)
				return false;
			/* the first DW_AT_sibling counts (dwarf_siblingof); its
			 * value is read in place when what precedes it is of
			 * fixed size and it is in a form read_die knows */
			if (name == DW_AT_sibling && !sib_seen) {
				sib_seen = a->sib_any = true;
				if (total >= 0 && (form == DW_FORM_ref1 || form == DW_FORM_ref2 ||
						   form == DW_FORM_ref4 || form == DW_FORM_ref8)) {
					a->sib_at = total;
					a->sib_form = (uint32_t)form;
				}
			}
			if (sz < 0 || total < 0)
				total = -1;
			else
				total += sz;
			if (c->nspec == cap_spec) {
				cap_spec = cap_spec ? cap_spec * 2 : 256;
				c->spec = xrealloc(c->spec, cap_spec * sizeof *c->spec);
			}
			c->spec[c->nspec++] = (struct aspec){ (uint32_t)name, (uint32_t)form, sz, implicit };
			if (pc_tag && (name == DW_AT_low_pc || name == DW_AT_high_pc ||
				       name == DW_AT_ranges || form == DW_FORM_indirect))
				a->pc = true;
			a->n++;
		}
		a->fixed = total;
		a->wanted = a->pc || a->scope;
	}
}

/* What one DIE holds for the walk. */
struct die {
	const uint8_t *at;          /* the DIE */
	const struct abbrev *ab;
	const uint8_t *after;       /* its last attribute's end */
	bool has_sibling;
	uint64_t sibling;           /* CU-relative */
	/* the pc attributes of abbrev->pc DIEs */
	bool has_low, has_high, has_ranges, low_ok, high_ok, high_const, ranges_ok;
	uint64_t low, high, ranges;  /* ranges: the list's offset */
};

/* The abbreviation of the DIE whose code r is at (r moves past the code);
 * NULL for a null entry or a code the unit does not define. */
static inline const struct abbrev *die_abbrev(const struct cu *c, struct rd *r)
{
	uint64_t code;
	if (!uleb(r, &code) || !code || code > c->nab)
		return NULL;
	return &c->ab[code - 1];
}

/* Read the DIE at p (not a null entry); with need_end, or when its
 * values are wanted, up to its end (d->after: where children start),
 * else only as far as dwarf_siblingof needs. */
static bool read_die(const struct cu *c, const uint8_t *p, struct die *d, bool need_end)
{
	struct rd r = { p, c->end };
	const struct abbrev *a = die_abbrev(c, &r);
	if (!a)
		return false;
	d->at = p;
	d->ab = a;
	d->has_sibling = false;
	d->has_low = d->has_high = d->has_ranges = d->low_ok = d->high_ok = d->high_const =
		d->ranges_ok = false;
	d->after = NULL;
	if (!need_end && !a->wanted && (!a->sib_any || a->sib_at >= 0)) {
		/* only where the next sibling is: dwarf_siblingof reads the
		 * attributes up to DW_AT_sibling, else to the DIE's end */
		if (a->sib_at >= 0) {
			struct rd v = { r.p + a->sib_at, c->end };
			d->has_sibling = true;
			return (size_t)(c->end - r.p) >= (size_t)a->sib_at &&
			       fixed(&v, (unsigned)form_size(c, a->sib_form), &d->sibling);
		}
		if (a->fixed >= 0) {
			if ((size_t)(c->end - r.p) < (size_t)a->fixed)
				return false;
			d->after = r.p + a->fixed;
			return true;
		}
		/* to its end: no DW_AT_sibling among its attributes */
		for (uint32_t i = 0; i < a->n; i++) {
			const struct aspec *sp = &c->spec[a->first + i];
			uint64_t form;
			if (sp->size >= 0) {
				if ((size_t)(c->end - r.p) < (size_t)sp->size)
					return false;
				r.p += sp->size;
			} else if (!skip_value(c, &r, sp->form, sp->size, &form)) {
				return false;
			}
		}
		d->after = r.p;
		return true;
	}
	bool sub = a->pc;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct aspec *sp = &c->spec[a->first + i];
		const uint8_t *val = r.p;
		uint64_t form;
		if (!skip_value(c, &r, sp->form, sp->size, &form))
			return false;
		struct rd v = { val, r.p };
		if (form == DW_FORM_indirect)
			return false;
		if (sp->form == DW_FORM_indirect) /* the value follows the form */
			uleb(&v, &(uint64_t){ 0 });
		switch (sp->name) {
		case DW_AT_sibling:
			/* dwarf_siblingof: the first one, a CU-relative reference */
			if (d->has_sibling)
				break;
			d->has_sibling = true;
			switch (form) {
			case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
				fixed(&v, (unsigned)form_size(c, form), &d->sibling);
				break;
			case DW_FORM_ref_udata:
				uleb(&v, &d->sibling);
				break;
			default:
				return false;
			}
			break;
		case DW_AT_low_pc:
			if (!sub || d->has_low)
				break;
			d->has_low = true;
			if (form == DW_FORM_addr && (c->addr_size == 4 || c->addr_size == 8))
				d->low_ok = fixed(&v, c->addr_size, &d->low);
			break;
		case DW_AT_high_pc:
			if (!sub || d->has_high)
				break;
			d->has_high = true;
			if (form == DW_FORM_addr && (c->addr_size == 4 || c->addr_size == 8)) {
				d->high_ok = fixed(&v, c->addr_size, &d->high);
			} else if (c->version >= 4 &&
				   (form == DW_FORM_data1 || form == DW_FORM_data2 ||
				    form == DW_FORM_data4 || form == DW_FORM_data8)) {
				d->high_ok = fixed(&v, (unsigned)form_size(c, form), &d->high);
				d->high_const = true;
			} else if (c->version >= 4 && form == DW_FORM_udata) {
				d->high_ok = uleb(&v, &d->high);
				d->high_const = true;
			}
			break;
		case DW_AT_ranges:
			if (!sub || d->has_ranges)
				break;
			d->has_ranges = true;
			/* a list's offset (initial_offset, __libdw_formptr);
			 * DW_FORM_rnglistx is libdw's */
			if (form == DW_FORM_sec_offset)
				d->ranges_ok = fixed(&v, c->off_size, &d->ranges);
			else if (c->version <= 3 && (form == DW_FORM_data4 || form == DW_FORM_data8))
				d->ranges_ok = fixed(&v, form == DW_FORM_data4 ? 4 : 8, &d->ranges);
			break;
		}
	}
	d->after = r.p;
	return true;
}

/* __libdw_cu_base_address: the CU DIE's DW_AT_low_pc, else its
 * DW_AT_entry_pc, else 0; known here for an address form or neither, and
 * with no ranges base (split DWARF) in the way. False: bad data. */
static bool cu_base(struct cu *c)
{
	struct rd r = { c->die, c->end };
	uint64_t form, v;
	const struct abbrev *a = die_abbrev(c, &r);
	if (!a)
		return false;
	bool low = false, entry = false, other = false;
	c->base = 0;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct aspec *sp = &c->spec[a->first + i];
		const uint8_t *val = r.p;
		if (!skip_value(c, &r, sp->form, sp->size, &form))
			return false;
		struct rd vr = { val, r.p };
		if (sp->name == DW_AT_low_pc && !low) {
			low = true;
			if (sp->form == DW_FORM_addr && (c->addr_size == 4 || c->addr_size == 8) &&
			    fixed(&vr, c->addr_size, &v))
				c->base = v;
			else
				other = true;
		} else if (sp->name == DW_AT_entry_pc) {
			entry = true;
		} else if (sp->name == DW_AT_rnglists_base || sp->name == DW_AT_GNU_ranges_base) {
			other = true;
		}
	}
	c->base_ok = !other && (low || !entry) && c->base != UINT64_MAX &&
		     (c->addr_size == 4 || c->addr_size == 8);
	return true;
}

/* The range list at off, as dwarf_haspc's loop over dwarf_ranges reads it:
 * without rg, whether it holds pc (1 yes); with rg, its ranges [lo, hi)
 * in order into rg (at most cap; 2 and no more when the list has more).
 * 0 at the list's end; -1 where libdw must answer (what this reader does
 * not read: indexed addresses, an unknown base; and bad data, whose answer
 * is libdw's), the ranges before it kept. */
static int list_walk(const struct cu *c, uint64_t off, uint64_t pc, uint64_t (*rg)[2], size_t cap,
		     size_t *n)
{
	const struct dwdie_sections *s = c->s;
	unsigned w = c->addr_size;
	uint64_t base = c->base, b, e;
#define RANGE(lo, hi)                                                                              \
	do {                                                                                       \
		if (!rg) {                                                                         \
			if (pc >= (lo) && pc < (hi))                                               \
				return 1;                                                          \
		} else if (*n == cap) {                                                            \
			return 2;                                                                  \
		} else {                                                                           \
			rg[*n][0] = (lo);                                                          \
			rg[(*n)++][1] = (hi);                                                      \
		}                                                                                  \
	} while (0)
	if (!c->base_ok)
		return -1;
	if (c->version < 5) {
		if (!s->ranges || off >= s->ranges_size)
			return -1;
		struct rd r = { s->ranges + off, s->ranges + s->ranges_size };
		uint64_t escape = w == 8 ? UINT64_MAX : UINT32_MAX;
		for (;;) {
			if (!fixed(&r, w, &b) || !fixed(&r, w, &e))
				return -1;
			if (b == escape) {
				if (e == escape)
					return -1;
				base = e;
				continue;
			}
			if (!b && !e)
				return 0;
			RANGE(b + base, e + base);
		}
	}
	if (!s->rnglists || off >= s->rnglists_size)
		return -1;
	struct rd r = { s->rnglists + off, s->rnglists + s->rnglists_size };
	for (;;) {
		if (r.p >= r.end)
			return -1;
		uint8_t code = *r.p++;
		switch (code) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_offset_pair:
			if (!uleb(&r, &b) || !uleb(&r, &e))
				return -1;
			b += base;
			e += base;
			break;
		case DW_RLE_base_address:
			if (!fixed(&r, w, &base))
				return -1;
			continue;
		case DW_RLE_start_end:
			if (!fixed(&r, w, &b) || !fixed(&r, w, &e))
				return -1;
			break;
		case DW_RLE_start_length:
			if (!fixed(&r, w, &b) || !uleb(&r, &e))
				return -1;
			e += b;
			break;
		default: /* indexed (.debug_addr) forms, bad codes */
			return -1;
		}
		RANGE(b, e);
	}
#undef RANGE
}

/* dwarf_siblingof from d: the next sibling into *next (NULL: none);
 * false where libdw would fail. */
static bool next_sibling(const struct cu *c, const struct die *d, const uint8_t **next)
{
	struct die cur = *d;
	unsigned level = 0;
	for (;;) {
		const uint8_t *p;
		if (cur.has_sibling) {
			size_t size = (size_t)(c->end - c->start), off = (size_t)(cur.at - c->start);
			if (cur.sibling >= size || cur.sibling <= off)
				return false;
			p = c->start + cur.sibling;
		} else {
			p = cur.after;
			if (cur.ab->children)
				level++;
		}
		/* null entries end the levels entered */
		for (;;) {
			if (p >= c->end) {
				*next = NULL;
				return true;
			}
			if (*p)
				break;
			if (level-- == 0) {
				*next = NULL;
				return true;
			}
			p++;
		}
		if (!level) {
			*next = p;
			return true;
		}
		if (!read_die(c, p, &cur, false))
			return false;
	}
}

/* dwarf_child of d into *child (NULL: none). */
static bool first_child(const struct cu *c, const struct die *d, const uint8_t **child)
{
	*child = NULL;
	if (!d->ab->children)
		return true;
	/* a null entry may be padded (0x80 0x80 ... 0x00): no children */
	const uint8_t *q = d->after;
	while (q < c->end && *q == 0x80)
		q++;
	if (q < c->end && *q)
		*child = d->after;
	return true;
}

static bool walk(const struct cu *c, const struct die *parent, int depth,
		 const struct dwdie_visitor *v)
{
	const uint8_t *p;
	if (depth > 8)
		return true;
	if (!first_child(c, parent, &p))
		return false;
	while (p) {
		struct die d;
		if (!read_die(c, p, &d, false))
			return false;
		if (d.ab->tag == DW_TAG_subprogram) {
			/* (one without those attributes has no ranges: d has
			 * none of them set) */
			uint64_t die_off = (uint64_t)(d.at - c->sec);
			if (d.has_ranges || (d.has_low && d.has_high && (!d.low_ok || !d.high_ok))) {
				v->ask(v->ctx, die_off);
			} else if (d.has_low && d.has_high) {
				uint64_t hi = d.high_const ? d.low + d.high : d.high;
				v->range(v->ctx, die_off, d.low, hi);
			}
		} else if (d.ab->scope) {
			if (!walk(c, &d, depth + 1, v))
				return false;
		}
		if (!next_sibling(c, &d, &p))
			return false;
	}
	return true;
}

/* A CU's abbreviations as kept (dwdie_store, by the table's offset): for
 * the CU parameters their sizes were worked out with, a header, then each
 * abbreviation and attribute specification in a fixed layout. */
struct abbrevs_hdr {
	uint32_t version, cu_version, addr_size, off_size;
	uint64_t nab, nspec;
};
struct abbrev_img {
	uint32_t tag, first, n, sib_form;
	int32_t fixed, sib_at;
	uint8_t children, sib_any, pc, zero[5];
};
struct aspec_img {
	uint32_t name, form;
	int32_t size, zero;
	int64_t implicit;
};
#define ABBREVS_VERSION 1

/* What the store keeps of kind at off: its header (hsize bytes) into hdr
 * and the bytes after it (*lim of them), or NULL when none or shorter than
 * a header. */
static const uint8_t *kept_bytes(const struct cu *c, enum dwdie_kept kind, uint64_t off, void *hdr,
				 size_t hsize, size_t *lim)
{
	size_t size;
	const uint8_t *p = c->store->find(c->store->ctx, kind, off, &size);
	if (!p || size < hsize)
		return NULL;
	memcpy(hdr, p, hsize);
	*lim = size - hsize;
	return p + hsize;
}

/* lim bytes are exactly n1 records of s1 bytes then n2 of s2 (no
 * overflow whatever n1 and n2 say). */
static bool two_arrays(size_t lim, uint64_t n1, size_t s1, uint64_t n2, size_t s2)
{
	return n1 <= lim / s1 && n2 <= (lim - n1 * s1) / s2 && lim == n1 * s1 + n2 * s2;
}

static void abbrevs_keep(const struct cu *c, uint64_t off)
{
	struct abbrevs_hdr h = { ABBREVS_VERSION, c->version, c->addr_size, c->off_size, c->nab,
				 c->nspec };
	size_t size = sizeof h + c->nab * sizeof(struct abbrev_img) +
		      c->nspec * sizeof(struct aspec_img);
	uint8_t *p = xcalloc(1, size);
	memcpy(p, &h, sizeof h);
	struct abbrev_img *a = (void *)(p + sizeof h);
	struct aspec_img *sp = (void *)(a + c->nab);
	for (size_t i = 0; i < c->nab; i++) {
		const struct abbrev *x = &c->ab[i];
		a[i] = (struct abbrev_img){ .tag = x->tag, .first = x->first, .n = x->n,
					    .sib_form = x->sib_form, .fixed = x->fixed,
					    .sib_at = x->sib_at, .children = x->children,
					    .sib_any = x->sib_any, .pc = x->pc };
	}
	for (size_t i = 0; i < c->nspec; i++)
		sp[i] = (struct aspec_img){ .name = c->spec[i].name, .form = c->spec[i].form,
					    .size = c->spec[i].size,
					    .implicit = c->spec[i].implicit };
	c->store->keep(c->store->ctx, DWDIE_KEPT_ABBREVS, off, p, size);
}

/* c's abbreviations from those kept for the table at off, made for the
 * same CU parameters; false when none or they do not check (sizes, each
 * abbreviation's specifications inside the kept ones, flags). A damaged
 * one can make DIEs read wrong, never outside the unit: every read is
 * bounds-checked against it. */
static bool abbrevs_load(struct cu *c, uint64_t off)
{
	struct abbrevs_hdr h;
	size_t lim;
	const uint8_t *p = kept_bytes(c, DWDIE_KEPT_ABBREVS, off, &h, sizeof h, &lim);
	if (!p || h.version != ABBREVS_VERSION || h.cu_version != c->version ||
	    h.addr_size != c->addr_size || h.off_size != c->off_size ||
	    !two_arrays(lim, h.nab, sizeof(struct abbrev_img), h.nspec, sizeof(struct aspec_img)))
		return false;
	const struct abbrev_img *a = (const void *)p;
	const struct aspec_img *sp = (const void *)(a + h.nab);
	c->ab = xmalloc((h.nab ? h.nab : 1) * sizeof *c->ab);
	c->spec = xmalloc((h.nspec ? h.nspec : 1) * sizeof *c->spec);
	for (size_t i = 0; i < h.nab; i++) {
		struct abbrev_img x;
		memcpy(&x, &a[i], sizeof x);
		if (x.first > h.nspec || x.n > h.nspec - x.first || x.children > 1 || x.sib_any > 1 ||
		    x.pc > 1 || x.fixed < -1 || x.sib_at < -1)
			return false; /* (the caller frees c) */
		c->ab[i] = (struct abbrev){ .tag = x.tag, .children = x.children, .first = x.first,
					    .n = x.n, .fixed = x.fixed, .sib_any = x.sib_any,
					    .sib_at = x.sib_at, .sib_form = x.sib_form, .pc = x.pc };
	}
	for (size_t i = 0; i < h.nspec; i++) {
		struct aspec_img x;
		memcpy(&x, &sp[i], sizeof x);
		c->spec[i] = (struct aspec){ x.name, x.form, x.size, x.implicit };
	}
	c->nab = (size_t)h.nab;
	c->nspec = (size_t)h.nspec;
	dwdie_cu_set_types(c, c->types); /* scope, wanted */
	return true;
}

struct dwdie_cu *dwdie_cu_open(const struct dwdie_sections *s, uint64_t cu_off, bool types)
{
	return dwdie_cu_open_stored(s, cu_off, types, NULL);
}

struct dwdie_cu *dwdie_cu_open_stored(const struct dwdie_sections *s, uint64_t cu_off, bool types,
				      const struct dwdie_store *st)
{
	struct unit_hdr h;
	if (!unit_header(s, cu_off, &h))
		return NULL;
	struct cu *c = xcalloc(1, sizeof *c);
	*c = (struct cu){ .s = s, .sec = s->info, .start = h.start, .end = h.end, .die = h.die,
			  .version = h.version, .addr_size = h.addr_size, .off_size = h.off_size,
			  .types = types, .store = st };
	hmap_init(&c->kids);
	uint64_t abbrev_off = h.abbrev_off;
	bool kept = st && abbrevs_load(c, abbrev_off);
	if (st && !kept) {
		free(c->ab);
		free(c->spec);
		c->ab = NULL;
		c->spec = NULL;
		c->nab = c->nspec = 0;
	}
	if ((!kept && !read_abbrevs(s, abbrev_off, c)) || !cu_base(c))
		goto fail;
	if (st && !kept)
		abbrevs_keep(c, abbrev_off);
	/* kept with the CU's index: no room to grow */
	c->ab = xrealloc(c->ab, (c->nab ? c->nab : 1) * sizeof *c->ab);
	c->spec = xrealloc(c->spec, (c->nspec ? c->nspec : 1) * sizeof *c->spec);
	return c;
fail:
	dwdie_cu_free(c);
	return NULL;
}

static void kids_free(void *p);

void dwdie_cu_free(struct dwdie_cu *c)
{
	if (!c)
		return;
	hmap_release_vals(&c->kids, kids_free);
	free(c->ab);
	free(c->spec);
	free(c);
}

bool dwdie_functions(struct dwdie_cu *c, const struct dwdie_visitor *v)
{
	struct die cu_die;
	return read_die(c, c->die, &cu_die, true) && walk(c, &cu_die, 0, v);
}

static bool is_block(uint32_t tag)
{
	return tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
	       tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt || tag == DW_TAG_common_block;
}

/*
 * A scope's children that dwdie_inlines tests (inlined subroutines and
 * blocks), in DIE order, each with its ranges as dwarf_haspc reads them. A
 * walk from a function to an address visits every child of each scope on
 * the way until the one holding the address; in a big function (thousands
 * of variables, call sites and inlined calls) that was most of the walk,
 * and a profile asks for many addresses of the same functions. So a
 * scope's children are read once, all of them, and later walks test only
 * these, without reading a DIE or a range list again.
 */
enum kid_kind {
	KID_RANGE,     /* DW_AT_low_pc/DW_AT_high_pc: [lo, hi) */
	KID_LIST,      /* DW_AT_ranges, decoded: rg[first .. first + nr); then
			* list_bad: -1 (libdw answers), else 0 */
	KID_LIST_LONG, /* DW_AT_ranges not decoded (past KID_LIST_MAX, or the
			* CU's KIDS_RANGES_MAX): read each time */
	KID_ASK,       /* libdw answers (v->haspc) */
};
/* the ranges a kid's list may keep, and all of a CU's kids together: a
 * hostile unit of many kids naming one long list cannot make them grow as
 * the square of its size */
#define KID_LIST_MAX 256
#define KIDS_RANGES_MAX ((size_t)1 << 20)

struct kid {
	uint64_t off;                /* .debug_info offset */
	uint64_t lo, hi;             /* KID_RANGE; KID_LIST_LONG: lo is the list */
	uint32_t first, nr;          /* KID_LIST */
	uint8_t kind;
	bool inl;                    /* inlined subroutine, else a block */
	bool list_bad;
};

struct kids {
	size_t n;
	/* reading the children failed after the last of these: a walk that
	 * passes them all fails (where the uncached walk would have) */
	bool bad_tail;
	uint64_t (*rg)[2];           /* the decoded lists' ranges */
	struct kid k[];
};

static void kids_free(void *p)
{
	struct kids *ks = p;
	free(ks->rg);
	free(ks);
}

/* A scope's kids as kept (dwdie_store): a header, then each kid in a
 * fixed layout (no padding), then the decoded lists' ranges. */
struct kids_hdr {
	uint32_t version, bad_tail;
	uint64_t n, nrg;
};
struct kid_img {
	uint64_t off, lo, hi;
	uint32_t first, nr;
	uint8_t kind, inl, list_bad, zero[5];
};
#define KIDS_VERSION 1

static void kids_keep(struct cu *c, uint64_t key, const struct kids *ks, size_t nrg)
{
	struct kids_hdr h = { KIDS_VERSION, ks->bad_tail, ks->n, nrg };
	size_t size = sizeof h + ks->n * sizeof(struct kid_img) + nrg * sizeof ks->rg[0];
	uint8_t *p = xcalloc(1, size);
	memcpy(p, &h, sizeof h);
	struct kid_img *k = (void *)(p + sizeof h);
	for (size_t i = 0; i < ks->n; i++) {
		const struct kid *x = &ks->k[i];
		k[i] = (struct kid_img){ .off = x->off, .lo = x->lo, .hi = x->hi, .first = x->first,
					 .nr = x->nr, .kind = x->kind, .inl = x->inl,
					 .list_bad = x->list_bad };
	}
	if (nrg)
		memcpy(p + sizeof h + ks->n * sizeof *k, ks->rg, nrg * sizeof ks->rg[0]);
	c->store->keep(c->store->ctx, DWDIE_KEPT_KIDS, key, p, size);
}

/* The kids kept for the scope at key, checked (sizes, kinds, each list's
 * ranges inside the kept ones, each kid a DIE offset after the CU DIE
 * inside the unit); NULL when none or they do not check. */
static struct kids *kids_load(struct cu *c, uint64_t key)
{
	struct kids_hdr h;
	size_t lim;
	const uint8_t *p = kept_bytes(c, DWDIE_KEPT_KIDS, key, &h, sizeof h, &lim);
	if (!p || h.version != KIDS_VERSION || h.bad_tail > 1 ||
	    !two_arrays(lim, h.n, sizeof(struct kid_img), h.nrg, 2 * sizeof(uint64_t)))
		return NULL;
	uint64_t lo = (uint64_t)(c->die - c->sec), hi = (uint64_t)(c->end - c->sec);
	struct kids *ks = xmalloc(sizeof *ks + (h.n ? h.n : 1) * sizeof ks->k[0]);
	ks->n = (size_t)h.n;
	ks->bad_tail = h.bad_tail;
	ks->rg = NULL;
	const struct kid_img *k = (const void *)p;
	for (size_t i = 0; i < ks->n; i++) {
		struct kid_img x;
		memcpy(&x, &k[i], sizeof x);
		if (x.kind > KID_ASK || x.inl > 1 || x.list_bad > 1 || x.off <= lo || x.off >= hi ||
		    (x.kind == KID_LIST && (x.first > h.nrg || x.nr > h.nrg - x.first))) {
			free(ks);
			return NULL;
		}
		ks->k[i] = (struct kid){ .off = x.off, .lo = x.lo, .hi = x.hi, .first = x.first,
					 .nr = x.nr, .kind = x.kind, .inl = x.inl,
					 .list_bad = x.list_bad };
	}
	if (h.nrg) {
		ks->rg = xmalloc((size_t)h.nrg * sizeof ks->rg[0]);
		memcpy(ks->rg, p + ks->n * sizeof *k, (size_t)h.nrg * sizeof ks->rg[0]);
	}
	return ks;
}

static struct kids *scope_kids(struct cu *c, const struct die *scope)
{
	uint64_t key = (uint64_t)(scope->at - c->sec);
	struct kids *ks = hmap_get(&c->kids, key);
	if (ks)
		return ks;
	if (c->store && (ks = kids_load(c, key))) {
		hmap_put(&c->kids, key, ks);
		return ks;
	}
	size_t n = 0, cap = 8, nrg = 0, cap_rg = 0;
	uint64_t(*rg)[2] = NULL;
	ks = xmalloc(sizeof *ks + cap * sizeof ks->k[0]);
	ks->bad_tail = false;
	const uint8_t *q;
	first_child(c, scope, &q);
	while (q) {
		struct die d;
		if (!read_die(c, q, &d, false)) {
			ks->bad_tail = true;
			break;
		}
		uint32_t tag = d.ab->tag;
		struct kid k = { .off = (uint64_t)(q - c->sec),
				 .inl = tag == DW_TAG_inlined_subroutine };
		bool keep = true;
		if (tag != DW_TAG_inlined_subroutine && !is_block(tag)) {
			keep = false;
		} else if (d.has_low && d.has_high) {
			/* dwarf_ranges: one range from DW_AT_low_pc and DW_AT_high_pc */
			k.kind = d.low_ok && d.high_ok ? KID_RANGE : KID_ASK;
			if (k.kind == KID_RANGE) { /* (else the values were not read) */
				k.lo = d.low;
				k.hi = d.high_const ? d.low + d.high : d.high;
			}
		} else if (!d.has_ranges) {
			keep = false; /* no ranges: never holds pc */
		} else if (!d.ranges_ok) {
			k.kind = KID_ASK;
		} else {
			uint64_t tmp[KID_LIST_MAX][2];
			size_t m = 0;
			int r = c->nkids_rg + nrg < KIDS_RANGES_MAX ?
				list_walk(c, d.ranges, 0, tmp, KID_LIST_MAX, &m) : 2;
			if (r == 2) {
				k.kind = KID_LIST_LONG;
				k.lo = d.ranges;
			} else {
				if (m && ARRAY_GROW(rg, cap_rg, nrg + m, (size_t)1 << 24)) {
					ks->bad_tail = true; /* not reached: bounded by the DIEs */
					break;
				}
				if (m)
					memcpy(rg + nrg, tmp, m * sizeof tmp[0]);
				k.kind = KID_LIST;
				k.first = (uint32_t)nrg;
				k.nr = (uint32_t)m;
				k.list_bad = r < 0;
				nrg += m;
			}
		}
		if (keep) {
			if (n == cap) {
				cap *= 2;
				ks = xrealloc(ks, sizeof *ks + cap * sizeof ks->k[0]);
			}
			ks->k[n++] = k;
		}
		if (!next_sibling(c, &d, &q)) {
			ks->bad_tail = true;
			break;
		}
	}
	ks->n = n;
	ks->rg = rg;
	c->nkids_rg += nrg;
	if (n + 1 < cap)
		ks = xrealloc(ks, sizeof *ks + (n ? n : 1) * sizeof ks->k[0]);
	hmap_put(&c->kids, key, ks);
	if (c->store)
		kids_keep(c, key, ks, nrg);
	return ks;
}

/* dwarf_haspc (k, pc) > 0: 1 yes, 0 no, -1 ask libdw. */
static int kid_haspc(const struct cu *c, const struct kids *ks, const struct kid *k, uint64_t pc)
{
	switch (k->kind) {
	case KID_RANGE:
		return pc >= k->lo && pc < k->hi;
	case KID_LIST:
		for (uint32_t i = 0; i < k->nr; i++)
			if (pc >= ks->rg[k->first + i][0] && pc < ks->rg[k->first + i][1])
				return 1;
		return k->list_bad ? -1 : 0;
	case KID_LIST_LONG:
		return list_walk(c, k->lo, pc, NULL, 0, NULL);
	default:
		return -1;
	}
}

int dwdie_inlines(struct dwdie_cu *c, uint64_t fn_off, uint64_t pc, uint64_t *path, int max,
		  const struct dwdie_visitor *v)
{
	const uint8_t *p = c->sec + fn_off;
	struct die scope;
	if (fn_off >= (uint64_t)(c->end - c->sec) || p <= c->die || max < 1 ||
	    !read_die(c, p, &scope, true))
		return -1;
	int n = 0;
	path[n++] = fn_off;
	for (int guard = 0; guard < 256 && n < max; guard++) {
		const struct kids *ks = scope_kids(c, &scope);
		const struct kid *hit = NULL;
		for (size_t i = 0; i < ks->n && !hit; i++) {
			const struct kid *k = &ks->k[i];
			int h = kid_haspc(c, ks, k, pc);
			if (h < 0)
				h = v->haspc(v->ctx, k->off, pc);
			if (h > 0)
				hit = k;
		}
		if (!hit) {
			if (ks->bad_tail)
				return -1;
			break;
		}
		if (hit->inl)
			path[n++] = hit->off;
		if (!read_die(c, c->sec + hit->off, &scope, true))
			return -1;
	}
	return n;
}

/* ---- .debug_aranges headers ---- */

/* An n-byte unsigned field (n <= 8) in the given byte order. */
static uint64_t rd_uint(const uint8_t *p, unsigned n, bool big)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x, y;
	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	return x < y ? -1 : x > y;
}

size_t dwdie_aranges_cus(const uint8_t *p, size_t size, bool big, uint64_t **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	/* a set: unit_length (4 bytes, or 0xffffffff and 8), version (2),
	 * debug_info_offset (4 or 8), then what unit_length covers */
	for (size_t o = 0; size - o >= 4 + 2 + 4;) {
		uint64_t len = rd_uint(p + o, 4, big), lsize = 4, osize = 4;
		if (len == 0xffffffffu) {
			if (size - o < 12 + 2 + 8)
				break;
			len = rd_uint(p + o + 4, 8, big);
			lsize = 12;
			osize = 8;
		}
		if (len < 2 + osize || len > size - o - lsize)
			break;
		if (ARRAY_GROW(*out, cap, n + 1, (size_t)1 << 22))
			break;
		(*out)[n++] = rd_uint(p + o + lsize + 2, (unsigned)osize, big);
		o += lsize + len;
	}
	if (n > 1)
		ksort_u64(*out, n, sizeof **out, 0, u64_cmp);
	return n;
}

/* ---- what inlines.c asks of a scope DIE ---- */

/* One attribute's value as found in a DIE. */
struct aval {
	uint64_t form;
	const uint8_t *at, *end;     /* its bytes */
	int64_t implicit;            /* DW_FORM_implicit_const */
};

/* A DIE's attributes one by one, in the order its abbreviation lists
 * them (attrs_next). */
struct attr_walk {
	const struct cu *c;
	const struct abbrev *ab;     /* the DIE's */
	struct rd r;
	const struct aspec *sp, *end;
};

/* false: a null entry or an undefined code */
static bool attrs_begin(struct attr_walk *w, const struct cu *c, const uint8_t *p)
{
	w->c = c;
	w->r = (struct rd){ p, c->end };
	w->ab = die_abbrev(c, &w->r);
	if (!w->ab)
		return false;
	w->sp = &c->spec[w->ab->first];
	w->end = w->sp + w->ab->n;
	return true;
}

/* The next attribute: 1 (its spec in *sp, its value in *v), 0 none
 * left, -1 unreadable. */
static inline __attribute__((always_inline)) int attrs_next(struct attr_walk *w, const struct aspec **sp,
							  struct aval *v)
{
	if (w->sp == w->end)
		return 0;
	const struct aspec *s = w->sp++;
	const uint8_t *at = w->r.p;
	uint64_t form;
	if (!skip_value(w->c, &w->r, s->form, s->size, &form))
		return -1;
	if (s->form == DW_FORM_indirect) {
		/* an indirect form's value follows its form */
		struct rd f = { at, w->r.p };
		uint64_t ignored;
		uleb(&f, &ignored);
		at = f.p;
	}
	*sp = s;
	*v = (struct aval){ form, at, w->r.p, s->implicit };
	return 1;
}

/* dwarf_attr: the first attribute called name of the DIE at p: 1 (in
 * *v), 0 none, -1 unreadable. */
static int find_attr(const struct cu *c, const uint8_t *p, uint32_t name, struct aval *v)
{
	struct attr_walk w;
	const struct aspec *sp;
	struct aval a;
	int rc;
	if (!attrs_begin(&w, c, p))
		return -1;
	while ((rc = attrs_next(&w, &sp, &a)) > 0)
		if (sp->name == name) {
			*v = a;
			return 1;
		}
	return rc;
}

/* The DIE a reference leads to, in this unit (dwarf_formref_die); NULL
 * where libdw must follow it (another unit or file, a type signature) or
 * it is not a DIE of the unit. */
static const uint8_t *ref_target(const struct cu *c, const struct aval *v)
{
	struct rd r = { v->at, v->end };
	uint64_t x;
	bool unit_rel = true;
	switch (v->form) {
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
		if (!fixed(&r, (unsigned)(v->end - v->at), &x))
			return NULL;
		break;
	case DW_FORM_ref_udata:
		if (!uleb(&r, &x))
			return NULL;
		break;
	case DW_FORM_ref_addr:
		if (!fixed(&r, (unsigned)(v->end - v->at), &x))
			return NULL;
		unit_rel = false;
		break;
	default:
		return NULL;
	}
	size_t unit = (size_t)(c->end - c->start), start = (size_t)(c->start - c->sec);
	if (!unit_rel) {
		if (x < start || x - start >= unit)
			return NULL;
		x -= start;
	}
	/* a DIE after the unit's own (the header and the CU DIE are not
	 * what a scope's chain leads to) */
	if (x >= unit || c->start + x <= c->die)
		return NULL;
	const uint8_t *p = c->start + x;
	struct rd t = { p, c->end };
	return die_abbrev(c, &t) ? p : NULL;
}

/* The attributes dwdie_info reads of one DIE, each the first of its name
 * (as dwarf_attr finds it), in one pass over the DIE. */
enum { A_LINKAGE, A_MIPS_LINKAGE, A_NAME, A_ORIGIN, A_SPEC, A_CALL_FILE, A_CALL_LINE,
       A_CALL_COLUMN, A_N };

struct die_attrs {
	const uint8_t *p;
	uint32_t tag;
	bool has[A_N];
	struct aval v[A_N];
};

static int attr_slot(uint32_t name)
{
	switch (name) {
	case DW_AT_linkage_name: return A_LINKAGE;
	case DW_AT_MIPS_linkage_name: return A_MIPS_LINKAGE;
	case DW_AT_name: return A_NAME;
	case DW_AT_abstract_origin: return A_ORIGIN;
	case DW_AT_specification: return A_SPEC;
	case DW_AT_call_file: return A_CALL_FILE;
	case DW_AT_call_line: return A_CALL_LINE;
	case DW_AT_call_column: return A_CALL_COLUMN;
	default: return -1;
	}
}

/* false: the DIE cannot be read to its end (libdw's dwarf_attr would
 * stop with an error at some attribute: its to answer) */
static bool collect(const struct cu *c, const uint8_t *p, struct die_attrs *d)
{
	struct attr_walk w;
	const struct aspec *sp;
	struct aval a;
	int rc;
	memset(d->has, 0, sizeof d->has);
	d->p = p;
	if (!attrs_begin(&w, c, p))
		return false;
	d->tag = w.ab->tag;
	while ((rc = attrs_next(&w, &sp, &a)) > 0) {
		int k = attr_slot(sp->name);
		if (k < 0 || d->has[k])
			continue;
		d->has[k] = true;
		d->v[k] = a;
	}
	return rc == 0;
}

/* The chain of DIEs dwarf_attr_integrate visits from the DIE at p
 * (DW_AT_abstract_origin, else DW_AT_specification, followed), each
 * collected, into chain (at most 9, libdw's limit): how many, or -1 where
 * libdw must follow it (a reference out of the unit, a longer chain). */
static int integrate_chain(const struct cu *c, const uint8_t *p, struct die_attrs chain[9])
{
	for (int n = 0; n < 9; n++) {
		if (!collect(c, p, &chain[n]))
			return -1;
		const struct die_attrs *d = &chain[n];
		const struct aval *ref = d->has[A_ORIGIN] ? &d->v[A_ORIGIN] :
					 d->has[A_SPEC] ? &d->v[A_SPEC] : NULL;
		if (!ref)
			return n + 1;
		if (!(p = ref_target(c, ref)))
			return -1;
	}
	return -1;
}

/* dwarf_attr_integrate (the chain's first DIE, attribute slot k): the
 * value, or NULL when none along the chain. */
static const struct aval *integrate(const struct die_attrs *chain, int n, int k)
{
	for (int i = 0; i < n; i++)
		if (chain[i].has[k])
			return &chain[i].v[k];
	return NULL;
}

/* dwarf_formstring of v: 1 (*s), -1 where libdw must read it (indexed,
 * supplementary or unterminated strings, forms that are not strings). */
static int form_string(const struct cu *c, const struct aval *v, const char **s)
{
	const uint8_t *sec = NULL;
	size_t size = 0;
	uint64_t off;
	struct rd r = { v->at, v->end };
	switch (v->form) {
	case DW_FORM_string:
		if (!memchr(v->at, 0, (size_t)(v->end - v->at)))
			return -1;
		*s = (const char *)v->at;
		return 1;
	case DW_FORM_strp:
		sec = c->s->str, size = c->s->str_size;
		break;
	case DW_FORM_line_strp:
		sec = c->s->line_str, size = c->s->line_str_size;
		break;
	default:
		return -1;
	}
	if (!sec || !fixed(&r, c->off_size, &off) || off >= size || !memchr(sec + off, 0, size - off))
		return -1;
	*s = (const char *)sec + off;
	return 1;
}

/* dwarf_formudata of v: 1 (*x), -1 where libdw must read it. */
static int form_udata(const struct cu *c, const struct aval *v, uint64_t *x)
{
	struct rd r = { v->at, v->end };
	switch (v->form) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
		return fixed(&r, (unsigned)(v->end - v->at), x) ? 1 : -1;
	case DW_FORM_sec_offset:
		return fixed(&r, c->off_size, x) ? 1 : -1;
	case DW_FORM_udata:
		return uleb(&r, x) ? 1 : -1;
	case DW_FORM_implicit_const:
		*x = (uint64_t)v->implicit;
		return 1;
	default:
		return -1;
	}
}

bool dwdie_info(struct dwdie_cu *c, uint64_t off, struct dwdie_info *out)
{
	if (off >= (uint64_t)(c->end - c->sec) || c->sec + off <= c->die)
		return false;
	struct die_attrs chain[9];
	int n = integrate_chain(c, c->sec + off, chain);
	if (n < 0)
		return false;
	const struct die_attrs *d = &chain[0];
	memset(out, 0, sizeof *out);
	out->tag = d->tag;
	/* die_name: the linkage name (either attribute) through the chain;
	 * else DW_AT_name of the DIE; else DW_AT_name through the chain */
	const struct aval *v = integrate(chain, n, A_LINKAGE);
	if (!v)
		v = integrate(chain, n, A_MIPS_LINKAGE);
	out->has_linkage = v != NULL;
	if (v && form_string(c, v, &out->name) < 0)
		return false;
	if (!out->name && d->has[A_NAME] && form_string(c, &d->v[A_NAME], &out->name) < 0)
		return false;
	if (!out->name && (v = integrate(chain, n, A_NAME)) && form_string(c, v, &out->name) < 0)
		return false;
	bool *has[3] = { &out->has_call_file, &out->has_call_line, &out->has_call_column };
	uint64_t *val[3] = { &out->call_file, &out->call_line, &out->call_column };
	for (int i = 0; i < 3; i++) {
		*has[i] = d->has[A_CALL_FILE + i];
		if (*has[i] && form_udata(c, &d->v[A_CALL_FILE + i], val[i]) < 0)
			return false;
	}
	return true;
}

int dwdie_cu_udata(struct dwdie_cu *c, uint32_t name, uint64_t *v)
{
	struct aval a;
	int h = find_attr(c, c->die, name, &a);
	return h <= 0 ? h : form_udata(c, &a, v);
}

int dwdie_cu_string(struct dwdie_cu *c, uint32_t name, const char **str)
{
	struct aval a;
	int h = find_attr(c, c->die, name, &a);
	return h <= 0 ? h : form_string(c, &a, str);
}

void dwdie_cu_set_types(struct dwdie_cu *c, bool types)
{
	c->types = types;
	for (size_t i = 0; i < c->nab; i++) {
		struct abbrev *a = &c->ab[i];
		uint32_t tag = a->tag;
		a->scope = types && (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
				     tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
				     tag == DW_TAG_module);
		a->wanted = a->pc || a->scope;
	}
}

unsigned dwdie_cu_addr_size(const struct dwdie_cu *c)
{
	return c->addr_size;
}

/* ---- address -> CU (.debug_aranges) ---- */

/* The offset of the DIE of the compile unit whose header is at off of
 * .debug_info (a unit libdw reads: DWARF 2 to 5, DWARF 5 DW_UT_compile,
 * inside the section); false otherwise. */
static bool cu_die_offset(const struct dwdie_sections *s, uint64_t off, uint64_t *die)
{
	struct unit_hdr h;
	if (!unit_header(s, off, &h) || h.die >= h.end)
		return false;
	*die = (uint64_t)(h.die - s->info);
	return true;
}

/* by address, then in file order: libdw's sort (qsort by address alone)
 * keeps ties in the order it fills them, the file's, where qsort is
 * stable (glibc's merge sort, Debian 12; tests/unit/test_dwdie.c checks
 * the answers against libdw's on real files) */
static int arange_cmp(const void *a, const void *b)
{
	const struct dwdie_arange *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

bool dwdie_aranges(const struct dwdie_sections *s, const uint8_t *p, size_t size,
		   struct dwdie_arange **out, size_t *n)
{
	struct dwdie_arange *v = NULL;
	size_t nv = 0, cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t o = 0; o < size;) {
		struct rd r = { p + o, p + size };
		uint64_t len, version, info_off, asz, seg;
		unsigned osize;
		if (!unit_length(&r, &len, &osize))
			goto libdw;
		const uint8_t *set = p + o, *end = r.end;
		if (!fixed(&r, 2, &version) || version != 2 || !fixed(&r, osize, &info_off) ||
		    !fixed(&r, 1, &asz) || !fixed(&r, 1, &seg) || (asz != 4 && asz != 8) || seg)
			goto libdw;
		uint64_t die;
		if (!cu_die_offset(s, info_off, &die))
			goto libdw;
		/* tuples start at a multiple of twice the address size */
		size_t at = (size_t)(r.p - set), tw = 2 * (size_t)asz;
		r.p += (tw - at % tw) % tw;
		for (;;) {
			uint64_t lo, length;
			if (r.p > r.end || !fixed(&r, (unsigned)asz, &lo) || !fixed(&r, (unsigned)asz, &length))
				goto libdw;
			if (!lo && !length)
				break;
			if (nv == cap) {
				cap = cap ? cap * 2 : 64;
				if (cap > ((size_t)1 << 24))
					goto libdw;
				v = xrealloc(v, cap * sizeof *v);
			}
			v[nv] = (struct dwdie_arange){ lo, length, info_off, die, nv };
			nv++;
		}
		/* the set ends at its terminator (no bytes left unread) */
		if (r.p != end)
			goto libdw;
		o = (size_t)(end - p);
	}
	if (nv > 1)
		ksort_u64(v, nv, sizeof *v, offsetof(struct dwdie_arange, lo), arange_cmp);
	*out = v;
	*n = nv;
	return true;
libdw:
	free(v);
	return false;
}

#undef cu /* here: struct dwdie_arange's field */
bool dwdie_aranges_kept(const struct dwdie_sections *s, const void *p, size_t size,
			const struct dwdie_arange **out, size_t *n)
{
	const struct dwdie_arange *v = p;
	size_t nv = size / sizeof *v;
	if (!p || !size || size % sizeof *v || nv > ((size_t)1 << 24) || (uintptr_t)p % 8)
		return false;
	for (size_t i = 0; i < nv; i++) {
		const struct dwdie_arange *a = &v[i];
		if (a->cu >= s->info_size || a->cu_die <= a->cu || a->cu_die >= s->info_size)
			return false;
		if (i && (a->lo < v[i - 1].lo || (a->lo == v[i - 1].lo && a->seq <= v[i - 1].seq)))
			return false;
	}
	*out = v;
	*n = nv;
	return true;
}
#define cu dwdie_cu

const struct dwdie_arange *dwdie_arange_find(const struct dwdie_arange *v, size_t n, uint64_t addr)
{
	/* dwarf_getarange_addr's search, step by step: with overlapping or
	 * empty ranges its answer depends on the path it takes */
	size_t l = 0, u = n;
	while (l < u) {
		size_t idx = (l + u) / 2;
		if (addr < v[idx].lo)
			u = idx;
		else if (addr > v[idx].lo && addr - v[idx].lo >= v[idx].len)
			l = idx + 1;
		else
			return &v[idx];
	}
	return NULL;
}

void dwdie_cu_set_store(struct dwdie_cu *c, const struct dwdie_store *st)
{
	c->store = st;
}
