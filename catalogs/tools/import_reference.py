#!/usr/bin/env python3
"""Regenerate preflight's GPU and cloud-instance catalogs from the reference CSVs.

Reads (from REFERENCE_DIR, normally ../shared/reference):
  gpus.csv           datasheet peaks per GPU; its header comment names the datasheet per [TAG]
  gpu_instances.csv  cloud GPU instance rows (AWS, GCP, Azure) with on-demand and spot
                     USD/hour per region/zone; its header comment names the source repo,
                     path and commit of each cloud's price catalog

Writes (into catalogs/, next to this tools/ folder, or --out DIR):
  gpus.json                 from gpus.csv plus the GPU_EXTRA table of gpu_catalog.py (T4 is not
                            in the CSV; the A10G decision; names, notes, SM counts)
  instances/aws.json        \
  instances/gcp.json         > from gpu_instances.csv plus the HARDWARE table (instance_hardware.py)
  instances/azure.json      /  (intra-node link, inter-node network, local NVMe, sources)

  instances/onprem.json and instances/local.json are hand-written and not touched here.

Run from the repository root:
  python3 catalogs/tools/import_reference.py ../shared/reference
  python3 catalogs/tools/import_reference.py ../shared/reference --check   # exit 1 if stale

Rules it applies (see the reference README's list of traps):
  * every CSV price row is either one element of its instance's "prices" list or one
    "skipped" entry with a reason; nothing is dropped silently;
  * prices are copied as the CSV gives them; an empty price becomes JSON null (never 0);
    spot == on-demand and spot > on-demand rows are kept (the C++ loader warns on them);
  * GCP "gpu_only" accelerator rows (no host VM price) are skipped;
  * rows whose GPU is not in gpus.json (B300) are skipped;
  * an instance type the CSV lists but HARDWARE does not describe stops the run, so a new
    type cannot enter the catalog without its hardware facts and their source.

Output is deterministic: instance types in first-appearance order of the CSV, price rows in
CSV order, 2-space indent, trailing newline.  Python 3 standard library only.  The C++
build never runs or needs this script; it only reads the JSON it produced.

The import is split by concern: reference_csv.py (reading the CSVs, writing JSON), gpu_catalog.py
(gpus.json), instance_hardware.py (the HARDWARE table), instance_catalog.py (instances/*.json).
"""

import argparse
import os
import sys

from gpu_catalog import build_gpus
from instance_catalog import PROVIDERS, build_instances
from reference_csv import AS_OF_DEFAULT, dump
from gcp_snapshot import build_gcp
from snapshot_catalog import build_provider, snapshot_providers


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reference_dir", help="folder holding gpus.csv and gpu_instances.csv")
    ap.add_argument("--out", default=os.path.dirname(here),
                    help="catalogs folder to write into (default: %(default)s)")
    ap.add_argument("--as-of", default=AS_OF_DEFAULT,
                    help="as_of date written into every entry (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if any generated file differs from disk")
    args = ap.parse_args(argv)

    gpus = build_gpus(args.reference_dir, args.as_of)
    gpu_ids = {g["id"] for g in gpus["gpus"]}
    instances, row_count = build_instances(args.reference_dir, gpu_ids, args.as_of)

    files = {os.path.join(args.out, "gpus.json"): dump(gpus)}
    for p in PROVIDERS:
        files[os.path.join(args.out, "instances", p + ".json")] = dump(instances[p])
    # The other providers: from the pinned SkyPilot catalog snapshots in catalogs/snapshots/skypilot.
    gpu_by_id = {g["id"]: g for g in gpus["gpus"]}
    snapshots = {}
    snapshots["gcp"] = build_gcp(os.path.dirname(here), gpu_by_id)
    for p in snapshot_providers(os.path.dirname(here)):
        snapshots[p] = build_provider(os.path.dirname(here), p, gpu_by_id)
    for p, (doc, _) in snapshots.items():
        files[os.path.join(args.out, "instances", p + ".json")] = dump(doc)

    stale = []
    for path, text in files.items():
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old == text:
            continue
        stale.append(path)
        if not args.check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)

    for p in PROVIDERS:
        n_prices = sum(len(i["prices"]) for i in instances[p]["instances"])
        n_skip = len(instances[p]["skipped"])
        assert n_prices + n_skip == row_count[p], p
        print("%-6s %2d instance types, %3d price rows, %d skipped rows (csv rows: %d)"
              % (p, len(instances[p]["instances"]), n_prices, n_skip, row_count[p]))
    for p, (doc, rows) in snapshots.items():
        n_prices = sum(len(i["prices"]) for i in doc["instances"])
        assert n_prices + len(doc["skipped"]) == rows, p
        print("%-14s %3d instance types, %3d price rows, %3d skipped rows (snapshot rows: %d)"
              % (p, len(doc["instances"]), n_prices, len(doc["skipped"]), rows))
    print("gpus   %2d entries" % len(gpus["gpus"]))
    if args.check:
        for s in stale:
            print("stale: " + s)
        return 1 if stale else 0
    for s in stale:
        print("wrote: " + s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
