#!/usr/bin/env bash
# bench/rrsplit.sh — where a round trip beside bulk traffic waits: in jslirp, or in its two ends.
#
# Usage (as root): bench/rrsplit.sh [idle|upload|download]      (default download)
#   RRSPLIT_N=3000        round trips measured (after as many unmeasured ones, as rrload's cells)
#   RRSPLIT_RT=1          the ping-pong's client and echo server under SCHED_FIFO 10 (rrload's BENCH_RRLOAD_RT)
#   RRSPLIT_STACK_RT=1    every thread of jslirp under SCHED_FIFO 5 too: what is left is jslirp's own work
#   JSLIRP=/path/to/jslirp  the launcher (default: this repository's)
#
# The same exchange as bench/run.sh's rrload cell (1-byte round trips, TCP_NODELAY, through
# `jslirp attach` on a namespace, while iperf3 moves bulk data through the same stack), with two
# captures of the exchange's port only: on the namespace's tap0 (the guest's side) and on the host's
# lo (the host socket's side). Each round trip is cut into four parts by the times each of its
# two segments was seen on either side (matched by sequence number, so a capture's dropped packet
# costs only its own round trip):
#   in       request on tap0 -> request on lo: jslirp reads it from the tap and writes the host socket
#   server   request on lo -> reply on lo: the echo server wakes, reads and answers
#   out      reply on lo -> reply on tap0: jslirp reads the host socket and writes the tap
#   client   reply on tap0 -> next request on tap0: the client wakes, reads, and sends again
# and prints each part's p50, p90, p99, and for the slowest 1 % of round trips which part was the
# largest and the parts' means. Needs iproute2, nftables, iperf3, tcpdump, tshark and Python 3.
# The namespace reaches only 10.0.2.2 (nftables); the servers listen on 127.0.0.1. Everything made
# here (namespace, processes, files) goes on exit.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
LOAD=${1:-download}
case $LOAD in idle|upload|download) ;; *) echo "rrsplit: load must be idle, upload or download, not: $LOAD" >&2; exit 2 ;; esac
N=${RRSPLIT_N:-3000}
JSLIRP=${JSLIRP:-$here/../jslirp}
source "$here/../scripts/session.sh"  # PY, pids, free_port; the namespace, processes and $work go on exit
for t in ip nft iperf3 tcpdump tshark; do command -v "$t" >/dev/null || { echo "rrsplit: $t not found" >&2; exit 1; }; done
[[ $EUID == 0 ]] || { echo "rrsplit: run as root (namespaces, captures)" >&2; exit 1; }
rt=(); [[ ${RRSPLIT_RT:-0} == 1 ]] && rt=(chrt -f 10)

ns=rrsplit$$
work=$(mktemp -d /tmp/jslirp-rrsplit.XXXXXX)
first=()   # the bulk flow and the captures, stopped once the round trips are done

ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" nft -f - <<EOF
table inet rrsplit_guard {
  chain out { type filter hook output priority 0; policy drop; oif "lo" accept; ip daddr 10.0.2.2 accept; }
}
EOF
ip netns exec "$ns" sleep infinity & holder=$!; pids+=("$holder")
for _ in $(seq 100); do [[ $(stat -L -c %i "/proc/$holder/ns/net") == $(stat -L -c %i "/run/netns/$ns") ]] && break; sleep 0.02; done
echo_port=$(free_port) iperf_port=$(free_port)
"${rt[@]}" "$PY" "$here/tcp_server.py" echo 127.0.0.1 "$echo_port" 1 >/dev/null 2>&1 & pids+=($!)
iperf3 -s -B 127.0.0.1 -p "$iperf_port" >/dev/null 2>&1 & pids+=($!)
"$JSLIRP" attach -c "$holder" tap0 2>"$work/jslirp.err" & stack=$!; pids+=("$stack")
for _ in $(seq 300); do ip -n "$ns" -4 -o addr show dev tap0 2>/dev/null | grep -q ' 10\.0\.2\.100/' && break; sleep 0.1; done
ip -n "$ns" -4 -o addr show dev tap0 | grep -q ' 10\.0\.2\.100/' || { cat "$work/jslirp.err" >&2; echo "rrsplit: jslirp did not come up" >&2; exit 1; }
if [[ ${RRSPLIT_STACK_RT:-0} == 1 ]]; then
  for t in /proc/"$stack"/task/*; do chrt -f -p 5 "${t##*/}" >/dev/null; done
