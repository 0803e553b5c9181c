#!/usr/bin/env bash
# bench/vm.sh — a real VM (QEMU TCG, Debian cloud kernel, busybox) moving data both ways through
# user-mode network stacks, side by side on the same VM in one run.
#
# Usage (from anywhere; root is not needed, but passt then drops to "nobody" itself):
#   bench/vm.sh > report.md
#   VM_SIZE_MIB=20 VM_REPEAT=1 bench/vm.sh                    # a quick check
#   PASST="/tmp/passt-src/passt /usr/bin/passt" bench/vm.sh   # two passts side by side
#   VM_CELLS="jslirp:stream:65520 passt:stream:65520" bench/vm.sh
#   VM_STACK_CMD="other-stack" VM_STACK_NAME=other bench/vm.sh   # another stack in jslirp's rows
#   VM_CELLS="jslirp:stream:65520 jslirpB:stream:65520" VM_STACK_CMD_B="$PWD/jslirp qemu --no-warm-up" \
#       VM_STACK_NAME_B="jslirp --no-warm-up" bench/vm.sh       # before/after in the same run
#
# What one run measures, for every cell (a stack, a QEMU netdev, an MTU):
#   download  host → guest: busybox `wget -O /tmp/blob` from a Python HTTP server on 127.0.0.1;
#   upload    guest → host: `nc 10.0.2.2 PORT < /tmp/blob` into bench/vm_sink.py on 127.0.0.1,
#             which hashes what arrives and answers "BYTES SHA256" once the guest's EOF is in;
# each of VM_SIZE_MIB (default 200: long enough for steady state) and, separately, the first
# VM_WARM_MIB (default 20) a fresh stack process serves: its first transfer, the JVM's warm-up (or
# any stack's) included. Every transfer is checked byte-exact by sha256 (the guest hashes what it
# downloaded, the sink what was uploaded), outside the timed part.
#
# One repeat of a cell is two VM boots, each with a stack process started for it:
#   boot A: first VM_WARM_MIB down, then VM_SIZE_MIB down, then the same VM_SIZE_MIB back up;
#   boot B: first VM_WARM_MIB up (the bytes come with the initrd, so they are in RAM before timing).
# The file a transfer reads or writes is in the guest's RAM (initramfs root); hashing comes after the
# timed part: under TCG a `wget | sha256sum` pipeline measures the emulated CPU, not the network.
#
# Figures per transfer:
#   s, MiB/s      wall-clock time on the host between two console lines the guest prints right
#                 before and right after the transfer (the host stamps each line as it arrives; the
#                 guest's own /proc/uptime difference, and for uploads the sink's first-byte-to-EOF
#                 time, are logged on stderr as cross-checks);
#   CPU ms/MiB    utime+stime (all threads) of the stack process from /proc/PID/stat, sampled as
#                 those two lines arrive (10 ms ticks), per MiB moved; and the same for QEMU (the
#                 guest's own cost: the vCPU's emulation, virtio, the netdev). QEMU's -netdev user
#                 runs inside QEMU, so its stack CPU is QEMU's whole CPU, marked so.
# Each figure is the best (lowest) of VM_REPEAT runs (default 3), and each rate has the median of
# the runs that succeeded beside it (on a shared machine the emulated CPU's own speed moves a run
# by half: the best says what a stack can do, the median how it usually does); the repeats are interleaved
# (run 1 of every cell, then run 2, ...) so that a burst of load on this shared machine does not
# land on one cell only. The report header gives the load average at start and end.
#
# Cells (VM_CELLS, words STACK:NETDEV:MTU; default all below). Unavailable ones show n/a and why.
#   jslirp:stream:1500 jslirp:stream:65520 jslirp:dgram:1500 jslirp:dgram:65520
#       `$VM_STACK_CMD --mtu MTU --socket PATH` (QEMU `-netdev stream`: a 4-byte big-endian length
#       before each frame) or `--dgram PATH` (`-netdev dgram`, one frame per unix datagram);
#       VM_STACK_CMD defaults to the repository's launcher `jslirp qemu` (built, and its AOT cache
#       trained, before anything is timed). Label: $VM_STACK_NAME (default jslirp).
#   jslirp:vhost:1500 jslirp:vhost:65520
#       `$VM_STACK_CMD --mtu MTU --vhost-user PATH` (QEMU `-netdev vhost-user` over `-chardev socket`,
#       the guest's RAM a shared memfd: the backend reads and writes its virtqueues, QEMU out of the
#       data path). QEMU 10 or later (Debian 12: bookworm-backports).
#   jslirp:vhost2:1500 jslirp:vhost2:65520
#       the same with two queue pairs (QEMU `queues=2`, `mq=on`) and two vCPUs: the guest's driver
#       uses a queue pair per vCPU, and jslirp deals flows out over them. passt offers one queue pair.
#   jslirpB:stream:MTU jslirpB:dgram:MTU jslirpB:vhost:MTU jslirpB:vhost2:MTU
#       the same with `$VM_STACK_CMD_B` (label $VM_STACK_NAME_B): a second jslirp (another build, other
#       options) beside the first, for a before/after comparison in one run.
#   passt:stream:1500 passt:stream:65520 passt:vhost:1500 passt:vhost:65520
#       `$PASST -f -q -1 -4 -s SOCK -m MTU -a 10.0.2.15 -n 24 -g 10.0.2.2 --no-dhcp-dns
#       --no-dhcp-search --no-icmp -t none -u none` (+ `--runas 0` as root), QEMU `-netdev stream`;
#       its vhost cells add `--vhost-user` (passt 2025 and later; Debian 12's and 13's passt lack it).
#       PASST (default: passt on PATH) may list several binaries: one set of rows each, labelled
#       with the binary's `--version` (or its Debian package's version where that says "unknown").
#   slirp:user:1500
#       QEMU's own `-netdev user,ipv6=off` (libslirp; it has no MTU option: 1500).
# The guest takes the MTU from DHCP; the table shows the guest's MTU beside the cell's if they differ.
#
# Network safety: the guest addresses only 10.0.2.2 (TCP to the two servers); no DNS, no ping.
# Both servers listen on 127.0.0.1 only. Processes (by PID) and files made here go on exit.
#
# Environment: VM_CELLS, VM_SIZE_MIB (200), VM_WARM_MIB (20), VM_REPEAT (3), VM_MEM_MIB (guest RAM;
#   1024, more for big sizes), VM_XFER_SECS (limit per transfer in the guest; max(60, VM_SIZE_MIB)),
#   PASST, VM_STACK_CMD, VM_STACK_NAME, VM_IMAGE_DIR (<repo>/target/vm-image; built by
#   scripts/vm-image.sh when missing); VM_SYSCALLS=1 (each transfer's system calls per MiB of the
#   stack's process, by `perf trace -s`, on stderr; it slows the stack: compare no timings of such a
#   run; VM_SYSCALLS=qemu: QEMU's instead, what each stack's way of writing costs the guest's side),
#   VM_PERF_DIR=DIR (a `perf record -g` of it per transfer into DIR, of QEMU with VM_TRACE=qemu; add
#   JSLIRP_JAVA_OPTS=-XX:+DumpPerfMapAtExit for the JIT's code); VM_PIN=QEMU_CPUS:STACK_CPUS (e.g.
#   0:1; `taskset -c` lists: QEMU on the first, every cell's stack on the second, so that neither takes
#   the other's core: under TCG the vCPU thread needs a whole core, and on a 2-core machine an
#   unpinned stack's compiler threads take it now and then; the servers stay unpinned; vhost2 cells
#   want two CPUs for QEMU); VM_QEMU_EXTRA (more QEMU arguments,
#   split at spaces, @NAME@ replaced by the boot's name such as jslirp-stream-65520-1a:
#   `-object filter-dump,id=d0,netdev=n0,file=/tmp/@NAME@.pcap,maxlen=100` captures on QEMU's side, which,
#   beside a stack's own capture, says whether a frame waited in QEMU or in the stack; `-mem-prealloc`
#   takes out of a download the host zeroing the guest's fresh pages, a quarter of QEMU's time otherwise);
#   VM_GUEST_STATS=1 (the guest's TCP counters and virtio interrupts that moved during each transfer,
#   on stderr: segments each way after GRO, ACKs, zero windows, interrupts); VM_TURNS=1 (a capture at
#   QEMU's netdev, cut by bench/vm_turns.py into the stack's turn and the guest's turn of each
#   transfer, on stderr: whether the stack or the guest was waited for; QEMU writes each frame's
#   head to a file, so compare the turns of such a run, not its timings). VM_SYSCALLS and VM_PERF_DIR need perf, and root or
#   kernel.perf_event_paranoid <= 1; a transfer shorter than perf's start (~0.3 s) is undercounted. Output: the report (Markdown) on stdout, progress on stderr.
# Needs: qemu-system-x86 (apt), python3, busybox (cpio), and for the image apt-get + dpkg-deb;
#   passt for its rows.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$here/.." && pwd)
IMAGE_DIR=${VM_IMAGE_DIR:-$repo/target/vm-image}
REPEAT=${VM_REPEAT:-3}
SIZE_MIB=${VM_SIZE_MIB:-200}
WARM_MIB=${VM_WARM_MIB:-20}
MEM_MIB=${VM_MEM_MIB:-$(( SIZE_MIB + WARM_MIB + 512 > 1024 ? SIZE_MIB + WARM_MIB + 512 : 1024 ))}
XFER_SECS=${VM_XFER_SECS:-$(( SIZE_MIB > 60 ? SIZE_MIB : 60 ))}
DEFAULT_STACK_CMD="$repo/jslirp qemu"
VM_STACK_CMD=${VM_STACK_CMD:-$DEFAULT_STACK_CMD}
VM_STACK_NAME=${VM_STACK_NAME:-jslirp}
VM_STACK_CMD_B=${VM_STACK_CMD_B:-}
VM_STACK_NAME_B=${VM_STACK_NAME_B:-${VM_STACK_CMD_B:-jslirpB}}
CELLS=${VM_CELLS:-"jslirp:stream:1500 jslirp:stream:65520 jslirp:dgram:1500 jslirp:dgram:65520 jslirp:vhost:1500 jslirp:vhost:65520 jslirp:vhost2:1500 jslirp:vhost2:65520 passt:stream:1500 passt:stream:65520 passt:vhost:1500 passt:vhost:65520 slirp:user:1500"}
read -ra PASSTS <<<"${PASST:-passt}"
PY=/usr/bin/python3; [[ -x $PY ]] || PY=python3
QEMU=qemu-system-x86_64
PIN_QEMU=() PIN_STACK=()
if [[ -n ${VM_PIN:-} ]]; then
  [[ $VM_PIN =~ ^[0-9,-]+:[0-9,-]+$ ]] || { echo "vm-bench: VM_PIN must be QEMU_CPUS:STACK_CPUS, e.g. 0:1, not $VM_PIN" >&2; exit 1; }
  PIN_QEMU=(taskset -c "${VM_PIN%%:*}") PIN_STACK=(taskset -c "${VM_PIN#*:}")
