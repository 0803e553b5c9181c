#!/usr/bin/env bash
# bench/run.sh — the project's benchmark: jslirp, slirp4netns, pasta and a veth pair side by side.
#
# Usage (as root, from anywhere):
#   bench/run.sh > report.md                    # everything, about 7 minutes on 2 cores
#   BENCH_TESTS="rr crr" bench/run.sh           # only some metric families
#   BENCH_STACKS="veth jslirp" BENCH_MTUS=65520 BENCH_CONNS=1000 bench/run.sh
#   BENCH_SECONDS=10 BENCH_REPEAT=3 bench/run.sh  # longer cells, best of 3 (the 2-core machines are noisy)
#   JSLIRP=/path/to/jslirp bench/run.sh
#
# One run prints ONE Markdown report on stdout (bench/report.py formats it) and writes a PNG chart
# (BENCH_PNG); progress and diagnostics go to stderr. Metric families (BENCH_TESTS):
#   throughput  iperf3 TCP, namespace→host and host→namespace (-R), 1 and 4 streams (-P), at each
#               MTU of BENCH_MTUS; Gbit/s received over the whole run, slow start included.
#               "(stalled)": a one-second interval after the first moved < 1% of the best one
#               (Debian's pasta 2023-03 stalls namespace→host after ~0.3 GB).
#   rr          request/response: one connection, 1-byte ping-pong with TCP_NODELAY, one at a time
#               (bench/tcp_client.py rr): transactions/s, p50 and p99 round trip in µs.
#   crr         connection rate: CRR_CLIENTS client processes in a loop of connect, 1-byte exchange,
#               close (the server closes first): connections/s.
#   udp         iperf3 UDP at unlimited rate (-b 0), UDP_LEN-byte datagrams, both directions:
#               Gbit/s received and % of datagrams lost.
#   conns       N concurrent connections for each N of BENCH_CONNS: all N opened (at most 500
#               handshakes at a time) and held open, then CONN_BYTES echoed on each and checked, all
#               within CONN_TIMEOUT: connections that succeeded, seconds, and the stack process's peak
#               memory (VmHWM) and its peak of anonymous memory (RssAnon, sampled every 20 ms: what
#               it holds privately; VmHWM also counts the file pages of its libraries and a JVM's AOT
#               cache, which every instance shares). Each N gets a freshly started stack, so its peak
#               is that test's alone (plus start-up).
#   first       a fresh instance's first exchanges (issue 44): FIRST_SETTLE s after the stack came up,
#               FIRST_N 1-byte round trips (TCP_NODELAY, none unmeasured) and then FIRST_N more on
#               the same connection, p50 and p99 of each round; on another fresh instance, its first
#               FIRST_MIB MiB downloaded (iperf3 -R -n): MiB/s and the stack's CPU per MiB. (Its first
#               1,000 connections are the conns cell's: each N gets a fresh instance.)
#   cpu         CPU seconds per GB moved in the throughput runs (which run when either family is
#               asked for): the stack process's utime+stime (/proc/PID/stat, all threads); veth has no
#               such process, so the table also gives the whole machine's busy CPU time per GB
#               (/proc/stat: stack, iperf3 ends and kernel together), which veth has too.
#   idle        what an idle instance costs: IDLE_SETTLE s after it came up, the stack process's
#               private dirty memory (Private_Dirty of /proc/PID/smaps_rollup: what each further
#               instance adds), its RSS and threads; then four instances side by side, each on its
#               own namespace: the mean of their private dirty memory and their RSS together.
#   rrload      round trips beside bulk traffic (each after as many unmeasured ones, while the JIT
#               settles): RRLOAD_N 1-byte round trips (TCP_NODELAY) idle, then
#               RRLOAD_N while another connection uploads at full speed (iperf3 ns→host), then
#               while one downloads (host→ns): p50 and p99 of each, and the bulk rate meanwhile.
#   forwards    forwarded ports, at each MTU of BENCH_MTUS: iperf3 TCP (1 stream, both directions with
#               -R), iperf3 UDP (-b 0, UDP_LEN-byte datagrams, both directions, through -u/-U or
#               add_hostfwd udp of iperf3's port) and round trips (tcp_client.py rr) through each stack's forward, one session per
#               stack and forward: `-t HP-HP:CP-CP` (pasta, jslirp-pasta; a host client at
#               127.0.0.1:HP, the servers in the namespace), slirp4netns's API `add_hostfwd`
#               127.0.0.1:HP → the guest's CP (slirp4netns, jslirp attach with --api-socket; the same
#               host client), and `-T P-P:P-P` (pasta, jslirp-pasta; a namespace client at its
#               127.0.0.1:P, the servers on host 127.0.0.1:P); veth: no forward, the same cells
#               directly between its two namespaces (the kernel's limit). Then a burst through the
#               same forward: BENCH_FW_BURST (1000) clients at once, each reading 16 KiB of a
#               connection of its own (src/test/resources/it/forwarded_burst.py, sha256 of every
#               byte): intact or not, seconds, and the share of the served namespace's TCP segments
#               it sent again.
#   bypass      `jslirp run --bypass` (issue 47) beside the host's own loopback, a veth pair and `jslirp
#               run` without it: bench/bypass.sh's table (its rows, cells and repeats, BENCH_SECONDS per
#               cell, the last MTU of BENCH_MTUS), written to bench/results/bypass.md and printed after
#               the report. Its own rows, not BENCH_STACKS: the bypass's client must be the command's
#               child (the filter is inherited), which ip netns exec is not.
# rr, crr, udp, rrload, idle and conns run at the first MTU of BENCH_MTUS; MTU does not matter for
# 1-byte exchanges, and UDP_LEN fits every MTU.
#
# Rows (each stack is started afresh, on fresh namespaces, for each MTU and each concurrency size):
#   veth        two namespaces made here, joined by a veth pair with private addresses that exist
#               only inside them (10.77.77.1 ↔ 10.77.77.2): the kernel's own path, the upper limit.
#               Its servers run in the second namespace.
#   slirp4netns `slirp4netns -c --mtu M PID tap0` on a namespace made here.
#   pasta       `pasta --runas 0 --config-net ... --netns NAME` with explicit guest address 10.0.2.100,
#               gateway 10.0.2.2 (pasta maps the gateway to host loopback), IPv4 only, no port forwarding.
#   jslirp      `$JSLIRP attach -c --mtu M PID tap0` (default: the repository's ./jslirp, which execs the
#               JVM, so the PID started is the one measured).
#   jslirp-pasta  jslirp as pasta, `$JSLIRP_PASTA` (bin/pasta), started as Podman 6 starts pasta:
#               `--config-net [pasta_options] [-t ...] --dns-forward 169.254.1.1 -t none -u none -T none
#               -U none --no-map-gw --quiet --pid FILE --netns /run/netns/NAME --map-guest-addr
#               169.254.1.2` (the `none`s only for what is not forwarded), with containers.conf-style
#               pasta_options `--map-host-loopback 169.254.1.3 -m M`. It returns once all is set up and
#               serves in the background; the PID file names the process measured (and stopped). The
#               namespace gets the host's own addresses and routes (pasta's model), so the namespace
#               addresses only 169.254.1.3, which jslirp maps to host loopback (never the copied
#               gateway). Its ratios are taken against slirp4netns and pasta only, and it is no peer
#               of the other rows, whose figures and ratios stay as without it.
# A stack that does not come up, dies, or fails a cell gets "n/a" (or "failed") in that cell, the
# reason and the last lines of its output on stderr, and the run goes on.
# Ratios (bench/report.py): "vs veth" = value / veth's value in the same cell; "vs best peer" =
# value / the best of the user-mode stacks (slirp4netns, pasta, jslirp) other than the row itself
# (for veth: the best user-mode stack). Best = highest, or lowest for latency, memory and CPU.
#
# Network safety: for the user-mode stacks every server listens on host 127.0.0.1 only and the
# namespace addresses only the gateway 10.0.2.2 (jslirp-pasta: 169.254.1.3); every namespace gets
# an nftables output filter that lets its sockets reach only that one address (and its own
# loopback: the forwards' clients, servers and spliced connections there). Forwards listen on host
# 127.0.0.1 only; their host clients connect to 127.0.0.1. Namespaces, processes (by PID) and temporary
# files made here are removed on exit, whatever happens.
#
# Environment: BENCH_SECONDS (5: per cell), BENCH_MTUS ("1500 65520"),
#   BENCH_STACKS ("veth slirp4netns pasta jslirp jslirp-pasta"),
#   BENCH_TESTS ("throughput rr crr udp conns cpu idle rrload forwards"),
#   BENCH_CONNS ("1000 10000"), BENCH_FIRST_REPEAT (3: fresh instances per first cell), BENCH_REPEAT (1: best of N runs per cell, all but conns),
#   BENCH_PNG (bench/results/benchmark.png), JSLIRP (<repo>/jslirp), PASTA (pasta on PATH: another
#   build of it, e.g. one made from passt's source; the report names its version), JSLIRP_PASTA
#   (bin/pasta beside $JSLIRP).
# Needs: iproute2, iperf3, nftables, slirp4netns, passt (pasta), python3; python3-matplotlib for the
# chart (/usr/bin/python3 is used; without matplotlib the chart is skipped with a note).
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$here/.." && pwd)
SECS=${BENCH_SECONDS:-5}
MTUS=${BENCH_MTUS:-"1500 65520"}
STACKS=${BENCH_STACKS:-"veth slirp4netns pasta jslirp jslirp-pasta"}
TESTS=${BENCH_TESTS:-"throughput rr crr udp conns cpu idle rrload first forwards bypass"}
CONNS=${BENCH_CONNS:-"1000 10000"}
REPEAT=${BENCH_REPEAT:-1}
PNG=${BENCH_PNG:-$here/results/benchmark.png}
JSLIRP=${JSLIRP:-$repo/jslirp}
JSLIRP_PASTA=${JSLIRP_PASTA:-$(dirname "$(readlink -f "$JSLIRP")")/bin/pasta}
PASTA=${PASTA:-$(command -v pasta || echo pasta)}
PY=/usr/bin/python3; [[ -x $PY ]] || PY=python3
BASE_MTU=${MTUS%% *}    # MTU of the rr, crr, udp and conns cells
CRR_CLIENTS=4           # parallel connection-rate clients (2 cores: enough to keep a stack busy)
SERVER_WORKERS=2        # processes of each Python server, one per core
CONN_BYTES=16384        # echoed on each of the concurrent connections
CONN_TIMEOUT=60         # seconds for one concurrent-connections cell
UDP_LEN=1400            # UDP datagram size: fits MTU 1500 with IPv4 and UDP headers
IDLE_SETTLE=10          # seconds an instance idles before its memory is read (past start-up: a JVM frees
                        # its compilers' scratch memory some 5 s after it started)
