"""bench/report.py RESULTS.jsonl META.tsv PNG: the Markdown report of bench/run.sh on stdout, and
a PNG chart (skipped with a note on stderr when matplotlib is missing).

RESULTS has one JSON object per measured run ({"family", "stack", ..., "res": {...}}; a run that
failed has "error" in res); a cell measured several times (BENCH_REPEAT) shows its best run.
Ratios: "vs veth" = value / veth's value in the same cell; "vs best peer" = value / the best of the
user-mode stacks other than the row's own (for the veth row: the best user-mode stack). "Best" is
the highest figure, or the lowest where lower is better (latency, memory, CPU); a column marked ↓
is such a one, so there a ratio below 1 is the good side. jslirp-pasta (jslirp as bin/pasta) is
compared with slirp4netns and pasta only and is no peer of the other rows, so theirs stay as
without it. The forwards table compares each row with its counterpart on the same forward
(jslirp-pasta with pasta, jslirp attach with slirp4netns).
"""
import json
import sys

USER_MODE = ("slirp4netns", "pasta", "jslirp")
PEERS = {"jslirp-pasta": ("slirp4netns", "pasta")}  # jslirp in pasta mode: against the other programs only
COUNTERPART = {"jslirp-pasta": "pasta", "pasta": "jslirp-pasta", "jslirp": "slirp4netns", "slirp4netns": "jslirp"}
FORWARDS = (("direct", "none: veth, ns → ns"), ("t", "-t: host 127.0.0.1:HP → ns"),
            ("api", "add_hostfwd: host 127.0.0.1:HP → ns"), ("T", "-T: ns 127.0.0.1:P → host"))
DIRS = (("g2h", "ns→host"), ("h2g", "host→ns"))
COLORS = {"veth": "#7f7f7f", "slirp4netns": "#1f77b4", "pasta": "#ff7f0e", "jslirp": "#2ca02c",
          "jslirp-pasta": "#98df8a"}


def load(results_path, meta_path):
    meta = {}
    with open(meta_path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("\t")
            meta[k] = v
    runs = []
    with open(results_path) as f:
        for n, line in enumerate(f, 1):
            try:
                runs.append(json.loads(line))
            except ValueError:
                print("report: results line %d is not JSON, left out: %s" % (n, line.strip()[:200]), file=sys.stderr)
    return meta, runs


def good(run):
    """A run that measured something (a failed one has only {"error": ...})."""
    return isinstance(run.get("res"), dict) and "error" not in run["res"]


class Results:
    def __init__(self, meta, runs):
        self.meta, self.runs = meta, runs
        self.stacks = meta["STACKS"].split()
        self.mtus = [int(m) for m in meta["MTUS"].split()]
        self.tests = meta["TESTS"].split()
        self.conns = [int(n) for n in meta["CONNS"].split()]

    def best(self, key, match, higher=True):
        """res of the best good run whose fields equal `match` (by res[key]), or None."""
        cands = [r["res"] for r in self.runs if good(r) and all(r.get(k) == v for k, v in match.items())]
        if not cands:
            return None
        return (max if higher else min)(cands, key=lambda res: res[key])

    def cpu(self, stack, mtu):
        """(GB moved, stack CPU s/GB or None, machine CPU s/GB) over the good throughput runs."""
        tck = float(self.meta.get("clk_tck", 100))
        gb = st = mt = 0.0
        have_stack = True
        for r in self.runs:
            if r["family"] == "throughput" and r["stack"] == stack and r["mtu"] == mtu and good(r):
                gb += r["res"]["bytes"] / 1e9
                cpu = r["res"].get("cpu", {})
                mt += cpu.get("machine", 0) / tck
                if cpu.get("stack") is None:
                    have_stack = False
                else:
                    st += cpu["stack"] / tck
        if gb == 0:
            return None
        return gb, (st / gb if have_stack else None), mt / gb


# ---- formatting -------------------------------------------------------------------------------------

def fmt(v, spec):
    return "n/a" if v is None else spec % v


def ratio(v, base):
    return "n/a" if v is None or not base else "%.2f" % (v / base)


def peer_best(values, row, higher=True):
    """The best value among user-mode stacks other than `row` (for jslirp-pasta: slirp4netns and pasta)."""
    peers = PEERS.get(row, USER_MODE)
    cands = [v for s, v in values.items() if s in peers and s != row and v is not None]
    if not cands:
        return None
    return max(cands) if higher else min(cands)


def table(header, rows, align):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def ratio_cells(values, row, higher=True, with_veth=True):
    v = values.get(row)
    cells = [ratio(v, values.get("veth"))] if with_veth else []
    return cells + [ratio(v, peer_best(values, row, higher))]


# ---- the tables -------------------------------------------------------------------------------------

def throughput_table(R):
    rows = []
    for mtu in R.mtus:
        for streams in (1, 4):
            cells = {}
            for d, _ in DIRS:
                cells[d] = {s: R.best("gbps", {"family": "throughput", "stack": s, "mtu": mtu, "streams": streams, "dir": d})
                            for s in R.stacks}
            for s in R.stacks:
                row = [mtu, streams, s]
                for d, _ in DIRS:
                    res = cells[d][s]
                    values = {k: (r["gbps"] if r else None) for k, r in cells[d].items()}
                    row.append(fmt(values[s], "%.2f") + (" (stalled)" if res and res["stalled"] else ""))
                    row += ratio_cells(values, s)
                rows.append(row)
    head = ["MTU", "streams", "stack"]
    for _, label in DIRS:
        head += [label + " Gbit/s", "vs veth", "vs best peer"]
    return table(head, rows, ["---:", "---:", "---"] + ["---:"] * 6)


def cpu_per(R, r, part, units):
    """CPU µs per unit (round trip, connection) of the run r: the stack process's or the whole machine's."""
    ticks = r and r.get("cpu", {}).get(part)
    return ticks / float(R.meta.get("clk_tck", 100)) * 1e6 / units if ticks is not None and units else None


def rr_table(R):
    """Rate and latency, and the CPU each round trip cost: steadier than the rate on a shared 2-core machine,
    where the rate follows which cores the scheduler gives the three parties."""
    res = {s: R.best("tps", {"family": "rr", "stack": s}) for s in R.stacks}
    cols = (("tps", "transactions/s", "%.0f", True), ("p50_us", "p50 µs ↓", "%.0f", False),
            ("p99_us", "p99 µs ↓", "%.0f", False))

    def round_trips(r):
        return r and r.get("transactions", 0) + r.get("warmup", 0)

    rows = []
    for s in R.stacks:
        row = [s]
        for key, _, spec, higher in cols:
            values = {k: (r[key] if r else None) for k, r in res.items()}
            row += [fmt(values[s], spec)] + ratio_cells(values, s, higher)
        row += ["n/a (kernel)" if s == "veth" else fmt(cpu_per(R, res[s], "stack", round_trips(res[s])), "%.1f"),
                fmt(cpu_per(R, res[s], "machine", round_trips(res[s])), "%.1f")]
        rows.append(row)
    head = ["stack"]
    for _, label, _, _ in cols:
        head += [label, "vs veth", "vs best peer"]
    head += ["stack process CPU µs/round trip ↓", "whole machine CPU µs/round trip ↓"]
    return table(head, rows, ["---"] + ["---:"] * 11)


def crr_table(R):
    res = {s: R.best("cps", {"family": "crr", "stack": s}) for s in R.stacks}
    values = {k: (r["cps"] if r else None) for k, r in res.items()}

    def per_connection(r, part):
        return cpu_per(R, r, part, r and r["connections"])

    machine = {s: per_connection(r, "machine") for s, r in res.items()}
    rows = [[s, fmt(values[s], "%.0f")] + ratio_cells(values, s) + [res[s]["errors"] if res[s] else "n/a"]
            + ["n/a (kernel)" if s == "veth" else fmt(per_connection(res[s], "stack"), "%.0f"),
               fmt(machine[s], "%.0f"), ratio(machine[s], machine.get("veth"))]
            for s in R.stacks]
    return table(["stack", "connections/s", "vs veth", "vs best peer", "failed attempts",
                  "stack process CPU µs/connection ↓", "whole machine CPU µs/connection ↓", "vs veth"], rows,
                 ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])