fi
BOOT_SECS=90
TICK_MS=$(( 1000 / $(getconf CLK_TCK) ))
# What each transfer moves, and in which direction (down: the guest hashes; up: the sink does).
declare -A XFER_MIB=([warm_down]=$WARM_MIB [down]=$SIZE_MIB [up]=$SIZE_MIB [warm_up]=$WARM_MIB)

log() { echo "vm-bench: $*" >&2; }
die() { log "$*"; exit 1; }

[[ -z ${VM_STACKS:-}${VM_PASST_MTU:-} ]] || die "VM_STACKS and VM_PASST_MTU are gone: VM_CELLS names stack:netdev:mtu cells (see the header)"
command -v "$QEMU" >/dev/null || die "missing $QEMU (apt-get install qemu-system-x86)"
command -v busybox >/dev/null || die "missing busybox (apt-get install busybox-static): its cpio builds the initrd"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "needs bash 5 (EPOCHREALTIME)"

started=$EPOCHREALTIME
workdir=$(mktemp -d /tmp/jslirp-vm-bench.XXXXXX)
chmod 755 "$workdir"   # passt may run as nobody and must reach its socket here
pids=()

cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

forget_pid() {
  local p keep=()
  for p in "${pids[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  pids=("${keep[@]}")
}

stop_pid() {  # SIGTERM, up to 5 s, then SIGKILL
  local p=$1 i
  kill "$p" 2>/dev/null || true
  for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  forget_pid "$p"
}

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

