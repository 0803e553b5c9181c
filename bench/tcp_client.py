"""Namespace side of bench/run.sh's TCP tests; prints one JSON object on stdout.

    tcp_client.py rr    HOST PORT SECONDS
        One connection with TCP_NODELAY to an echo server, 1-byte ping-pong for SECONDS, one
        transaction at a time: {"tps", "p50_us", "p99_us", "transactions"}.
    tcp_client.py rrn   HOST PORT N
        As rr, for N round trips, after N round trips of warm-up (at least rr's): a stack started for
        the cell is still compiling the exchange's path in its first thousands, and p99 of the first
        cell measured that (idle p99 of jslirp: 162-293 us after 200, 87-117 us after 3,000):
        {"tps", "p50_us", "p99_us", "transactions"}.
    tcp_client.py rounds HOST PORT N R
        A fresh instance's first exchanges: one connection with TCP_NODELAY, R rounds of N 1-byte
        round trips, none unmeasured: {"rounds": [{"tps", "p50_us", "p99_us", "transactions"}, ...],
        "connect_us": the connection's handshake as the client saw it}.
    tcp_client.py crr   HOST PORT SECONDS PROCESSES
        PROCESSES clients in parallel, each in a loop for SECONDS: connect, send 1 byte, read it
        back, read the server's close, close ("once" server). Only connections finished in time
        count: {"cps", "connections", "errors", "first_error"}.
    tcp_client.py conns HOST PORT N BYTES TIMEOUT
        Open N connections to an echo server (at most 500 handshakes in flight), keep all of them
        open, then send BYTES on each (its index first, then a shared random block) and check
        that exactly those bytes come back; close them all at the end. Everything within TIMEOUT
        seconds: {"n", "connected", "ok", "open_seconds", "seconds", "failures"}.
A test that could not run at all prints {"error": ...}, never a traceback.
A short summary goes to stderr; the exit status is 1 when the test failed (an exception, a
connection-rate run with errors and no connection, or a conns run in which not all N succeeded).
"""
import collections
import errno
import json
import os
import selectors
import socket
import sys
import time

CONNECT_WINDOW = 500  # handshakes in flight in the conns test (a burst of 10,000 SYNs tests the tap queue, not the stack)


def emit(obj, summary, ok=True):
    print(json.dumps(obj))
    print("bench:     " + summary, file=sys.stderr)
    if not ok:
        sys.exit(1)


def exchange(s, count=None, until=float("inf")):
    """1-byte round trips on s, count of them or until the clock passes until: (latencies, seconds)."""
    one = b"x"
    clock = time.perf_counter
    lat = []
    start = t = clock()
    while t < until and (count is None or len(lat) < count):
        s.send(one)
        if s.recv(1) != one:
            raise ConnectionError("echo server closed")
        now = clock()
        lat.append(now - t)
        t = now
    return lat, t - start


def connect(host, port):
    s = socket.create_connection((host, port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def stats(lat, seconds):
    lat = sorted(lat)
    pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] * 1e6
    return {"tps": len(lat) / seconds, "p50_us": pct(0.50), "p99_us": pct(0.99), "transactions": len(lat)}


def rr(host, port, secs, count=None):
    """Round trips for secs seconds, or count of them when count is given (after as many to warm up)."""
    s = connect(host, port)
    warmup = max(200, count or 0)
    exchange(s, warmup)  # warm-up: first-use costs on both ends are not round trips
    lat, seconds = exchange(s, count, time.perf_counter() + secs if count is None else float("inf"))
    s.close()
    res = dict(stats(lat, seconds), warmup=warmup)
    emit(res, "%(tps).0f transactions/s, p50 %(p50_us).0f µs, p99 %(p99_us).0f µs" % res)


def rounds(host, port, n, r):
    """r rounds of n round trips from the first one on (a stack's cold start is what is measured)."""
    socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)  # the resolver's first-use costs are the client's
    t0 = time.perf_counter()
    s = connect(host, port)
    connect_us = (time.perf_counter() - t0) * 1e6
    out = [stats(*exchange(s, n)) for _ in range(r)]
    s.close()
    emit({"rounds": out, "connect_us": connect_us}, "connect %.0f µs, " % connect_us +
         ", ".join("%(tps).0f/s p50 %(p50_us).0f µs p99 %(p99_us).0f µs" % x for x in out))


def crr_worker(host, port, start, end):
    done = errors = 0
    first_error = None
    time.sleep(max(0.0, start - time.monotonic()))
    while time.monotonic() < end:
        try:
            with socket.create_connection((host, port), timeout=2) as s:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.sendall(b"x")
                if s.recv(1) != b"x":
                    raise ConnectionError("no echo")
                if s.recv(1) != b"":  # the server closes first
                    raise ConnectionError("server did not close")
            if time.monotonic() <= end:
                done += 1
        except OSError as e:
            errors += 1
            first_error = first_error or repr(e)
            time.sleep(0.01)
    return {"connections": done, "errors": errors, "first_error": first_error}


