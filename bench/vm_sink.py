#!/usr/bin/env python3
"""bench/vm_sink.py — the upload sink of bench/vm.sh: receives a guest's upload and hashes it.

Listens on 127.0.0.1 only (an ephemeral port, printed as the first line on stdout). Each
connection is read to EOF (the guest's `nc 10.0.2.2 PORT < FILE` half-closes when FILE ends),
hashed as it arrives, answered with one line "BYTES SHA256" and closed: the guest's nc returns
only then, so the guest's clock sees the upload end when the host has every byte. Each connection
also adds a line to the log file given as the only argument:
    BYTES SHA256 FIRST_BYTE_EPOCH EOF_EPOCH
(the host's view of the same transfer, a cross-check for the guest's timing).
"""
import hashlib
import socketserver
import sys
import time

CHUNK = 1 << 20
IDLE_SECS = 300  # a stalled stack must not pin a thread forever


class Sink(socketserver.BaseRequestHandler):
    def handle(self):
        conn = self.request
        conn.settimeout(IDLE_SECS)
        h = hashlib.sha256()
        buf = bytearray(CHUNK)
        view = memoryview(buf)
        total = 0
        first = None
        try:
            while True:
                n = conn.recv_into(buf)
                if n == 0:
                    break
                if first is None:
                    first = time.time()
                h.update(view[:n])
                total += n
        except OSError as e:  # timeout or reset: report what came, marked
            print(f"vm-sink: connection ended by {e!r} after {total} bytes", file=sys.stderr, flush=True)
            return
        end = time.time()
        digest = h.hexdigest()
        try:
            conn.sendall(f"{total} {digest}\n".encode())
        except OSError:
            pass
        with open(self.server.log_path, "a") as log:
            log.write(f"{total} {digest} {first or end:.6f} {end:.6f}\n")


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: vm_sink.py LOG_FILE")
    with Server(("127.0.0.1", 0), Sink) as server:
        server.log_path = sys.argv[1]
        print(server.server_address[1], flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
