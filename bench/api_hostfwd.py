"""bench/api_hostfwd.py SOCKET HOST_ADDR HOST_PORT GUEST_PORT [PROTO]: slirp4netns's API request add_hostfwd
(PROTO tcp, the default, or udp; guest_addr left to the stack: the guest's address) on the unix socket SOCKET, as slirp4netns's
and jslirp's --api-socket take it (one JSON request per connection). Waits up to 10 s for the socket;
prints the reply; exit 1 unless it is {"return": ...}.
"""
import json
import os
import socket
import sys
import time

path, host_addr, host_port, guest_port = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
proto = sys.argv[5] if len(sys.argv) > 5 else "tcp"
deadline = time.monotonic() + 10
while not os.path.exists(path) and time.monotonic() < deadline:
    time.sleep(0.05)
request = {"execute": "add_hostfwd", "arguments": {"proto": proto, "host_addr": host_addr,
                                                   "host_port": host_port, "guest_port": guest_port}}
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(json.dumps(request).encode())
        s.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := s.recv(4096):
            reply += chunk
    print(reply.decode(errors="replace").strip())
    sys.exit(0 if "return" in json.loads(reply) else 1)
except (OSError, ValueError) as e:
    print("add_hostfwd on %s: %s" % (path, e))
    sys.exit(1)