IDLE_INSTANCES=4        # instances side by side in the idle cell
RRLOAD_N=3000           # round trips per rrload cell
FIRST_SETTLE=${BENCH_FIRST_SETTLE:-2}          # first: seconds between a stack's coming up and its first exchange
FIRST_N=3000            # first: round trips per round
FIRST_MIB=20            # first: MiB of the first download
FIRST_REPEAT=${BENCH_FIRST_REPEAT:-3}  # first: fresh instances per cell (the table gives the median)
# BENCH_RRLOAD_RT=1: the ping-pong's two ends (echo server and client, not the stack, not iperf3) run
# under SCHED_FIFO, so a woken end takes a core at once: what is left of the loaded p99 is the
# stack's queue and its own scheduling, not the ends' wait for a core the bulk transfer holds.
RRLOAD_RT=${BENCH_RRLOAD_RT:-0}
tag="jsb$$"
VETH_A=10.77.77.1 VETH_B=10.77.77.2
PASTA_LO=169.254.1.3    # jslirp-pasta's --map-host-loopback: the namespace's way to the host's loopback
FW_NS_IPERF=8001 FW_NS_ECHO=8002 FW_NS_BURST=8003  # forwards -t and add_hostfwd: the namespace servers' ports
FW_BURST=${BENCH_FW_BURST:-1000}  # forwards: clients of the burst cell, at once (0: no burst cell)
FW_BURST_BYTES=16384    # forwards: bytes each burst client reads
BURST_PY=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)/src/test/resources/it/forwarded_burst.py
SERVE_PREFIX=()         # serve: a command the echo and once servers run under (rrload's chrt)
FW_KIND=""              # forwards: the next stack started gets this forward ("", t, T, api) ...
FW_MAP=()               # ... with these specs (HP-HP:CP-CP for -t/-T, HP:CP for add_hostfwd)

log() { echo "bench: $*" >&2; }
die() { log "$*"; exit 1; }
wants() { [[ " $TESTS " == *" $1 "* ]]; }

[[ $(id -u) -eq 0 ]] || die "run as root (network namespaces, tap, veth)"
for t in ip iperf3 nft nsenter ss timeout; do command -v "$t" >/dev/null || die "missing tool: $t"; done
for t in $TESTS; do
  case $t in throughput|rr|crr|udp|conns|cpu|idle|rrload|first|forwards|bypass) ;; *) die "unknown test family: $t" ;; esac
