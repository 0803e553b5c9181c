"""Guest side of LessonsIT. Modes:
  bulk HOST PORT BYTES           send BYTES as fast as possible, then close
  bulkfor HOST PORT SECONDS      send as fast as possible for SECONDS, then close
  small HOST PORT COUNT SIZE     TCP_NODELAY, COUNT writes of SIZE bytes back to back, then wait for EOF
  pingpong HOST PORT COUNT       COUNT 1-byte request/response round trips; prints p50 and p99 in ms"""
import socket, sys, time

mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.create_connection((host, port))
if mode == "bulk":
    block = b"\x5a" * (1 << 20)
    left = int(sys.argv[4])
    while left > 0:
        n = min(left, len(block))
        s.sendall(block[:n])
        left -= n
    s.close()
elif mode == "bulkfor":
    block = b"\x5a" * (1 << 20)
    end = time.monotonic() + float(sys.argv[4])
    while time.monotonic() < end:
        s.sendall(block)
    s.close()
elif mode == "small":
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    count, size = int(sys.argv[4]), int(sys.argv[5])
    piece = b"s" * size
    for _ in range(count):
        s.send(piece)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
elif mode == "pingpong":
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtts = []
    for _ in range(int(sys.argv[4])):
        t = time.perf_counter()
        s.sendall(b"p")
        if s.recv(1) != b"p":
            raise SystemExit("bad reply")
        rtts.append(time.perf_counter() - t)
    rtts.sort()
    print("%.3f %.3f" % (rtts[len(rtts) // 2] * 1e3, rtts[int(len(rtts) * 0.99)] * 1e3))
