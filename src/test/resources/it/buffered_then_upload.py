"""Guest side of ManyConnectionsIT's budget test. N connections each send SIZE bytes at once (all
of them together, so the stack buffers them) and read them back, and stay open; then one more
connection sends UPLOAD bytes and reads them back. Prints "ok N RETRANS", RETRANS being the
segments the last connection's kernel had to resend (tcpi_total_retrans), else what went wrong.
CUBIC where the kernel has it, as in many_connections.py."""
import hashlib, os, selectors, socket, struct, sys

N, SIZE, UPLOAD, HOST, PORT = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
block = memoryview(os.urandom(max(SIZE, UPLOAD)))
sel = selectors.DefaultSelector()
TCPI_TOTAL_RETRANS = 100  # offset in struct tcp_info (linux/tcp.h)


class Conn:
    def __init__(self, size):
        self.size, self.sent, self.received = size, 0, 0
        self.got = hashlib.sha256()
        self.sock = socket.socket()
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")
        except OSError:
            pass
        self.sock.setblocking(False)
        self.sock.connect_ex((HOST, PORT))


def exchange(conns):
    """Every connection sends its bytes and reads them back; returns what went wrong."""
    for c in conns:
        sel.register(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
    busy, failures = len(conns), []
    while busy:
        events = sel.select(timeout=120)
        if not events:
            return failures + ["stalled with %d connections busy" % busy]
        for key, mask in events:
            c = key.data
            if mask & selectors.EVENT_WRITE and c.sent < c.size:
                try:
                    c.sent += c.sock.send(block[c.sent:c.size][:262144])
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
                    failures.append("closed early after %d bytes" % c.received)
                    sel.unregister(c.sock)
                    busy -= 1
                    continue
                c.got.update(data)
                c.received += len(data)
                if c.received == c.size:
                    sel.unregister(c.sock)
                    busy -= 1
                    if c.got.digest() != hashlib.sha256(block[:c.size]).digest():
                        failures.append("wrong bytes back")
    return failures


held = [Conn(SIZE) for _ in range(N)]
failures = exchange(held)
if not failures:
    last = Conn(UPLOAD)
    failures = exchange([last])
if failures:
    print("FAILED " + "; ".join(failures[:5]))
else:
    info = last.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    print("ok %d %d" % (N, struct.unpack_from("I", info, TCPI_TOTAL_RETRANS)[0]))