await_port() {  # await_port PORT: until something accepts on 127.0.0.1:PORT (10 s)
  local i
  for i in $(seq 100); do
    "$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

await_socket() {  # await_socket PATH PID SECONDS: until PATH is a socket; fails early if PID exits
  local i
  for i in $(seq $(($3 * 20))); do
    [[ -S $1 ]] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# --- what is being compared: labels and versions

passt_version() {  # passt_version BIN: its --version's first line; Debian's 2023 build says "unknown"
  local v pkg
  command -v "$1" >/dev/null || { echo "passt $1 (missing)"; return; }
  v=$("$1" --version 2>/dev/null | head -1) || true
  if [[ -z $v || $v == *unknown* ]]; then
    pkg=$(dpkg-query -S "$(readlink -f "$(command -v "$1")")" 2>/dev/null | cut -d: -f1 | head -1) || true
    [[ -n $pkg ]] && v="${pkg} $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) (Debian package)"
  fi
  echo "${v:-passt (version unknown)}"
}

jslirp_version() {
  if [[ $VM_STACK_CMD == "$DEFAULT_STACK_CMD" ]]; then
    # the commit of what the jar is built from (the bench's own changes do not make another jslirp)
    local c; c=$(git -C "$repo" log -1 --format=%h -- src/main pom.xml 2>/dev/null) || c=unknown
    [[ -n $(git -C "$repo" status --porcelain --untracked-files=no -- src/main pom.xml 2>/dev/null) ]] && c+="+changes"
    echo "$VM_STACK_NAME $c"
  else
    echo "$VM_STACK_NAME ($VM_STACK_CMD)"
  fi
}

# stack_label CELL: the row's stack column
stack_label() {
  local stack=${1%%:*}
  case $stack in
    jslirp) echo "$VM_STACK_NAME" ;;
    jslirpB) echo "$VM_STACK_NAME_B" ;;
    passt*) passt_version "${PASSTS[${stack#passt}]}" ;;
    slirp) echo "QEMU -nic user (libslirp $(dpkg-query -W -f='${Version}' libslirp0 2>/dev/null || echo '?'))" ;;
  esac
}

# expand_cells: "passt:..." becomes one cell per PASST binary (passt0, passt1, ...)
expand_cells() {
  local c i out=()
  for c in $CELLS; do
    if [[ $c == passt:* ]]; then
      for i in "${!PASSTS[@]}"; do out+=("passt$i:${c#passt:}"); done
    else
      out+=("$c")
    fi
  done
  echo "${out[@]}"
}

# cell_unavailable CELL: prints why the cell cannot run (nothing when it can)
cell_unavailable() {
  local stack netdev mtu
  IFS=: read -r stack netdev mtu <<<"$1"
  case $stack:$netdev in
    jslirp:stream|jslirp:dgram) ;;
    jslirp:vhost|jslirp:vhost2) vhost_unavailable ;;
    jslirpB:stream|jslirpB:dgram|jslirpB:vhost|jslirpB:vhost2) [[ -n $VM_STACK_CMD_B ]] || echo "no VM_STACK_CMD_B"; [[ $netdev != vhost* ]] || vhost_unavailable ;;
    passt*:stream) command -v "${PASSTS[${stack#passt}]}" >/dev/null || echo "no ${PASSTS[${stack#passt}]} (apt-get install passt, or PASST=/path/to/passt)" ;;
    passt*:vhost)
      if ! command -v "${PASSTS[${stack#passt}]}" >/dev/null; then echo "no ${PASSTS[${stack#passt}]} (PASST=/path/to/passt)"
      elif ! "${PASSTS[${stack#passt}]}" --help 2>&1 | grep -q -- --vhost-user; then echo "this passt has no --vhost-user (PASST=/path/to/a newer passt)"
      else vhost_unavailable; fi ;;
    passt*:vhost2) echo "passt's vhost-user backend offers one queue pair" ;;
    passt*:*) echo "passt serves QEMU over -netdev stream (or vhost-user) only" ;;
    slirp:user) [[ $mtu == 1500 ]] || echo "QEMU's -netdev user has no MTU option (1500 only)" ;;
    *) echo "unknown cell $1 (STACK:NETDEV:MTU; stacks jslirp, passt, slirp)" ;;
  esac
}

