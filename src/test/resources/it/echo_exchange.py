"""What ManyConnectionsIT's guest scripts share: connections that each send their bytes to an echo
server at once and check that exactly those come back (sha256). CUBIC where the kernel has it, as
in many_connections.py."""
import hashlib, selectors, socket


class Conn:
    """A non-blocking connection to (host, port), its connect begun, that is to send data."""

    def __init__(self, host, port, data):
        self.data = memoryview(data)
        self.sent = self.received = 0
        self.got = hashlib.sha256()
        self.sock = socket.socket()
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")
        except OSError:
            pass
        self.sock.setblocking(False)
        self.sock.connect_ex((host, port))


def exchange(sel, conns):
    """Every connection sends its bytes and reads them back (sel: a selector of none of them); returns what went wrong."""
    for c in conns:
        sel.register(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
    busy, failures = len(conns), []
    while busy:
        events = sel.select(timeout=120)
        if not events:
            return failures + ["stalled with %d connections busy" % busy]
        for key, mask in events:
            c = key.data
            if mask & selectors.EVENT_WRITE and c.sent < len(c.data):
                try:
                    c.sent += c.sock.send(c.data[c.sent:][:262144])
                except BlockingIOError:
                    pass
                if c.sent == len(c.data):
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
                if c.received == len(c.data):
                    sel.unregister(c.sock)
                    busy -= 1
                    if c.got.digest() != hashlib.sha256(c.data).digest():
                        failures.append("wrong bytes back")
    return failures
