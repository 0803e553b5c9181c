#!/usr/bin/env bash
# Soak test (issue 8; not part of ./test): N minutes (default 10) of mixed traffic through one
# `jslirp attach` on a namespace made here — iperf3 both ways in turns with sha256-checked
# downloads and uploads between them, a 1-byte ping-pong, short connections in a loop and UDP
# echoes, all to the gateway 10.0.2.2 (servers on the host's 127.0.0.1). Every 10 s it samples the
# jslirp process's VmRSS and open descriptors; at the end it prints them as a table with min/max
# and fails when they grew (the last third's max above the first third's max × 1.5 + a margin),
# when a checked transfer was corrupted or failed, or when jslirp died. It also samples VmRSS idle
# before the traffic and a minute after it, and fails when that did not come back to within 16 MiB.
#
#   sudo scripts/soak.sh [MINUTES]          # SOAK_MTU (1500), JSLIRP (./jslirp) also honoured
#
# Needs root, iproute2, nftables, iperf3 and python3. Removes its namespace, processes and
# temporary files on exit, also on Ctrl-C.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
minutes=${1:-${SOAK_MINUTES:-10}}
mtu=${SOAK_MTU:-1500}
jslirp=${JSLIRP:-$here/jslirp}
source "$here/scripts/session.sh"  # PY, pids, free_port; the namespace, processes and $work go on exit
interval=10
rss_margin_kib=$((32 * 1024))
fd_margin=16
idle_settle=10           # s after start-up before the idle-before sample
after_wait=60            # s after the traffic before the last sample
returned_margin_kib=$((16 * 1024))

die() { echo "soak: $*" >&2; exit 1; }
log() { echo "soak: $*" >&2; }
[[ $minutes =~ ^[0-9]+$ && $minutes -gt 0 ]] || die "MINUTES must be a positive whole number, not '$minutes'"
((EUID == 0)) || die "needs root (network namespaces, tap)"
for t in ip nft iperf3 "$PY"; do command -v "$t" >/dev/null || die "missing tool: $t"; done

work=$(mktemp -d /tmp/jslirp-soak.XXXXXX)
ns=jslirp-soak-$$

# --- the host side: servers on 127.0.0.1 ---
cat >"$work/host.py" <<'EOF'
# TCP echo, bulk download (the file, then close), bulk upload (reply: sha256 of what came) and UDP
# echo, each on its own port of 127.0.0.1; argv: file echo-port down-port up-port udp-port
import hashlib, socket, socketserver, sys, threading
data = open(sys.argv[1], 'rb').read()
class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while (b := self.request.recv(65536)):
            self.request.sendall(b)
class Down(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.sendall(data)
class Up(socketserver.BaseRequestHandler):
    def handle(self):
        h = hashlib.sha256()
        while (b := self.request.recv(1 << 16)):
            h.update(b)
        self.request.sendall(h.hexdigest().encode())
class Udp(socketserver.BaseRequestHandler):
    def handle(self):
        self.request[1].sendto(self.request[0], self.client_address)
class Tcp(socketserver.ThreadingTCPServer):
    daemon_threads = allow_reuse_address = True
    request_queue_size = 128
servers = [Tcp(('127.0.0.1', int(sys.argv[2])), Echo), Tcp(('127.0.0.1', int(sys.argv[3])), Down),
           Tcp(('127.0.0.1', int(sys.argv[4])), Up), socketserver.ThreadingUDPServer(('127.0.0.1', int(sys.argv[5])), Udp)]
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
servers[0].serve_forever()
EOF

# --- the guest side: one worker per kind of traffic, each looping until the deadline ---
cat >"$work/guest.py" <<'EOF'
# argv: kind deadline(epoch s) ports... ; prints "kind ok=N failed=M [detail]" at the end
import hashlib, os, socket, subprocess, sys, time
kind, deadline = sys.argv[1], float(sys.argv[2])
GW = '10.0.2.2'
ok = failed = 0
notes = []
def fail(what):
    global failed
    failed += 1
    if len(notes) < 5: notes.append(what)
while time.time() < deadline:
    try:
        if kind == 'bulk':
            iperf, down, up, want, size = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7])
            for reverse in ([], ['-R']):
                if time.time() >= deadline: break
                r = subprocess.run(['iperf3', '-c', GW, '-p', str(iperf), '-t', '15', '-J'] + reverse,
                                   capture_output=True, timeout=60)
                ok += 1 if r.returncode == 0 else 0
                if r.returncode: fail('iperf3 %s exit %d' % (reverse, r.returncode))
            s = socket.create_connection((GW, down), timeout=30)
            h, n = hashlib.sha256(), 0
            while (b := s.recv(1 << 16)):
                h.update(b); n += len(b)
            s.close()
            if h.hexdigest() == want and n == size: ok += 1
            else: fail('download %d bytes sha %s' % (n, h.hexdigest()[:12]))
            s = socket.create_connection((GW, up), timeout=30)
            with open(sys.argv[8], 'rb') as f:
                s.sendfile(f)
            s.shutdown(socket.SHUT_WR)
            got = s.recv(100).decode()
            s.close()
            if got == want: ok += 1
            else: fail('upload: server saw %s' % got[:12])
        elif kind == 'pingpong':
            s = socket.create_connection((GW, int(sys.argv[3])), timeout=10)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            end = min(deadline, time.time() + 30)
            while time.time() < end:
                s.sendall(b'p')
                if s.recv(1) != b'p': fail('ping-pong answer'); break
                ok += 1
            s.close()
        elif kind == 'short':
            s = socket.create_connection((GW, int(sys.argv[3])), timeout=10)
            s.sendall(b'hello')
            got = b''
            while len(got) < 5 and (b := s.recv(5)):
                got += b
            s.close()
            if got == b'hello': ok += 1
            else: fail('short connection answer %r' % got)
        elif kind == 'udp':
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(1)
            for i in range(1000):
                msg = os.urandom(64)
                s.sendto(msg, (GW, int(sys.argv[3])))
                try:
                    if s.recv(100) == msg: ok += 1
                    else: fail('udp echo differs')
                except socket.timeout:
                    fail('udp echo lost')
                time.sleep(0.002)
            s.close()
    except Exception as e:
        fail('%s: %s' % (type(e).__name__, e))
        time.sleep(0.5)
