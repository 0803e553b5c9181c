#!/usr/bin/env bash
# bench/alloc.sh — does jslirp's packet path allocate? (issue 4: no allocation per packet in steady state)
#
# Usage (as root): bench/alloc.sh [MTU]      (default 1500; JSLIRP=/path/to/jslirp to pick the launcher;
#                  ALLOC_KEEP=file.jfr keeps the recording, for `jfr print --stack-depth 64 ...`;
#                  ALLOC_JAVA_OPTS adds JVM options, e.g. -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation)
#
# Runs iperf3 for 5 s in each direction through `jslirp attach` with Java Flight Recorder on
# (settings=profile: allocation samples and GC events), then prints for the load phase (after the
# first second of each run, when start-up and class loading are over): the number of garbage
# collections, the sampled allocation weight, and the allocating sites. A packet path that
# allocates nothing shows 0 collections and no io.jslirp site.
# The guest addresses only the gateway 10.0.2.2 (host loopback); iperf3 -s listens on 127.0.0.1.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$here/.." && pwd)
source "$repo/scripts/java-home.sh"
MTU=${1:-1500}
JSLIRP=${JSLIRP:-$repo/jslirp}
[[ $(id -u) -eq 0 ]] || { echo "alloc: run as root" >&2; exit 1; }

source "$repo/scripts/session.sh"  # pids; the namespace, processes and $work go on exit
work=$(mktemp -d /tmp/jslirp-alloc.XXXXXX)
ns="jsalloc$$"

ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" nft -f - <<NFT
table inet jslirp_alloc_guard {
  chain out {
    type filter hook output priority 0; policy drop;
    oif "lo" accept
    ip daddr 10.0.2.2 accept
  }
}
NFT
ip netns exec "$ns" sleep infinity & holder=$!; pids+=("$holder")
port=$(free_port)
iperf3 -s -B 127.0.0.1 -p "$port" >/dev/null 2>&1 & pids+=("$!")
sleep 0.3
# Through the launcher, so with the JVM settings users get: with a default-sized young generation
# a few MB allocated during the load never even refill a TLAB, and nothing would show.
JSLIRP_JAVA_OPTS="${ALLOC_JAVA_OPTS:-} -XX:StartFlightRecording=filename=$work/rec.jfr,settings=profile" \
  "$JSLIRP" attach -c --mtu "$MTU" "$holder" tap0 >"$work/jslirp.log" 2>&1 &
stack=$!; pids+=("$stack")
for _ in $(seq 100); do ip -n "$ns" route show default 2>/dev/null | grep -q via && break; sleep 0.1; done
loads=()
for dir in "" "-R"; do
  loads+=("$(date +%s.%N)")
  rate=$(ip netns exec "$ns" iperf3 -c 10.0.2.2 -p "$port" -t 5 $dir | awk '/receiver/ {print $7, $8}')
  echo "MTU $MTU iperf3 ${dir:-(upload)}: $rate"
done
kill "$stack"; wait "$stack" 2>/dev/null || true
[[ -z "${ALLOC_KEEP:-}" ]] || cp "$work/rec.jfr" "$ALLOC_KEEP"
"$JAVA_HOME/bin/jfr" print --json --stack-depth 64 --events jdk.ObjectAllocationSample,jdk.GarbageCollection "$work/rec.jfr" >"$work/rec.json"
/usr/bin/python3 - "$work/rec.json" "${loads[@]}" <<'PY'
import datetime, json, sys
events = json.load(open(sys.argv[1]))["recording"]["events"]
starts = [float(t) + 1.0 for t in sys.argv[2:]]          # each run, after its first second
ends = [s + 4.0 for s in starts]                          # ... to its end
def in_load(e):
    t = datetime.datetime.fromisoformat(e["values"]["startTime"]).timestamp()
    return any(s <= t <= x for s, x in zip(starts, ends))
load = [e for e in events if in_load(e)]
gcs = [e for e in load if e["type"] == "jdk.GarbageCollection"]
samples = [e for e in load if e["type"] == "jdk.ObjectAllocationSample"]
sites = {}
for e in samples:
    frames = e["values"]["stackTrace"]["frames"] if e["values"].get("stackTrace") else []
    # jfr's JSON names classes in internal form (io/jslirp/...)
    name = lambda f: f["method"]["type"]["name"].replace("/", ".")
    ours = next((f for f in frames if name(f).startswith("io.jslirp")), None)
    site = name(ours) + "." + ours["method"]["name"] if ours else (name(frames[0]) if frames else "?")
    key = "%s (%s)" % (site, e["values"]["objectClass"]["name"].replace("/", "."))
    sites[key] = sites.get(key, 0) + e["values"]["weight"]
print("whole recording (start-up included): %d garbage collections, %d allocation samples"
      % (sum(e["type"] == "jdk.GarbageCollection" for e in events), sum(e["type"] == "jdk.ObjectAllocationSample" for e in events)))
print("garbage collections during load: %d" % len(gcs))
print("sampled allocation during load: %d bytes in %d samples" % (sum(sites.values()), len(samples)))
for k, v in sorted(sites.items(), key=lambda kv: -kv[1]):
    print("  %10d  %s" % (v, k))
PY
