"""Host side of bench/run.sh's TCP tests: a non-blocking TCP server on HOST:PORT.

    tcp_server.py echo HOST PORT WORKERS   echo every byte back until the client closes
                                           (round trips, concurrent connections)
    tcp_server.py once HOST PORT WORKERS   echo the first read, then close (connection rate):
                                           the server closes first, so TIME_WAIT stays here and
                                           the clients' ports are never used up

WORKERS processes share one listening socket, each with its own epoll loop; they end with the
parent (SIGTERM, or PR_SET_PDEATHSIG when the parent dies). Accepted sockets use TCP_NODELAY.
"""
import ctypes
import os
import selectors
import signal
import socket
import sys

MODE, HOST, PORT, WORKERS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
assert MODE in ("echo", "once")


class Conn:
    def __init__(self, sock):
        self.sock = sock
        self.out = bytearray()  # bytes read but not yet echoed


def serve(listener):
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, None)

    def close(c):
        sel.unregister(c.sock)
        c.sock.close()

    def flush(c):
        """Send what is pending; True when everything went out."""
        try:
            n = c.sock.send(c.out)
        except BlockingIOError:
            n = 0
        except OSError:
            close(c)
            return False
        del c.out[:n]
        if c.out:
            sel.modify(c.sock, selectors.EVENT_WRITE, c)
            return False
        return True

    while True:
        for key, mask in sel.select():
            c = key.data
            if c is None:  # listener: accept everything that is waiting
                while True:
                    try:
                        s, _ = listener.accept()
                    except (BlockingIOError, InterruptedError):
                        break
                    except OSError:  # e.g. EMFILE: leave it in the backlog for now
                        break
                    s.setblocking(False)
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    sel.register(s, selectors.EVENT_READ, Conn(s))
                continue
            if mask & selectors.EVENT_WRITE:
                if flush(c):
                    if MODE == "once":
                        close(c)
                    else:
                        sel.modify(c.sock, selectors.EVENT_READ, c)
                continue
            try:
                data = c.sock.recv(262144)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                close(c)
                continue
            c.out += data
            if flush(c) and MODE == "once":
                close(c)


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((HOST, PORT))
    listener.listen(65535)  # capped by net.core.somaxconn
    listener.setblocking(False)
    parent, children = os.getpid(), []
    for _ in range(WORKERS):
        pid = os.fork()
        if pid == 0:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            if os.getppid() != parent:  # the parent died before prctl
                os._exit(0)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                serve(listener)
            finally:
                os._exit(0)
        children.append(pid)

    def stop(*_):
        for p in children:
            try:
                os.kill(p, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in children:
            try:
                os.waitpid(p, 0)
            except ChildProcessError:
                pass
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    os.wait()  # a worker that dies takes the server down with it
    stop()


main()
