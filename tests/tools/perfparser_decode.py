#!/usr/bin/env python3
"""perfparser_decode.py: decode and compare perfparser streams (QPERFSTREAM).

The stream is what hotspot-perfparser writes and hotspot 1.3.0 reads; see
docs/perfparser.md. This is the test suite's independent reading of it:
written from the format notes, not from scorch's writer, so a bug in the
writer is not repeated here.

  perfparser_decode.py dump STREAM            one line per event
  perfparser_decode.py summary STREAM         counts per event type
  perfparser_decode.py stacks STREAM          per sample: header line, then
                                              frames as hotspot builds them
  perfparser_decode.py compare OURS THEIRS    compare two streams of the same
                                              input; prints kinds of difference
                                              with counts, exits 1 on a
                                              difference in samples, threads,
                                              commands, lost or features
  perfparser_decode.py check STREAM           strict framing check only
  perfparser_decode.py stacks-vs-script STREAM SCRIPT
                                              the stream's stacks (as hotspot
                                              builds them) against `scorch
                                              script` output, sample by sample
                                              in order; exit 1 unless all agree
  perfparser_decode.py verify OURS [REF|-] [SCRIPT|-]
                                              check, then compare and
                                              stacks-vs-script in one pass;
                                              prints "RESULT check|compare|
                                              stacks ok|fail" lines
  perfparser_decode.py offcpu STREAM          hotspot's "Off-CPU Time" from the
                                              stream, as hotspot 1.3.0 adds it up:
                                              per known thread, from a switch-out
                                              ContextSwitch to the next switch-in;
                                              prints "total_ns N" and one
                                              "thread PID TID NS" line per thread
  perfparser_decode.py hotspot-vs-script HS PS
                                              compare hotspot's per-sample view
                                              (HOTSPOT_GENERATE_SCRIPT_OUTPUT=1)
                                              with `perf script --ns --inline
                                              -F pid,tid,time,ip,sym,dso`:
                                              prints samples, agreement, kinds

A decode error (bad magic, unknown type, bytes left in an event, truncated
event) is fatal: exit 2 with the byte offset.
"""
import re
import struct
import sys
from collections import Counter, defaultdict

EVENT_NAMES = [
    "ThreadStart", "ThreadEnd", "Command", "LocationDefinition",
    "SymbolDefinition", "StringDefinition", "LostDefinition",
    "FeaturesDefinition", "Error", "Progress", "TracePointFormat",
    "AttributesDefinition", "ContextSwitchDefinition", "Sample",
    "TracePointSample",
]


class DecodeError(Exception):
    pass


class Reader:
    """QDataStream reader over one event's bytes (big-endian)."""

    def __init__(self, data, base):
        self.d = data
        self.p = 0
        self.base = base

    def need(self, n):
        if self.p + n > len(self.d):
            raise DecodeError("offset %d: event truncated (need %d bytes at %d of %d)"
                              % (self.base + self.p, n, self.p, len(self.d)))

    def fmt(self, f):
        n = struct.calcsize(f)
        self.need(n)
        v = struct.unpack_from(">" + f, self.d, self.p)
        self.p += n
        return v[0] if len(v) == 1 else v

    def u8(self): return self.fmt("B")
    def i8(self): return self.fmt("b")
    def i32(self): return self.fmt("i")
    def u32(self): return self.fmt("I")
    def u64(self): return self.fmt("Q")
    def i64(self): return self.fmt("q")
    def f64(self): return self.fmt("d")

    def boolean(self):
        v = self.u8()
        if v > 1:
            raise DecodeError("offset %d: bool is %d" % (self.base + self.p - 1, v))
        return bool(v)

    def bytearray(self):
        n = self.u32()
        if n == 0xffffffff:
            return None
        self.need(n)
        v = self.d[self.p:self.p + n]
        self.p += n
        return bytes(v)

    def qstring(self):
        n = self.u32()
        if n == 0xffffffff:
            return None
        if n % 2:
            raise DecodeError("offset %d: odd QString length %d" % (self.base + self.p, n))
        self.need(n)
        v = self.d[self.p:self.p + n].decode("utf-16-be")
        self.p += n
        return v

    def lst(self, fn):
        n = self.u32()
        if n > len(self.d):
            raise DecodeError("offset %d: list of %d elements in %d bytes" % (self.base + self.p, n, len(self.d)))
        return [fn() for _ in range(n)]

    def variant(self):
        # QVariant: u32 type, i8 isNull, value (the types perfparser writes)
        t = self.u32()
        self.i8()
        if t == 0:
            return None
        if t == 1: return self.boolean()
        if t == 2: return self.i32()
        if t == 3: return self.u32()
        if t == 4: return self.i64()
        if t == 5: return self.u64()
        if t == 6: return self.f64()
        if t == 9: return self.lst(self.variant)          # QVariantList
        if t == 10: return self.qstring()
        if t == 12: return self.bytearray()
        if t == 32: return self.fmt("b")                     # char (Qt5: QMetaType::Char = 34?)
        if t == 33: return self.fmt("h")                     # short
        if t == 34: return self.fmt("b")                     # char
        if t == 35: return self.fmt("I")                     # ulong
        if t == 36: return self.fmt("H")                     # ushort
        if t == 37: return self.fmt("B")                     # uchar
        if t == 40: return self.fmt("b")                     # schar
        raise DecodeError("offset %d: QVariant type %d not handled" % (self.base + self.p, t))


