"""Guest side of ManyConnectionsIT: N concurrent TCP connections to an echo server, each sending
SIZE bytes (its own id first, then a shared pseudo-random block) and reading them back; prints
one line: "ok N" when every connection got exactly its own bytes back, else what went wrong.

Each socket uses CUBIC where the kernel has it. 1,000 flows overran the tap's queues before the
window credit (15,000-40,000 frames dropped per run here), and the host default here, BBR (v1), then takes some flows for a
policed path: it paces them at about 1 KB/s for minutes (bbr bw 5520bps in ss -ti), so one run in
four took 100-220 s instead of 40 and one hit the 300-s limit. With CUBIC every run took 10-15 s.
This test is about the bytes, not about the guest's congestion control."""
import hashlib, os, selectors, socket, sys

N, SIZE, HOST, PORT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
block = memoryview(os.urandom(SIZE))
sel = selectors.DefaultSelector()

class Conn:
    def __init__(self, i):
        self.prefix = i.to_bytes(8, "big")
        self.sent = 0
        self.received = 0
        self.got = hashlib.sha256()
        self.sock = socket.socket()
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")
        except OSError:
            pass  # not in this kernel, or not allowed to this user: the namespace's default
        self.sock.setblocking(False)
        self.sock.connect_ex((HOST, PORT))
        sel.register(self.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, self)

    def expected(self):
        h = hashlib.sha256(self.prefix)
        h.update(block[8:])
        return h.digest()

    def pending(self):
        return self.prefix[self.sent:] if self.sent < 8 else block[self.sent:]

conns = [Conn(i) for i in range(N)]
open_count, failures = N, []
while open_count:
    events = sel.select(timeout=120)
    if not events:
        failures.append("stalled with %d connections open" % open_count)
        break
    for key, mask in events:
        c = key.data
        if mask & selectors.EVENT_WRITE and c.sent < SIZE:
            try:
                c.sent += c.sock.send(c.pending()[:262144])
            except BlockingIOError:
                pass
            if c.sent == SIZE:
                c.sock.shutdown(socket.SHUT_WR)
                sel.modify(c.sock, selectors.EVENT_READ, c)
        if mask & selectors.EVENT_READ:
            try:
                data = c.sock.recv(262144)
            except BlockingIOError:
                continue
            except OSError as e:
                failures.append("connection %d: %s" % (int.from_bytes(c.prefix, "big"), e))
                data = b""
            if data:
                c.got.update(data)
                c.received += len(data)
            else:
                sel.unregister(c.sock)
                c.sock.close()
                open_count -= 1
                if c.received != SIZE or c.got.digest() != c.expected():
                    failures.append("connection %d: got %d bytes, digest %s" % (
                        int.from_bytes(c.prefix, "big"), c.received, "ok" if c.got.digest() == c.expected() else "wrong"))
print("ok %d" % N if not failures else "FAILED " + "; ".join(failures[:5]))