# vhost_unavailable: why QEMU cannot run a vhost-user cell here (nothing when it can)
vhost_unavailable() {
  local v
  v=$("$QEMU" --version 2>/dev/null | head -1 | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
  [[ -n $v && $v -ge 10 ]] || echo "vhost-user cells want QEMU 10 or later (this is ${v:-unknown})"
}

# --- the launcher builds the jar and, in the background, trains its AOT cache on first use; both
# would otherwise land in the first timed runs (a build, or a training JVM on one of two cores).
prepare_jslirp() {
  [[ $VM_STACK_CMD == "$DEFAULT_STACK_CMD" && " $CELLS " == *" jslirp:"* ]] || return 0
  local jar=$repo/target/jslirp.jar f i
  log "jslirp: building the jar and its AOT cache if needed"
  "$repo/jslirp" --version >/dev/null 2>&1 || { log "jslirp --version failed: its rows will say why"; return 0; }
  for i in $(seq 1200); do
    for f in "$repo"/target/jslirp-*.aot "$repo"/target/jslirp-*.aot.none; do
      [[ -f $f && ! $jar -nt $f ]] && return 0
    done
    sleep 0.25
  done
  log "jslirp: no AOT cache next to $jar after 300 s; going on without waiting"
}

# --- the data: two files of random bytes, served and expected

make_blobs() {
  mkdir "$workdir/www"
  head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom >"$workdir/www/blob"
  head -c $((WARM_MIB * 1024 * 1024)) /dev/urandom >"$workdir/www/warm"
  declare -gA WANT_SHA WANT_BYTES
  local x f
  for x in "${!XFER_MIB[@]}"; do
    f=$workdir/www/blob; [[ $x == warm_* ]] && f=$workdir/www/warm
    WANT_SHA[$x]=$(sha256sum "$f" | cut -d' ' -f1)
    WANT_BYTES[$x]=$(stat -c %s "$f")
  done
}

start_servers() {  # sets HTTP_PORT, SINK_PORT; both on 127.0.0.1
  HTTP_PORT=$(free_port)
  "$PY" -m http.server --bind 127.0.0.1 --directory "$workdir/www" "$HTTP_PORT" >"$workdir/http.log" 2>&1 &
  pids+=("$!")
  await_port "$HTTP_PORT" || die "the HTTP server did not start: $(tail -3 "$workdir/http.log")"
  : >"$workdir/sink.log"
  mkfifo "$workdir/sink.port"
  "$PY" "$here/vm_sink.py" "$workdir/sink.log" >"$workdir/sink.port" 2>"$workdir/sink.err" &
  pids+=("$!")
  read -r -t 10 SINK_PORT <"$workdir/sink.port" || die "the upload sink did not start: $(cat "$workdir/sink.err")"
}

# --- the guest's side: two scripts, each appended to the cached initramfs as /test.sh
# (the kernel unpacks concatenated cpio archives; see src/test/java/io/jslirp/it/Vm.java)

write_guest_scripts() {
  # Shared head: the lease, the MTU it gave, and `mark`, the line the host stamps with its clock and
  # the stack's and QEMU's CPU ticks. A transfer that fails or passes VM_XFER_SECS prints no end
  # mark; the next one still runs.
  # An upload ends when the sink's receipt arrives (sent once it has the guest's EOF, so every
  # byte): nc itself would wait for the host's FIN too, which a stack may never pass on after the
  # guest's half-close (Debian's 2023 passt does not). "NOFIN" says so, and nc is killed.
  local head
  head=$(cat <<EOF
udhcpc -i eth0 -n -q -t 5 -T 1 || exit 1
echo "MTU \$(cat /sys/class/net/eth0/mtu)"
mark() { echo "T \$1 \$(cut -d' ' -f1 /proc/uptime)"; }
get() {  # get NAME PATH FILE
  local rc
  snap /tmp/s0
  mark \$1.start
  timeout $XFER_SECS wget -q -O "\$3" "http://10.0.2.2:$HTTP_PORT/\$2"
  rc=\$?
  if [ \$rc = 0 ]; then mark \$1.end; else echo "FAIL \$1 \$rc"; fi
  snap /tmp/s1; stats \$1 /tmp/s0 /tmp/s1
  return \$rc
}
put() {  # put NAME FILE
  local pid got= i=0
  rm -f /tmp/receipt; mkfifo /tmp/receipt
  snap /tmp/s0
  mark \$1.start
  nc 10.0.2.2 $SINK_PORT <"\$2" >/tmp/receipt &
  pid=\$!
  if read -r -t $XFER_SECS got </tmp/receipt; then mark \$1.end
  elif kill -0 \$pid 2>/dev/null; then echo "FAIL \$1 stalled"
  else echo "FAIL \$1 closed"; fi
  snap /tmp/s1; stats \$1 /tmp/s0 /tmp/s1
  while [ -n "\$got" ] && kill -0 \$pid 2>/dev/null && [ \$i -lt 20 ]; do sleep 0.1; i=\$((i + 1)); done
  if kill -0 \$pid 2>/dev/null; then [ -n "\$got" ] && echo "NOFIN \$1"; kill \$pid; fi
  wait \$pid 2>/dev/null
  echo "RECEIPT \$1 \$got"
}
EOF
)
  if [[ -n $GUEST_STATS ]]; then
    head+=$'\n'$(cat <<'EOF'
snap() { cat /proc/net/snmp /proc/net/netstat /proc/interrupts > "$1" 2>/dev/null; }
stats() {  # stats NAME BEFORE AFTER: "STATS NAME KEY=DELTA ..." for the TCP and virtio counters that moved
  awk -v name="$1" '
    function load(file, v,   line, n, f, i, h, key) {
      while ((getline line < file) > 0) {
        n = split(line, f, " ")
        if (f[1] ~ /^[0-9]+:$/) { if (f[n] ~ /virtio/) v[f[n]] = f[2]; continue }
        if (f[1] !~ /^Tcp(Ext)?:$/) continue
        if (!(f[1] in h)) { h[f[1]] = line; continue }
        split(h[f[1]], key, " ")
        for (i = 2; i <= n; i++) v[substr(f[1], 1, length(f[1]) - 1) "." key[i]] = f[i]
        delete h[f[1]]
      }
      close(file)
    }
    BEGIN {
      load(ARGV[1], a); load(ARGV[2], b); out = "STATS " name
      for (k in b) if (b[k] != a[k] && k !~ /CurrEstab/) out = out " " k "=" (b[k] - a[k])
      print out
    }' "$2" "$3"
}
EOF
)
  else
    head+=$'\nsnap() { :; }\nstats() { :; }'
  fi
  mkdir -p "$workdir/guest-a" "$workdir/guest-b"
  cat >"$workdir/guest-a/test.sh" <<EOF
$head
get warm_down warm /tmp/warm
echo "SHA256 warm_down \$(sha256sum /tmp/warm | cut -d' ' -f1)"; rm -f /tmp/warm
if get down blob /tmp/blob; then put up /tmp/blob; else echo "SKIP up"; fi
echo "SHA256 down \$(sha256sum /tmp/blob | cut -d' ' -f1)"
EOF
  cat >"$workdir/guest-b/test.sh" <<EOF
$head
put warm_up /upload
EOF
  ln "$workdir/www/warm" "$workdir/guest-b/upload"
  make_initrd "$workdir/initrd-a" "$workdir/guest-a"
  make_initrd "$workdir/initrd-b" "$workdir/guest-b"
}

make_initrd() {  # make_initrd OUT DIR: the cached initramfs, zero-padded to 4 bytes, then DIR's files as a newc archive
  local pad
  cp "$initramfs" "$1"
  pad=$(( (4 - $(stat -c %s "$1") % 4) % 4 ))
  head -c "$pad" /dev/zero >>"$1"
  (cd "$2" && ls | busybox cpio -o -H newc -R 0:0 2>/dev/null) >>"$1" || die "busybox cpio failed"
}

# --- one VM run

cpu_ticks() {  # cpu_ticks PID VAR: utime+stime of PID, all its threads (fields 14, 15 of /proc/PID/stat)
  local s f
  if [[ $1 == - ]] || ! read -r s <"/proc/$1/stat" 2>/dev/null; then printf -v "$2" %s -; return; fi
  f=(${s##*) })   # after "(comm) ": f[0] is field 3
  printf -v "$2" %s $(( f[11] + f[12] ))
}

stamp() {  # stamp STACK_PID QEMU_PID: each console line as "EPOCH STACK_TICKS QEMU_TICKS LINE"
  local line st qt tracer=
  while IFS= read -r line; do
    line=${line//$'\r'/}
    st=- qt=-
    if [[ $line == "T "* ]]; then cpu_ticks "$1" st; cpu_ticks "$2" qt; fi
    printf '%s %s %s %s\n' "$EPOCHREALTIME" "$st" "$qt" "$line"
    [[ $line != "STATS "* ]] || log "  ${VM_RUN_NAME:-run} guest $(tr ' ' '\n' <<<"${line#STATS }" | { read -r x; sort | tr '\n' ' '; echo "($x)"; })"
    if [[ -n $SYSCALLS && $1 != "$2" && $line == "T "*.start* ]]; then
      syscalls_start "$([[ $TRACE_QEMU ]] && echo "$2" || echo "$1")" "${line#T }" tracer
    elif [[ -n $tracer && $line == "T "*.end* ]]; then
      syscalls_end "$tracer" "${line#T }"; tracer=
    fi
  done
  [[ -z $tracer ]] || syscalls_end "$tracer" ""
}

# VM_SYSCALLS=1: the stack process's system calls during each transfer, counted by `perf trace -s`
# (all its threads; a tracepoint per call, far lighter than strace, yet it slows the stack: the
# timings of such a run are not comparable with others). Logged on stderr, per MiB moved.
SYSCALLS=${VM_SYSCALLS:-}
# VM_SYSCALLS=qemu (or VM_PERF_DIR with VM_TRACE=qemu): QEMU's process instead of the stack's, to see
# what a stack's way of writing costs the guest's side (its reads, polls and wake-ups). At 65520 the
# two stacks cost QEMU the same: 157 and 145 calls per MiB downloaded (jslirp, passt), 15 and 14 recvmsg of the stream.
TRACE_QEMU=
[[ ${VM_SYSCALLS:-} != qemu && ${VM_TRACE:-} != qemu ]] || TRACE_QEMU=1
# VM_GUEST_STATS=1: the guest's TCP counters (/proc/net/snmp, /proc/net/netstat: segments, ACKs,
# window probes, queue collapses...) and virtio interrupts that moved during each transfer, read
# right outside the timed span and logged on stderr.
GUEST_STATS=${VM_GUEST_STATS:-}
TURNS=${VM_TURNS:-}
# VM_PERF_DIR=DIR instead: `perf record -g` of the stack process during each transfer, into
# DIR/perf-CELLRUN-XFER.data (for a JVM's compiled code, JSLIRP_JAVA_OPTS=-XX:+DumpPerfMapAtExit).
PERF_DIR=${VM_PERF_DIR:-}
[[ -z $PERF_DIR ]] || SYSCALLS=1
syscalls_start() {  # syscalls_start PID "XFER.start UPTIME" VAR: sets VAR to the tracer's PID
  local x=${2%% *}; x=${x%.start}
  if [[ -n $PERF_DIR ]]; then
    perf record -q -F 1999 -g -p "$1" -o "$PERF_DIR/perf-${VM_RUN_NAME:-run}-$x.data" >/dev/null 2>&1 &
  else
    perf trace -s -p "$1" -o "$workdir/syscalls-$x" >/dev/null 2>&1 &
  fi
  printf -v "$3" %s "$!"
}
syscalls_end() {  # syscalls_end TRACER "XFER.end UPTIME": stops it, logs the counts per MiB
  local x=${2%% *}; x=${x%.end}
  kill -INT "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  [[ -n $x && -f $workdir/syscalls-$x ]] || return 0
  { awk -v mib="${XFER_MIB[$x]}" '
      $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && NF >= 8 { calls[$1] += $2; errs[$1] += $3; total += $2 }
      END {
        printf "999999999 %.0f per MiB:\n", total / mib
        for (c in calls) printf "%.0f %s %.0f%s\n", calls[c] / mib, c, calls[c] / mib, errs[c] ? sprintf(" (%.0f failed)", errs[c] / mib) : ""
      }' "$workdir/syscalls-$x" | sort -k1,1nr | cut -d' ' -f2- | paste -sd' ' \
      | sed "s/^/vm-bench:   syscalls during $x: /" >&2; } || true
  rm -f "$workdir/syscalls-$x"
}

# run_vm NAME INITRD STACK_PID NETDEV_ARGS...: boots the VM with the stack (STACK_PID "qemu": the
# stack is QEMU itself), waits for it to power off; the stamped console is $workdir/console-NAME.
run_vm() {
  local name=$1 initrd=$2 sp=$3 console=$workdir/console-$1 fifo=$workdir/console-$1.fifo qpid tpid i limit
  shift 3
  limit=$(( BOOT_SECS + 3 * XFER_SECS + SIZE_MIB / 4 + 30 ))   # + the guest's hashing (~30 MiB/s)
  local extra=${VM_QEMU_EXTRA:-}
  [[ -z $TURNS ]] || extra+=" -object filter-dump,id=turns,netdev=n0,file=$workdir/turns-$name.pcap,maxlen=80"
  rm -f "$fifo"; mkfifo "$fifo"
  "${PIN_QEMU[@]}" "$QEMU" -accel tcg -m "$MEM_MIB" -smp "${VCPUS:-1}" -nographic -no-reboot -no-user-config \
    -kernel "$kernel" -initrd "$initrd" -append "console=ttyS0 quiet panic=-1 ipv6.disable=1" \
    "$@" ${extra//@NAME@/$name} -device "virtio-net-pci,netdev=n0,romfile=${DEVICE_EXTRA:-}" </dev/null 2>"$workdir/qemu-$name.err" >"$fifo" &
  qpid=$!; pids+=("$qpid")
  [[ $sp == qemu ]] && sp=$qpid
  VM_RUN_NAME=$name stamp "$sp" "$qpid" <"$fifo" >"$console" &
  tpid=$!; pids+=("$tpid")
  for i in $(seq $((limit * 10))); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$qpid" 2>/dev/null && log "$name: VM still running after ${limit}s: killed"
  stop_pid "$qpid"
  wait "$tpid" 2>/dev/null || true   # the console's last lines
  forget_pid "$tpid"
}

# start_stack CELL SOCK: starts the cell's stack listening on SOCK; sets STACK_PID ("qemu" for
# QEMU's own) and NETDEV (QEMU's -netdev argument); returns 1 (reason on stderr) if it did not listen.
start_stack() {
  local stack netdev mtu sock=$2 wait_secs=30 bin args
  IFS=: read -r stack netdev mtu <<<"$1"
  rm -f "$sock" "$sock.qemu"
  NETDEV_EXTRA=() VCPUS=1 DEVICE_EXTRA=
  case $stack in
    slirp)
      STACK_PID=qemu NETDEV=user,id=n0,ipv6=off
      return 0 ;;
    jslirp|jslirpB)
      local mode=socket cmd=$VM_STACK_CMD; [[ $netdev == dgram ]] && mode=dgram; [[ $netdev == vhost* ]] && mode=vhost-user
      [[ $stack == jslirpB ]] && cmd=$VM_STACK_CMD_B
      bash -c "exec ${PIN_STACK[*]} $cmd --mtu $mtu --$mode \"\$1\"" vm-stack "$sock" >"$workdir/stack.out" 2>&1 &
      wait_secs=180 ;;   # another VM_STACK_CMD may build first
    passt*)
      bin=${PASSTS[${stack#passt}]}
      args=(-f -q -1 -4 -s "$sock" -l "$workdir/passt.log" -m "$mtu" -a 10.0.2.15 -n 24 -g 10.0.2.2
        --no-dhcp-dns --no-dhcp-search --no-icmp -t none -u none)
      [[ $(id -u) -eq 0 ]] && args+=(--runas 0)
      [[ $netdev == vhost ]] && args+=(--vhost-user)
      "${PIN_STACK[@]}" "$bin" "${args[@]}" >"$workdir/stack.out" 2>&1 & ;;
  esac
  STACK_PID=$!; pids+=("$STACK_PID")
  case $netdev in
    stream) NETDEV="stream,id=n0,server=off,addr.type=unix,addr.path=$sock" ;;
    dgram) NETDEV="dgram,id=n0,local.type=unix,local.path=$sock.qemu,remote.type=unix,remote.path=$sock" ;;
    vhost|vhost2) NETDEV="vhost-user,id=n0,chardev=vu"
      NETDEV_EXTRA=(-chardev "socket,id=vu,path=$sock" -object "memory-backend-memfd,id=mem,size=${MEM_MIB}M,share=on"
        -numa node,memdev=mem)
      # two queue pairs: the device multiqueue (one vector per queue, two more) and a vCPU for each
      [[ $netdev == vhost2 ]] && NETDEV+=",queues=2" VCPUS=2 DEVICE_EXTRA=",mq=on,vectors=6" ;;
  esac
  await_socket "$sock" "$STACK_PID" "$wait_secs" && return 0
  log "$stack did not listen on $sock; its output:"
  tail -5 "$workdir/stack.out" | grep -v 'to syslog' | sed 's/^/    /' >&2 || true
  stop_pid "$STACK_PID"
  return 1
}

# --- reading a run's console

fail_reason() {  # fail_reason XFER WHAT: what the guest's FAIL line (wget's status; stalled or closed for nc) means
  case $2 in
    '') echo "no end (the VM died?)" ;;
    143) echo "slow or stalled: not done after ${XFER_SECS} s" ;;   # busybox timeout's SIGTERM
    stalled) echo "slow or stalled: no receipt after ${XFER_SECS} s" ;;
    closed) echo "the connection ended without a receipt" ;;
    *) echo "wget failed (status $2)" ;;
  esac
}

