"""Summarises one `iperf3 -J` run read from stdin (bench/run.sh): prints one JSON object
{"gbps", "bytes", "stalled"} (UDP runs add "lost_percent") on stdout and a short line on stderr;
exits 1 when the run failed. With --intervals (a run stopped by SIGTERM, as rrload's bulk flows
are), only the rate of the intervals the client measured, on stdout.

gbps and bytes are what the receiving side got over the whole run, slow start included. A TCP run
is "stalled" when a one-second interval after the first moved < 1% of the best one (seen with
pasta 2023-03 namespace→host: ~0.3 GB, then retransmissions only).
"""
import json
import sys

def intervals(d):
    """{"gbps", "bytes"} of the one-second intervals the client measured itself (sent, or received
    with -R): what is left of a run stopped by a signal, whose summary then lacks the peer's half."""
    got = [i["sum"] for i in d.get("intervals", [])]
    secs = sum(i["seconds"] for i in got)
    if not got or secs <= 0:
        raise ValueError(d.get("error") or "no intervals")
    total = sum(i["bytes"] for i in got)
    return {"gbps": total * 8 / secs / 1e9, "bytes": total, "stalled": False}


try:
    d = json.load(sys.stdin)
    if sys.argv[1:] == ["--intervals"]:
        print(json.dumps(intervals(d)))
        sys.exit(0)
    if d.get("error"):
        raise ValueError(d["error"])
    got = d["end"]["sum_received"]
    res = {"gbps": got["bits_per_second"] / 1e9, "bytes": got["bytes"]}
    udp = d["start"]["test_start"]["protocol"] == "UDP"
    rates = [i["sum"]["bits_per_second"] for i in d.get("intervals", [])]
    res["stalled"] = not udp and len(rates) > 1 and min(rates[1:]) < 0.01 * max(rates)
    if udp:
        res["lost_percent"] = got["lost_percent"]
except Exception as e:  # no output, cut short by timeout, or iperf3's own error
    print(json.dumps({"error": str(e) or type(e).__name__}))
    print("bench:     failed: %s" % (str(e) or type(e).__name__), file=sys.stderr)
    sys.exit(1)
print(json.dumps(res))
print("bench:     %.2f Gbit/s%s%s" % (res["gbps"], " (stalled)" if res["stalled"] else "",
                                     ", %.1f%% lost" % res["lost_percent"] if udp else ""), file=sys.stderr)
