#!/usr/bin/env bash
# bench/vm.sh — a real VM (QEMU TCG, Debian cloud kernel, busybox) fetching 20 MiB through
# user-mode network stacks, side by side.
#
# Usage (from anywhere; root is not needed, but passt then drops to "nobody" itself):
#   bench/vm.sh
#   VM_REPEAT=5 bench/vm.sh                                  # best of 5 runs per row (default 3)
#   VM_STACK_CMD="other-stack --socket" VM_STACK_NAME=other bench/vm.sh   # another stack in jslirp's row
#   VM_STACKS="passt" VM_PASST_MTU=1500 bench/vm.sh
#
# Prints one Markdown table on stdout (progress and diagnostics go to stderr):
#   | stack | netdev | guest MTU | wget 20 MiB (s) | MiB/s | sha256 ok |
# The time is the wall-clock time on the host between two console lines the guest prints right
# before and right after `wget -O /tmp/blob URL` (the host stamps each console line as it arrives;
# the guest's own /proc/uptime difference is logged on stderr as a cross-check). The file is in the
# guest's RAM (initramfs root) and hashed after the timed part: under TCG a `wget | sha256sum`
# pipeline measures the emulated CPU (about 0.65 s for 20 MiB whatever the stack), not the network.
# Each row is the best of VM_REPEAT runs (one run: about 3 s).
#
# Rows (VM_STACKS, default "passt slirp cmd"; cmd is jslirp unless VM_STACK_CMD says otherwise):
#   passt   `passt -f -q -1 -4 -s SOCK -a 10.0.2.15 -n 24 -g 10.0.2.2 --no-dhcp-dns --no-dhcp-search
#           --no-icmp -t none -u none` (+ `--runas 0` as root, `-m $VM_PASST_MTU` if set; passt's
#           default MTU is 65520), QEMU `-netdev stream` as its client.
#   slirp   QEMU's own `-netdev user,ipv6=off` (libslirp; MTU 1500).
#   cmd     `$VM_STACK_CMD SOCKET_PATH`: a stack that listens on a unix stream socket (QEMU's
#           `-netdev stream` framing: 4-byte big-endian length before each frame) and serves the
#           guest like the others: DHCP 10.0.2.15/24, gateway 10.0.2.2 mapped to host 127.0.0.1.
#           Row label: $VM_STACK_NAME (default: the command's first word). It gets up to 180 s to
#           start listening (a launcher may build first).
# Network safety: the guest addresses only 10.0.2.2 (TCP to the HTTP server); no DNS, no ping.
# The HTTP server listens on 127.0.0.1 only. Processes and files made here are removed on exit.
#
# Environment: VM_STACKS, VM_STACK_CMD, VM_STACK_NAME, VM_PASST_MTU, VM_REPEAT (3),
#              VM_IMAGE_DIR (<repo>/target/vm-image; built by scripts/vm-image.sh when missing),
#              VM_SIZE_MIB (20). Needs: qemu-system-x86 (apt), passt, python3, and for the image
#              apt-get + dpkg-deb.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$here/.." && pwd)
IMAGE_DIR=${VM_IMAGE_DIR:-$repo/target/vm-image}
REPEAT=${VM_REPEAT:-3}
SIZE_MIB=${VM_SIZE_MIB:-20}
# jslirp's row by default: the repository's launcher serving the VM's stream socket.
VM_STACK_CMD=${VM_STACK_CMD:-"$repo/jslirp qemu --socket"}
VM_STACK_NAME=${VM_STACK_NAME:-jslirp}
STACKS=${VM_STACKS:-"passt slirp cmd"}
PY=/usr/bin/python3; [[ -x $PY ]] || PY=python3
QEMU=qemu-system-x86_64
BOOT_SECS=90 RUN_SECS=180

log() { echo "vm-bench: $*" >&2; }
die() { log "$*"; exit 1; }

command -v "$QEMU" >/dev/null || die "missing $QEMU (apt-get install qemu-system-x86)"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "needs bash 5 (EPOCHREALTIME)"

workdir=$(mktemp -d /tmp/jslirp-vm-bench.XXXXXX)
chmod 755 "$workdir"
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

