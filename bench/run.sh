#!/usr/bin/env bash
# bench/run.sh — iperf3 throughput through user-mode network stacks, side by side.
#
# Usage (as root, from anywhere):
#   bench/run.sh                      # all stacks, MTU 1500 and 65520, 5 s per direction
#   BENCH_SECONDS=10 bench/run.sh     # longer runs
#   BENCH_MTUS=65520 BENCH_STACKS="veth jslirp" bench/run.sh
#   BENCH_REPEAT=3 bench/run.sh       # best of 3 runs per cell (the 2-core machines are noisy)
#   JSLIRP=/path/to/jslirp bench/run.sh
#
# Prints one Markdown table on stdout (progress and diagnostics go to stderr):
#   | MTU | stack | guest→host Gbit/s | host→guest Gbit/s | guest→host vs veth | host→guest vs veth |
# guest→host = iperf3 client in the namespace sending; host→guest = the same with -R. Each cell is the
# average over the whole run; "(stalled)" marks a run in which some one-second interval after the
# first moved < 1% of the best second (seen with pasta 2023-03: ~0.3 GB, then retransmissions only).
#
# Rows:
#   veth        two namespaces made here, joined by a veth pair with private addresses that exist
#               only inside them (10.77.77.1 ↔ 10.77.77.2): the kernel's own path, the upper limit.
#   slirp4netns `slirp4netns -c --mtu M PID tap0` on a namespace made here.
#   pasta       `pasta --runas 0 --config-net ... --netns NAME` with explicit guest address 10.0.2.100,
#               gateway 10.0.2.2 (pasta maps the gateway to host loopback), IPv4 only, no port forwarding.
#   jslirp      `$JSLIRP attach -c --mtu M PID tap0` (default: the repository's ./jslirp); "n/a" when
#               it does not come up or the transfer fails.
# For the user-mode stacks, iperf3 -s listens on host 127.0.0.1 only and the namespace targets the
# gateway 10.0.2.2. Every namespace also gets an nftables output filter that lets its sockets
# reach only that target. Namespaces, processes and devices made here are removed on exit.
#
# Environment: BENCH_SECONDS (5), BENCH_MTUS ("1500 65520"), BENCH_STACKS ("veth slirp4netns pasta jslirp"),
#              BENCH_REPEAT (1: best of N runs per cell), JSLIRP (<repo>/jslirp). Needs: iproute2, iperf3, nftables, python3, slirp4netns, passt (pasta).
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$here/.." && pwd)
SECS=${BENCH_SECONDS:-5}
MTUS=${BENCH_MTUS:-"1500 65520"}
STACKS=${BENCH_STACKS:-"veth slirp4netns pasta jslirp"}
REPEAT=${BENCH_REPEAT:-1}
JSLIRP=${JSLIRP:-$repo/jslirp}
PY=/usr/bin/python3; [[ -x $PY ]] || PY=python3
tag="jsb$$"
VETH_A=10.77.77.1 VETH_B=10.77.77.2

