#!/usr/bin/env python3
"""pyroscope_receiver.py: a stand-in for a Pyroscope-compatible ingest
endpoint (POST PREFIX/ingest?name=APP{labels}&from=&until=&format=pprof),
for the tests of `scorch record --continuous --push`.

Every request is checked: method and path, the query parameters (name is
APP{host=HOST}, from/until are Unix seconds with from <= until and a span of
at most --max-span, format=pprof), Content-Length against the body, and the
body itself with `go tool pprof -raw` (a gzip'd pprof with host and comm
labels). A request with good parameters is answered 200 at once and logged
"OK <from> <until> <bytes> <file>", then its body is validated on a worker
thread (go tool pprof takes a second or two: a slow answer would stand for a
slow backend): "VALID <file> <samples>" or "BAD <why>". A request with bad
parameters is answered 400 and logged "BAD <why>". With --down SECS the port is not listened on
for the first SECS seconds (connections are refused: a backend that is
down); with --fail N the first N requests get 503.

Usage: pyroscope_receiver.py --port P --app APP --host HOST --out DIR
       [--prefix /p] [--down SECS] [--fail N] [--max-span SECS]
Prints "LISTENING <port>" when it accepts connections; runs until killed."""
import argparse
import http.server
import os
import queue
import threading
import re
import subprocess
import sys
import time
import urllib.parse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--app", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--prefix", default="")
    ap.add_argument("--down", type=float, default=0)
    ap.add_argument("--fail", type=int, default=0)
    ap.add_argument("--max-span", type=int, default=30)
    a = ap.parse_args()
    log = open(os.path.join(a.out, "receiver.log"), "a", buffering=1)
    state = {"n": 0}
    work = queue.Queue()
    lock = threading.Lock()

    def say(line):
        with lock:
            log.write(line + "\n")

    def validate():
        while True:
            path = work.get()
            r = subprocess.run(["go", "tool", "pprof", "-raw", path], capture_output=True, text=True)
            if r.returncode != 0:
                say("BAD go tool pprof on %s: %s" % (path, r.stderr.strip()[-300:]))
                continue
            m = re.search(r"^Samples:\n(.*?)\n(.*?)^Locations", r.stdout, re.S | re.M)
            if not m:
                say("BAD %s: go tool pprof -raw shows no samples section" % path)
                continue
            samples = sum(1 for l in m.group(2).splitlines() if re.match(r"^\s+\d+\s+\d+:", l))
            if samples and not ("host:[%s]" % a.host in r.stdout and "comm:[" in r.stdout):
                say("BAD %s: samples without host/comm labels" % path)
                continue
            say("VALID %s %d" % (path, samples))

    threading.Thread(target=validate, daemon=True).start()

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, code, why=None):
            if why:
                say("BAD %s" % why)
            body = b"ok\n" if code == 200 else (why or "error").encode() + b"\n"
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.answer(405, "GET %s" % self.path)

        def do_POST(self):
            state["n"] += 1
            n = state["n"]
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                return self.answer(411, "no Content-Length")
            body = self.rfile.read(int(length))
            if len(body) != int(length):
                return self.answer(400, "body %d of %s bytes" % (len(body), length))
            if n <= a.fail:
                say("FAILED-ON-PURPOSE %d" % n)
                return self.answer(503)
            u = urllib.parse.urlsplit(self.path)
            if u.path != a.prefix + "/ingest":
                return self.answer(404, "path %s" % u.path)
            q = urllib.parse.parse_qs(u.query, keep_blank_values=True)
            for k in ("name", "from", "until", "format"):
                if len(q.get(k, [])) != 1:
                    return self.answer(400, "parameter %s: %r" % (k, q.get(k)))
            name = q["name"][0]
            if name != "%s{host=%s}" % (a.app, a.host):
                return self.answer(400, "name %r" % name)
            if q["format"][0] != "pprof":
                return self.answer(400, "format %r" % q["format"][0])
            if not re.fullmatch(r"\d+", q["from"][0]) or not re.fullmatch(r"\d+", q["until"][0]):
                return self.answer(400, "from/until %r %r" % (q["from"][0], q["until"][0]))
            t0, t1 = int(q["from"][0]), int(q["until"][0])
            now = time.time()
            if not (t0 <= t1 and t1 - t0 <= a.max_span and abs(now - t0) < 3600):
                return self.answer(400, "time range %d..%d (now %d)" % (t0, t1, now))
            if body[:2] != b"\x1f\x8b":
                return self.answer(400, "body is not gzip")
            path = os.path.join(a.out, "push-%03d.pb.gz" % n)
            with open(path, "wb") as f:
                f.write(body)
            say("OK %d %d %d %s" % (t0, t1, len(body), path))
            work.put(path)
            self.answer(200)

    if a.down > 0:
        time.sleep(a.down)
    srv = http.server.HTTPServer(("127.0.0.1", a.port), H)
    print("LISTENING %d" % a.port, flush=True)
    say("LISTENING %d" % a.port)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