def rec(r):
    return {"pid": r.i32(), "tid": r.i32(), "time": r.u64(), "cpu": r.u32()}


def parse_event(typ, r):
    e = {"type": EVENT_NAMES[typ]}
    if typ == 0:
        e.update(rec(r)); e["ppid"] = r.i32()
    elif typ == 1:
        e.update(rec(r))
    elif typ == 2:
        e.update(rec(r)); e["comm"] = r.i32()
    elif typ == 3:
        e["id"] = r.i32(); e["address"] = r.u64(); e["file"] = r.i32()
        e["pid"] = r.u32(); e["line"] = r.i32(); e["column"] = r.i32()
        e["parent"] = r.i32()
    elif typ == 4:
        e["id"] = r.i32(); e["name"] = r.i32(); e["binary"] = r.i32()
        e["path"] = r.i32(); e["isKernel"] = r.boolean()
    elif typ == 5:
        e["id"] = r.i32(); e["string"] = r.bytearray()
    elif typ == 6:
        e.update(rec(r))
    elif typ == 7:
        e["hostName"] = r.bytearray(); e["osRelease"] = r.bytearray()
        e["version"] = r.bytearray(); e["arch"] = r.bytearray()
        e["nrCpusOnline"] = r.u32(); e["nrCpusAvailable"] = r.u32()
        e["cpuDesc"] = r.bytearray(); e["cpuId"] = r.bytearray()
        e["totalMem"] = r.u64()
        e["cmdline"] = r.lst(r.bytearray)
        e["buildIds"] = r.lst(lambda: (r.i32(), r.bytearray(), r.bytearray()))
        e["siblingCores"] = r.lst(r.bytearray)
        e["siblingThreads"] = r.lst(r.bytearray)
        e["numaTopology"] = r.lst(lambda: (r.u32(), r.u64(), r.u64(), r.bytearray()))
        e["pmuMappings"] = r.lst(lambda: (r.u32(), r.bytearray()))
        e["groupDescs"] = r.lst(lambda: (r.bytearray(), r.u32(), r.u32()))
    elif typ == 8:
        e["code"] = r.i32(); e["message"] = r.qstring()
    elif typ == 9:
        e["progress"] = r.f64()
    elif typ == 10:
        e["id"] = r.i32(); e["system"] = r.i32(); e["name"] = r.i32(); e["flags"] = r.u32()
    elif typ == 11:
        e["id"] = r.i32(); e["attrType"] = r.u32(); e["config"] = r.u64()
        e["name"] = r.i32(); e["usesFrequency"] = r.boolean()
        e["frequencyOrPeriod"] = r.u64()
    elif typ == 12:
        e.update(rec(r)); e["switchOut"] = r.boolean()
    elif typ in (13, 14):
        e.update(rec(r))
        e["frames"] = r.lst(r.i32)
        e["guessed"] = r.u8()
        e["costs"] = r.lst(lambda: (r.i32(), r.u64()))
        if typ == 14:
            n = r.u32()
            fields = {}
            for _ in range(n):
                k = r.i32()
                fields[k] = r.variant()
            e["fields"] = fields
    return e


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:12] != b"QPERFSTREAM\0":
        raise DecodeError("offset 0: bad magic %r" % data[:12])
    if len(data) < 16:
        raise DecodeError("offset 12: no data stream version")
    version = struct.unpack_from("<i", data, 12)[0]
    pos = 16
    events = []
    while pos < len(data):
        if pos + 4 > len(data):
            raise DecodeError("offset %d: truncated event size" % pos)
        size = struct.unpack_from("<I", data, pos)[0]
        pos += 4
        if pos + size > len(data):
            raise DecodeError("offset %d: event of %d bytes, only %d left" % (pos, size, len(data) - pos))
        r = Reader(data[pos:pos + size], pos)
        typ = r.i8()
        if typ < 0 or typ >= len(EVENT_NAMES):
            raise DecodeError("offset %d: unknown event type %d" % (pos, typ))
        e = parse_event(typ, r)
        if r.p != size:
            raise DecodeError("offset %d: %d bytes left over in %s event"
                              % (pos, size - r.p, e["type"]))
        e["_off"] = pos - 4
        events.append(e)
        pos += size
    return version, events