log() { echo "bench: $*" >&2; }
die() { log "$*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "run as root (network namespaces, tap, veth)"
for t in ip iperf3 nft nsenter; do command -v "$t" >/dev/null || die "missing tool: $t"; done

workdir=$(mktemp -d /tmp/jslirp-bench.XXXXXX)
pids=()        # processes started here (killed by PID on exit)
namespaces=()  # named namespaces created here

cleanup() {
  local p n
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for n in "${namespaces[@]}"; do ip netns del "$n" 2>/dev/null || true; done
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

forget_pid() {  # forget_pid PID: stop tracking (after it was stopped here)
  local p keep=()
  for p in "${pids[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  pids=("${keep[@]}")
}

stop_pid() {  # stop_pid PID: SIGTERM, wait up to 10 s, then SIGKILL
  local p=$1 i
  kill "$p" 2>/dev/null || true
  for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  forget_pid "$p"
}

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# mkns NAME ALLOWED_DST: new named namespace, lo up, egress (IPv4 and IPv6) only to ALLOWED_DST
mkns() {
  local ns=$1 dst=$2
  ip netns add "$ns"
  namespaces+=("$ns")
  ip -n "$ns" link set lo up
  ip netns exec "$ns" nft -f - <<EOF
table inet jslirp_bench_guard {
  chain out {
    type filter hook output priority 0; policy drop;
    oif "lo" accept
    ip daddr $dst accept
  }
}
EOF
}

delns() {
  local ns=$1 n keep=()
  ip netns del "$ns" 2>/dev/null || true
  for n in "${namespaces[@]}"; do [[ $n == "$ns" ]] || keep+=("$n"); done
  namespaces=("${keep[@]}")
}

# holder NAME: start `sleep infinity` inside the named namespace; sets HOLDER_PID once it is really
# there (a stack attached to a PID still in the host's namespace would configure the host).
holder() {
  local ns=$1 p i want
  ip netns exec "$ns" sleep infinity >/dev/null 2>&1 &
  p=$!
  pids+=("$p")
  want=$(stat -L -c %i "/run/netns/$ns")
  for i in $(seq 200); do
    if [[ $(stat -L -c %i "/proc/$p/ns/net" 2>/dev/null) == "$want" && $(cat "/proc/$p/comm" 2>/dev/null) == sleep ]]; then
      HOLDER_PID=$p; return 0
    fi
    sleep 0.02
  done
  die "holder for $ns did not enter the namespace"
}

# await_cfg NAME STACK_PID SECONDS: wait until tap0 has 10.0.2.100 and a default route via 10.0.2.2
await_cfg() {
  local ns=$1 sp=$2 secs=$3 i
  for i in $(seq $((secs * 10))); do
    if ip -n "$ns" -4 -o addr show dev tap0 2>/dev/null | grep -q ' 10\.0\.2\.100/' &&
       ip -n "$ns" -4 route show default 2>/dev/null | grep -q 'via 10\.0\.2\.2'; then
      return 0
    fi
    kill -0 "$sp" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# measure NS TARGET PORT [-R]: best of BENCH_REPEAT runs: "Gbit/s" or "Gbit/s (stalled)" or n/a
measure() {
  local best=n/a bestv=-1 v i
  for i in $(seq "$REPEAT"); do
    v=$(measure1 "$@")
    [[ $v == n/a ]] && continue
    if awk -v a="${v%% *}" -v b="$bestv" 'BEGIN { exit !(a > b) }'; then best=$v; bestv=${v%% *}; fi
  done
  echo "$best"
}

# measure1 NS TARGET PORT [-R]: one iperf3 run; the average over the whole run (slow start included),
# flagged "(stalled)" when a one-second interval after the first moved almost nothing.
measure1() {
  local ns=$1 target=$2 port=$3 rev=${4:-} out
  out=$(timeout $((SECS + 40)) ip netns exec "$ns" iperf3 -c "$target" -p "$port" -t "$SECS" --connect-timeout 5000 -J $rev 2>/dev/null) || true
  printf '%s' "$out" | "$PY" -c '
import json, sys
try:
    d = json.load(sys.stdin)
    if d.get("error"): raise ValueError(d["error"])
    gbps = d["end"]["sum_received"]["bits_per_second"] / 1e9
    rates = [i["sum"]["bits_per_second"] for i in d.get("intervals", [])]
    stalled = len(rates) > 1 and min(rates[1:]) < 0.01 * max(rates)
    print("%.2f%s" % (gbps, " (stalled)" if stalled else ""))
except Exception as e:
    print("n/a")
' 2>/dev/null || echo n/a
}

declare -A result   # result[mtu,stack,fwd|rev]

bench_veth() {
  local mtu=$1 a="${tag}va" b="${tag}vb" sp port
  mkns "$a" "$VETH_B"
  mkns "$b" "$VETH_A"
  ip link add veth0 netns "$a" mtu "$mtu" type veth peer name veth0 netns "$b" mtu "$mtu"
  ip -n "$a" addr add "$VETH_A/24" dev veth0
  ip -n "$b" addr add "$VETH_B/24" dev veth0
  ip -n "$a" link set veth0 up
  ip -n "$b" link set veth0 up
  port=5201
  ip netns exec "$b" iperf3 -s -B "$VETH_B" -p "$port" >"$workdir/iperf-veth.log" 2>&1 &
  sp=$!; pids+=("$sp")
  sleep 0.5
  result[$mtu,veth,fwd]=$(measure "$a" "$VETH_B" "$port")
  result[$mtu,veth,rev]=$(measure "$a" "$VETH_B" "$port" -R)
  stop_pid "$sp"
  delns "$a"; delns "$b"
}

# bench_stack STACK MTU HOSTPORT: a user-mode stack in front of a fresh namespace
bench_stack() {
  local stack=$1 mtu=$2 port=$3 ns="${tag}${1:0:4}" hp sp secs=30 errlog="$workdir/$1-$2.log"
  result[$mtu,$stack,fwd]=n/a
  result[$mtu,$stack,rev]=n/a
  mkns "$ns" 10.0.2.2
  holder "$ns"; hp=$HOLDER_PID
  case $stack in
    slirp4netns)
      command -v slirp4netns >/dev/null || { log "slirp4netns not installed"; stop_pid "$hp"; delns "$ns"; return; }
      slirp4netns -c --mtu "$mtu" "$hp" tap0 >"$errlog" 2>&1 & ;;
    pasta)
      command -v pasta >/dev/null || { log "pasta not installed"; stop_pid "$hp"; delns "$ns"; return; }
      pasta --runas 0 -f -q --config-net -4 -I tap0 -a 10.0.2.100 -n 24 -g 10.0.2.2 --mtu "$mtu" \
        -t none -u none -T none -U none --netns "$ns" >"$errlog" 2>&1 & ;;
    jslirp)
      [[ -x $JSLIRP ]] || { log "jslirp launcher not found: $JSLIRP"; stop_pid "$hp"; delns "$ns"; return; }
      secs=180   # the launcher may build the jar first
      "$JSLIRP" attach -c --mtu "$mtu" "$hp" tap0 >"$errlog" 2>&1 & ;;
  esac
  sp=$!; pids+=("$sp")
  if await_cfg "$ns" "$sp" "$secs"; then
    result[$mtu,$stack,fwd]=$(measure "$ns" 10.0.2.2 "$port")
    kill -0 "$sp" 2>/dev/null && result[$mtu,$stack,rev]=$(measure "$ns" 10.0.2.2 "$port" -R)
    kill -0 "$sp" 2>/dev/null || log "$stack (MTU $mtu) exited during the run"
  else
    log "$stack (MTU $mtu) did not come up"
  fi
  stop_pid "$sp"
  if [[ ${result[$mtu,$stack,fwd]} == n/a || ${result[$mtu,$stack,rev]} == n/a ]]; then
    log "$stack (MTU $mtu) output (last lines):"
    grep -v 'Failed to send .* to syslog' "$errlog" | tail -5 | sed 's/^/    /' >&2 || true
  fi
  stop_pid "$hp"
  delns "$ns"
}