# --- image (cached), blob, HTTP server on loopback
bash "$repo/scripts/vm-image.sh" "$IMAGE_DIR" || die "image build failed"
kernel=$IMAGE_DIR/vmlinuz initramfs=$IMAGE_DIR/initramfs.cpio.gz

mkdir "$workdir/www"
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom >"$workdir/www/blob"
want_sum=$(sha256sum "$workdir/www/blob" | cut -d' ' -f1)
port=$(free_port)
"$PY" -m http.server --bind 127.0.0.1 --directory "$workdir/www" "$port" >"$workdir/http.log" 2>&1 &
pids+=("$!")
for i in $(seq 100); do
  "$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$port" 2>/dev/null && break
  sleep 0.1
done

# --- the guest's script, appended to the cached initramfs as /test.sh (concatenated cpio archives)
mkdir "$workdir/t"
cat >"$workdir/t/test.sh" <<EOF
set -o pipefail
udhcpc -i eth0 -n -q -t 5 -T 1 || exit 1
echo "MTU \$(cat /sys/class/net/eth0/mtu)"
echo "WGET_START \$(cut -d' ' -f1 /proc/uptime)"
wget -q -O /tmp/blob http://10.0.2.2:$port/blob || exit 2
echo "WGET_END \$(cut -d' ' -f1 /proc/uptime)"
echo "SHA256 \$(sha256sum /tmp/blob | cut -d' ' -f1)"
EOF
initrd=$workdir/initrd
cp "$initramfs" "$initrd"
pad=$(( (4 - $(stat -c %s "$initrd") % 4) % 4 ))
head -c "$pad" /dev/zero >>"$initrd"
(cd "$workdir/t" && echo test.sh | busybox cpio -o -H newc -R 0:0 2>/dev/null) >>"$initrd" ||
  die "busybox cpio failed (apt-get install busybox-static)"

stamp() {  # prefix each line with the host's time
  local line
  while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "${line//$'\r'/}"; done
}