class Stream:
    """A decoded stream with its tables, as hotspot builds them."""

    def __init__(self, path):
        self.path = path
        self.version, self.events = decode(path)
        self.strings = []
        self.locations = []
        self.symbols = {}
        self.attrs = []
        self.problems = []
        for e in self.events:
            t = e["type"]
            if t == "StringDefinition":
                if e["id"] != len(self.strings):
                    self.problems.append("string id %d defined as #%d" % (e["id"], len(self.strings)))
                self.strings.append(e["string"].decode("utf-8", "replace"))
            elif t == "LocationDefinition":
                if e["id"] != len(self.locations):
                    self.problems.append("location id %d defined as #%d" % (e["id"], len(self.locations)))
                if e["parent"] >= e["id"]:
                    self.problems.append("location %d has a later parent %d" % (e["id"], e["parent"]))
                self.locations.append(e)
            elif t == "SymbolDefinition":
                if e["id"] >= len(self.locations):
                    self.problems.append("symbol for undefined location %d" % e["id"])
                self.symbols[e["id"]] = e
            elif t == "AttributesDefinition":
                if e["id"] != len(self.attrs):
                    self.problems.append("attribute id %d defined as #%d" % (e["id"], len(self.attrs)))
                self.attrs.append(e)
            elif t in ("Sample", "TracePointSample"):
                for f in e["frames"]:
                    if f < 0 or f >= len(self.locations):
                        self.problems.append("sample frame %d not defined yet" % f)
                        break
                for a, _ in e["costs"]:
                    if a < -1 or a >= len(self.attrs):
                        self.problems.append("sample attribute %d not defined yet" % a)

    def s(self, i):
        if i is None or i < 0 or i >= len(self.strings):
            return ""
        return self.strings[i]

    def cost(self, attr, cost):
        # hotspot: a cost of 0 becomes the attribute's period when it has no frequency
        if not cost and 0 <= attr < len(self.attrs) and not self.attrs[attr]["usesFrequency"]:
            return self.attrs[attr]["frequencyOrPeriod"]
        return cost

    def sym_valid(self, loc):
        sym = self.symbols.get(loc)
        return sym is not None and bool(self.s(sym["name"]) or self.s(sym["binary"]) or self.s(sym["path"]))

    def frames(self, loc_id):
        """Frames from one location id the way hotspot 1.3.0 walks the chain
        (Data::BottomUp::handleFrame): a location without a valid symbol takes
        its parent's symbol and the parent is skipped. Returns a list of
        [address, symbol, binary, isKernel, inline] innermost first."""
        out = []
        cur = loc_id
        skip = False
        guard = 0
        while cur != -1 and guard < 100000:
            guard += 1
            if cur < 0 or cur >= len(self.locations):
                self.problems.append("undefined location %d in a chain" % cur)
                break
            loc = self.locations[cur]
            if skip:
                cur = loc["parent"]
                skip = False
                continue
            sym_loc = cur
            if not self.sym_valid(cur):
                sym_loc = loc["parent"]
                skip = True
            sym = self.symbols.get(sym_loc) if sym_loc != -1 else None
            name = self.s(sym["name"]) if sym else ""
            binary = self.s(sym["binary"]) if sym else ""
            out.append([loc["address"], name or "[unknown]", binary, sym["isKernel"] if sym else False])
            cur = loc["parent"]
        for f in out[:-1]:
            f.append(True)
        if out:
            out[-1].append(False)
        return out

    def stack(self, sample):
        out = []
        for f in sample["frames"]:
            out.extend(self.frames(f))
        return out


