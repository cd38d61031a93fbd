#!/usr/bin/env python3
"""The default spot-interruption figures per machine class, derived from the public traces.

Reads (from SHARED_DIR, normally ../shared):
  reference/spot_trace_summary.csv   per-trace statistics of SkyPilot's and Bamboo's traces
                                     (preemptions per instance-hour, fraction of time up, mean
                                     uptime run, most instances held at once)
  spot_traces/uclasystem_bamboo/p3-trace.csv, g4dn-trace.csv    event lists of 24-32 node fleets
  spot_traces/uclasystem_bamboo/gcloud/*.txt                    running-instance counts of GCP fleets

Writes catalogs/fitted/spot_interruptions.json (what `preflight` reads) and
catalogs/fitted/spot_interruptions_report.md (every trace, what it gave, what was left out and why).

What it derives, per class (provider x one GPU per node or several):
  * interruptions per node-hour: the median over the class's traces of preemptions per
    instance-hour; low and high are the smallest and largest trace;
  * hours to re-acquire capacity after a reclaim: for each 1-node trace, the mean span the
    instance could not be had, mean uptime run x (1 - fraction up) / fraction up (the trace
    alternates up and down runs); median, smallest and largest;
  * the most nodes of the class any trace held at once (a plan needing more is warned);
and once for all classes (only multi-node event traces show it):
  * the reclaim fraction: the share of a fleet's live nodes one reclaim event takes, the mean per
    trace (events grouped by time stamp), median over traces. A job of N nodes is then interrupted
    at (rate / f) (1 - (1 - f)^N) per hour instead of rate x N: a reclaim takes many nodes at once.

A class without traces (GCP multi-GPU, Azure, inline clusters, every provider without a trace: "*")
runs on a stated prior: every GPU trace pooled, marked "prior": true; the planner prices spot on it at
the prior's pessimistic end and says so. CPU-only traces (GCP c3-88) are left out: GPU capacity is
what a training job competes for. Deterministic; Python 3 standard library only.

  python3 catalogs/tools/spot_interruptions.py ../shared           # write
  python3 catalogs/tools/spot_interruptions.py ../shared --check   # exit 1 if the files are stale
"""

import argparse
import datetime
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_csv import dump, num, read_commented_csv  # noqa: E402

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fitted")
SUMMARY = "reference/spot_trace_summary.csv"
EVENT_TRACES = ["spot_traces/uclasystem_bamboo/p3-trace.csv", "spot_traces/uclasystem_bamboo/g4dn-trace.csv"]
COUNT_TRACES = ["spot_traces/uclasystem_bamboo/gcloud/a100x1-east1b.txt",
                "spot_traces/uclasystem_bamboo/gcloud/v100x1-east1c.txt"]
# Bamboo's p3 trace is of p3.2xlarge (one V100 each; Bamboo, NSDI'23, section 6); its g4dn trace
# does not document the instance size, so it informs the reclaim fraction only.
BAMBOO_CLASS = {"traces/p3-trace.csv": ("aws", "one")}
GCLOUD_CLASS = ("gcp", "one")  # a100x1 / v100x1: one GPU per VM
# Classes without traces of their own run on a stated prior, never on another provider's figures
# as if they were theirs: every GPU trace of every class pooled (median as the value, the smallest
# and largest trace as the range), and a plan prices such spot at the range's pessimistic end.
PRIORS = [
    ("gcp", "multi", "no shipped trace of multi-GPU GCP spot VMs"),
    ("azure", "one", "no shipped Azure spot trace"),
    ("azure", "multi", "no shipped Azure spot trace"),
    ("inline", "one", "an inline cluster without its own rate"),
    ("inline", "multi", "an inline cluster without its own rate"),
    ("*", "one", "no shipped spot trace of this provider (neocloud interruptible offers)"),
    ("*", "multi", "no shipped spot trace of this provider (neocloud interruptible offers)"),
]
DECIMALS = 4


def rounded(x):
    return round(x, DECIMALS)


def spread(values):
    return {"value": rounded(statistics.median(values)), "low": rounded(min(values)), "high": rounded(max(values))}


def skypilot_class(trace_path):
    """availability/1-node/aws-02-15-2023/us-east-1a_v100_1.json -> ('aws', 'one') or None (CPU)."""
    m = re.match(r"(availability|preemption)/(\d+)-node/(aws|gcp)-[\d-]+/[^_]+_([a-z0-9-]+?)(?:_(\d+))?\.json$",
                 trace_path)
    if not m:
        raise SystemExit("spot_trace_summary.csv: unrecognised trace path %r" % trace_path)
    provider, gpu, count = m.group(3), m.group(4), m.group(5)
    if count is None:  # c3-88: a CPU machine type, no GPU count in the name
        return None
    return provider, "one" if int(count) == 1 else "multi"