def udp_table(R):
    res = {d: {s: R.best("gbps", {"family": "udp", "stack": s, "dir": d}) for s in R.stacks} for d, _ in DIRS}
    rows = []
    for s in R.stacks:
        row = [s]
        for d, _ in DIRS:
            values = {k: (r["gbps"] if r else None) for k, r in res[d].items()}
            row += [fmt(values[s], "%.2f"), fmt(res[d][s] and res[d][s]["lost_percent"], "%.1f %%")]
            row += ratio_cells(values, s)
        rows.append(row)
    head = ["stack"]
    for _, label in DIRS:
        head += [label + " Gbit/s", "lost", "vs veth", "vs best peer"]
    return table(head, rows, ["---"] + ["---:"] * 8)


def conns_outcome(run):
    """('succeeded' cell, peak MB or None) of one conns run."""
    res, hwm = run["res"], run.get("hwm_kb")
    mb = hwm / 1024 if hwm is not None else None
    if not run.get("alive", True):
        return "failed (stack exited)", None
    if "ok" not in res:
        return "failed: %s" % res.get("error", "?"), mb
    text = "%d / %d" % (res["ok"], res["n"])
    if res["ok"] < res["n"]:
        text += " (%s)" % res["failures"]
    return text, mb


def conns_table(R):
    rows = []
    for n in R.conns:
        runs = {s: next((r for r in R.runs if r["family"] == "conns" and r["stack"] == s and r["n"] == n), None)
                for s in R.stacks}
        outcome = {s: (conns_outcome(r) if r else ("n/a", None)) for s, r in runs.items()}
        mem = {s: o[1] for s, o in outcome.items()}
        anon = {s: (runs[s]["anon_kb"] / 1024 if runs[s] and runs[s].get("anon_kb") is not None and mem[s] is not None
                    else None) for s in R.stacks}
        start = {s: (runs[s]["start_hwm_kb"] / 1024 if runs[s] and runs[s].get("start_hwm_kb") is not None
                     else None) for s in R.stacks}
        for s in R.stacks:
            res = runs[s]["res"] if runs[s] else {}
            kernel = s == "veth"
            tcp = (runs[s] or {}).get("guest_tcp") or {}
            rows.append(["{:,}".format(n), s, outcome[s][0], fmt(res.get("open_seconds"), "%.1f"),
                         fmt(res.get("seconds"), "%.1f"), fmt(resent_percent(tcp), "%.2f"), fmt(tcp.get("timeouts"), "%d"),
                         fmt(tcp.get("tap_tx_dropped"), "%d"), "n/a (kernel)" if kernel else fmt(mem[s], "%.0f"),
                         ratio(mem[s], peer_best(mem, s, False)), "n/a (kernel)" if kernel else fmt(anon[s], "%.0f"),
                         ratio(anon[s], peer_best(anon, s, False)), "n/a (kernel)" if kernel else fmt(start[s], "%.0f")])
    return table(["connections", "stack", "succeeded", "all open after s", "done after s", "guest segments resent % ↓",
                  "guest retransmission timeouts ↓", "tap drops ↓", "peak RSS MB ↓",
                  "vs best peer", "peak anonymous MB ↓", "vs best peer", "peak RSS before the first connection MB"], rows,
                 ["---:", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])


