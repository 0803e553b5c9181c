"""Guest side of ManyConnectionsIT's budget test. N connections each send SIZE bytes at once (all
of them together, so the stack buffers them) and read them back, and stay open; then one more
connection sends UPLOAD bytes and reads them back. Prints "ok N RETRANS", RETRANS being the
segments the last connection's kernel had to resend (tcpi_total_retrans), else what went wrong."""
import os, selectors, socket, struct, sys

from echo_exchange import Conn, exchange

N, SIZE, UPLOAD, HOST, PORT = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
block = memoryview(os.urandom(max(SIZE, UPLOAD)))
sel = selectors.DefaultSelector()
TCPI_TOTAL_RETRANS = 100  # offset in struct tcp_info (linux/tcp.h)

held = [Conn(HOST, PORT, block[:SIZE]) for _ in range(N)]
failures = exchange(sel, held)
if not failures:
    last = Conn(HOST, PORT, block[:UPLOAD])
    failures = exchange(sel, [last])
if failures:
    print("FAILED " + "; ".join(failures[:5]))
else:
    info = last.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    print("ok %d %d" % (N, struct.unpack_from("I", info, TCPI_TOTAL_RETRANS)[0]))
