#!/usr/bin/env python3
"""Fits the RL trainer shares (simulator/rollout/rollout_defaults.hpp) to published/rl_runs.csv.

The share is the part of the simulated trainer's throughput an RL framework's trainer sustains in its
log-prob and update passes, one per trainer stack (transformers: verl's FSDP actor; megatron: NeMo-RL's
and verl's Megatron actors). It reads each row's predicted phases from `preflight validate --rl-rows`
(simulated at the shipped shares, undone here), fits each stack's share to its rows (the median
log-error zero over a grid 0.10-1.00), and predicts each source's rows from a share fitted to the other
sources' rows of that stack (held out). Writes the report to published/rl_fit_report.md and prints the
shares to put in rollout_defaults.hpp.

  scripts/fit_rl_trainer_share.py [build/planner/preflight]
"""
import csv
import io
import math
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARY = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/planner/preflight")
GRID = [round(0.10 + 0.01 * i, 2) for i in range(91)]


def source_of(row_id):
    # The publication a row comes from: its id's first two words (rocm-verl, nemorl-grpo, verl-osop, verl-fa).
    return "-".join(row_id.split("-")[:2])


def load_rows():
    text = subprocess.run([BINARY, "validate", "--rl-rows"], check=True, capture_output=True, text=True, cwd=ROOT).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    for r in rows:
        share = float(r["trainer_share"])
        for k in ("step", "generation", "generation_hidden", "logprob", "update", "sync", "tokens_per_gpu"):
            r[k] = float(r[k])
        # The trainer's passes at a share of 1 (the simulated pre-training stack's speed).
        r["logprob_raw"] = r["logprob"] * share
        r["update_raw"] = r["update"] * share
        r["measured"] = float(r["measured"])
    return rows


def predicted(r, share):
    logprob = r["logprob_raw"] / share
    update = r["update_raw"] / share
    training = logprob + update
    if r["generation_hidden"] > 0.0:  # a generator a step ahead: the longer of the two
        step = max(r["generation"], training) + r["sync"]
    else:
        step = r["generation"] + training + r["sync"]
    q = r["quantity"]
    if q == "generation_seconds":
        return r["generation"]
    if q == "logprob_seconds":
        return logprob
    if q == "update_seconds":
        return update
    if q == "sync_seconds":
        return r["sync"]
    if q == "tokens_per_gpu_second":
        return r["tokens_per_gpu"] / step  # tokens per GPU per second
    return step


def error(r, share):
    # As `validate` signs it: + when the prediction is faster (optimistic).
    p = predicted(r, share)
    if r["quantity"] == "tokens_per_gpu_second":
        return p / r["measured"] - 1.0
    return r["measured"] / p - 1.0


def fit(rows):
    # The share whose median log-error over the rows is nearest zero (rows whose prediction depends on it).
    dependent = [r for r in rows if r["quantity"] not in ("generation_seconds", "sync_seconds")]
    if not dependent:
        return None
    return min(GRID, key=lambda s: abs(statistics.median(math.log1p(error(r, s)) for r in dependent)))


def main():
    rows = load_rows()
    stacks = sorted({r["trainer"] for r in rows})
    shares = {s: fit([r for r in rows if r["trainer"] == s]) for s in stacks}
    held = []
    for r in rows:
        others = [o for o in rows if o["trainer"] == r["trainer"] and source_of(o["id"]) != source_of(r["id"])]
        share = fit(others)
        held.append((r, share, error(r, share) if share is not None else None))
    out = ["# RL trainer shares: fit and held-out error", "",
           "Produced by `scripts/fit_rl_trainer_share.py` from `published/rl_runs.csv` (each row's phases from",
           "`preflight validate --rl-rows`). A stack's share is fitted to its rows; each row is then predicted from the",
           "share fitted to the other sources' rows of its stack (held out). Errors: + when the prediction is faster.", "",
           "| stack | share (all rows) | rows |", "|---|---:|---:|"]
    for s in stacks:
        out.append(f"| {s} | {shares[s]:.2f} | {sum(1 for r in rows if r['trainer'] == s)} |")
    out += ["", "| row | stack | quantity | measured | in-sample error | held-out share | held-out error |", "|---|---|---|---:|---:|---:|---:|"]
    for r, share, e in held:
        ins = error(r, shares[r["trainer"]])
        out.append(f"| {r['id']} | {r['trainer']} | {r['quantity']} | {r['measured']:g} | {ins:+.1%} | "
                   + (f"{share:.2f} | {e:+.1%} |" if share is not None else "- | - |"))
    errors = [e for _, _, e in held if e is not None]
    if errors:
        out += ["", f"Held out: {len(errors)} rows, median |error| {statistics.median(abs(e) for e in errors):.1%}, "
                    f"mean signed {statistics.mean(errors):+.1%}, within 25%: {sum(1 for e in errors if abs(e) <= 0.25)}."]
        # The 80% interval of the held-out step rows, as multipliers of the predicted step (the real step
        # over the predicted: 1 + error on the 10th and 90th percentiles).
        steps = sorted(1.0 + e for (r, _, e) in held if e is not None and r["quantity"] in ("step_seconds", "tokens_per_gpu_second"))
        if len(steps) >= 5:
            qs = statistics.quantiles(steps, n=10, method="inclusive")
            out += [f"80% interval of the held-out steps (real over predicted): {qs[0]:.2f}-{qs[-1]:.2f} ({len(steps)} rows)."]
            print(f"interval {qs[0]:.2f} {qs[-1]:.2f} {len(steps)}")
    ins = [error(r, shares[r["trainer"]]) for r in rows]
    out += [f"In sample: {len(ins)} rows, median |error| {statistics.median(abs(e) for e in ins):.1%}, "
            f"mean signed {statistics.mean(ins):+.1%}, within 25%: {sum(1 for e in ins if abs(e) <= 0.25)}.", ""]
    (ROOT / "published" / "rl_fit_report.md").write_text("\n".join(out))
    for s in stacks:
        print(f"{s} {shares[s]:.2f}")


if __name__ == "__main__":
    main()