def resent_percent(tcp):
    """The share of the guest's TCP segments it sent again, in %, or None."""
    out = tcp.get("out_segs")
    return 100.0 * tcp["retrans_segs"] / out if out else None


def idle_table(R):
    res = {s: R.best("private_dirty_kb", {"family": "idle", "stack": s}, higher=False) for s in R.stacks if s != "veth"}
    one = {s: (r["private_dirty_kb"] / 1024 if r else None) for s, r in res.items()}
    mean = {s: (r["private_dirty_mean_kb"] / 1024 if r else None) for s, r in res.items()}
    rows = []
    for s in res:
        r = res[s]
        rows.append([s, fmt(one[s], "%.1f"), ratio(one[s], peer_best(one, s, False)), fmt(r and r["rss_kb"] / 1024, "%.1f"),
                     fmt(r and r["threads"], "%d"), fmt(r and r["instances"], "%d"), fmt(mean[s], "%.1f"),
                     ratio(mean[s], peer_best(mean, s, False)), fmt(r and r["rss_total_kb"] / 1024, "%.1f")])
    return table(["stack", "private dirty MB ↓", "vs best peer", "RSS MB ↓", "threads", "instances side by side",
                  "private dirty MB each ↓", "vs best peer", "RSS MB together ↓"], rows,
                 ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])


def rrload_cells(R, s):
    """{load: run} of the stack's rrload runs (the first good one of each load)."""
    out = {}
    for r in R.runs:
        if r["family"] == "rrload" and r["stack"] == s and good(r) and r["load"] not in out:
            out[r["load"]] = r
    return out


def rrload_table(R):
    rows = []
    for s in R.stacks:
        c = rrload_cells(R, s)
        idle = c.get("idle")
        row = [s, fmt(idle and idle["res"]["p50_us"], "%.0f"), fmt(idle and idle["res"]["p99_us"], "%.0f")]
        for load in ("upload", "download"):
            r = c.get(load)
            row += [fmt(r and r["res"]["p50_us"], "%.0f"), fmt(r and r["res"]["p99_us"], "%.0f"),
                    ratio(r and r["res"]["p99_us"], idle and idle["res"]["p99_us"]), fmt(r and r.get("bulk_gbps"), "%.2f")]
        rows.append(row)
    head = ["stack", "idle p50 µs ↓", "idle p99 µs ↓"]
    for load in ("upload", "download"):
        head += ["%s p50 µs ↓" % load, "%s p99 µs ↓" % load, "p99 vs idle ↓", "%s Gbit/s meanwhile" % load]
    return table(head, rows, ["---"] + ["---:"] * 10)