def cmd_dump(path):
    st = Stream(path)
    print("version %d" % st.version)
    for e in st.events:
        d = {k: v for k, v in e.items() if k not in ("type", "_off")}
        if e["type"] == "StringDefinition":
            d["string"] = d["string"].decode("utf-8", "replace") if d["string"] is not None else None
        print(e["type"], " ".join("%s=%s" % (k, v) for k, v in d.items()))
    for p in st.problems:
        print("PROBLEM", p)
    return 0


def cmd_summary(path):
    st = Stream(path)
    c = Counter(e["type"] for e in st.events)
    print("version: %d" % st.version)
    for name in EVENT_NAMES:
        print("%s: %d" % (name, c.get(name, 0)))
    print("problems: %d" % len(st.problems))
    for p in st.problems[:10]:
        print("  " + p)
    return 1 if st.problems else 0


def cmd_stacks(path):
    st = Stream(path)
    comm = defaultdict(dict)
    for e in st.events:
        t = e["type"]
        if t == "Command":
            comm[e["pid"]][e["tid"]] = st.s(e["comm"])
        elif t == "ThreadStart" and e["ppid"] != e["pid"]:
            comm[e["pid"]][e["pid"]] = comm.get(e["ppid"], {}).get(e["ppid"], "")
        elif t in ("Sample", "TracePointSample"):
            for a, c in e["costs"]:
                name = st.s(st.attrs[a]["name"]) if 0 <= a < len(st.attrs) else ""
                print("%s\t%d\t%d.%09d:\t%d %s" % (comm.get(e["pid"], {}).get(e["pid"], ""), e["pid"],
                                                   e["time"] // 10**9, e["time"] % 10**9,
                                                   st.cost(a, c), name))
                for addr, sym, binary, _k, inl in st.stack(e):
                    print("\t%016x %s (%s)%s" % (addr, sym, binary, " [inline]" if inl else ""))
                print()
    return 0


def key_record(e):
    return (e["pid"], e["tid"], e["time"], e["cpu"])


