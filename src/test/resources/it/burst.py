"""Guest side of ManyConnectionsIT's burst test. Opens N connections to HOST:PORT (at most 500
handshakes at a time) and keeps them open, then sends SIZE bytes on every one at once (its index
first, then a shared random block) and checks that exactly those come back (sha256). Prints
"ok N RESENT SENT": the segments the namespace's kernel sent again during the exchange, and all it
sent (/proc/net/snmp's RetransSegs and OutSegs), else "FAILED ..." with what went wrong."""
import os, selectors, socket, sys, time

from echo_exchange import Conn, exchange

N, SIZE, HOST, PORT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
block = os.urandom(SIZE - 8)
sel = selectors.DefaultSelector()


def tcp_counters():
    rows = [line.split() for line in open("/proc/net/snmp") if line.startswith("Tcp:")]
    counters = dict(zip(rows[0][1:], map(int, rows[1][1:])))
    return counters["RetransSegs"], counters["OutSegs"]


def open_all():
    """N connections, at most 500 handshakes in flight; returns them, or raises on a failed connect."""
    conns, pending = [], {}
    deadline = time.monotonic() + 120
    while len(conns) + len(pending) < N or pending:
        while len(conns) + len(pending) < N and len(pending) < 500:
            c = Conn(HOST, PORT, (len(conns) + len(pending)).to_bytes(8, "big") + block)
            pending[c.sock] = c
            sel.register(c.sock, selectors.EVENT_WRITE, c)
        for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
            c = key.data
            sel.unregister(c.sock)
            del pending[c.sock]
            err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                raise OSError(err, "connect: " + os.strerror(err))
            conns.append(c)
        if time.monotonic() > deadline:
            raise TimeoutError("%d connections still opening" % len(pending))
    return conns


try:
    conns = open_all()
    resent, sent = tcp_counters()
    failures = exchange(sel, conns)
    resent2, sent2 = tcp_counters()
except OSError as e:
    failures = [str(e)]
if failures:
    print("FAILED " + "; ".join(failures[:5]))
else:
    print("ok %d %d %d" % (N, resent2 - resent, sent2 - sent))