def median(values):
    values = sorted(v for v in values if v is not None)
    return values[len(values) // 2] if values else None


def first_cells(R, s):
    """The median over the stack's fresh instances: {(round, key): value} of the round trips (round 1 and
    2), ("down", "mib_s") and ("down", "cpu_ms_mib") of the first download; None where none measured."""
    tck = float(R.meta.get("clk_tck", 100))
    runs = [r for r in R.runs if r["family"] == "first" and r["stack"] == s and good(r)]
    rr = [r["res"]["rounds"] for r in runs if r["test"] == "rr"]
    down = [r["res"] for r in runs if r["test"] == "down"]
    out = {(i, k): median([x[i - 1][k] for x in rr if len(x) >= i]) for i in (1, 2) for k in ("tps", "p50_us", "p99_us")}
    out["connect_us"] = median([r["res"].get("connect_us") for r in runs if r["test"] == "rr"])
    out[("down", "mib_s")] = median([d["gbps"] * 1e9 / 8 / 2 ** 20 for d in down])
    out[("down", "cpu_ms_mib")] = median([d["cpu_ticks"] / tck * 1e3 / (d["bytes"] / 2 ** 20)
                                          for d in down if d.get("cpu_ticks") is not None and d["bytes"]])
    out["n"] = (len(rr), len(down))
    return out


def first_table(R):
    cells = {s: first_cells(R, s) for s in R.stacks}
    rows = []
    for s in R.stacks:
        c = cells[s]
        row = [s, "%d, %d" % c["n"], fmt(c["connect_us"], "%.0f")]
        for key in ("p50_us", "p99_us"):
            row += [fmt(c[(1, key)], "%.0f"), fmt(c[(2, key)], "%.0f"), ratio(c[(1, key)], c[(2, key)])]
        row += [fmt(c[(1, "tps")], "%.0f"), fmt(c[(2, "tps")], "%.0f")]
        down = {k: v[("down", "mib_s")] for k, v in cells.items()}
        row += [fmt(down[s], "%.0f")] + ratio_cells(down, s)
        row += ["n/a (kernel)" if s == "veth" else fmt(c[("down", "cpu_ms_mib")], "%.1f")]
        rows.append(row)
    head = ["stack", "instances (rr, down)", "first connection µs ↓", "round 1 p50 µs ↓", "round 2 p50 µs ↓", "1 vs 2 ↓",
            "round 1 p99 µs ↓", "round 2 p99 µs ↓", "1 vs 2 ↓", "round 1 /s", "round 2 /s",
            "first download MiB/s", "vs veth", "vs best peer", "its stack CPU ms/MiB ↓"]
    return table(head, rows, ["---"] + ["---:"] * 14)


def cpu_table(R):
    rows = []
    for mtu in R.mtus:
        cpu = {s: R.cpu(s, mtu) for s in R.stacks}
        own = {s: (c[1] if c else None) for s, c in cpu.items()}
        machine = {s: (c[2] if c else None) for s, c in cpu.items()}
        for s in R.stacks:
            gb = fmt(cpu[s] and cpu[s][0], "%.1f")
            own_cell = "n/a (kernel)" if s == "veth" else fmt(own[s], "%.2f")
            rows.append([mtu, s, gb, own_cell, ratio(own[s], peer_best(own, s, False)),
                         fmt(machine[s], "%.2f")] + ratio_cells(machine, s, False))
    return table(["MTU", "stack", "GB moved", "stack process CPU s/GB ↓", "vs best peer",
                  "whole machine CPU s/GB ↓", "vs veth", "vs best peer"], rows,
                 ["---:", "---"] + ["---:"] * 6)


def forwards_table(R):
    """Per MTU and forward, each stack that has it: iperf3 both ways and round trips."""
    rows = []
    for mtu in R.mtus:
        for fwd, label in FORWARDS:
            stacks = [s for s in R.stacks if any(r["family"] == "forwards" and r["stack"] == s and r["mtu"] == mtu
                                                 and r["fwd"] == fwd for r in R.runs)]
            if not stacks:
                continue
            base = {"family": "forwards", "mtu": mtu}
            gbps = {d: {s: R.best("gbps", dict(base, stack=s, fwd=fwd, test="iperf", dir=d)) for s in stacks}
                    for d, _ in DIRS}
            veth = {d: R.best("gbps", dict(base, stack="veth", fwd="direct", test="iperf", dir=d)) for d, _ in DIRS}
            rr = {s: R.best("tps", dict(base, stack=s, fwd=fwd, test="rr")) for s in stacks}
            veth_rr = R.best("tps", dict(base, stack="veth", fwd="direct", test="rr"))
            for s in stacks:
                other = COUNTERPART.get(s)
                row = [mtu, label, s]
                for d, _ in DIRS:
                    v = gbps[d][s] and gbps[d][s]["gbps"]
                    o = gbps[d].get(other)
                    row += [fmt(v, "%.2f") + (" (stalled)" if gbps[d][s] and gbps[d][s]["stalled"] else ""),
                            ratio(v, veth[d] and veth[d]["gbps"]), ratio(v, o and o["gbps"]) if other else "–"]
                r = rr[s]
                o = rr.get(other)
                row += [fmt(r and r["tps"], "%.0f"), ratio(r and r["tps"], veth_rr and veth_rr["tps"]),
                        ratio(r and r["tps"], o and o["tps"]) if other else "–",
                        fmt(r and r["p50_us"], "%.0f"), fmt(r and r["p99_us"], "%.0f")]
                rows.append(row)
    head = ["MTU", "forward", "stack"]
    for _, label in DIRS:
        head += [label + " Gbit/s", "vs veth", "vs other"]
    head += ["round trips/s", "vs veth", "vs other", "p50 µs ↓", "p99 µs ↓"]
    return table(head, rows, ["---:", "---", "---"] + ["---:"] * 11)


def forwards_udp_table(R):
    """Per MTU and forward, each stack that has it: iperf3 UDP both ways through the forward (-u, -U, add_hostfwd udp)."""
    rows = []
    for mtu in R.mtus:
        for fwd, label in FORWARDS:
            base = {"family": "forwards", "mtu": mtu, "test": "udp"}
            stacks = [s for s in R.stacks if R.best("gbps", dict(base, stack=s, fwd=fwd, dir="g2h"))
                      or R.best("gbps", dict(base, stack=s, fwd=fwd, dir="h2g"))]
            for s in stacks:
                other = COUNTERPART.get(s)
                row = [mtu, label.replace("-t", "-u").replace("-T", "-U"), s]
                for d, _ in DIRS:
                    r = R.best("gbps", dict(base, stack=s, fwd=fwd, dir=d))
                    o = R.best("gbps", dict(base, stack=other, fwd=fwd, dir=d)) if other else None
                    v = r and r["gbps"]
                    row += [fmt(v, "%.2f"), fmt(r and r.get("lost_percent"), "%.1f %%"), ratio(v, o and o["gbps"]) if other else "–"]
                rows.append(row)
    if not rows:
        return "(no UDP forward cells)"
    head = ["MTU", "forward", "stack"]
    for _, label in DIRS:
        head += [label + " Gbit/s", "lost", "vs other"]
    return table(head, rows, ["---:", "---", "---"] + ["---:"] * 6)


def forwards_burst_table(R):
    """Per MTU and forward, each stack that has it: the burst of clients, intact or not, its time, the guest's resends."""
    rows = []
    for mtu in R.mtus:
        for fwd, label in FORWARDS:
            runs = {s: next((r for r in R.runs if r["family"] == "forwards" and r["test"] == "burst" and r["stack"] == s
                             and r["mtu"] == mtu and r["fwd"] == fwd), None) for s in R.stacks}
            secs = {s: (r["res"].get("seconds") if r and r["res"].get("ok") else None) for s, r in runs.items()}
            veth = next((r for r in R.runs if r["family"] == "forwards" and r["test"] == "burst" and r["stack"] == "veth"
                         and r["mtu"] == mtu and r["fwd"] == "direct"), None)
            veth_secs = veth["res"].get("seconds") if veth and veth["res"].get("ok") else None
            for s, r in runs.items():
                if not r:
                    continue
                res = r["res"]
                tcp = r.get("guest_tcp") or {}
                other = COUNTERPART.get(s)
                outcome = "all %s intact" % "{:,}".format(res["n"]) if res.get("ok") else "**failed**: " + res.get("error", "?")
                rows.append([mtu, label, s, outcome, fmt(secs[s], "%.2f"), ratio(secs[s], veth_secs),
                             ratio(secs[s], secs.get(other)) if other else "–", fmt(resent_percent(tcp), "%.2f"),
                             fmt(tcp.get("timeouts"), "%d")])
    if not rows:
        return "(no burst cells)"
    return table(["MTU", "forward", "stack", "clients", "done after s ↓", "vs veth", "vs other",
                  "guest segments resent % ↓", "guest retransmission timeouts ↓"], rows,
                 ["---:", "---", "---", "---", "---:", "---:", "---:", "---:", "---:"])


def targets_table(R):
    """The project's goals for jslirp, each with its worst cell; a jslirp n/a counts as missed."""
    if "jslirp" not in R.stacks:
        return None
    rows = []

    def check(goal, cells, bound):
        """cells: [(label, jslirp value, baseline value)]; cells without a baseline are left out."""
        cells = [(label, a, b) for label, a, b in cells if b]
        if not cells:
            rows.append([goal, "no figure", "–"])
            return
        label, a, b = min(cells, key=lambda c: (c[1] or 0) / c[2])
        worst = "jslirp n/a" if a is None else "%.2f×" % (a / b)
        rows.append([goal, "%s (%s)" % (worst, label), "yes" if a is not None and a / b >= bound else "**no**"])

    def tput(stack, mtu, streams, d):
        r = R.best("gbps", {"family": "throughput", "stack": stack, "mtu": mtu, "streams": streams, "dir": d})
        return r["gbps"] if r else None

    def tput_cells(mtu, base):
        return [("%s, %d stream%s" % (label, streams, "s" if streams > 1 else ""),
                 tput("jslirp", mtu, streams, d), tput(base, mtu, streams, d))
                for streams in (1, 4) for d, label in DIRS]

    def single(family, key):
        a, b = (R.best(key, {"family": family, "stack": s}) for s in ("jslirp", "veth"))
        return [("%s vs %s" % (fmt(a and a[key], "%.0f"), fmt(b and b[key], "%.0f")), a and a[key], b and b[key])]

    if "throughput" in R.tests:
        if 65520 in R.mtus:
            check("throughput, MTU 65520 ≥ pasta", tput_cells(65520, "pasta"), 1.0)
            check("throughput, MTU 65520 ≥ 0.6× veth", tput_cells(65520, "veth"), 0.6)
        if 1500 in R.mtus:
            check("throughput, MTU 1500 ≥ 0.5× veth", tput_cells(1500, "veth"), 0.5)
    if "rr" in R.tests:
        check("round trips ≥ 0.9× veth transactions/s", single("rr", "tps"), 0.9)
    if "crr" in R.tests:
        check("connection rate ≥ 0.9× veth", single("crr", "cps"), 0.9)
    if "conns" in R.tests:
        for n, bound in ((1000, 40), (10000, 64)):
            if n not in R.conns:
                continue
            run = next((r for r in R.runs if r["family"] == "conns" and r["stack"] == "jslirp" and r["n"] == n), None)
            goal = "{:,} concurrent connections succeed, peak memory ≤ {} MB".format(n, bound)
            if run is None:
                rows.append([goal, "jslirp n/a", "**no**"])
            else:
                text, mb = conns_outcome(run)
                ok = run.get("alive", True) and run["res"].get("ok") == n and mb is not None and mb <= bound
                rows.append([goal, "%s, %s MB" % (text, fmt(mb, "%.0f")), "yes" if ok else "**no**"])
    if "conns" in R.tests and 10000 in R.conns:
        runs = {s: next((r for r in R.runs if r["family"] == "conns" and r["stack"] == s and r["n"] == 10000), None)
                for s in ("jslirp", "veth")}
        pct = runs["jslirp"] and resent_percent(runs["jslirp"].get("guest_tcp") or {})
        rows.append(["10,000 connections at once: < 1 % of the guest's segments resent", fmt(pct, "%.2f %%"),
                     "yes" if pct is not None and pct < 1 else "**no**"])
        secs = {s: r and r["res"].get("seconds") for s, r in runs.items()}
        x = secs["jslirp"] / secs["veth"] if secs["jslirp"] and secs["veth"] else None
        rows.append(["10,000 connections at once: done within 2× veth's time", fmt(x, "%.2f×"),
                     "yes" if x is not None and x <= 2 else "**no**"])
    if "udp" in R.tests and "pasta" in R.stacks:
        cells = []
        for d, label in DIRS:
            a, b = (R.best("gbps", {"family": "udp", "stack": st, "dir": d}) for st in ("jslirp", "pasta"))
            cells.append((label, a and a["gbps"], b and b["gbps"]))
        check("UDP ≥ pasta, both directions", cells, 1.0)
    if "idle" in R.tests:
        r = R.best("private_dirty_kb", {"family": "idle", "stack": "jslirp"}, higher=False)
        mb = r and r["private_dirty_kb"] / 1024
        rows.append(["idle instance: private dirty memory ≤ 20 MB", fmt(mb, "%.1f MB"),
                     "yes" if mb is not None and mb <= 20 else "**no**"])
    if "first" in R.tests:
        c = first_cells(R, "jslirp")
        peer = first_cells(R, "slirp4netns") if "slirp4netns" in R.stacks else {}
        for key, label in (("p50_us", "p50"), ("p99_us", "p99")):
            for base, what in ((c.get((2, key)), "its round 2"), (peer.get((1, key)), "slirp4netns's round 1")):
                x = c[(1, key)] / base if c[(1, key)] and base else None
                rows.append(["a fresh instance's first %s round trips: %s ≤ 1.25× %s" % (R.meta.get("FIRST_N"), label, what),
                             fmt(x, "%.2f×"), "yes" if x is not None and x <= 1.25 else "**no**"])
    if "rrload" in R.tests:
        c = rrload_cells(R, "jslirp")
        idle = c.get("idle")
        for load in ("upload", "download"):
            r = c.get(load)
            x = r and idle and r["res"]["p99_us"] / idle["res"]["p99_us"]
            rows.append(["round trips during a bulk %s: p99 ≤ 3× idle p99" % load, fmt(x, "%.2f×"),
                         "yes" if x is not None and x <= 3 else "**no**"])
    return table(["goal (jslirp)", "worst cell", "met"], rows, ["---", "---", "---"]) if rows else None


def report(R, png_note):
    m = R.meta
    out = ["# jslirp benchmark", ""]
    out.append("%s · %s · load %s before, %s after · %s s in all" % (
        m.get("started"), m.get("machine"), m.get("load_before"), m.get("load_after"), m.get("seconds")))
    out.append("")
    out.append("jslirp %s · slirp4netns %s · pasta (passt) %s · iperf3 %s" % (
        m.get("jslirp", "?"), m.get("slirp4netns", "n/a"), m.get("pasta", "n/a"), m.get("iperf3")))
    out.append("")
    out.append("Cells of %s s, best of %s; rr, crr, udp and concurrency at MTU %s. ns = the namespace "
               "(the guest), host = host loopback (veth: the second namespace). **vs veth** = value ÷ veth's; "
               "**vs best peer** = value ÷ the best other user-mode stack's (veth row: the best user-mode stack). "
               "Columns marked ↓ are better when lower, so there a ratio under 1 is the good side."
               % (m["SECS"], m["REPEAT"], m["MTUS"].split()[0]))
    sections = [
        ("throughput", "## Throughput (iperf3 TCP)", throughput_table,
         "Gbit/s received over the whole run. (stalled): some second after the first moved < 1 % of the best one."),
        ("rr", "## Round trips (1-byte ping-pong, one connection, TCP_NODELAY)", rr_table,
         "One transaction at a time for %s s; p50/p99 of the round trip as the client sees it. CPU per round "
         "trip: the stack process's and the whole machine's over the run (its warm-up included) ÷ its round "
         "trips; on this shared 2-core machine the rate follows where the scheduler puts the three parties, "
         "the CPU per round trip much less." % m["SECS"]),
        ("crr", "## Connection rate (connect, 1-byte exchange, close)", crr_table,
         "%s client processes in parallel for %s s; the server closes first. Failed attempts: connects "
         "or exchanges that failed or took over 2 s. CPU per connection: as in the CPU table, over the "
         "run, ÷ the connections made; on a busy machine the rate follows the whole machine's figure." % (m["CRR_CLIENTS"], m["SECS"])),
        ("udp", "## UDP (iperf3 -u -b 0, %s-byte datagrams)" % m["UDP_LEN"], udp_table,
         "The sender goes as fast as it can, so datagrams are lost wherever the path cannot keep up (the "
         "receiving iperf3 too): Gbit/s received, and the share lost."),
        ("conns", "## Concurrent connections", conns_table,
         "All N connections opened (at most 500 handshakes at a time) and held open, then %s bytes echoed on "
         "each and checked, all within %s s. Peak RSS: VmHWM of the stack process, started fresh for each N; "
         "peak anonymous: its RssAnon, sampled every 20 ms (what the instance holds privately: VmHWM also counts "
         "the file pages of its libraries and of a JVM's AOT cache, which every instance shares); peak RSS before the "
         "first connection: the VmHWM the stack had reached by then, its own start (a JVM's start-up, a warm-up "
         "where it has one), which no connection's memory is. Guest segments resent: the share of the TCP segments "
         "the namespace's kernel sent that it sent again (its /proc/net/snmp RetransSegs ÷ OutSegs over the cell), "
         "its retransmission timeouts (TCPTimeouts), and the frames its tap (tap0; the host interface's name for jslirp as pasta) dropped on their way to the stack "
         "(tx_dropped: the stack did not read them in time)."
         % (m["CONN_BYTES"], m["CONN_TIMEOUT"])),
        ("idle", "## An idle instance", idle_table,
         "%s s after it came up and configured its namespace: the stack process's private dirty memory "
         "(Private_Dirty of /proc/PID/smaps_rollup: what each further instance costs; shared library and JDK pages "
         "are not in it), RSS and threads; then %s instances side by side, each serving a namespace of its own."
         % (m.get("IDLE_SETTLE", "?"), m.get("IDLE_INSTANCES", "?"))),
        ("rrload", "## Round trips beside bulk traffic (MTU %s)" % m["MTUS"].split()[0], rrload_table,
         "%s 1-byte round trips (TCP_NODELAY) idle, then %s while another connection of the namespace uploads "
         "(iperf3 ns→host) and while one downloads (host→ns) at full speed; the bulk rate over its run.%s"
         % (m.get("RRLOAD_N", "?"), m.get("RRLOAD_N", "?"),
            " The ping-pong's two ends ran under SCHED_FIFO (BENCH_RRLOAD_RT=1): a woken end takes a core at once, "
            "so the p99 is the stack's queue and its own scheduling." if str(m.get("RRLOAD_RT", "0")) == "1" else "")),
        ("first", "## A fresh instance's first exchanges", first_table,
         "Each cell on an instance started for it, %s s after it came up: its first connection (the client's connect), then %s 1-byte round trips (TCP_NODELAY, "
         "none unmeasured: round 1), then %s more on the same connection (round 2); on another fresh instance "
         "its first %s MiB downloaded (iperf3 -R -n), with the stack's CPU over it. Medians over the instances "
         "counted in the second column. A fresh instance's first 1,000 connections are the concurrency table's."
         % (m.get("FIRST_SETTLE"), m.get("FIRST_N"), m.get("FIRST_N"), m.get("FIRST_MIB"))),
        ("cpu", "## CPU per GB moved (the throughput runs)", cpu_table,
         "Stack process: utime+stime of all its threads ÷ GB received (veth: no such process). Whole machine: "
         "busy CPU time of all cores (stack, iperf3 on both ends, kernel; a shared machine adds noise) ÷ GB."),
        ("forwards", "## Forwarded ports (iperf3 TCP, 1 stream; round trips)", forwards_table,
         "Each stack with one forward at a time: `-t HP-HP:CP-CP` (jslirp-pasta, pasta) and slirp4netns's API "
         "`add_hostfwd` 127.0.0.1:HP → the guest's CP (slirp4netns, jslirp attach `--api-socket`) with the "
         "client on the host at 127.0.0.1:HP and the servers in the namespace; `-T P-P:P-P` (jslirp-pasta, "
         "pasta) with the client in the namespace at its 127.0.0.1:P and the servers on host loopback. "
         "ns→host and host→ns say where the bytes go (iperf3's -R turns the direction round); veth: the same "
         "cells straight between its namespaces, no forward. **vs other**: ÷ the other program on the same "
         "forward (jslirp-pasta ÷ pasta, jslirp ÷ slirp4netns, and the other way round). Round trips: "
         "1-byte ping-pong with TCP_NODELAY for %s s." % m["SECS"]),
        ("forwards", "## Forwarded ports: UDP (iperf3 -u -b 0)", forwards_udp_table,
         "The same sessions: iperf3 UDP at unlimited rate, %s-byte datagrams, through `-u`/`-U` of iperf3's port "
         "(jslirp-pasta, pasta) or `add_hostfwd` with proto udp (slirp4netns, jslirp attach); Gbit/s received "
         "and datagrams lost. **vs other** as above." % m.get("UDP_LEN", "?")),
        ("forwards", "## Forwarded ports: a burst of clients", forwards_burst_table,
         "The same sessions: %s clients at once (at most 500 connects in flight, every connection open before any "
         "is read), each reading %s bytes that a server sends on every connection it accepts, checked by sha256 "
         "(src/test/resources/it/forwarded_burst.py). Seconds from the first connect to the last byte; the "
         "served namespace's TCP counters over the cell (for -t and add_hostfwd its server sent the bytes, for -T "
         "and veth its clients read them). **vs other** as above." % (m.get("FW_BURST", "?"), m.get("FW_BURST_BYTES", "?"))),
    ]
    for fam, title, fn, note in sections:
        if fam in R.tests:
            out += ["", title, "", note, "", fn(R)]
    targets = targets_table(R)
    if targets:
        out += ["", "## Goals", "", "jslirp against the project's targets, with the worst cell of each.", "", targets]
    if png_note:
        out += ["", png_note]
    return "\n".join(out) + "\n"


# ---- the chart --------------------------------------------------------------------------------------

def chart(R, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib is missing (apt-get install python3-matplotlib): no chart", file=sys.stderr)
        return None
    fig = plt.figure(figsize=(16, 13))
    grid = fig.add_gridspec(3, 3)
    width = 0.8 / max(1, len(R.stacks))

    def bars(ax, groups, value, title, ylabel):
        """groups: [(label, match dict)]; value(stack, match) -> (float, hatched) or None."""
        drawn = False
        for i, s in enumerate(R.stacks):
            for g, (_, match) in enumerate(groups):
                v = value(s, match)
                if v is not None:
                    ax.bar(g + (i - (len(R.stacks) - 1) / 2) * width, v[0], width, color=COLORS.get(s),
                           hatch="//" if v[1] else None, edgecolor="white" if v[1] else None)
                    drawn = True
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([label for label, _ in groups], fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(ylabel)
        if not drawn:
            ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)

    def best(key, family, higher=True):
        def value(s, match):
            r = R.best(key, dict(match, family=family, stack=s), higher)
            return (r[key], r.get("stalled", False)) if r else None
        return value

    def conns_mem(s, match):
        run = next((r for r in R.runs if r["family"] == "conns" and r["stack"] == s and r["n"] == match["n"]), None)
        if run is None or run.get("hwm_kb") is None:
            return None
        return run["hwm_kb"] / 1024, conns_outcome(run)[0] != "%d / %d" % (match["n"], match["n"])

    def cpu(s, match):
        c = R.cpu(s, match["mtu"])
        return (c[1], False) if c and c[1] is not None else None

    def latency(s, match):  # of the run with the best transactions/s, as in the table
        r = R.best("tps", {"family": "rr", "stack": s})
        return (r[match["key"]], False) if r else None

    def family(name, groups):
        return groups if name in R.tests else []

    tp = [("MTU %d\n%s\n%d stream%s" % (mtu, label, streams, "s" if streams > 1 else ""),
           {"mtu": mtu, "streams": streams, "dir": d})
          for mtu in R.mtus for streams in (1, 4) for d, label in DIRS]
    bars(fig.add_subplot(grid[0, :]), family("throughput", tp), best("gbps", "throughput"),
         "TCP throughput, iperf3 (hatched: stalled)", "Gbit/s")
    bars(fig.add_subplot(grid[1, 0]), family("rr", [("", {})]), best("tps", "rr"),
         "1-byte round trips", "transactions/s")
    bars(fig.add_subplot(grid[1, 1]), family("rr", [("p50", {"key": "p50_us"}), ("p99", {"key": "p99_us"})]),
         latency, "round-trip latency (lower is better)", "µs")
    bars(fig.add_subplot(grid[1, 2]), family("crr", [("", {})]), best("cps", "crr"),
         "connection rate (connect, exchange, close)", "connections/s")
    bars(fig.add_subplot(grid[2, 0]), family("udp", [(label, {"dir": d}) for d, label in DIRS]),
         best("gbps", "udp"), "UDP received, sender at full speed", "Gbit/s")
    mem_ax = fig.add_subplot(grid[2, 1])
    bars(mem_ax, family("conns", [("{:,} connections".format(n), {"n": n}) for n in R.conns]),
         conns_mem, "peak memory of the stack process (hatched: not all succeeded)", "MB")
    if "conns" in R.tests:
        mem_ax.axhline(64, color="black", linestyle="--", linewidth=0.8)
        mem_ax.annotate("goal at 10,000: 64 MB", (0.01, 64), xycoords=("axes fraction", "data"),
                        xytext=(0, 3), textcoords="offset points", fontsize=8)
    bars(fig.add_subplot(grid[2, 2]), family("cpu", [("MTU %d" % mtu, {"mtu": mtu}) for mtu in R.mtus]),
         cpu, "stack process CPU per GB moved (lower is better)", "CPU s / GB")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS.get(s)) for s in R.stacks]
    fig.legend(handles, R.stacks, loc="upper center", ncol=len(R.stacks), bbox_to_anchor=(0.5, 0.965))
    fig.suptitle("jslirp benchmark, %s (%s)" % (R.meta.get("started"), R.meta.get("machine")), y=0.99, fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.935))
    fig.savefig(path, dpi=100)
    return path


def main():
    results, meta_path, png = sys.argv[1:4]
    R = Results(*load(results, meta_path))
    path = chart(R, png)
    sys.stdout.write(report(R, "Chart: `%s`" % path if path else "Chart: not drawn (matplotlib missing)"))
    if path:
        print("bench: chart written to %s" % path, file=sys.stderr)


main()
