"""Both ends of ManyConnectionsIT's forwarded burst: SIZE bytes (the same pseudo-random block for
every connection) sent by a server in the guest to each of N host clients of a forwarded port.

  forwarded_burst.py serve N SIZE PORT [ADDR] in the namespace: listens on ADDR:PORT (ADDR 0.0.0.0
                                              unless given), prints "listening",
                                              sends the block on each of N connections and closes it;
                                              prints "served N"
  forwarded_burst.py fetch N SIZE HOST PORT   on the host: opens N connections to HOST:PORT (at most
                                              500 connects in flight), all before reading any, then
                                              reads each to its end; prints "ok N" when every one
                                              brought exactly the block (sha256), else "FAILED ...".
"""
import hashlib, random, selectors, socket, sys, time

mode, N, SIZE = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
block = random.Random(1234).randbytes(SIZE)
sel = selectors.DefaultSelector()


def serve(port, addr):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((addr, port))
    server.listen(4096)
    server.setblocking(False)
    sel.register(server, selectors.EVENT_READ, None)
    print("listening", flush=True)
    accepted = done = 0
    while done < N:
        for key, _ in sel.select(timeout=120):
            if key.data is None:
                while accepted < N:
                    try:
                        sock, _ = server.accept()
                    except BlockingIOError:
                        break
                    sock.setblocking(False)
                    accepted += 1
                    sel.register(sock, selectors.EVENT_WRITE, [sock, 0])
                continue
            sock, sent = key.data
            try:
                sent += sock.send(memoryview(block)[sent:])
            except BlockingIOError:
                continue
            except OSError as e:
                print("FAILED send: %s" % e, flush=True)
                return
            key.data[1] = sent
            if sent == SIZE:
                sel.unregister(sock)
                sock.close()
                done += 1
    print("served %d" % N, flush=True)


def fetch(host, port):
    want = hashlib.sha256(block).digest()
    conns, pending, failures = [], set(), []
    deadline = time.monotonic() + 120
    while len(conns) + len(pending) < N or pending:
        while len(conns) + len(pending) < N and len(pending) < 500:
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex((host, port))
            pending.add(s)
            sel.register(s, selectors.EVENT_WRITE, None)
        for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
            s = key.fileobj
            sel.unregister(s)
            pending.discard(s)
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                print("FAILED connect: %s" % err)
                return
            conns.append(s)
        if time.monotonic() > deadline:
            print("FAILED %d connections still opening" % len(pending))
            return
    for s in conns:
        sel.register(s, selectors.EVENT_READ, [hashlib.sha256(), 0])
    busy = len(conns)
    while busy:
        events = sel.select(timeout=120)
        if not events:
            failures.append("stalled with %d connections busy" % busy)
            break
        for key, _ in events:
            got = key.data
            try:
                data = key.fileobj.recv(262144)
            except BlockingIOError:
                continue
            except OSError as e:
                data, failures = b"", failures + [str(e)]
            if data:
                got[0].update(data)
                got[1] += len(data)
                continue
            sel.unregister(key.fileobj)
            key.fileobj.close()
            busy -= 1
            if got[1] != SIZE or got[0].digest() != want:
                failures.append("%d bytes, %s" % (got[1], "intact" if got[0].digest() == want else "not the block"))
    print("FAILED " + "; ".join(failures[:5]) if failures else "ok %d" % N)


if mode == "serve":
    serve(int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else "0.0.0.0")
else:
    fetch(sys.argv[4], int(sys.argv[5]))