log "kernel $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), iperf3 $(iperf3 --version 2>/dev/null | head -1 | awk '{print $2}'), ${SECS}s per direction, best of $REPEAT"
command -v slirp4netns >/dev/null && log "$(slirp4netns --version | head -1), $(slirp4netns --version | grep libslirp)"

hostport=$(free_port)
iperf3 -s -B 127.0.0.1 -p "$hostport" >"$workdir/iperf-host.log" 2>&1 &
hostsrv=$!; pids+=("$hostsrv")
sleep 0.5
kill -0 "$hostsrv" 2>/dev/null || die "iperf3 server on 127.0.0.1:$hostport did not start"

for mtu in $MTUS; do
  for stack in $STACKS; do
    log "MTU $mtu: $stack"
    case $stack in
      veth) bench_veth "$mtu" ;;
      slirp4netns|pasta|jslirp) bench_stack "$stack" "$mtu" "$hostport" ;;
      *) die "unknown stack: $stack" ;;
    esac
    log "  guest→host ${result[$mtu,$stack,fwd]}  host→guest ${result[$mtu,$stack,rev]} Gbit/s"
  done
done

ratio() {  # ratio VALUE BASE
  local a=${1%% *} b=${2%% *}
  if [[ $a == n/a || -z $b || $b == n/a ]]; then echo n/a; else awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; fi
}

echo "| MTU | stack | guest→host Gbit/s | host→guest Gbit/s | guest→host vs veth | host→guest vs veth |"
echo "|---:|---|---:|---:|---:|---:|"
for mtu in $MTUS; do
  for stack in $STACKS; do
    f=${result[$mtu,$stack,fwd]:-n/a} r=${result[$mtu,$stack,rev]:-n/a}
    echo "| $mtu | $stack | $f | $r | $(ratio "$f" "${result[$mtu,veth,fwd]:-}") | $(ratio "$r" "${result[$mtu,veth,rev]:-}") |"
  done
done