def compare(a_path, b_path, out=sys.stdout):
    """Compare stream A (ours) with B (reference). Returns (fatal_count, kinds)."""
    a, b = Stream(a_path), Stream(b_path)
    kinds = Counter()
    fatal = Counter()
    notes = []

    for p in a.problems:
        fatal["ours: " + p.split(" ")[0] + " table problem"] += 1
        notes.append("ours: " + p)

    def by_type(st, t):
        return [e for e in st.events if e["type"] == t]

    # samples: pid, tid, time, cpu, costs (as hotspot sees them)
    def samples(st):
        out = []
        for e in st.events:
            if e["type"] in ("Sample", "TracePointSample"):
                costs = tuple(sorted((attr_key(st, at), st.cost(at, c)) for at, c in e["costs"]))
                out.append((key_record(e), e["type"], costs, e))
        return out

    def attr_key(st, at):
        if 0 <= at < len(st.attrs):
            x = st.attrs[at]
            return (x["attrType"], x["config"])
        return at

    sa, sb = samples(a), samples(b)
    if sa and not sb and not b.attrs:
        # hotspot-perfparser read nothing (Debian's build has no zstd; some
        # newer files defeat it): nothing to compare against
        print("note reference produced no samples: %d samples in ours" % len(sa), file=out)
        return 0, Counter({"reference read nothing": 1})
    ca = Counter((k, t, c) for k, t, c, _ in sa)
    cb = Counter((k, t, c) for k, t, c, _ in sb)
    only_a = ca - cb
    only_b = cb - ca
    if only_a or only_b:
        fatal["samples only in ours"] += sum(only_a.values())
        fatal["samples only in reference"] += sum(only_b.values())
        for k in list(only_a)[:3]:
            notes.append("only ours: %s" % (k,))
        for k in list(only_b)[:3]:
            notes.append("only reference: %s" % (k,))
    kinds["samples matched"] = sum((ca & cb).values())

    # sample order: hotspot needs time order within a thread
    last = {}
    for k, _, _, _ in sa:
        tid, t = k[1], k[2]
        if t < last.get(tid, 0):
            fatal["samples out of time order in a thread"] += 1
        last[tid] = t

    # task events: compared as multisets
    def task(st, t, extra):
        c = Counter()
        for e in by_type(st, t):
            c[key_record(e) + tuple(extra(st, e))] += 1
        return c

    for t, extra in (("ThreadStart", lambda st, e: (e["ppid"],)),
                     ("ThreadEnd", lambda st, e: ()),
                     ("Command", lambda st, e: (st.s(e["comm"]),)),
                     ("LostDefinition", lambda st, e: ()),
                     ("ContextSwitchDefinition", lambda st, e: (e["switchOut"],))):
        xa, xb = task(a, t, extra), task(b, t, extra)
        if xa != xb:
            fatal["%s differ" % t] += sum((xa - xb).values()) + sum((xb - xa).values())
            for k in list(xa - xb)[:2]:
                notes.append("%s only ours: %s" % (t, k))
            for k in list(xb - xa)[:2]:
                notes.append("%s only reference: %s" % (t, k))
        else:
            kinds["%s matched" % t] = sum(xa.values())

    # features
    fa, fb = by_type(a, "FeaturesDefinition"), by_type(b, "FeaturesDefinition")
    if len(fa) == 1 and not fb:
        kinds["features sent for pipe input (reference sends none)"] += 1
    elif len(fa) != len(fb):
        fatal["FeaturesDefinition count differs"] += 1
    for x, y in zip(fa, fb):
        for k in x:
            if k == "_off":
                continue
            if x[k] != y[k]:
                fatal["feature %s differs" % k] += 1
                notes.append("feature %s: ours %r reference %r" % (k, x[k], y[k]))
    # attributes
    aa = [(x["attrType"], x["config"], x["usesFrequency"], x["frequencyOrPeriod"]) for x in a.attrs]
    ab = [(x["attrType"], x["config"], x["usesFrequency"], x["frequencyOrPeriod"]) for x in b.attrs]
    if sorted(set(aa)) != sorted(set(ab)):
        fatal["attributes differ"] += 1
        notes.append("attributes: ours %r reference %r" % (aa, ab))
    na = {(x["attrType"], x["config"]): a.s(x["name"]) for x in a.attrs}
    nb = {(x["attrType"], x["config"]): b.s(x["name"]) for x in b.attrs}
    for k in na:
        if k in nb and na[k] != nb[k]:
            if nb[k].startswith("tracepoint:"):
                kinds["reference quirk: tracepoint attribute left unnamed (%s vs %s)" % (na[k], nb[k])] += 1
            else:
                fatal["attribute named differently"] += 1
                notes.append("attribute name: ours %r reference %r" % (na[k], nb[k]))
    # tracepoint formats
    ta = sorted((x["id"], a.s(x["system"]), a.s(x["name"]), x["flags"]) for x in by_type(a, "TracePointFormat"))
    tb = sorted((x["id"], b.s(x["system"]), b.s(x["name"]), x["flags"]) for x in by_type(b, "TracePointFormat"))
    if ta != tb:
        fatal["TracePointFormat differs"] += 1
        notes.append("tracepoint formats: ours %r reference %r" % (ta, tb))
    # tracepoint sample fields
    tpa = {key_record(e): {a.s(k): v for k, v in e["fields"].items()} for e in by_type(a, "TracePointSample")}
    tpb = {key_record(e): {b.s(k): v for k, v in e["fields"].items()} for e in by_type(b, "TracePointSample")}
    for k in tpa:
        if k in tpb and tpa[k] != tpb[k]:
            fatal["tracepoint fields differ"] += 1
            notes.append("tracepoint fields %s: ours %r reference %r" % (k, tpa[k], tpb[k]))

    # errors (informational)
    for st, who in ((a, "ours"), (b, "reference")):
        for e in by_type(st, "Error"):
            kinds["Error code %d (%s)" % (e["code"], who)] += 1

    # stacks: informational kinds of difference
    mb = defaultdict(list)
    for k, t, c, e in sb:
        mb[(k, c)].append(e)
    for k, t, c, e in sa:
        lst = mb.get((k, c))
        if not lst:
            continue
        eb = lst.pop(0)
        fa_ = a.stack(e)
        fb_ = b.stack(eb)
        kinds.update(stack_diff_kinds(fa_, fb_))

    for k in sorted(fatal):
        print("DIFF %s: %d" % (k, fatal[k]), file=out)
    for k in sorted(kinds):
        print("note %s: %d" % (k, kinds[k]), file=out)
    for n in notes[:20]:
        print("  " + n, file=out)
    return sum(fatal.values()), kinds