# parse_xfer CONSOLE XFER: sets X_OK (ok, or what went wrong), X_SECS, X_GUEST_SECS, X_STACK_SECS,
# X_QEMU_SECS (CPU) for transfer XFER of the run, and X_NOTE (something odd that did not fail it)
parse_xfer() {
  local c=$1 x=$2 ts te sts ste qts qte gs ge got
  X_OK= X_SECS= X_GUEST_SECS= X_STACK_SECS= X_QEMU_SECS= X_NOTE=
  awk -v x="$x" '$4 == "NOFIN" && $5 == x { f = 1 } END { exit !f }' "$c" && X_NOTE="no FIN from the host"
  read -r ts sts qts gs < <(awk -v m="$x.start" '$4 == "T" && $5 == m { print $1, $2, $3, $6 }' "$c") || true
  read -r te ste qte ge < <(awk -v m="$x.end" '$4 == "T" && $5 == m { print $1, $2, $3, $6 }' "$c") || true
  if [[ $x == *down ]]; then
    got=$(awk -v x="$x" '$4 == "SHA256" && $5 == x { print $6 }' "$c")
    [[ $got == "${WANT_SHA[$x]}" ]] || X_OK="sha256 ${got:-missing}"
  else
    got=$(awk -v x="$x" '$4 == "RECEIPT" && $5 == x { print $6, $7 }' "$c")
    [[ $got == "${WANT_BYTES[$x]} ${WANT_SHA[$x]}" ]] || X_OK="sink got ${got:-nothing}"
  fi
  if [[ -z $ts ]]; then
    X_OK="not run"
    awk -v x="$x" '$4 == "SKIP" && $5 == x { f = 1 } END { exit !f }' "$c" && X_OK="not run: the download before it failed"
  elif [[ -z $te ]]; then
    X_OK=$(fail_reason "$x" "$(awk -v x="$x" '$4 == "FAIL" && $5 == x { print $6 }' "$c")")
  fi
  [[ -n $X_OK ]] && return 0
  X_OK=ok
  X_SECS=$(awk -v a="$ts" -v b="$te" 'BEGIN { printf "%.3f", b - a }')
  X_GUEST_SECS=$(awk -v a="$gs" -v b="$ge" 'BEGIN { printf "%.2f", b - a }')
  [[ $sts == - || $ste == - ]] || X_STACK_SECS=$(awk -v t=$(( ste - sts )) -v ms="$TICK_MS" 'BEGIN { printf "%.2f", t * ms / 1000 }')
  [[ $qts == - || $qte == - ]] || X_QEMU_SECS=$(awk -v t=$(( qte - qts )) -v ms="$TICK_MS" 'BEGIN { printf "%.2f", t * ms / 1000 }')
}