done
for s in $STACKS; do
  case $s in veth|slirp4netns|pasta|jslirp|jslirp-pasta) ;; *) die "unknown stack: $s" ;; esac
done

workdir=$(mktemp -d /tmp/jslirp-bench.XXXXXX)
results=$workdir/results.jsonl  # one JSON object per measured run, read by report.py
meta=$workdir/meta.tsv          # KEY<TAB>VALUE lines for the report's header
: >"$results"
pids=()          # processes started here (killed by PID on exit)
namespaces=()    # named namespaces created here
session_pids=()  # holder, stack and servers of the current session (stopped at its end)
session_ns=()    # namespaces of the current session

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

track() { pids+=("$1"); session_pids+=("$1"); }  # track PID: a process of the current session

stop_pid() {  # stop_pid PID: SIGTERM, wait up to 10 s, then SIGKILL
  local p=$1
  kill "$p" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  forget_pid "$p"
}

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The 10,000-connection cell needs that many sockets in the stack, the server and the client.
raise_nofile() {
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  local want=0 n
  for n in $CONNS; do ((n > want)) && want=$n; done
  (($(ulimit -n) >= want + 100)) || log "warning: open-file limit $(ulimit -n) is too low for $want connections"
}

meta() { printf '%s\t%s\n' "$1" "$2" >>"$meta"; }
record() { printf '%s\n' "$1" >>"$results"; }

# mkns NAME ALLOWED_DST: new named namespace of the current session, lo up, egress (IPv4 and IPv6)
# only to ALLOWED_DST
mkns() {
  local ns=$1 dst=$2
  ip netns add "$ns"
  namespaces+=("$ns") session_ns+=("$ns")
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
  # The connection-rate cells open tens of thousands of connections in a few seconds: a stack that
  # still holds a closed connection must not see its port reused soon.
  ip netns exec "$ns" sysctl -qw net.ipv4.ip_local_port_range="1024 65535"
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
  local ns=$1 p want
  ip netns exec "$ns" sleep infinity >/dev/null 2>&1 &
  p=$!
  track "$p"
  want=$(stat -L -c %i "/run/netns/$ns")
  for _ in $(seq 200); do
    if [[ $(stat -L -c %i "/proc/$p/ns/net" 2>/dev/null) == "$want" && $(cat "/proc/$p/comm" 2>/dev/null) == sleep ]]; then
      HOLDER_PID=$p; return 0
    fi
    sleep 0.02
  done
  log "holder for $ns did not enter the namespace"; return 1
}

