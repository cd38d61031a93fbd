"""instances/<provider>.json from the reference gpu_instances.csv and the HARDWARE table: every
price row is one quote of its instance or one skipped entry with a reason."""

import os
import re

from instance_hardware import HARDWARE
from reference_csv import num, read_commented_csv

PROVIDERS = ["aws", "azure"]
# GCP's rows in the reference CSV were a hand transcription of a few zones with a flagged half-price
# row; gcp.json now comes from the pinned SkyPilot snapshot (gcp_snapshot.py), and the CSV's GCP rows
# are not read.
SUPERSEDED = {"gcp"}


def parse_price_sources(comments):
    """'# source: github.com/ORG/REPO ; AWS path @ commit SHA ; ...' -> (repo, {cloud: (path, sha)})."""
    header = " ".join(comments)
    m = re.search(r"source:\s*(\S+)", header)
    if not m:
        raise SystemExit("gpu_instances.csv: no 'source:' in the header comment")
    repo = m.group(1)
    out = {}
    for cloud, path, sha in re.findall(r"\b(AWS|GCP|Azure)\s+(\S+)\s+@\s+commit\s+([0-9a-f]{40})",
                                       header):
        out[cloud.lower()] = (path, sha)
    for p in PROVIDERS:
        if p not in out:
            raise SystemExit("gpu_instances.csv: header names no commit for %s" % p)
    return repo, out


def build_instances(ref_dir, gpu_ids, as_of):
    comments, rows = read_commented_csv(os.path.join(ref_dir, "gpu_instances.csv"))
    repo, commits = parse_price_sources(comments)
    out = {p: {"provider": p, "instances": [], "skipped": []} for p in PROVIDERS}
    by_id = {}
    missing = []
    row_count = {p: 0 for p in PROVIDERS}

    for r in rows:
        cloud = r["cloud"].strip()
        if cloud in SUPERSEDED:
            continue
        itype = r["instance_type"].strip()
        row_count[cloud] += 1
        where = "%s / %s" % (r["region"].strip(), r["zone"].strip() or "no zone")
        if r["price_scope"].strip() == "gpu_only":
            out[cloud]["skipped"].append({
                "instance_type": itype,
                "reason": "GPU-only price; host VM not priced (%s; csv note: %s)"
                          % (where, r["note"].strip() or "none"),
            })
            continue
        hw = HARDWARE.get((cloud, itype))
        if hw is None:
            gm = r["gpu_model"].strip()
            if gm.lower() not in gpu_ids and gm.upper() == "B300":
                out[cloud]["skipped"].append({
                    "instance_type": itype,
                    "reason": "GPU B300 is not in the GPU catalog (no B300 row in gpus.csv, so "
                              "no datasheet peaks); row %s, on-demand %s, spot %s"
                              % (where, r["ondemand_usd_per_hr"], r["spot_usd_per_hr"]),
                })
                continue
            missing.append("%s/%s (gpu_model %s)" % (cloud, itype, gm))
            continue
        if r["gpu_model"].strip() != hw["csv_gpu"]:
            raise SystemExit("%s/%s: csv gpu_model %r, HARDWARE expects %r"
                             % (cloud, itype, r["gpu_model"], hw["csv_gpu"]))
        if hw["gpu"] not in gpu_ids:
            raise SystemExit("%s/%s: gpu %r not in gpus.json" % (cloud, itype, hw["gpu"]))

        key = (cloud, itype)
        vcpus, mem, count = num(r["vcpus"]), num(r["host_mem_gib"]), num(r["gpu_count"])
        if key not in by_id:
            path, sha = commits[cloud]
            inst = {
                "id": "%s/%s" % (cloud, itype),
                "gpu": hw["gpu"],
                "gpus_per_node": hw.get("gpus_per_node", count),
                "vcpus": vcpus,
                "host_memory_GiB": mem,
                "intra_node": {"link": hw["link"], "GBps_per_gpu": hw["GBps"]},
                "inter_node_Gbps": hw["net"],
                "local_nvme_GB": hw["nvme_GB"],
                "interruption_bucket": None,
                "prices": [],
                "source": hw["source"],
                "price_source": "%s %s @ commit %s (transcribed into shared/reference/"
                                "gpu_instances.csv, source_path_at_commit %s)"
                                % (repo, path, sha, r["source_path_at_commit"].strip()),
                "as_of": as_of,
                "_hw_notes": hw["notes"],
                "_csv_count": count,
                "_scope": set(),
            }
            by_id[key] = inst
            out[cloud]["instances"].append(inst)
        inst = by_id[key]
        if (vcpus, mem, count) != (inst["vcpus"], inst["host_memory_GiB"], inst["_csv_count"]):
            raise SystemExit("%s/%s: vcpus/memory/gpu_count differ between rows" % key)
        inst["_scope"].add(r["price_scope"].strip())
        note = r["note"].strip() or None
        spot = num(r["spot_usd_per_hr"])
        if note and "capacity-block-only" in note:
            # A type rented only as EC2 Capacity Blocks has no spot market: the source's spot
            # column is not a price anyone can pay, so it is not offered as one.
            note += "; spot column dropped (%s: capacity blocks are not spot)" % r["spot_usd_per_hr"].strip()
            spot = None
        inst["prices"].append({
            "region": r["region"].strip(),
            "zone": r["zone"].strip() or None,
            "on_demand_usd_per_hour": num(r["ondemand_usd_per_hr"]),
            "spot_usd_per_hour": spot,
            "spot_outlier": False,
            "note": note,
        })

    if missing:
        raise SystemExit("instance types without hardware facts in HARDWARE (add them with a "
                         "source, or a skip rule):\n  " + "\n  ".join(sorted(set(missing))))

    for p in PROVIDERS:
        for inst in out[p]["instances"]:
            flag_spot_outliers(inst)
            finish_notes(inst)
    return out, row_count