def norm_name(n):
    return n


def stack_diff_kinds(fa, fb):
    """Classify how two stacks of the same sample differ (ours fa, reference
    fb; frames as Stream.frames gives them). Names are compared, not
    addresses: hotspot-perfparser reports some caller frames at the return
    address minus one."""
    kinds = Counter()
    na = [f[1] for f in fa]
    nb = [f[1] for f in fb]
    if na == nb:
        kinds["stack same functions"] += 1
        return kinds
    found = False
    sa = set(na)
    # quirk: inlined functions named OUTER::inner or OUTERinner
    if any(("::" in n and n not in sa and not n.startswith("_Z")
            and "(" not in n and "<" not in n) for n in nb) or \
            any(n not in sa and any(n.endswith(x) and n[:-len(x)] in sa for x in sa if x) for n in nb):
        kinds["reference quirk: inline named OUTER::inner"] += 1
        found = True
    if any(n.startswith("_Z") and n not in sa for n in nb):
        kinds["reference quirk: mangled C++ name"] += 1
        found = True
    if any(n.startswith("<.") for n in nb):
        kinds["reference quirk: section-relative names (<.plt+N>, <.fini+N>)"] += 1
        found = True
    kna = [n for n in na if n != "[unknown]"]
    knb = [n for n in nb if n != "[unknown]"]
    if nb.count("[unknown]") > na.count("[unknown]") and (kna == knb or (nb and nb[-1] == "[unknown]")):
        kinds["reference quirk: extra [unknown] frame (kernel-to-user crossing, end of chain)"] += 1
        found = True
    def base(n):
        return re.sub(r"(\.(constprop|isra|part|cold|lto_priv)\.?\d*)+$", "", n)
    if any(base(x) != x and base(x) in nb for x in na):
        kinds["symbol names: ours the ELF symbol as perf (x.constprop.0), reference the DWARF name"] += 1
        found = True
    def noparams(n):
        # "ns::f(int, char**) const" -> "ns::f"
        if not n.endswith(")") and not n.endswith(" const"):
            return n
        depth = 0
        for i in range(len(n) - 1, -1, -1):
            c = n[i]
            if c == ")":
                depth += 1
            elif c == "(":
                depth -= 1
                if depth == 0:
                    return n[:i]
        return n
    if any(x != y and noparams(y) == x for x, y in zip(na, nb)):
        kinds["C++ names: reference with parameter lists (ours and perf script without)"] += 1
        found = True
    def alias(n):
        return re.sub(r"^__GI_", "", n).lstrip("_")
    if len(na) == len(nb) and any(x != y and alias(x) == alias(y) for x, y in zip(na, nb)):
        kinds["symbol alias chosen differently (ours: perf's choice)"] += 1
        found = True
    kb = [f[1] for f in fb if f[3]]
    ka = [f[1] for f in fa if f[3]]
    if len(kb) > 1 and len(set(kb)) == 1 and len(set(ka)) > 1:
        kinds["reference quirk: kernel addresses all mapped to one function"] += 1
        found = True
    elif ka != kb and len(ka) == len(kb):
        if all(n == "[unknown]" for n in ka):
            kinds["kernel frames [unknown] in ours, named in reference (kallsyms of another machine?)"] += 1
        else:
            kinds["kernel frames named differently"] += 1
        found = True
    ua = [n for n in na if n != "[unknown]"]
    ub = [n for n in nb if n != "[unknown]"]
    if len(ua) > len(ub) and not found:
        kinds["ours unwinds deeper"] += 1
        found = True
    elif len(ua) < len(ub) and not found:
        kinds["reference unwinds deeper (guessed frames from stale stack)"] += 1
        found = True
    if not found:
        kinds["other difference"] += 1
    return kinds


