#!/usr/bin/env bash
# bench/bypass.sh — the socket bypass (`jslirp run --bypass`, issue 47) beside the host's own
# loopback, a veth pair and `jslirp run` without it, in one run. Prints a Markdown table on stdout.
#
# Rows:
#   loopback             client and server on the host's 127.0.0.1 (no namespace at all)
#   veth                 client in a namespace, server in another, one veth pair (MTU BYPASS_MTU)
#   jslirp run           the client is `jslirp run --mtu BYPASS_MTU`'s command, the server on the
#                        host's 127.0.0.1, reached at 10.0.2.2 (through the tap and the stack)
#   jslirp run --bypass  the same with the bypass (the connection is a host socket)
# Cells: TCP namespace → host and host → namespace (iperf3, one stream, BYPASS_SECONDS, the
# receiver's Gbit/s), round trips (bench/tcp_client.py rr: 1 byte each way, one at a time) and
# connections per second (crr: connect, 1 byte each way, close; 2 client processes).
#
# Each cell is measured BYPASS_REPEAT times (default 3), the rows in turn within each round, and
# its best is shown: a row measured first on an idle machine (CPU clocks still low) or last would
# otherwise carry the order's difference (round trips on loopback: 15,000/s first, 22,000/s a
# minute later, same command).
#
# Usage: bench/bypass.sh [> table.md]   (BYPASS_SECONDS=5, BYPASS_MTU=65520, BYPASS_REPEAT=3, JSLIRP=<repo>/jslirp)
# As root: it makes the namespaces (deleted at exit). Everything goes to loopback or to the
# namespaces it makes; the jslirp rows address only the gateway 10.0.2.2.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
JSLIRP=${JSLIRP:-$here/../jslirp}
SECS=${BYPASS_SECONDS:-5}
MTU=${BYPASS_MTU:-65520}
REPEAT=${BYPASS_REPEAT:-3}
PY=/usr/bin/python3
[[ $(id -u) == 0 ]] || { echo "bench/bypass.sh: run as root (it makes namespaces)" >&2; exit 1; }
for t in iperf3 ip "$PY"; do command -v "$t" >/dev/null || { echo "bench/bypass.sh: missing $t" >&2; exit 1; }; done
tag="jbyp$$"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ip netns del "${tag}a" 2>/dev/null || true
  ip netns del "${tag}b" 2>/dev/null || true
}
trap cleanup EXIT
"$JSLIRP" --version >/dev/null # builds the jar before anything is timed
# ... and trains its AOT cache in the background: wait for that, as bench/startup.sh does (a
# training on one of two cores would slow the first rows).
sleep 1
for lock in "$(dirname "$(readlink -f "$JSLIRP")")"/target/jslirp-*.aot.lock; do
  [[ -e $lock ]] && flock -w 180 "$lock" true
done

free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# servers: on the host's 127.0.0.1, and in namespace b for veth
ip netns add "${tag}a"; ip netns add "${tag}b"
ip link add veth0 netns "${tag}a" mtu "$MTU" type veth peer name veth0 netns "${tag}b" mtu "$MTU"
ip -n "${tag}a" addr add 10.77.0.1/24 dev veth0; ip -n "${tag}b" addr add 10.77.0.2/24 dev veth0
for n in a b; do ip -n "$tag$n" link set veth0 up; ip -n "$tag$n" link set lo up; done
declare -A port
start_servers() {  # start_servers PREFIX... : iperf3, echo and once servers bound by ADDR
  local addr=$1; shift
  port[iperf$addr]=$(free_port); port[echo$addr]=$(free_port); port[once$addr]=$(free_port)
  "$@" iperf3 -s -B "$addr" -p "${port[iperf$addr]}" >/dev/null 2>&1 & pids+=($!)
  "$@" "$PY" "$here/tcp_server.py" echo "$addr" "${port[echo$addr]}" 1 >/dev/null 2>&1 & pids+=($!)
  "$@" "$PY" "$here/tcp_server.py" once "$addr" "${port[once$addr]}" 2 >/dev/null 2>&1 & pids+=($!)
}
start_servers 127.0.0.1
start_servers 10.77.0.2 ip netns exec "${tag}b"
sleep 1

# client ROW: the prefix that runs a client command in ROW's place, and the address it dials
client() {
  case $1 in
    loopback) prefix=() addr=127.0.0.1 srv=127.0.0.1 ;;
    veth) prefix=(ip netns exec "${tag}a") addr=10.77.0.2 srv=10.77.0.2 ;;
    run) prefix=("$JSLIRP" run --mtu "$MTU" --) addr=10.0.2.2 srv=127.0.0.1 ;;
    bypass) prefix=("$JSLIRP" run --bypass --mtu "$MTU" --) addr=10.0.2.2 srv=127.0.0.1 ;;
  esac
}
field() {  # field FORMAT KEY...: the keys of the JSON object on stdin, each with FORMAT, joined by " / "
  "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(" / ".join(sys.argv[1] % d[k] for k in sys.argv[2:]))' "$@"
}
cell_iperf() {  # cell_iperf ROW [-R]
  client "$1"; shift
  "${prefix[@]}" iperf3 -c "$addr" -p "${port[iperf$srv]}" -t "$SECS" -J "$@" 2>/dev/null | "$PY" "$here/iperf_json.py" 2>/dev/null | field %.2f gbps || echo "–"
}
cell_rr() {
  client "$1"
  "${prefix[@]}" "$PY" "$here/tcp_client.py" rr "$addr" "${port[echo$srv]}" "$SECS" 2>/dev/null | field %.0f tps p50_us p99_us || echo "–"
}
cell_crr() {
  client "$1"
  "${prefix[@]}" "$PY" "$here/tcp_client.py" crr "$addr" "${port[once$srv]}" "$SECS" 2 2>/dev/null | field %.0f cps || echo "–"
}

declare -A best
keep() {  # keep KEY VALUE: the better of VALUE and what KEY has (the first number decides; "–" loses)
  local old=${best[$1]:-–}
  if [[ $old == – ]] || { [[ $2 != – ]] && "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "${2%% *}" "${old%% *}"; }; then
    best[$1]=$2
  fi
}
rows=(loopback veth run bypass)
load0=$(cut -d' ' -f1 /proc/loadavg)
for ((r = 0; r < REPEAT; r++)); do
  for row in "${rows[@]}"; do
    keep "$row up" "$(cell_iperf "$row")"
    keep "$row down" "$(cell_iperf "$row" -R)"
    keep "$row rr" "$(cell_rr "$row")"
    keep "$row crr" "$(cell_crr "$row")"
  done
done
echo "| $(date +%F) · $(nproc) cores · load $load0 → $(cut -d' ' -f1 /proc/loadavg) · MTU $MTU · ${SECS} s, best of $REPEAT | ns→host Gbit/s | host→ns Gbit/s | round trips/s (p50 / p99 µs) | connections/s |"
echo "|---|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
  name=$row; [[ $row == run ]] && name="jslirp run"; [[ $row == bypass ]] && name="jslirp run --bypass"
  echo "| $name | ${best[$row up]} | ${best[$row down]} | ${best[$row rr]} | ${best[$row crr]} |"
done