print('%s ok=%d failed=%d %s' % (kind, ok, failed, '; '.join(notes)))
EOF

blob=$work/blob
head -c $((32 << 20)) /dev/urandom >"$blob"
want=$(sha256sum "$blob" | cut -d' ' -f1)
p_echo=$(free_port); p_down=$(free_port); p_up=$(free_port); p_udp=$(free_port); p_iperf=$(free_port)
"$PY" "$work/host.py" "$blob" "$p_echo" "$p_down" "$p_up" "$p_udp" >"$work/host.log" 2>&1 &
pids+=($!)
iperf3 -s -B 127.0.0.1 -p "$p_iperf" >"$work/iperf3.log" 2>&1 &
pids+=($!)

# --- the namespace, guarded like the tests': the guest's sockets reach only 10.0.2.2 and .3 ---
ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec "$ns" nft -f - <<EOF
table inet jslirp_soak_guard {
  chain out {
    type filter hook output priority 0; policy drop;
    oif "lo" accept
    ip daddr { 10.0.2.2, 10.0.2.3 } accept
  }
}
EOF
ip netns exec "$ns" sleep infinity &
holder=$!
pids+=($holder)
for _ in $(seq 200); do
  [[ $(stat -L -c %i "/proc/$holder/ns/net" 2>/dev/null) == "$(stat -L -c %i "/run/netns/$ns")" &&
     $(cat "/proc/$holder/comm" 2>/dev/null) == sleep ]] && break
  sleep 0.02
done
[[ $(cat "/proc/$holder/comm" 2>/dev/null) == sleep ]] || die "the namespace holder did not start"

"$jslirp" attach --configure --mtu "$mtu" "$holder" tap0 >"$work/jslirp.out" 2>"$work/jslirp.err" &
jpid=$!
pids+=($jpid)
for _ in $(seq 600); do
  ip -n "$ns" -4 -o addr show dev tap0 2>/dev/null | grep -q ' 10\.0\.2\.100/' && break
  kill -0 "$jpid" 2>/dev/null || { cat "$work/jslirp.err" >&2; die "jslirp exited before configuring tap0"; }
  sleep 0.1
done
ip -n "$ns" -4 -o addr show dev tap0 | grep -q ' 10\.0\.2\.100/' || die "tap0 was not configured in 60 s"
log "jslirp (pid $jpid) on namespace $ns, MTU $mtu; $minutes min of traffic, a sample every ${interval} s"

# Idle before the traffic (past start-up's transients), then a minute after it: memory taken
# under load must go back (issue 19: within 16 MiB of idle-before).
sleep "$idle_settle"
rss_idle_before=$(awk '/^VmRSS:/ {print $2}' "/proc/$jpid/status" 2>/dev/null) || die "jslirp exited before the traffic"

deadline=$(($(date +%s) + minutes * 60))
guest() { ip netns exec "$ns" "$PY" "$work/guest.py" "$1" "$deadline" "${@:2}" >"$work/guest-$1.log" 2>&1 & pids+=($!); workers+=($!); }
workers=()
guest bulk "$p_iperf" "$p_down" "$p_up" "$want" $((32 << 20)) "$blob"
guest pingpong "$p_echo"
guest short "$p_echo"
guest udp "$p_udp"

