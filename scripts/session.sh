# Sourced by scripts that make a namespace and start processes for one measurement (scripts/soak.sh,
# bench/alloc.sh, bench/rrsplit.sh): what they started goes on exit, by PID, and so do the namespace
# $ns and the folder $work they set. Ctrl-C and SIGTERM end the script through the same cleanup.
PY=/usr/bin/python3  # Debian's, with its modules (another python3 may come first on PATH)
[[ -x $PY ]] || PY=python3
pids=()  # processes started here: killed and waited for on exit

session_cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [[ -n ${ns:-} ]] && ip netns del "$ns" 2>/dev/null || true
  [[ -n ${work:-} ]] && rm -rf "$work"
  return 0
}
trap session_cleanup EXIT
trap 'exit 130' INT TERM

# free_port: a TCP port of 127.0.0.1 that nobody listens on now
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