# --- results: the best (lowest) of each figure over the runs, per cell and transfer, and every
# run's value (ALL) for the median

declare -A BEST ALL RUNS OKS WHY NOTE SEEN_MTU NA

keep_min() {  # keep_min KEY VALUE
  [[ -n $2 ]] || return 0
  ALL[$1]="${ALL[$1]:-} $2"
  if [[ -z ${BEST[$1]:-} ]] || awk -v a="$2" -v b="${BEST[$1]}" 'BEGIN { exit !(a < b) }'; then BEST[$1]=$2; fi
}

median() {  # median KEY: the median of the runs' values (of two, their mean), or nothing
  [[ -n ${ALL[$1]:-} ]] || return 0
  tr ' ' '\n' <<<"${ALL[$1]}" | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

record_run() {  # record_run CELL CONSOLE XFER...: sets RUN_FAILED when any transfer was not ok
  local cell=$1 c=$2 x k mtu
  shift 2
  RUN_FAILED=
  mtu=$(awk '$4 == "MTU" { print $5 }' "$c")
  [[ -n $mtu ]] && SEEN_MTU[$cell]=$mtu
  for x; do
    k=$cell/$x
    parse_xfer "$c" "$x"
    RUNS[$k]=$(( ${RUNS[$k]:-0} + 1 ))
    [[ -z $X_NOTE ]] || { NOTE[$k]=$X_NOTE; log "  $x: $X_NOTE"; }
    if [[ $X_OK == ok ]]; then
      OKS[$k]=$(( ${OKS[$k]:-0} + 1 ))
      keep_min "$k/secs" "$X_SECS"; keep_min "$k/stack" "$X_STACK_SECS"; keep_min "$k/qemu" "$X_QEMU_SECS"
      log "  $x: ${X_SECS}s (guest clock ${X_GUEST_SECS}s), CPU stack ${X_STACK_SECS:-?}s qemu ${X_QEMU_SECS:-?}s, sha256 ok"
    else
      WHY[$k]=$X_OK RUN_FAILED=yes
      log "  $x: $X_OK"
    fi
  done
}

show_failure() {  # show_failure NAME: the end of a failed run's console and QEMU's stderr
  log "$1: console (last lines):"
  tail -15 "$workdir/console-$1" | cut -d' ' -f4- | sed 's/^/    /' >&2 || true
  sed 's/^/    qemu: /' "$workdir/qemu-$1.err" >&2 || true
}

# bench_cell CELL RUN: boot A (downloads, then the upload) and boot B (the first upload), each
# with a fresh stack process
bench_cell() {
  local cell=$1 r=$2 boot x xfers name sock=$workdir/stack.sock uplines
  for boot in a b; do
    name=${cell//:/-}-$r$boot
    if [[ $boot == a ]]; then xfers=(warm_down down up); else xfers=(warm_up); fi
    log "$cell run $r, boot $boot (${xfers[*]})"
    if ! start_stack "$cell" "$sock"; then
      for x in "${xfers[@]}"; do RUNS[$cell/$x]=$(( ${RUNS[$cell/$x]:-0} + 1 )); WHY[$cell/$x]="the stack did not listen"; done
      continue
    fi
    uplines=$(wc -l <"$workdir/sink.log" 2>/dev/null || echo 0)
    run_vm "$name" "$workdir/initrd-$boot" "$STACK_PID" "${NETDEV_EXTRA[@]}" -netdev "$NETDEV"
    [[ $STACK_PID == qemu ]] || stop_pid "$STACK_PID"
    record_run "$cell" "$workdir/console-$name" "${xfers[@]}"
    if [[ -n $TURNS && -f $workdir/turns-$name.pcap ]]; then
      python3 "$here/vm_turns.py" "$workdir/turns-$name.pcap" "${xfers[@]}" 2>&1 | sed "s/^/vm-bench:   turns: /" >&2 || true
      rm -f "$workdir/turns-$name.pcap"
    fi
    awk -v n="$uplines" 'NR > n { printf "vm-bench:   sink: %d bytes in %.3fs (first byte to EOF, host clock)\n", $1, $4 - $3 }' \
      "$workdir/sink.log" >&2 2>/dev/null || true
    # jslirp's exit line has its counters (send_dropped: frames the link would not take)
    grep -h 'counters:' "$workdir/stack.out" 2>/dev/null | tail -1 | sed 's/^/vm-bench:   stack: /' >&2 || true
    rm -f "$workdir/stack.out"
    [[ -z $RUN_FAILED ]] || show_failure "$name"
    rm -f "$workdir/console-$name" "$workdir/qemu-$name.err"
  done
}

# --- the report

per_mib() {  # per_mib SECONDS MIB: milliseconds per MiB
  [[ -n $1 ]] && awk -v s="$1" -v m="$2" 'BEGIN { printf "%.1f", s * 1000 / m }' || echo n/a
}

rate() {  # rate SECONDS MIB: MiB/s
  [[ -n $1 ]] && awk -v s="$1" -v m="$2" 'BEGIN { if (s > 0) printf "%.1f", m / s; else print "n/a" }' || echo n/a
}

secs() { [[ -n $1 ]] && awk -v s="$1" 'BEGIN { printf "%.2f", s }' || echo n/a; }

runs_note() {  # runs_note CELL XFER: "3/3", or "2/3 (why the other failed)"
  local k=$1/$2
  local n=${RUNS[$k]:-0} ok=${OKS[$k]:-0}
  local why=${WHY[$k]:-}
  (( ok == n )) && why=
  [[ -n ${NOTE[$k]:-} ]] && why+="${why:+; }${NOTE[$k]}"
  echo "$ok/$n${why:+ ($why)}"
}

report_row() {  # report_row CELL DIRECTION(down|up)
  local cell=$1 dir=$2 stack netdev mtu long=$2 warm=warm_$2 mtu_col stack_cpu warm_cpu
  IFS=: read -r stack netdev mtu <<<"$cell"
  mtu_col=$mtu
  [[ -n ${SEEN_MTU[$cell]:-} && ${SEEN_MTU[$cell]} != "$mtu" ]] && mtu_col="$mtu (guest ${SEEN_MTU[$cell]})"
  local label dirname
  label=$(stack_label "$cell")
  dirname=download; [[ $dir == up ]] && dirname=upload
  if [[ -n ${NA[$cell]:-} ]]; then
    echo "| $dirname | $label | $netdev | $mtu | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a: ${NA[$cell]} |"
    return
  fi
  stack_cpu=$(per_mib "${BEST[$cell/$long/stack]:-}" "$SIZE_MIB")
  warm_cpu=$(per_mib "${BEST[$cell/$warm/stack]:-}" "$WARM_MIB")
  if [[ $stack == slirp ]]; then
    [[ $stack_cpu == n/a ]] || stack_cpu="$stack_cpu (QEMU's)"
    [[ $warm_cpu == n/a ]] || warm_cpu="$warm_cpu (QEMU's)"
  fi
  echo "| $dirname | $label | $netdev | $mtu_col" \
    "| $(secs "${BEST[$cell/$long/secs]:-}") | $(rate "${BEST[$cell/$long/secs]:-}" "$SIZE_MIB")" \
    "| $(rate "$(median "$cell/$long/secs")" "$SIZE_MIB")" \
    "| $stack_cpu | $(per_mib "${BEST[$cell/$long/qemu]:-}" "$SIZE_MIB")" \
    "| $(secs "${BEST[$cell/$warm/secs]:-}") | $(rate "${BEST[$cell/$warm/secs]:-}" "$WARM_MIB")" \
    "| $(rate "$(median "$cell/$warm/secs")" "$WARM_MIB") | $warm_cpu" \
    "| $(runs_note "$cell" "$long"), first $(runs_note "$cell" "$warm") |"
}

report() {  # report CELL...: the Markdown report on stdout
  local cell dir i
  echo "## bench/vm.sh: ${SIZE_MIB} MiB and the first ${WARM_MIB} MiB, both directions ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "- machine: $(nproc) cores, kernel $(uname -r); load average $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (a shared machine: other work ran beside)"
  echo "- VM: $("$QEMU" --version | head -1), TCG, 1 vCPU (2 in vhost2 cells), ${MEM_MIB} MiB, virtio-net; best of $REPEAT runs per figure, runs interleaved; took $(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s${VM_PIN:+; QEMU pinned to CPUs ${VM_PIN%%:*}, the stacks to ${VM_PIN#*:} (VM_PIN)}"
  local passts=
  if [[ " $CELLS " == *" passt:"* ]]; then
    for i in "${!PASSTS[@]}"; do passts+="; $(passt_version "${PASSTS[$i]}") = $(command -v "${PASSTS[$i]}" || echo "${PASSTS[$i]}")"; done
  fi
  local second=
  [[ " $CELLS " == *" jslirpB:"* ]] && second="; $VM_STACK_NAME_B = $VM_STACK_CMD_B"
  echo "- stacks: $(jslirp_version)$second$passts; each figure is the best of the runs on its own (the fastest time, the least CPU), beside the median rate of all runs that succeeded"
  echo
  echo "| direction | stack | netdev | MTU | ${SIZE_MIB} MiB (s) | MiB/s | median MiB/s | stack CPU ms/MiB | QEMU CPU ms/MiB | first ${WARM_MIB} MiB (s) | MiB/s | median MiB/s | stack CPU ms/MiB | runs ok |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  for dir in down up; do
    for cell; do report_row "$cell" "$dir"; done
  done
  echo
  echo "Time: the host's clock between the guest's console lines right before and after the transfer."
  echo "CPU: utime+stime of the process, all threads (/proc/PID/stat, ${TICK_MS} ms ticks), over the same span, per MiB moved."
  echo "\"first ${WARM_MIB} MiB\": the first transfer of a stack process started for that VM boot (its warm-up included)."
  echo "QEMU's -nic user runs in QEMU's process: its stack CPU is all of QEMU's (the guest's emulation included)."
  if [[ -n ${NOTE[*]:-} ]]; then
    echo "\"no FIN from the host\": the sink's receipt (every byte in) reached the guest, which ends the timing, but the sink's FIN"
    echo "after it never did: the guest's nc was killed 2 s later (the stack does not pass a FIN on after the guest's half-close)."
  fi
}

# --- main

bash "$repo/scripts/vm-image.sh" "$IMAGE_DIR" || die "image build failed"
kernel=$IMAGE_DIR/vmlinuz initramfs=$IMAGE_DIR/initramfs.cpio.gz
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
read -ra cells <<<"$(expand_cells)"
prepare_jslirp
make_blobs
start_servers
write_guest_scripts
log "$(nproc) cores, load $LOAD_START, $("$QEMU" --version | head -1), ${SIZE_MIB} MiB + first ${WARM_MIB} MiB, best of $REPEAT, cells: ${cells[*]}"

for cell in "${cells[@]}"; do
  why=$(cell_unavailable "$cell")
  [[ -z $why ]] || { NA[$cell]=$why; log "$cell: n/a: $why"; }
done
for r in $(seq "$REPEAT"); do
  for cell in "${cells[@]}"; do
    [[ -n ${NA[$cell]:-} ]] || bench_cell "$cell" "$r"
  done
done
report "${cells[@]}"
