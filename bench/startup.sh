#!/usr/bin/env bash
# bench/startup.sh — how long a user-mode network takes to come up and go again, for a command
# that does nothing. Prints a Markdown table on stdout: best and median wall time, and best CPU
# time (user + system of every process of the measurement), over STARTUP_RUNS runs (default 10),
# the rows measured in turn so that a busy machine slows them alike.
#
# Rows:
#   jslirp run -- true             ./jslirp run -- true: launcher, JVM, user+network namespace, tap,
#                                  configuration, the command, isolation, shutdown.
#   ... JSLIRP_ISOLATE=0           the same without the isolation (what it costs a start).
#   pasta --config-net -- true     the same with pasta (as root: --runas 0, else pasta drops to nobody).
#   jslirp attach (until ready)    on a namespace made beforehand (not timed): jslirp attach -c -r FD
#                                  PID tap0 until it reports ready, then `true` in the namespace, then
#                                  SIGTERM and its exit. As root only.
#   slirp4netns (until ready)      the same with slirp4netns -c -r FD PID tap0.
#   ... --enable-sandbox           the two above with their sandbox (jslirp's: a second JVM start).
#   java -version                  the JVM alone (what no launcher flag can go below).
#
# Usage: bench/startup.sh [> table.md]    (STARTUP_RUNS=20 bench/startup.sh; JSLIRP=path/to/jslirp)
#        JSLIRP_BASELINE=/path/to/other/checkout/jslirp bench/startup.sh   # adds that launcher's
#        `run -- true` as a row (another version, measured in turn with this one)
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
runs=${STARTUP_RUNS:-10}
jslirp=${JSLIRP:-$here/jslirp}
source "$here/scripts/java-home.sh"
tmp=$(mktemp -d)
holder=""
cleanup() {
  [[ -n "$holder" ]] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

"$jslirp" --version >/dev/null # builds the jar (and whatever the launcher caches) before anything is timed
# ... and trains its AOT cache in the background: wait for that (a training run on one of two cores
# would land in the first timed runs, and the runs before its cache exists would go without it).
sleep 1
for lock in "$(dirname "$(readlink -f "$jslirp")")"/target/jslirp-*.aot.lock; do
  [[ -e $lock ]] && flock -w 180 "$lock" true
done
root=$([[ $(id -u) == 0 ]] && echo yes || echo no)

# One attach-style run: the stack serves the namespace of $holder; ready, `true` inside, stop.
attach_once() {
  local fifo=$tmp/ready pid
  rm -f "$fifo"; mkfifo "$fifo"
  "$@" -c -r 3 "$holder" tap0 3>"$fifo" >/dev/null 2>&1 &
  pid=$!
  head -c1 "$fifo" >/dev/null
  nsenter --net="/proc/$holder/ns/net" true
  kill -TERM "$pid"
  wait "$pid" || true
}
export -f attach_once

declare -a names cmds
add() { names+=("$1"); cmds+=("$2"); }
add "jslirp run -- true" "'$jslirp' run -- true"
add "jslirp run -- true, JSLIRP_ISOLATE=0" "JSLIRP_ISOLATE=0 '$jslirp' run -- true"
if [[ -n "${JSLIRP_BASELINE:-}" ]]; then
  "$JSLIRP_BASELINE" --version >/dev/null
  add "jslirp run -- true (baseline)" "'$JSLIRP_BASELINE' run -- true"
fi
if command -v pasta >/dev/null; then
  add "pasta --config-net -- true" "pasta $([[ $root == yes ]] && echo --runas 0) -q --config-net -- true"
fi
if [[ $root == yes ]]; then
  add "jslirp attach (until ready)" "tmp='$tmp' holder=\$HOLDER attach_once '$jslirp' attach"
  command -v slirp4netns >/dev/null && add "slirp4netns (until ready)" "tmp='$tmp' holder=\$HOLDER attach_once slirp4netns"
  add "jslirp attach --enable-sandbox" "tmp='$tmp' holder=\$HOLDER attach_once '$jslirp' attach --enable-sandbox"
  command -v slirp4netns >/dev/null && add "slirp4netns --enable-sandbox" "tmp='$tmp' holder=\$HOLDER attach_once slirp4netns --enable-sandbox"
fi
add "java -version" "'$JAVA_HOME/bin/java' -XX:+UseSerialGC -Xshare:auto -version"

declare -A wall cpu
for ((i = 0; i < runs; i++)); do
  for k in "${!cmds[@]}"; do
    if [[ "${cmds[$k]}" == *attach_once* ]]; then # a fresh namespace each time, made outside the timing
      unshare --net sleep 600 & holder=$!
      until [[ -e /proc/$holder/ns/net && $(readlink /proc/$holder/ns/net) != $(readlink /proc/self/ns/net) ]]; do sleep 0.01; done
    fi
    # /usr/bin/time: wall seconds, then user and system seconds of the shell and everything it waited for.
    out=$(HOLDER=$holder /usr/bin/time -f '%e %U %S' bash -c "${cmds[$k]}" 2>&1 >/dev/null | tail -1)
    read -r e u s <<<"$out"
    wall[$k]+="$e "; cpu[$k]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
    if [[ -n "$holder" ]]; then kill "$holder"; wait "$holder" 2>/dev/null || true; holder=""; fi
  done
done

ms() { awk '{ printf "%.0f", $1 * 1000 }'; }
echo "| $(date -u +%Y-%m-%d) · $(nproc) cores · load $(cut -d' ' -f1 /proc/loadavg) · best of $runs | wall best (ms) | wall median (ms) | CPU best (ms) |"
echo "|---|---:|---:|---:|"
for k in "${!cmds[@]}"; do
  sorted=$(tr ' ' '\n' <<<"${wall[$k]}" | grep . | sort -n)
  best=$(head -1 <<<"$sorted" | ms); median=$(sed -n "$(( (runs + 1) / 2 ))p" <<<"$sorted" | ms)
  cbest=$(tr ' ' '\n' <<<"${cpu[$k]}" | grep . | sort -n | head -1 | ms)
  echo "| ${names[$k]} | $best | $median | $cbest |"
done