def crr(host, port, secs, procs):
    start = time.monotonic() + 0.2  # all workers start together
    end = start + secs
    readers = []
    for _ in range(procs):
        r, w = os.pipe()
        if os.fork() == 0:
            os.close(r)
            try:
                res = crr_worker(host, port, start, end)
            except Exception as e:
                res = {"connections": 0, "errors": 1, "first_error": repr(e)}
            os.write(w, json.dumps(res).encode())
            os._exit(0)
        os.close(w)
        readers.append(r)
    total = {"connections": 0, "errors": 0, "first_error": None}
    for r in readers:
        with os.fdopen(r) as f:
            text = f.read()
        res = json.loads(text) if text else {"connections": 0, "errors": 1, "first_error": "client process died"}
        total["connections"] += res["connections"]
        total["errors"] += res["errors"]
        total["first_error"] = total["first_error"] or res["first_error"]
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    total["cps"] = total["connections"] / secs
    emit(total, "%(cps).0f connections/s, %(errors)d errors" % total + (", first: " + total["first_error"] if total["first_error"] else ""),
         ok=total["connections"] > 0)


class Conn:
    def __init__(self, i, size, block):
        self.prefix = i.to_bytes(8, "big")
        self.size, self.block = size, block
        self.sent = self.received = 0
        self.good = True
        self.sock = socket.socket()
        self.sock.setblocking(False)

    def expected(self, off, n):
        """The bytes at [off, off+n) of what this connection sends."""
        if off >= 8:
            return self.block[off:off + n]
        return (self.prefix + self.block[8:])[off:off + n]

    def pending(self):
        return self.expected(self.sent, 262144)

    def done(self):
        return self.sent == self.size and self.received == self.size


def conns(host, port, n, size, timeout):
    t0 = time.monotonic()
    deadline = t0 + timeout
    block = memoryview(os.urandom(max(size, 8)))
    sel = selectors.DefaultSelector()
    failures = collections.Counter()
    open_conns, connecting, started = [], 0, 0

    def fail(c, why):
        failures[why] += 1
        c.good = False
        try:
            sel.unregister(c.sock)
        except KeyError:
            pass

    # Phase 1: open all N (at most CONNECT_WINDOW handshakes at a time) and keep them open.
    while (started < n or connecting) and time.monotonic() < deadline:
        while started < n and connecting < CONNECT_WINDOW:
            c = Conn(started, size, block)
            started += 1
            err = c.sock.connect_ex((host, port))
            if err not in (0, errno.EINPROGRESS):
                failures[errno.errorcode.get(err, str(err))] += 1
                c.sock.close()
                continue
            sel.register(c.sock, selectors.EVENT_WRITE, c)
            connecting += 1
        for key, _ in sel.select(timeout=0.5):
            c = key.data
            connecting -= 1
            sel.unregister(c.sock)
            err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                failures["connect: " + errno.errorcode.get(err, str(err))] += 1
                c.sock.close()
            else:
                open_conns.append(c)
    if connecting:
        failures["connect: timed out"] += connecting
    connected = len(open_conns)
    open_seconds = time.monotonic() - t0

    # Phase 2: exchange BYTES on every open connection at once.
    for c in open_conns:
        sel.register(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
    busy = connected
    while busy and time.monotonic() < deadline:
        for key, mask in sel.select(timeout=0.5):
            c = key.data
            try:
                if mask & selectors.EVENT_WRITE and c.sent < c.size:
                    try:
                        c.sent += c.sock.send(c.pending())
                    except BlockingIOError:
                        pass
                    if c.sent == c.size:
                        sel.modify(c.sock, selectors.EVENT_READ, c)
                if mask & selectors.EVENT_READ:
                    try:
                        data = c.sock.recv(262144)
                    except BlockingIOError:
                        continue
                    if not data:
                        fail(c, "closed early")
                        busy -= 1
                        continue
                    if data != c.expected(c.received, len(data)):
                        fail(c, "wrong bytes")
                        busy -= 1
                        continue
                    c.received += len(data)
                    if c.done():
                        sel.unregister(c.sock)
                        busy -= 1
            except OSError as e:
                fail(c, "exchange: " + (errno.errorcode.get(e.errno, "") or repr(e)))
                busy -= 1
    if busy:
        failures["exchange: timed out"] += busy
    ok = sum(1 for c in open_conns if c.good and c.done())
    seconds = time.monotonic() - t0
    back = sum(c.received for c in open_conns) / (n * size)

    # Phase 3: all N were open together; close them.
    for c in open_conns:
        c.sock.close()
    why = "; ".join(["%s ×%d" % kv for kv in failures.most_common(3)] +
                    (["%.0f%% of all bytes back" % (100 * back)] if ok < n else [])) or None
    emit({"n": n, "connected": connected, "ok": ok, "open_seconds": open_seconds, "seconds": seconds, "failures": why},
         "%d of %d ok (%d connected in %.1f s) in %.1f s%s" % (ok, n, connected, open_seconds, seconds,
                                                                ": " + why if why else ""),
         ok=ok == n)


def main():
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    args = [float(a) if "." in a else int(a) for a in sys.argv[4:]]
    try:
        {"rr": rr, "rrn": lambda h, p, n: rr(h, p, None, n), "rounds": rounds, "crr": crr, "conns": conns}[mode](host, port, *args)
    except Exception as e:
        emit({"error": repr(e)}, "failed: %r" % e, ok=False)


main()