await_socket() {  # await_socket PATH PID SECONDS
  local i
  for i in $(seq $(($3 * 20))); do
    [[ -S $1 ]] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# run_vm NAME NETDEV_ARGS...: one VM run; sets RUN_SECS_WGET, RUN_MTU, RUN_OK (or leaves them n/a)
run_vm() {
  local name=$1 console=$workdir/console-$1.txt qpid i ts te gs ge sum
  shift
  RUN_SECS_WGET=n/a RUN_MTU=n/a RUN_OK=no
  "$QEMU" -accel tcg -m 256 -smp 1 -nographic -no-reboot -no-user-config \
    -kernel "$kernel" -initrd "$initrd" -append "console=ttyS0 quiet panic=-1 ipv6.disable=1" \
    "$@" </dev/null 2>"$workdir/qemu-$name.err" > >(stamp >"$console") &
  qpid=$!; pids+=("$qpid")
  for i in $(seq $(((BOOT_SECS + RUN_SECS) * 10))); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$qpid" 2>/dev/null; then log "$name: VM timed out"; fi
  stop_pid "$qpid"
  for i in $(seq 20); do grep -q 'init: poweroff\|reboot: Power down' "$console" 2>/dev/null && break; sleep 0.05; done
  ts=$(awk '$2 == "WGET_START" { print $1 }' "$console") te=$(awk '$2 == "WGET_END" { print $1 }' "$console")
  gs=$(awk '$2 == "WGET_START" { print $3 }' "$console") ge=$(awk '$2 == "WGET_END" { print $3 }' "$console")
  sum=$(awk '$2 == "SHA256" { print $3 }' "$console")
  RUN_MTU=$(awk '$2 == "MTU" { print $3 }' "$console")
  [[ -n $RUN_MTU ]] || RUN_MTU=n/a
  if [[ -n $ts && -n $te ]]; then
    RUN_SECS_WGET=$(awk -v a="$ts" -v b="$te" 'BEGIN { printf "%.2f", b - a }')
    log "$name: wget ${RUN_SECS_WGET}s (guest clock $(awk -v a="$gs" -v b="$ge" 'BEGIN { printf "%.2f", b - a }')s), sha256 ${sum:-none}"
  fi
  [[ $sum == "$want_sum" ]] && RUN_OK=yes
  if [[ $RUN_OK != yes ]]; then
    log "$name: console (last lines):"
    tail -15 "$console" | cut -d' ' -f2- | sed 's/^/    /' >&2 || true
    sed 's/^/    qemu: /' "$workdir/qemu-$name.err" >&2 || true
  fi
}

declare -A res_secs res_mtu res_ok res_netdev

# bench_one STACK: one run; sets RUN_* (see run_vm)
bench_one() {
  local stack=$1 sock=$workdir/$1.sock sp=
  rm -f "$sock"
  case $stack in
    passt)
      command -v passt >/dev/null || { log "passt not installed"; RUN_SECS_WGET=n/a RUN_MTU=n/a RUN_OK=no; return; }
      local args=(-f -q -1 -4 -s "$sock" -l "$workdir/passt.log" -a 10.0.2.15 -n 24 -g 10.0.2.2
        --no-dhcp-dns --no-dhcp-search --no-icmp -t none -u none)
      [[ $(id -u) -eq 0 ]] && args+=(--runas 0)
      [[ -n ${VM_PASST_MTU:-} ]] && args+=(-m "$VM_PASST_MTU")
      passt "${args[@]}" >"$workdir/passt.out" 2>&1 &
      sp=$!; pids+=("$sp")
      res_netdev[$stack]="stream" ;;
    cmd)
      bash -c "exec $VM_STACK_CMD \"\$1\"" vm-stack "$sock" >"$workdir/cmd.out" 2>&1 &
      sp=$!; pids+=("$sp")
      res_netdev[$stack]="stream" ;;
    slirp)
      res_netdev[$stack]="user"
      run_vm slirp -netdev user,id=n0,ipv6=off -device virtio-net-pci,netdev=n0,romfile=
      return ;;
    *) die "unknown stack: $stack" ;;
  esac
  if await_socket "$sock" "$sp" "$([[ $stack == cmd ]] && echo 180 || echo 30)"; then
    run_vm "$stack" -netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$sock" -device virtio-net-pci,netdev=n0,romfile=
  else
    RUN_SECS_WGET=n/a RUN_MTU=n/a RUN_OK=no
    log "$stack did not listen on $sock; its output:"
    tail -5 "$workdir/$stack.out" | grep -v 'to syslog' | sed 's/^/    /' >&2 || true
  fi
  stop_pid "$sp"
}

log "kernel $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$QEMU" --version | head -1), ${SIZE_MIB} MiB, best of $REPEAT"
for stack in $STACKS; do
  res_secs[$stack]=n/a res_mtu[$stack]=n/a res_ok[$stack]=yes   # "yes" only if every run's sha256 matched
  for r in $(seq "$REPEAT"); do
    log "$stack (run $r)"
    bench_one "$stack"
    res_mtu[$stack]=$RUN_MTU
    [[ $RUN_OK == yes ]] || { res_ok[$stack]=no; continue; }
    if [[ ${res_secs[$stack]} == n/a ]] || awk -v a="$RUN_SECS_WGET" -v b="${res_secs[$stack]}" 'BEGIN { exit !(a < b) }'; then
      res_secs[$stack]=$RUN_SECS_WGET
    fi
  done
done

label() {
  case $1 in
    passt) echo "passt" ;;
    slirp) echo "QEMU -nic user (libslirp)" ;;
    cmd) local w=($VM_STACK_CMD); echo "${VM_STACK_NAME:-$(basename "${w[0]}")}" ;;
  esac
}

echo "| stack | netdev | guest MTU | wget ${SIZE_MIB} MiB (s) | MiB/s | sha256 ok |"
echo "|---|---|---:|---:|---:|---|"
for stack in $STACKS; do
  s=${res_secs[$stack]}
  if [[ $s == n/a ]]; then rate=n/a; else rate=$(awk -v s="$s" -v m="$SIZE_MIB" 'BEGIN { if (s > 0) printf "%.1f", m / s; else print "n/a" }'); fi
  echo "| $(label "$stack") | ${res_netdev[$stack]:-n/a} | ${res_mtu[$stack]} | $s | $rate | ${res_ok[$stack]} |"
done