samples=()  # "seconds rss_kib fds"
start=$(date +%s)
sample() {
  local rss fds
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$jpid/status" 2>/dev/null) || return 1
  fds=$(ls "/proc/$jpid/fd" 2>/dev/null | wc -l)
  samples+=("$(($(date +%s) - start)) $rss $fds")
}
while (($(date +%s) < deadline)); do
  kill -0 "$jpid" 2>/dev/null || break
  sample || break
  sleep "$interval" & wait $! # (a trap runs at once, not after the sleep)
done
for w in "${workers[@]}"; do wait "$w" 2>/dev/null || true; done
alive=yes
kill -0 "$jpid" 2>/dev/null && sample || alive=no
rss_after=""
if [[ $alive == yes ]]; then
  log "traffic over; the memory a minute after it"
  sleep "$after_wait" & wait $!
  rss_after=$(awk '/^VmRSS:/ {print $2}' "/proc/$jpid/status" 2>/dev/null) || alive=no
fi

# --- report ---
verdict=0
printf '\n| seconds | VmRSS MiB | descriptors |\n| ---: | ---: | ---: |\n'
for s in "${samples[@]}"; do read -r t r f <<<"$s"; awk -v t="$t" -v r="$r" -v f="$f" 'BEGIN { printf "| %d | %.1f | %d |\n", t, r / 1024, f }'; done
n=${#samples[@]}
stats() {  # stats FIELD FROM TO: min and max of field (2 = rss, 3 = fds) over samples[FROM..TO)
  local i min= max= v
  for ((i = $2; i < $3; i++)); do
    v=$(cut -d' ' -f"$1" <<<"${samples[i]}")
    [[ -z $min || $v -lt $min ]] && min=$v
    [[ -z $max || $v -gt $max ]] && max=$v
  done
  echo "$min $max"
}
if ((n >= 3)); then
  third=$((n / 3))
  read -r rmin rmax <<<"$(stats 2 0 "$n")"; read -r fmin fmax <<<"$(stats 3 0 "$n")"
  read -r _ r_first <<<"$(stats 2 0 "$third")"; read -r _ r_last <<<"$(stats 2 $((n - third)) "$n")"
  read -r _ f_first <<<"$(stats 3 0 "$third")"; read -r _ f_last <<<"$(stats 3 $((n - third)) "$n")"
  printf '\nVmRSS: min %d MiB, max %d MiB; first third max %d MiB, last third max %d MiB\n' \
    $((rmin / 1024)) $((rmax / 1024)) $((r_first / 1024)) $((r_last / 1024))
  printf 'descriptors: min %d, max %d; first third max %d, last third max %d\n' "$fmin" "$fmax" "$f_first" "$f_last"
  if ((r_last * 2 > r_first * 3 + rss_margin_kib * 2)); then log "FAIL: VmRSS grew (last third's max > first third's max × 1.5 + 32 MiB)"; verdict=1; fi
  if ((f_last * 2 > f_first * 3 + fd_margin * 2)); then log "FAIL: descriptors grew (last third's max > first third's max × 1.5 + $fd_margin)"; verdict=1; fi
else
  log "FAIL: only $n samples"; verdict=1
fi
if [[ -n $rss_after ]]; then
  printf 'VmRSS idle before the traffic: %.1f MiB; %d s after it: %.1f MiB (%+.1f MiB)\n' "$(awk -v r="$rss_idle_before" 'BEGIN {print r / 1024}')" \
    "$after_wait" "$(awk -v r="$rss_after" 'BEGIN {print r / 1024}')" "$(awk -v a="$rss_after" -v b="$rss_idle_before" 'BEGIN {print (a - b) / 1024}')"
  if ((rss_after - rss_idle_before > returned_margin_kib)); then
    log "FAIL: memory not given back (${after_wait} s after the traffic VmRSS is more than $((returned_margin_kib / 1024)) MiB above idle-before)"; verdict=1
  fi
fi
echo
for k in bulk pingpong short udp; do
  line=$(tail -n 1 "$work/guest-$k.log" 2>/dev/null)
  echo "$k: ${line:-(no result)}"
  [[ $line =~ ok=([0-9]+)\ failed=([0-9]+) ]] || { log "FAIL: worker $k reported nothing"; verdict=1; continue; }
  ok=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}
  if ((ok == 0)); then log "FAIL: worker $k succeeded at nothing"; verdict=1; fi
  # UDP may lose a datagram now and then (the tap queue is shared with bulk traffic); TCP may not fail
  if [[ $k == udp ]]; then ((failed * 100 <= ok + failed)) || { log "FAIL: more than 1% of UDP echoes lost"; verdict=1; }
  elif ((failed > 0)); then log "FAIL: worker $k failed $failed times"; verdict=1; fi
done
if [[ $alive == yes ]]; then
  kill "$jpid"; wait "$jpid" 2>/dev/null || true
  grep -h 'counters' "$work/jslirp.err" || true
else
  log "FAIL: jslirp died"; tail -n 20 "$work/jslirp.err" >&2; verdict=1
fi
((verdict == 0)) && echo "soak: passed" || echo "soak: FAILED"
exit "$verdict"