def parse_hotspot_script(path):
    """hotspot's view: 'comm\tpid\tsec.nsec:\tcost attr' then
    '\t%016x symbol (binary)' per frame, blank line between samples."""
    out = []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("\t"):
                if cur is None:
                    continue
                body = line.strip()
                addr, _, rest = body.partition(" ")
                name = rest.rsplit(" (", 1)[0] if rest.endswith(")") else rest
                cur["frames"].append(name)
            else:
                parts = line.split("\t")
                if len(parts) < 4 or not parts[2].endswith(":"):
                    continue
                try:
                    pid = int(parts[1])
                    sec, nsec = parts[2][:-1].split(".")
                    t = int(sec) * 10**9 + int(nsec)
                except ValueError:
                    continue
                cur = {"pid": pid, "time": t, "frames": []}
                out.append(cur)
    return out


def parse_perf_script(path):
    """perf script --ns --inline -F pid,tid,time,ip,sym,dso."""
    out = []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line[0] in " \t" and cur is not None and not line.rstrip().endswith(":"):
                body = line.strip()
                addr, _, rest = body.partition(" ")
                name = rest.rsplit(" (", 1)[0] if rest.endswith(")") else rest
                cur["frames"].append(name)
            else:
                head = line.strip().split()
                pid = t = None
                for j, tok in enumerate(head):
                    if re.match(r"^\d+\.\d+:$", tok):
                        sec, nsec = tok[:-1].split(".")
                        t = int(sec) * 10**9 + int(nsec.ljust(9, "0"))
                        for k in range(j - 1, -1, -1):
                            if re.match(r"^\d+(/\d+)?$", head[k]):
                                pid = int(head[k].split("/")[0])
                                break
                        break
                if pid is None or t is None:
                    continue
                # no callchain: perf prints the sampled ip on the header line
                m = re.search(r"\s([0-9a-f]+)\s+(\S+)\s+\(([^()]*)\)\s*$", line)
                head_frame = norm_frame(m.group(2)) if m else None
                cur = {"pid": pid, "time": t, "frames": [], "head": head_frame}
                out.append(cur)
    for x in out:
        if not x["frames"] and x.get("head"):
            x["frames"] = [x["head"]]
    return out


def norm_frame(n):
    # perf's "[unknown]" and hotspot's "[unknown]" agree; strip "+0x.." offsets
    if "+0x" in n:
        n = n.split("+0x")[0]
    return n


def cmd_hotspot_vs_script(hs_path, ps_path, out=sys.stdout):
    hs = parse_hotspot_script(hs_path)
    ps = parse_perf_script(ps_path)
    by = defaultdict(list)
    for x in ps:
        by[(x["pid"], x["time"])].append(x)
    kinds = Counter()
    same = 0
    for x in hs:
        lst = by.get((x["pid"], x["time"]))
        if not lst:
            kinds["sample not in perf script"] += 1
            continue
        y = lst.pop(0)
        a = [norm_frame(n) for n in x["frames"]]
        b = [norm_frame(n) for n in y["frames"]]
        if a == b:
            same += 1
            continue
        ka = [n for n in a if n != "[unknown]"]
        kb = [n for n in b if n != "[unknown]"]
        if ka == kb:
            kinds["same functions, [unknown] frames differ"] += 1
        elif len(a) < len(b) and b[:len(a)] == a:
            kinds["hotspot stack is a prefix of perf's (shorter unwind)"] += 1
        elif len(a) > len(b) and a[:len(b)] == b:
            kinds["perf stack is a prefix of hotspot's (deeper unwind)"] += 1
        elif set(ka) == set(kb):
            kinds["same functions, different order/count"] += 1
        else:
            kinds["different functions"] += 1
            if kinds["different functions"] <= 3:
                print("  example: hotspot %r perf %r" % (a[:8], b[:8]), file=out)
    print("samples: hotspot %d perf-script %d" % (len(hs), len(ps)), file=out)
    pct = 100.0 * same / len(hs) if hs else 0.0
    print("same stacks: %d (%.1f%%)" % (same, pct), file=out)
    for k in sorted(kinds):
        print("kind %s: %d" % (k, kinds[k]), file=out)
    return len(hs), len(ps), pct