def summary_rows(shared):
    _, rows = read_commented_csv(os.path.join(shared, SUMMARY))
    out = []
    for r in rows:
        repo, path = r["source_repo"].strip(), r["trace_path"].strip()
        if repo == "skypilot-org/spot-traces":
            cls = skypilot_class(path)
        else:
            cls = BAMBOO_CLASS.get(path)
        out.append({
            "repo": repo,
            "trace": repo + " " + path,
            "class": cls,
            "rate": num(r["preemptions_per_instance_hour"]),
            "max_instances": num(r["max_instances"]),
            "up": num(r["frac_time_up_or_full"]),
            "uptime": num(r["mean_uptime_run_hours(1-node)"]),
            "one_node": num(r["max_instances"]) == 1,
        })
    return out


def event_trace_fraction(path):
    """Mean share of the live fleet one removal event takes (removals at one time stamp = one event),
    the events, and the mean hours until the fleet is back to its size before each event (events
    the trace ends before restoring are left out)."""
    groups = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            t, action, node = line.split(",")
            groups.setdefault(int(t), []).append((action, node))
    alive, shares, pending, restored = set(), [], [], []
    for t in sorted(groups):
        before = len(alive)
        removed = sum(1 for a, _ in groups[t] if a == "remove")
        for action, node in groups[t]:
            (alive.add if action == "add" else alive.discard)(node)
        if removed:
            shares.append(removed / before)
            pending.append((t, before))
        still = []
        for start, size in pending:
            if t > start and len(alive) >= size:
                restored.append((t - start) / 3.6e6)
            else:
                still.append((start, size))
        pending = still
    return statistics.mean(shares), len(shares), statistics.mean(restored), len(restored)


def read_counts(path):
    """A gcloud trace's `YYYY-MM-DD, HH:MM:SS, count` rows as (time, running instances)."""
    counts = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                day, clock, count = [x.strip() for x in line.split(",")]
                counts.append((datetime.datetime.fromisoformat(day + " " + clock), int(count)))
    return counts


def count_trace_fraction(path):
    """The same from a running-instance count: each drop between samples is one event."""
    counts = read_counts(path)
    shares = [(c0 - c1) / c0 for (_, c0), (_, c1) in zip(counts, counts[1:]) if c1 < c0]
    return statistics.mean(shares), len(shares), max(c for _, c in counts)


def derive(shared):
    rows = summary_rows(shared)
    report = []
    classes = {}
    for r in rows:
        if r["class"] is None:
            why = ("instance size not documented: informs the reclaim fraction only" if r["repo"] == "uclasystem/bamboo"
                   else "CPU machine type, not GPU capacity")
            report.append((r["trace"], "left out", why))
            continue
        c = classes.setdefault(r["class"], {"rates": [], "rate_traces": [], "reacquire": [], "reacquire_traces": [],
                                            "max_nodes": 0})
        c["rates"].append(r["rate"])
        c["rate_traces"].append(r["trace"])
        c["max_nodes"] = max(c["max_nodes"], r["max_instances"])
        note = "rate %.3f per node-hour" % r["rate"]
        if r["one_node"] and r["up"] and r["uptime"] is not None and 0 < r["up"] < 1:
            down = r["uptime"] * (1 - r["up"]) / r["up"]
            c["reacquire"].append(down)
            c["reacquire_traces"].append(r["trace"])
            note += ", unavailable %.2f h on average" % down
        report.append((r["trace"], "%s %s" % r["class"], note))

    fractions, restores = [], []
    for rel in EVENT_TRACES:
        share, events, restore, restored = event_trace_fraction(os.path.join(shared, rel))
        fractions.append((rel, share, events))
        restores.append((rel, restore, restored))
    for rel in COUNT_TRACES:
        share, events, most = count_trace_fraction(os.path.join(shared, rel))
        fractions.append((rel, share, events))
        # A GCP count trace is one GPU per VM: its rate comes from the summary's method (decrements
        # per instance-hour) computed here, since the summary lists only SkyPilot's and Bamboo's traces.
        c = classes.setdefault(GCLOUD_CLASS, {"rates": [], "rate_traces": [], "reacquire": [], "reacquire_traces": [],
                                              "max_nodes": 0})
        rate = count_trace_rate(os.path.join(shared, rel))
        c["rates"].append(rate)
        c["rate_traces"].append("uclasystem/bamboo " + rel.split("uclasystem_bamboo/")[1])
        c["max_nodes"] = max(c["max_nodes"], most)
        report.append(("uclasystem/bamboo " + rel.split("uclasystem_bamboo/")[1], "gcp one",
                       "rate %.3f per node-hour, %d reclaim events" % (rate, events)))

    out_classes = []
    for key in sorted(classes):
        c = classes[key]
        entry = {"provider": key[0], "gpus_per_node": key[1],
                 "interruptions_per_node_hour": spread(c["rates"]),
                 "rate_traces": len(c["rates"])}
        if c["reacquire"]:
            entry["reacquire_hours"] = spread(c["reacquire"])
            entry["reacquire_traces"] = len(c["reacquire"])
        else:
            other = classes[("aws", key[1])]
            entry["reacquire_hours"] = spread(other["reacquire"])
            entry["reacquire_traces"] = 0
            entry["reacquire_borrowed_from"] = "aws %s" % key[1]
        entry["max_nodes_observed"] = c["max_nodes"]
        out_classes.append(entry)
    pooled_rates = [r for c in classes.values() for r in c["rates"]]
    pooled_reacquire = [h for c in classes.values() for h in c["reacquire"]]
    for provider, count, why in PRIORS:
        out_classes.append({"provider": provider, "gpus_per_node": count, "prior": True, "why": why,
                            "interruptions_per_node_hour": spread(pooled_rates), "rate_traces": len(pooled_rates),
                            "reacquire_hours": spread(pooled_reacquire), "reacquire_traces": len(pooled_reacquire),
                            # Obtainability is a property of the machine class: a prior for multi-GPU
                            # machines takes the most multi-GPU nodes any trace held, not a one-GPU fleet's.
                            "max_nodes_observed": max(c["max_nodes"] for k, c in classes.items() if k[1] == count)})

    shares = [s for _, s, _ in fractions]
    doc = {
        "source": "catalogs/tools/spot_interruptions.py over ../shared/reference/spot_trace_summary.csv and "
                  "../shared/spot_traces (SkyPilot spot-traces 2022-2023, Bamboo NSDI'23 traces 2021); "
                  "fitted/spot_interruptions_report.md lists every trace",
        "as_of": "2023-08-27",
        "reclaim_fraction": dict(spread(shares), traces=len(shares)),
        "classes": out_classes,
    }
    return doc, report, fractions, restores