# await_cfg NAME STACK_PID SECONDS: wait until tap0 has 10.0.2.100 and a default route via 10.0.2.2
await_cfg() {
  local ns=$1 sp=$2 secs=$3
  for _ in $(seq $((secs * 10))); do
    if ip -n "$ns" -4 -o addr show dev tap0 2>/dev/null | grep -q ' 10\.0\.2\.100/' &&
       ip -n "$ns" -4 route show default 2>/dev/null | grep -q 'via 10\.0\.2\.2'; then
      return 0
    fi
    kill -0 "$sp" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# ---- one session: a stack (or the veth pair) in front of fresh namespaces --------------------------
# up_* set: NS (where clients run), TARGET (the address they use), SRV_NS (where servers run, ""
# for the host), SRV_ADDR (what servers bind), STACK_PID ("" for veth) and ERRLOG.

up_veth() {
  local mtu=$1 a="${tag}va" b="${tag}vb"
  mkns "$a" "$VETH_B"
  mkns "$b" "$VETH_A"
  ip link add veth0 netns "$a" mtu "$mtu" type veth peer name veth0 netns "$b" mtu "$mtu"
  ip -n "$a" addr add "$VETH_A/24" dev veth0
  ip -n "$b" addr add "$VETH_B/24" dev veth0
  ip -n "$a" link set veth0 up
  ip -n "$b" link set veth0 up
  NS=$a TARGET=$VETH_B SRV_NS=$b SRV_ADDR=$VETH_B STACK_PID="" ERRLOG=/dev/null
}

# up_stack STACK MTU [SUFFIX]: start a user-mode stack on a fresh namespace (named with SUFFIX, for
# several side by side), with the forward FW_KIND of FW_MAP; fails when it does not come up
up_stack() {
  local stack=$1 mtu=$2 short=${1:0:4} dst=10.0.2.2 secs=30 hp ns pidf spec pt=() pT=() pu=() pU=() api=()
  [[ $stack == jslirp-pasta ]] && short=jpst dst=$PASTA_LO
  ns="${tag}${short}${3:-}"
  ERRLOG="$workdir/$stack-$mtu-$(date +%s%N).log"
  mkns "$ns" "$dst"
  NS=$ns TARGET=$dst SRV_NS="" SRV_ADDR=127.0.0.1 STACK_PID=""
  case $FW_KIND in
    t) for spec in "${FW_MAP[@]}"; do pt+=(-t "$spec"); done; pu=(-u "${FW_MAP[0]}") ;;  # UDP: iperf3's data port
    T) for spec in "${FW_MAP[@]}"; do pT+=(-T "$spec"); done; pU=(-U "${FW_MAP[0]}") ;;
    api) api=(--api-socket "$workdir/api-$ns.sock") ;;
  esac
  if [[ $stack == jslirp-pasta ]]; then
    [[ -x $JSLIRP_PASTA ]] || { log "jslirp's bin/pasta not found: $JSLIRP_PASTA"; return 1; }
    pidf="$workdir/pasta-$ns.pid"
    # Podman 6's list: --config-net, containers.conf's pasta_options (-T is one of those), the
    # published ports, --dns-forward, `none` for each of -t -u -T -U not given, then its tail.
    # The launcher may build the jar first: up to 180 s.
    if ! timeout 180 "$JSLIRP_PASTA" --config-net --map-host-loopback "$PASTA_LO" -m "$mtu" "${pT[@]}" \
         "${pt[@]}" "${pu[@]}" "${pU[@]}" --dns-forward 169.254.1.1 $( ((${#pt[@]})) || echo -t none) $( ((${#pu[@]})) || echo -u none) \
         $( ((${#pT[@]})) || echo -T none) $( ((${#pU[@]})) || echo -U none) --no-map-gw --quiet --pid "$pidf" \
         --netns "/run/netns/$ns" --map-guest-addr 169.254.1.2 >"$ERRLOG" 2>&1; then
      log "$stack (MTU $mtu) did not come up"; return 1
    fi
    STACK_PID=$(cat "$pidf" 2>/dev/null) || true
    [[ $STACK_PID =~ ^[0-9]+$ ]] || { log "$stack: no PID in $pidf"; STACK_PID=""; return 1; }
    track "$STACK_PID"
    kill -0 "$STACK_PID" 2>/dev/null || { log "$stack (MTU $mtu) is gone after start"; return 1; }
    return 0
  fi
  holder "$ns" || return 1
  hp=$HOLDER_PID
  ((${#pt[@]})) || pt=(-t none)
  ((${#pT[@]})) || pT=(-T none)
  ((${#pu[@]})) || pu=(-u none)
  ((${#pU[@]})) || pU=(-U none)
  case $stack in
    slirp4netns)
      command -v slirp4netns >/dev/null || { log "slirp4netns not installed"; return 1; }
      slirp4netns -c --mtu "$mtu" "${api[@]}" "$hp" tap0 >"$ERRLOG" 2>&1 & ;;
    pasta)
      command -v "$PASTA" >/dev/null || { log "pasta not installed"; return 1; }
      "$PASTA" --runas 0 -f -q --config-net -4 -I tap0 -a 10.0.2.100 -n 24 -g 10.0.2.2 --mtu "$mtu" \
        "${pt[@]}" "${pu[@]}" "${pT[@]}" "${pU[@]}" --netns "$ns" >"$ERRLOG" 2>&1 & ;;
    jslirp)
      [[ -x $JSLIRP ]] || { log "jslirp launcher not found: $JSLIRP"; return 1; }
      secs=180   # the launcher may build the jar first
      "$JSLIRP" attach -c --mtu "$mtu" "${api[@]}" "$hp" tap0 >"$ERRLOG" 2>&1 & ;;
  esac
  STACK_PID=$!; track "$STACK_PID"
  await_cfg "$ns" "$STACK_PID" "$secs" || { log "$stack (MTU $mtu) did not come up"; return 1; }
  if [[ $FW_KIND == api ]]; then
    for spec in "${FW_MAP[@]}" "udp:${FW_MAP[0]}"; do  # UDP: iperf3's data port
      local proto=tcp; [[ $spec == udp:* ]] && proto=udp spec=${spec#udp:}
      "$PY" "$here/api_hostfwd.py" "$workdir/api-$ns.sock" 127.0.0.1 "${spec%%:*}" "${spec#*:}" "$proto" >>"$ERRLOG" 2>&1 ||
        { log "$stack: add_hostfwd $proto $spec failed"; return 1; }
    done
  fi
}

up() {  # up STACK MTU
  if [[ $1 == veth ]]; then up_veth "$2"; else up_stack "$1" "$2"; fi
}

# down STACK: stop what the session started; show the stack's last words when something failed
down() {
  local stack=$1 p n
  if [[ -n $STACK_PID ]] && ! kill -0 "$STACK_PID" 2>/dev/null; then
    log "$stack exited during the session"; SESSION_FAILED=1
  fi
  for ((p = ${#session_pids[@]} - 1; p >= 0; p--)); do stop_pid "${session_pids[p]}"; done
  if ((SESSION_FAILED)) && [[ -s $ERRLOG ]]; then
    log "$stack output (last lines):"
    grep -v 'Failed to send .* to syslog' "$ERRLOG" | tail -5 | sed 's/^/    /' >&2 || true
  fi
  for n in "${session_ns[@]}"; do delns "$n"; done
  session_pids=() session_ns=()
}

stack_alive() { [[ -z $STACK_PID ]] || kill -0 "$STACK_PID" 2>/dev/null; }

# serve KIND [PORT]: start an iperf3 / echo / once server on SRV_ADDR in SRV_NS (at PORT, else a
# free one); sets SERVER_PORT
serve() {
  local kind=$1 port=${2:-} sp pre=()
  [[ -n $SRV_NS ]] && pre=(ip netns exec "$SRV_NS")
  [[ -n $port ]] || port=$(free_port)
  case $kind in
    iperf) "${pre[@]}" iperf3 -s -B "$SRV_ADDR" -p "$port" >"$workdir/iperf-$port.log" 2>&1 & ;;
    echo|once) "${pre[@]}" "${SERVE_PREFIX[@]}" "$PY" "$here/tcp_server.py" "$kind" "$SRV_ADDR" "$port" "$SERVER_WORKERS" \
                 >"$workdir/$kind-$port.log" 2>&1 & ;;
  esac
  sp=$!; track "$sp"
  for _ in $(seq 50); do
    if "${pre[@]}" ss -Hltn "sport = :$port" | grep -q .; then SERVER_PORT=$port; return 0; fi
    kill -0 "$sp" 2>/dev/null || break
    sleep 0.1
  done
  log "$kind server on $SRV_ADDR:$port did not start"; return 1
}

in_ns() {  # in_ns CMD...: run in the client namespace (NS "": the host, for the forwards' host clients)
  if [[ -n $NS ]]; then ip netns exec "$NS" "$@"; else "$@"; fi
}

stack_ticks() {  # utime+stime of the stack process, all its threads; "null" for veth
  if [[ -n $STACK_PID ]]; then sed 's/.*) //' "/proc/$STACK_PID/stat" 2>/dev/null | awk '{ print $12 + $13 }' || echo null
  else echo null; fi
}
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }  # busy, all CPUs

# iperf PORT IPERF_ARGS...: one iperf3 run from the namespace; prints its summary JSON plus
# "cpu": the clock ticks the stack process and the machine spent in it. Fails when the run failed.
iperf() {
  local port=$1 s0 m0 s1 m1 res; shift
  s0=$(stack_ticks) m0=$(machine_ticks)
  res=$(in_ns timeout $((SECS + 20)) iperf3 -c "$TARGET" -p "$port" -t "$SECS" --connect-timeout 5000 -J "$@" 2>/dev/null |
        "$PY" "$here/iperf_json.py") || { echo "$res"; return 1; }
  s1=$(stack_ticks) m1=$(machine_ticks)
  if [[ $s0 == null || $s1 == null ]]; then s1=null; else s1=$((s1 - s0)); fi
  echo "${res%\}}, \"cpu\": {\"stack\": $s1, \"machine\": $((m1 - m0))}}"
}

# Each cell: best of REPEAT runs (report.py picks the best), one JSON record per run.
cells_throughput() {  # cells_throughput STACK MTU
  local stack=$1 mtu=$2 streams dir args res
  serve iperf || { SESSION_FAILED=1; return; }
  for streams in 1 4; do
    for dir in g2h h2g; do
      args=(-P "$streams"); [[ $dir == h2g ]] && args+=(-R)
      for _ in $(seq "$REPEAT"); do
        stack_alive || { SESSION_FAILED=1; return; }
        log "  throughput $dir, $streams stream(s)"
        res=$(iperf "$SERVER_PORT" "${args[@]}") || SESSION_FAILED=1
        record "{\"family\": \"throughput\", \"stack\": \"$stack\", \"mtu\": $mtu, \"streams\": $streams, \"dir\": \"$dir\", \"res\": $res}"
      done
    done
  done
}

cells_udp() {  # cells_udp STACK MTU
  local stack=$1 mtu=$2 dir args res
  serve iperf || { SESSION_FAILED=1; return; }
  for dir in g2h h2g; do
    args=(-u -b 0 -l "$UDP_LEN"); [[ $dir == h2g ]] && args+=(-R)
    for _ in $(seq "$REPEAT"); do
      stack_alive || { SESSION_FAILED=1; return; }
      log "  UDP $dir"
      res=$(iperf "$SERVER_PORT" "${args[@]}") || SESSION_FAILED=1
      record "{\"family\": \"udp\", \"stack\": \"$stack\", \"mtu\": $mtu, \"dir\": \"$dir\", \"res\": $res}"
    done
  done
}

# cells_tcp FAMILY STACK MTU SERVER CLIENT_ARGS...: bench/tcp_client.py against a fresh server;
# each result gets "cpu" as iperf's do (the connection-rate table divides it by the connections)
cells_tcp() {
  local family=$1 stack=$2 mtu=$3 server=$4 res s0 m0 s1 m1; shift 4
  serve "$server" || { SESSION_FAILED=1; return; }
  for _ in $(seq "$REPEAT"); do
    stack_alive || { SESSION_FAILED=1; return; }
    log "  $family"
    s0=$(stack_ticks) m0=$(machine_ticks)
    res=$(in_ns timeout $((SECS + 30)) "$PY" "$here/tcp_client.py" "$family" "$TARGET" "$SERVER_PORT" "$@") || SESSION_FAILED=1
    s1=$(stack_ticks) m1=$(machine_ticks)
    if [[ $s0 == null || $s1 == null ]]; then s1=null; else s1=$((s1 - s0)); fi
    if [[ $res == "{"*"}" ]]; then res="${res%\}}, \"cpu\": {\"stack\": $s1, \"machine\": $((m1 - m0))}}"; fi
    [[ -n $res ]] || res='{"error": "client timed out"}'
    record "{\"family\": \"$family\", \"stack\": \"$stack\", \"mtu\": $mtu, \"res\": $res}"
  done
}

# anon_peak PID FILE: every 20 ms, the highest RssAnon (kB) of PID so far, written to FILE, until
# PID exits or this is stopped. The kernel keeps no high-water mark of anonymous memory (VmHWM
# counts the file pages too: libraries, a JVM's AOT cache), so this samples it.
anon_peak() {
  local max=0 k v _
  while [[ -r /proc/$1/status ]]; do
    while read -r k v _; do
      [[ $k == RssAnon: ]] || continue
      (( v > max )) && { max=$v; echo "$max" >"$2"; }
      break
    done <"/proc/$1/status" 2>/dev/null || break
    sleep 0.02
  done
}

# tcp_counters: "out_segs retrans_segs rto tx_dropped" of the client namespace (fresh for each cell,
# so counted from its start): TCP segments the guest sent, those it sent again, retransmission
# timeouts it took (/proc/net/snmp, /proc/net/netstat), and frames its interfaces dropped on their
# way to the stack (tx_dropped of every device but lo: tap0, the host interface's name that jslirp as
# pasta gives its tap, or the veth's end)
tcp_counters() {
  in_ns sh -c 'awk '\''/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else { o = $c["OutSegs"]; r = $c["RetransSegs"] } }
    END { printf "%s %s", o, r }'\'' /proc/net/snmp
    awk '\''/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else { t = $c["TCPTimeouts"] } } END { printf " %s", t + 0 }'\'' /proc/net/netstat
    d=0; for f in /sys/class/net/*/statistics/tx_dropped; do case $f in */lo/*) ;; *) d=$((d + $(cat "$f" 2>/dev/null || echo 0))) ;; esac; done; echo " $d"'
}

# cell_conns STACK N: N concurrent connections, then the stack's peak memory (VmHWM, kB), its
# sampled peak of anonymous memory (kB: what it holds privately, file pages aside), the peak it had
# reached before the first connection (its own start: a JVM's, its warm-up's) and whether it is
# still running
cell_conns() {
  local stack=$1 n=$2 res hwm=null anon=null start=null alive=true sp="" c0 c1 tcp=null o0 r0 t0 d0 o1 r1 t1 d1
  serve echo || { SESSION_FAILED=1; return; }
  c0=$(tcp_counters) || c0=""
  log "  $n concurrent connections"
  if [[ -n $STACK_PID ]]; then
    start=$(awk '/^VmHWM:/ { print $2 }' "/proc/$STACK_PID/status" 2>/dev/null) || true
    [[ -n $start ]] || start=null
    rm -f "$workdir/anon-peak"; anon_peak "$STACK_PID" "$workdir/anon-peak" & sp=$!; track "$sp"
  fi
  res=$(in_ns timeout $((CONN_TIMEOUT + 30)) "$PY" "$here/tcp_client.py" conns "$TARGET" "$SERVER_PORT" \
        "$n" "$CONN_BYTES" "$CONN_TIMEOUT") || SESSION_FAILED=1
  [[ -n $res ]] || res='{"error": "client timed out"}'
  c1=$(tcp_counters) || c1=""
  if [[ -n $c0 && -n $c1 ]]; then
    read -r o0 r0 t0 d0 <<<"$c0"; read -r o1 r1 t1 d1 <<<"$c1"
    tcp="{\"out_segs\": $((o1 - o0)), \"retrans_segs\": $((r1 - r0)), \"timeouts\": $((t1 - t0)), \"tap_tx_dropped\": $((d1 - d0))}"
    log "    guest TCP: $((o1 - o0)) segments sent, $((r1 - r0)) of them again, $((t1 - t0)) timeouts; its tap dropped $((d1 - d0))"
  fi
  if [[ -n $sp ]]; then
    sleep 0.1; stop_pid "$sp"
    [[ -s $workdir/anon-peak ]] && anon=$(<"$workdir/anon-peak")
  fi
  if [[ -n $STACK_PID ]]; then
    hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$STACK_PID/status" 2>/dev/null) || true
    if [[ -n $hwm ]]; then
      if [[ $anon == null ]]; then log "    peak memory of $stack: $((hwm / 1024)) MB"
      else log "    peak memory of $stack: $((hwm / 1024)) MB, anonymous $((anon / 1024)) MB"; fi
      [[ $start == null ]] || log "    its peak before the first connection: $((start / 1024)) MB"
    else hwm=null alive=false; fi
  fi
  record "{\"family\": \"conns\", \"stack\": \"$stack\", \"mtu\": $BASE_MTU, \"n\": $n, \"res\": $res, \"hwm_kb\": $hwm, \"anon_kb\": $anon, \"start_hwm_kb\": $start, \"alive\": $alive, \"guest_tcp\": $tcp}"
}

# memory_of PID: "private_dirty_kb rss_kb threads" of a running process
memory_of() {
  local pd rss thr
  pd=$(awk '/^Private_Dirty:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null) || return 1
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  thr=$(awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  [[ -n $pd && -n $rss ]] || return 1
  echo "$pd $rss $thr"
}

# cell_idle STACK: the session's instance idle, then IDLE_INSTANCES side by side, each on its own namespace
cell_idle() {
  local stack=$1 one i m a b pd=0 rss=0 n=0 first_pd first_rss first_thr all=()
  [[ -n $STACK_PID ]] || return 0   # veth: no process
  log "  idle memory: one instance, then $IDLE_INSTANCES"
  sleep "$IDLE_SETTLE"
  one=$(memory_of "$STACK_PID") || { SESSION_FAILED=1; return; }
  read -r first_pd first_rss first_thr <<<"$one"
  all=("$STACK_PID")
  for ((i = 2; i <= IDLE_INSTANCES; i++)); do
    up_stack "$stack" "$BASE_MTU" "$i" || { SESSION_FAILED=1; return; }
    all+=("$STACK_PID")
  done
  STACK_PID=${all[0]}
  sleep "$IDLE_SETTLE"
  for i in "${all[@]}"; do
    m=$(memory_of "$i") || { SESSION_FAILED=1; return; }
    read -r a b _ <<<"$m"
    pd=$((pd + a)) rss=$((rss + b)) n=$((n + 1))
  done
  record "{\"family\": \"idle\", \"stack\": \"$stack\", \"mtu\": $BASE_MTU, \"res\": {\"private_dirty_kb\": $first_pd, \"rss_kb\": $first_rss, \"threads\": $first_thr, \"instances\": $n, \"private_dirty_mean_kb\": $((pd / n)), \"rss_total_kb\": $rss}}"
}

# cells_rrload STACK: RRLOAD_N round trips idle, during an upload, during a download
cells_rrload() {
  local stack=$1 load echo_port iperf_port res bp gbps args
  local rt=()
  [[ $RRLOAD_RT == 1 ]] && rt=(chrt -f 10)
  SERVE_PREFIX=("${rt[@]}")
  serve echo || { SERVE_PREFIX=(); SESSION_FAILED=1; return; }
  SERVE_PREFIX=()
  echo_port=$SERVER_PORT
  serve iperf || { SESSION_FAILED=1; return; }
  iperf_port=$SERVER_PORT
  for load in idle upload download; do
    stack_alive || { SESSION_FAILED=1; return; }
    log "  round trips, $load"
    bp="" gbps=null
    if [[ $load != idle ]]; then
      args=(iperf3 -c "$TARGET" -p "$iperf_port" --connect-timeout 5000 -t $((SECS + 60)) -J)
      [[ $load == download ]] && args+=(-R)
      # Not through in_ns: $! is then iperf3 itself (ip netns exec execs it), which SIGTERM stops
      # (a background job of this script ignores SIGINT)
      [[ -n $NS ]] && args=(ip netns exec "$NS" "${args[@]}")
      "${args[@]}" >"$workdir/bulk-$load.json" 2>/dev/null &
      bp=$!; track "$bp"
      sleep 2   # past slow start
    fi
    res=$(in_ns timeout $((SECS + 60)) "${rt[@]}" "$PY" "$here/tcp_client.py" rrn "$TARGET" "$echo_port" "$RRLOAD_N") || SESSION_FAILED=1
    if [[ -n $bp ]]; then
      kill -TERM "$bp" 2>/dev/null || true   # iperf3 still writes the intervals it ran
      wait "$bp" 2>/dev/null || true
      forget_pid "$bp"
      gbps=$("$PY" "$here/iperf_json.py" --intervals <"$workdir/bulk-$load.json" 2>/dev/null |
             "$PY" -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["gbps"])' 2>/dev/null) || gbps=null
    fi
    [[ $res == "{"*"}" ]] || res='{"error": "client failed"}'
    record "{\"family\": \"rrload\", \"stack\": \"$stack\", \"mtu\": $BASE_MTU, \"load\": \"$load\", \"rt\": $RRLOAD_RT, \"bulk_gbps\": $gbps, \"res\": $res}"
  done
}

# cell_first STACK rr|down: a fresh instance's first exchanges (the session started it); the stack's
# CPU over the cell (start-up excluded) as "cpu" in the result
cell_first() {
  local stack=$1 test=$2 res s0 s1 args
  if [[ $test == rr ]]; then serve echo; else serve iperf; fi || { SESSION_FAILED=1; return; }
  sleep "$FIRST_SETTLE"
  stack_alive || { SESSION_FAILED=1; return; }
  log "  first exchanges: $test"
  s0=$(stack_ticks)
  if [[ $test == rr ]]; then
    res=$(in_ns timeout 60 "$PY" "$here/tcp_client.py" rounds "$TARGET" "$SERVER_PORT" "$FIRST_N" 2) || SESSION_FAILED=1
  else
    args=(iperf3 -c "$TARGET" -p "$SERVER_PORT" --connect-timeout 5000 -R -n "${FIRST_MIB}M" -J)
    res=$(in_ns timeout 60 "${args[@]}" 2>/dev/null | "$PY" "$here/iperf_json.py") || SESSION_FAILED=1
  fi
  s1=$(stack_ticks)
  if [[ $s0 == null || $s1 == null ]]; then s1=null; else s1=$((s1 - s0)); fi
  [[ $res == "{"*"}" ]] || res='{"error": "client failed"}'
  record "{\"family\": \"first\", \"test\": \"$test\", \"stack\": \"$stack\", \"mtu\": $BASE_MTU, \"res\": ${res%\}}, \"cpu_ticks\": $s1}}"
}

# forwards: FW_KINDS STACK: the forwards measured for a stack (direct: veth, no forward)
fw_kinds() {
  case $1 in veth) echo direct ;; slirp4netns|jslirp) echo api ;; pasta|jslirp-pasta) echo t T ;; esac
}

# fw_session STACK MTU KIND: the stack with one forward KIND (t, T, api; direct for veth): iperf3
# both directions and round trips through it. Records "dir" as in the throughput family: g2h =
# namespace → host (for -t and add_hostfwd that is -R: the host is the client).
fw_session() {
  local stack=$1 mtu=$2 kind=$3 pi pe pb ci ce cb sb guest up cell dir d args res
  SESSION_FAILED=0
  log "MTU $mtu, $stack: forwards ($kind)"
  pi=$(free_port)
  pe=$(free_port); while [[ $pe == "$pi" ]]; do pe=$(free_port); done
  pb=$(free_port); while [[ $pb == "$pi" || $pb == "$pe" ]]; do pb=$(free_port); done
  case $kind in
    t) FW_MAP=("$pi-$pi:$FW_NS_IPERF-$FW_NS_IPERF" "$pe-$pe:$FW_NS_ECHO-$FW_NS_ECHO" "$pb-$pb:$FW_NS_BURST-$FW_NS_BURST") ;;
    T) FW_MAP=("$pi-$pi:$pi-$pi" "$pe-$pe:$pe-$pe" "$pb-$pb:$pb-$pb") ;;
    api) FW_MAP=("$pi:$FW_NS_IPERF" "$pe:$FW_NS_ECHO" "$pb:$FW_NS_BURST") ;;
    *) FW_MAP=() ;;
  esac
  FW_KIND=$kind; [[ $kind == direct ]] && FW_KIND=""
  if up "$stack" "$mtu"; then
    FW_KIND="" FW_MAP=()
    case $kind in
      t|api)  # servers in the namespace, the client on the host at 127.0.0.1:HP
        guest=$NS
        SRV_NS=$NS SRV_ADDR=0.0.0.0 NS="" TARGET=127.0.0.1 up=h2g
        serve iperf "$FW_NS_IPERF" && serve echo "$FW_NS_ECHO" || SESSION_FAILED=1
        ci=$pi ce=$pe cb=$pb sb=$FW_NS_BURST ;;
      T)      # servers on host loopback, the client at the namespace's 127.0.0.1:P
        guest=$NS
        SRV_NS="" SRV_ADDR=127.0.0.1 TARGET=127.0.0.1 up=g2h
        serve iperf "$pi" && serve echo "$pe" || SESSION_FAILED=1
        ci=$pi ce=$pe cb=$pb sb=$pb ;;
      direct) # veth: as its other cells
        guest=$NS up=g2h
        serve iperf && ci=$SERVER_PORT && serve echo && ce=$SERVER_PORT || SESSION_FAILED=1
        cb=$(free_port); sb=$cb ;;
    esac
    if ((!SESSION_FAILED)); then
      # TCP (1 stream), then UDP through the -u/-U or add_hostfwd udp of iperf3's port
      for cell in iperf udp; do
        for dir in up down; do
          args=(-P 1); [[ $cell == udp ]] && args=(-u -b 0 -l "$UDP_LEN")
          [[ $dir == down ]] && args+=(-R)
          for _ in $(seq "$REPEAT"); do
            stack_alive || { SESSION_FAILED=1; break 3; }
            log "  forward $kind: iperf3 ${cell/iperf/TCP} $dir"
            res=$(iperf "$ci" "${args[@]}") || SESSION_FAILED=1
            [[ $dir == up ]] && d=$up || { [[ $up == g2h ]] && d=h2g || d=g2h; }
            record "{\"family\": \"forwards\", \"test\": \"$cell\", \"stack\": \"$stack\", \"mtu\": $mtu, \"fwd\": \"$kind\", \"dir\": \"$d\", \"res\": $res}"
          done
        done
      done
      for _ in $(seq "$REPEAT"); do
        stack_alive || { SESSION_FAILED=1; break; }
        log "  forward $kind: rr"
        res=$(in_ns timeout $((SECS + 30)) "$PY" "$here/tcp_client.py" rr "$TARGET" "$ce" "$SECS") || SESSION_FAILED=1
        [[ $res == "{"*"}" ]] || res='{"error": "client failed"}'
        record "{\"family\": \"forwards\", \"test\": \"rr\", \"stack\": \"$stack\", \"mtu\": $mtu, \"fwd\": \"$kind\", \"res\": $res}"
      done
      if ((FW_BURST > 0)) && stack_alive; then  # (also when a cell above failed)
        fw_burst "$stack" "$mtu" "$kind" "$sb" "$cb" "$guest" || SESSION_FAILED=1
      fi
    fi
  else
    SESSION_FAILED=1
  fi
  FW_KIND="" FW_MAP=()
  down "$stack"
}

# fw_burst STACK MTU KIND SPORT CPORT GUEST: FW_BURST clients of one server at once (forwarded_burst.py:
# at most 500 connects in flight, every connection open before any is read), each reading
# FW_BURST_BYTES from a connection of its own, every byte checked by sha256; the server listens on
# SPORT at SRV_ADDR in SRV_NS, the clients (in NS, "" the host) dial TARGET:CPORT. Records whether all
# came intact, the seconds it took, and the TCP counters of GUEST, the namespace the stack serves
# (tcp_counters: the server's for -t and add_hostfwd, the clients' for -T and veth).
fw_burst() {
  local stack=$1 mtu=$2 kind=$3 sport=$4 cport=$5 guest=$6 pre=() sp out c0 c1 tcp=null o0 r0 t0 d0 o1 r1 t1 d1 s0 s1 secs res
  [[ -n $SRV_NS ]] && pre=(ip netns exec "$SRV_NS")
  "${pre[@]}" "$PY" "$BURST_PY" serve "$FW_BURST" "$FW_BURST_BYTES" "$sport" "$SRV_ADDR" >"$workdir/burst-$sport.log" 2>&1 &
  sp=$!; track "$sp"
  for _ in $(seq 50); do grep -q listening "$workdir/burst-$sport.log" 2>/dev/null && break; sleep 0.1; done
  log "  forward $kind: a burst of $FW_BURST clients"
  c0=$(NS=$guest tcp_counters) || c0=""
  s0=$(date +%s%N)
  out=$(in_ns timeout 90 "$PY" "$BURST_PY" fetch "$FW_BURST" "$FW_BURST_BYTES" "$TARGET" "$cport" 2>&1 | tail -n 1) || true
  s1=$(date +%s%N)
  c1=$(NS=$guest tcp_counters) || c1=""
  stop_pid "$sp"
  if [[ -n $c0 && -n $c1 ]]; then
    read -r o0 r0 t0 d0 <<<"$c0"; read -r o1 r1 t1 d1 <<<"$c1"
    tcp="{\"out_segs\": $((o1 - o0)), \"retrans_segs\": $((r1 - r0)), \"timeouts\": $((t1 - t0)), \"tap_tx_dropped\": $((d1 - d0))}"
  fi
  if [[ $out == "ok $FW_BURST" ]]; then
    secs=$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    res="{\"ok\": true, \"n\": $FW_BURST, \"seconds\": $secs}"
    log "    all intact after $secs s"
  else
    [[ -n $out ]] || out="timed out"
    res="{\"ok\": false, \"n\": $FW_BURST, \"error\": \"$(printf '%s' "$out" | tr -d '"\\' | cut -c1-200)\"}"
    log "    failed: $out"
  fi
  record "{\"family\": \"forwards\", \"test\": \"burst\", \"stack\": \"$stack\", \"mtu\": $mtu, \"fwd\": \"$kind\", \"res\": $res, \"guest_tcp\": $tcp}"
}

# session STACK MTU WHAT...: bring the stack up once and run the cells WHAT (throughput udp rr crr
# conns:N) through it; whatever fails is logged and left out of the results.
session() {
  local stack=$1 mtu=$2 what; shift 2
  SESSION_FAILED=0
  log "MTU $mtu, $stack: $*"
  if up "$stack" "$mtu"; then
    for what in "$@"; do
      case $what in
        throughput) cells_throughput "$stack" "$mtu" ;;
        udp) cells_udp "$stack" "$mtu" ;;
        rr) cells_tcp rr "$stack" "$mtu" echo "$SECS" ;;
        crr) cells_tcp crr "$stack" "$mtu" once "$SECS" "$CRR_CLIENTS" ;;
        conns:*) cell_conns "$stack" "${what#conns:}" ;;
        rrload) cells_rrload "$stack" ;;
        idle) cell_idle "$stack" ;;
        first:*) cell_first "$stack" "${what#first:}" ;;
      esac
    done
  else
    SESSION_FAILED=1
  fi
  down "$stack"
}

pasta_version() {  # the first line of its --version, else the Debian package's version
  local v
  v=$("$PASTA" --version 2>/dev/null | head -1) || v=""
  [[ -n $v ]] || v=$(dpkg-query -W -f '${Version}' passt 2>/dev/null || echo unknown)
  echo "$v ($PASTA)"
}

jslirp_version() {  # the commit the launcher's checkout is at, and whether its sources differ from it
  local dir v
  dir=$(dirname "$(readlink -f "$JSLIRP")")
  v=$(git -C "$dir" log -1 --format='%h of %cs' 2>/dev/null) || { echo unknown; return; }
  git -C "$dir" diff --quiet HEAD -- src pom.xml 2>/dev/null || v+=" + local changes"
  echo "$v"
}

main() {
  local start=$SECONDS mtu stack n f what
  raise_nofile
  log "kernel $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ${SECS}s per cell, best of $REPEAT"
  meta started "$(date -u '+%Y-%m-%d %H:%M UTC')"
  meta machine "Linux $(uname -r), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  meta load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
  meta iperf3 "$(iperf3 --version 2>/dev/null | head -1 | awk '{ print $2 }')"
  command -v slirp4netns >/dev/null && meta slirp4netns "$(slirp4netns --version | awk 'NR == 1 { print $3 } /libslirp/ { print "libslirp " $2 }' | paste -sd' ')"
  command -v "$PASTA" >/dev/null && meta pasta "$(pasta_version)"
  meta jslirp "$(jslirp_version)"
  if [[ " $STACKS " == *" jslirp"[\ -]* && -x $JSLIRP ]]; then
    # The launcher builds the jar if needed and trains its start-up cache in the background on
    # the first launch: let that finish before anything is measured.
    "$JSLIRP" --version >/dev/null 2>&1 || true
    sleep 1
    local lock
    for lock in "$(dirname "$(readlink -f "$JSLIRP")")"/target/jslirp-*.aot.lock; do
      [[ -e $lock ]] && flock -w 180 "$lock" true
    done
  fi
  for k in SECS MTUS STACKS TESTS CONNS REPEAT FIRST_SETTLE FIRST_N FIRST_MIB FIRST_REPEAT CRR_CLIENTS CONN_BYTES CONN_TIMEOUT UDP_LEN IDLE_SETTLE IDLE_INSTANCES RRLOAD_N RRLOAD_RT FW_BURST FW_BURST_BYTES; do meta "$k" "${!k}"; done
  meta clk_tck "$(getconf CLK_TCK)"

  for mtu in $MTUS; do
    for stack in $STACKS; do
      what=()
      { wants throughput || wants cpu; } && what+=(throughput)
      if [[ $mtu == "$BASE_MTU" ]]; then
        for f in rr crr udp rrload; do wants "$f" && what+=("$f"); done
      fi
      ((${#what[@]})) && session "$stack" "$mtu" "${what[@]}"
    done
  done
  if wants idle; then
    for stack in $STACKS; do [[ $stack == veth ]] || session "$stack" "$BASE_MTU" idle; done
  fi
  if wants first; then
    for _ in $(seq "$FIRST_REPEAT"); do
      for f in rr down; do
        for stack in $STACKS; do session "$stack" "$BASE_MTU" "first:$f"; done
      done
    done
  fi
  if wants forwards; then
    for mtu in $MTUS; do
      for stack in $STACKS; do
        for f in $(fw_kinds "$stack"); do fw_session "$stack" "$mtu" "$f"; done
      done
    done
  fi
  if wants conns; then
    for n in $CONNS; do
      for stack in $STACKS; do session "$stack" "$BASE_MTU" "conns:$n"; done
    done
  fi

  local bypass_table=""
  if wants bypass; then
    bypass_table=$workdir/bypass.md
    BYPASS_SECONDS=$SECS BYPASS_MTU=${MTUS##* } JSLIRP=$JSLIRP "$here/bypass.sh" >"$bypass_table" ||
      echo "(bench/bypass.sh failed)" >"$bypass_table"
  fi

  meta seconds $((SECONDS - start))
  meta load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
  mkdir -p "$(dirname "$PNG")"
  "$PY" "$here/report.py" "$results" "$meta" "$PNG"
  if [[ -n $bypass_table ]]; then
    cp "$bypass_table" "$here/results/bypass.md"
    printf '\n## The socket bypass (bench/bypass.sh, MTU %s)\n\n' "${MTUS##* }"; cat "$bypass_table"
  fi
  log "done in $((SECONDS - start)) s"
}

main