def cmd_stacks_vs_script(stream_path, script_path, out=sys.stdout):
    st = Stream(stream_path)
    ss = [e for e in st.events if e["type"] in ("Sample", "TracePointSample")]
    ps = parse_perf_script(script_path)
    kinds = Counter()
    same = 0
    inl = kern = 0
    for i, e in enumerate(ss):
        if i >= len(ps):
            kinds["sample missing in script"] += 1
            continue
        fr = st.stack(e)
        a = [norm_frame(f[1]) for f in fr]
        b = [norm_frame(n) for n in ps[i]["frames"]]
        inl += sum(1 for f in fr if f[4])
        kern += sum(1 for f in fr if f[3])
        if a == b:
            same += 1
        else:
            kinds["different stack"] += 1
            if kinds["different stack"] <= 3:
                print("  example #%d: stream %r script %r" % (i, a[:8], b[:8]), file=out)
    if len(ps) > len(ss):
        kinds["samples only in script"] += len(ps) - len(ss)
    print("samples: stream %d script %d; same stacks %d; inline frames %d, kernel frames %d"
          % (len(ss), len(ps), same, inl, kern), file=out)
    for k in sorted(kinds):
        print("kind %s: %d" % (k, kinds[k]), file=out)
    return 0 if not kinds else 1


def cmd_verify(ours, ref, script):
    """One process for the e2e tests: strict check of OURS, then compare with
    REF and stacks against SCRIPT (each skipped when '-')."""
    try:
        st = Stream(ours)
    except DecodeError as ex:
        print("decode error: %s" % ex)
        print("RESULT check fail")
        return 1
    for p in st.problems:
        print("PROBLEM", p)
    print("RESULT check %s %d events" % ("fail" if st.problems else "ok", len(st.events)))
    bad = bool(st.problems)
    if ref != "-":
        try:
            n, _ = compare(ours, ref)
        except DecodeError as ex:
            print("decode error (reference): %s" % ex)
            n = 1
        print("RESULT compare %s" % ("fail" if n else "ok"))
        bad = bad or n
    if script != "-":
        rc = cmd_stacks_vs_script(ours, script)
        print("RESULT stacks %s" % ("fail" if rc else "ok"))
        bad = bad or rc
    return 1 if bad else 0


def cmd_offcpu(path, out=sys.stdout):
    st = Stream(path)
    known = set()
    state = {}  # (pid, tid) -> (off, time)
    per = defaultdict(int)
    total = 0
    for e in st.events:
        t = e["type"]
        if t in ("ThreadStart", "Sample", "TracePointSample"):
            known.add((e["pid"], e["tid"]))
        elif t == "ContextSwitchDefinition":
            k = (e["pid"], e["tid"])
            if k not in known:
                continue
            prev = state.get(k)
            if not e["switchOut"] and prev and prev[0]:
                d = e["time"] - prev[1]
                per[k] += d
                total += d
            state[k] = (e["switchOut"], e["time"])
    print("total_ns %d" % total, file=out)
    for (pid, tid), ns in sorted(per.items()):
        print("thread %d %d %d" % (pid, tid, ns), file=out)
    return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if argv[1] == "dump":
            return cmd_dump(argv[2])
        if argv[1] == "summary":
            return cmd_summary(argv[2])
        if argv[1] == "stacks":
            return cmd_stacks(argv[2])
        if argv[1] == "offcpu":
            return cmd_offcpu(argv[2])
        if argv[1] == "check":
            st = Stream(argv[2])
            for p in st.problems:
                print("PROBLEM", p)
            print("%d events" % len(st.events))
            return 1 if st.problems else 0
        if argv[1] == "verify" and len(argv) >= 3:
            return cmd_verify(argv[2], argv[3] if len(argv) > 3 else "-",
                              argv[4] if len(argv) > 4 else "-")
        if argv[1] == "stacks-vs-script" and len(argv) >= 4:
            return cmd_stacks_vs_script(argv[2], argv[3])
        if argv[1] == "hotspot-vs-script" and len(argv) >= 4:
            cmd_hotspot_vs_script(argv[2], argv[3])
            return 0
        if argv[1] == "compare" and len(argv) >= 4:
            n, _ = compare(argv[2], argv[3])
            return 1 if n else 0
    except DecodeError as ex:
        print("decode error: %s" % ex, file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