def count_trace_rate(path):
    """Removals per instance-hour of a running-instance count (the summary's method)."""
    counts = read_counts(path)
    node_hours = sum(c0 * (t1 - t0).total_seconds() / 3600 for (t0, c0), (t1, _) in zip(counts, counts[1:]))
    removed = sum(c0 - c1 for (_, c0), (_, c1) in zip(counts, counts[1:]) if c1 < c0)
    return removed / node_hours


def report_text(doc, report, fractions, restores):
    lines = ["# Spot interruption defaults: what each trace gave", "",
             "Written by `catalogs/tools/spot_interruptions.py` (do not edit). The figures in "
             "`spot_interruptions.json` are the median over a class's traces, with the smallest and "
             "largest as the range the plan's sensitivity table uses.", "",
             "| trace | class | what it gave |", "|---|---|---|"]
    for trace, cls, note in report:
        lines.append("| %s | %s | %s |" % (trace, cls, note))
    lines += ["", "Reclaim fraction (share of a fleet's live nodes one event takes):", "",
              "| trace | events | mean share |", "|---|---:|---:|"]
    for rel, share, events in fractions:
        lines.append("| %s | %d | %.3f |" % (rel, events, share))
    lines += ["", "Fleet restore time (event traces: hours until the fleet is back to its size before a reclaim; "
              "a scenario replaying or imitating one of these fleets can give it as preemption.reacquire_hours):", "",
              "| trace | restored events | mean hours |", "|---|---:|---:|"]
    for rel, restore, restored in restores:
        lines.append("| %s | %d | %.3f |" % (rel, restored, restore))
    lines += ["", "| class | per node-hour (low-high) | traces | re-acquire h (low-high) | most nodes at once |",
              "|---|---|---:|---|---:|"]
    for c in doc["classes"]:
        r, w = c["interruptions_per_node_hour"], c["reacquire_hours"]
        lines.append("| %s %s | %.3f (%.3f-%.3f)%s | %d | %.2f (%.2f-%.2f)%s | %d |" % (
            c["provider"], c["gpus_per_node"], r["value"], r["low"], r["high"],
            " prior (%s): priced at %.3f" % (c["why"], r["high"]) if c.get("prior") else "", c["rate_traces"], w["value"],
            w["low"], w["high"], " as " + c["reacquire_borrowed_from"] if "reacquire_borrowed_from" in c else "",
            c["max_nodes_observed"]))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shared", help="the shared folder (holds reference/ and spot_traces/)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file differs")
    args = ap.parse_args(argv)
    doc, report, fractions, restores = derive(args.shared)
    files = {"spot_interruptions.json": dump(doc), "spot_interruptions_report.md": report_text(doc, report, fractions, restores)}
    stale = []
    for name, text in files.items():
        path = os.path.normpath(os.path.join(OUT_DIR, name))
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current != text:
            stale.append(path)
            if not args.check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    if args.check and stale:
        print("stale (re-run catalogs/tools/spot_interruptions.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    for path in stale:
        print("wrote: " + path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