fi
if [[ $LOAD != idle ]]; then
  args=(iperf3 -c 10.0.2.2 -p "$iperf_port" -t 600 -J)
  [[ $LOAD == download ]] && args+=(-R)
  ip netns exec "$ns" "${args[@]}" >"$work/bulk.json" 2>/dev/null & pids+=($!) first+=($!)
  sleep 2   # past slow start
fi
ip netns exec "$ns" tcpdump -i tap0 -n -s 96 -B 8192 --time-stamp-precision=nano -w "$work/tap.pcap" "tcp port $echo_port" 2>/dev/null & pids+=($!) first+=($!)
tcpdump -i lo -n -s 96 -B 8192 --time-stamp-precision=nano -w "$work/lo.pcap" "tcp port $echo_port" 2>/dev/null & pids+=($!) first+=($!)
sleep 1
ip netns exec "$ns" "${rt[@]}" "$PY" "$here/tcp_client.py" rrn 10.0.2.2 "$echo_port" "$N" >"$work/client.json" 2>/dev/null
sleep 0.5
for p in "${first[@]}"; do kill "$p" 2>/dev/null || true; done   # their files are then complete
for p in "${first[@]}"; do wait "$p" 2>/dev/null || true; done
echo "rrsplit: $LOAD, $N round trips (+ as many unmeasured), ends ${rt[*]:-SCHED_OTHER}, jslirp $([[ ${RRSPLIT_STACK_RT:-0} == 1 ]] && echo 'SCHED_FIFO 5' || echo SCHED_OTHER)"
echo "client: $(cat "$work/client.json")"
"$PY" - "$work" "$echo_port" <<'EOF'
import statistics, subprocess, sys
work, port = sys.argv[1], int(sys.argv[2])

def segments(pcap):
    """First sighting of each data segment toward the port and from it: relative seq -> time."""
    out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "frame.time_epoch", "-e", "tcp.dstport",
                          "-e", "tcp.len", "-e", "tcp.seq_raw"], capture_output=True, text=True, check=True).stdout
    req, rep = {}, {}
    for line in out.splitlines():
        t, dport, length, seq = line.split("\t")
        if int(length) == 0:
            continue
        (req if int(dport) == port else rep).setdefault(int(seq), float(t))
    rel = lambda d: {s - min(d): t for s, t in d.items()} if d else {}
    return rel(req), rel(rep)

treq, trep = segments(work + "/tap.pcap")
lreq, lrep = segments(work + "/lo.pcap")
rows = []
for i in sorted(treq):
    if i in trep and i in lreq and i in lrep and i + 1 in treq:
        rows.append(((lreq[i] - treq[i]) * 1e6, (lrep[i] - lreq[i]) * 1e6, (trep[i] - lrep[i]) * 1e6, (treq[i + 1] - trep[i]) * 1e6))
if len(rows) < 100:
    sys.exit("rrsplit: too few round trips in both captures (%d)" % len(rows))
pct = lambda v, p: sorted(v)[int(p * (len(v) - 1))]
names = ["in (tap -> lo: jslirp)", "server (lo -> lo)", "out (lo -> tap: jslirp)", "client (tap -> tap)"]
print("| part | p50 µs | p90 µs | p99 µs | in the slowest 1 %: largest part | its mean µs |")
print("|---|---:|---:|---:|---:|---:|")
cycles = [sum(r) for r in rows]
worst = sorted(range(len(rows)), key=lambda i: cycles[i])[-max(1, len(rows) // 100):]
largest = [0] * 4
for i in worst:
    largest[max(range(4), key=lambda k: rows[i][k])] += 1
for k, name in enumerate(names):
    col = [r[k] for r in rows]
    print("| %s | %.0f | %.0f | %.0f | %d of %d | %.0f |" % (name, pct(col, .5), pct(col, .9), pct(col, .99), largest[k], len(worst),
                                                             statistics.mean(rows[i][k] for i in worst)))
print("| whole round trip | %.0f | %.0f | %.0f | | %.0f |" % (pct(cycles, .5), pct(cycles, .9), pct(cycles, .99), statistics.mean(cycles[i] for i in worst)))
print("(%d round trips seen in both captures)" % len(rows))
EOF
if [[ $LOAD != idle ]]; then
  "$PY" "$here/iperf_json.py" --intervals <"$work/bulk.json" 2>/dev/null | "$PY" -c 'import json, sys; print("bulk %s meanwhile: %.2f Gbit/s" % (sys.argv[1], json.load(sys.stdin)["gbps"]))' "$LOAD" || true
fi
