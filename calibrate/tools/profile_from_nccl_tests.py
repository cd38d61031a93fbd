#!/usr/bin/env python3
"""Builds a calibration profile (schema 2) from nccl-tests all-reduce tables.

Used for calibrate/profiles/a100-sxm-allreduce-vtrain.json, from the published vTrain measurements
(../shared/validation/vtrain/allreduce_a100_{2..8}gpu.csv: nccl-tests all_reduce_perf on 2 to 8 A100
SXM GPUs of one NVSwitch node, out-of-place time):

    calibrate/tools/profile_from_nccl_tests.py ../shared/validation/vtrain > calibrate/profiles/a100-sxm-allreduce-vtrain.json
"""
import csv
import json
import pathlib
import sys


def table(path, ranks):
    points = []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row or not row[0].strip().isdigit():
                continue
            points.append([int(row[0]), float(row[3]) * 1e-9])
    return {"op": "all_reduce", "ranks": ranks, "points": points}


def main():
    folder = pathlib.Path(sys.argv[1])
    profile = {
        "schema_version": 2,
        "machine": {"gpu": "a100-80gb", "gpu_count": 8},
        "measured_at": "2024",
        "source": "vTrain (MICRO'24, MIT licence) allreduce_a100_{2..8}gpu.csv: nccl-tests all_reduce_perf, out-of-place "
                  "time, 1 MiB to 1 GiB, 2-8 A100 SXM GPUs in one NVSwitch node (GPU memory size not stated; labelled "
                  "a100-80gb); converted by calibrate/tools/profile_from_nccl_tests.py",
        "collectives": [table(folder / f"allreduce_a100_{n}gpu.csv", n) for n in range(2, 9)],
    }
    json.dump(profile, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