# A spot quote whose discount is out of line with the type's other zones is a stale or mistyped
# figure, or a zone nobody can get capacity in: priced at it, a plan looks 2-3x cheaper than any
# zone a job would really land in. Flagged when the reference note calls it an outlier, or when
# its spot/on-demand ratio is under this fraction of the median ratio of the type's quotes (with
# at least MIN_QUOTES_FOR_OUTLIER quotes to take a median of). p4d.24xlarge in use1-az1: 0.11 of
# on-demand against a median of 0.37 over its 13 other zones.
OUTLIER_RATIO_OF_MEDIAN = 0.5
MIN_QUOTES_FOR_OUTLIER = 3


def flag_spot_outliers(inst):
    ratios = sorted(p["spot_usd_per_hour"] / p["on_demand_usd_per_hour"] for p in inst["prices"]
                    if p["spot_usd_per_hour"] is not None and p["on_demand_usd_per_hour"]
                    and p["spot_usd_per_hour"] < p["on_demand_usd_per_hour"])
    median = None
    if len(ratios) >= MIN_QUOTES_FOR_OUTLIER:
        mid = len(ratios) // 2
        median = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
    for p in inst["prices"]:
        if p["spot_usd_per_hour"] is None:
            continue
        noted = bool(p["note"]) and p["note"].lower().startswith("outlier")
        ratio = p["spot_usd_per_hour"] / p["on_demand_usd_per_hour"] if p["on_demand_usd_per_hour"] else None
        low = median is not None and ratio is not None and ratio < OUTLIER_RATIO_OF_MEDIAN * median
        if noted or low:
            p["spot_outlier"] = True
            if low and not noted:
                extra = ("outlier: spot %.0f%% of on-demand against a median of %.0f%% over the type's %d quotes"
                         % (100 * ratio, 100 * median, len(ratios)))
                p["note"] = extra if not p["note"] else p["note"] + "; " + extra


def finish_notes(inst):
    """Turn the hand notes plus what the price rows show into the 'notes' string."""
    notes = []
    if inst["_hw_notes"]:
        notes.append(inst["_hw_notes"])
    prices = inst["prices"]
    n_od = sum(1 for p in prices if p["on_demand_usd_per_hour"] is None)
    n_spot = sum(1 for p in prices if p["spot_usd_per_hour"] is None)
    n_ge = sum(1 for p in prices
               if p["on_demand_usd_per_hour"] is not None and p["spot_usd_per_hour"] is not None
               and p["spot_usd_per_hour"] >= p["on_demand_usd_per_hour"])
    if n_od:
        notes.append("Prices: %d of %d rows have no on-demand price (null, kept: spot rows stay "
                     "usable; on-demand pricing is unavailable there)." % (n_od, len(prices)))
    if n_spot:
        notes.append("Prices: %d of %d rows have no spot price (null, kept: on-demand only "
                     "there)." % (n_spot, len(prices)))
    if n_ge:
        notes.append("Prices: %d of %d rows list spot >= on-demand; kept as the catalog gives "
                     "them (no real spot discount / capacity-constrained); the loader warns."
                     % (n_ge, len(prices)))
    if any(s.startswith("full_vm(host+gpu") for s in inst["_scope"]):
        notes.append("GCP prices are host VM + GPU rows of the source catalog summed per zone "
                     "(done in the reference CSV).")
    if inst["gpus_per_node"] != inst["_csv_count"]:
        notes.append("(csv gpu_count was %d.)" % inst["_csv_count"])
    notes.append("interruption_bucket null: the reference data has no spot-advisor bucket for "
                 "this type. as_of is the transcription date of the price CSV (the source "
                 "catalog's commit date is not known).")
    inst["notes"] = " ".join(notes)
    for k in ("_hw_notes", "_csv_count", "_scope"):
        del inst[k]
