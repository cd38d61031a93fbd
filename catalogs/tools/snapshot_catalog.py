"""instances/<provider>.json from the pinned SkyPilot catalog snapshots in catalogs/snapshots/skypilot/
(GPU rows copied verbatim from github.com/skypilot-org/skypilot-catalog at the commit each file's
first line names) and the facts of snapshot_hardware.py.

Rules, each applied to every row (a row becomes one price quote or one skipped entry with its reason,
never nothing):
  * Price is the on-demand USD per instance-hour; SpotPrice the spot / interruptible one; an empty or
    zero figure is "not offered" (null), never a price of 0;
  * a SpotPrice equal to Price is no spot offer (null): RunPod's rows copy on-demand there;
  * an accelerator the GPU catalog lacks, or whose memory per GPU is more than 10% off the catalog
    part's, is skipped with the reason;
  * a second row for the same type and region (and zone) is skipped: the first row is the quote;
  * a provider whose rows are placeholders (UNPRICED) or a row without a region is skipped;
  * a type's host vCPUs and memory are its smallest over the rows (the host a job can count on).
Output is deterministic: types in first-appearance order, quotes in row order."""

import os
import re

from reference_csv import read_commented_csv
from snapshot_hardware import MARKETPLACES, MEMORY_IS_TOTAL, UNPRICED, gpu_for, hardware_for

SNAPSHOT_DIR = os.path.join("snapshots", "skypilot")
GCP = "gcp"  # priced host + accelerator per zone: gcp_snapshot.py


def snapshot_providers(catalog_dir):
    folder = os.path.join(catalog_dir, SNAPSHOT_DIR)
    names = sorted(f[:-4] for f in os.listdir(folder) if f.endswith(".csv"))
    return [n for n in names if n != GCP]


def snapshot_source(comments, path):
    m = re.match(r"source:\s*(\S+)\s+(\S+)\s+@\s+([0-9a-f]{40})$", comments[0]) if comments else None
    if not m:
        raise SystemExit("%s: first line must be '# source: REPO PATH @ COMMIT'" % path)
    read = [c for c in comments if c.startswith("read:")]
    if not read:
        raise SystemExit("%s: no '# read: YYYY-MM-DD' line" % path)
    return "%s %s @ commit %s" % m.groups(), read[0].split(":", 1)[1].strip()


def price(text):
    text = (text or "").strip()
    if not text:
        return None
    value = float(text)
    return round(value, 6) if value > 0 else None


def number(text):
    value = float(text)
    return int(value) if value == int(value) else value


def listed_mib(info):
    """The GpuInfo's SizeInMiB (per GPU for most providers, the machine's total for some), or None."""
    m = re.search(r"[sS]ize_?[iI]n_?[mM]i[bB]'?:\s*(\d+)", info or "")
    if not m or int(m.group(1)) == 0:
        return None
    mib = int(m.group(1))
    return mib * 1024 if mib < 1024 else mib  # RunPod's rows put GB in the MiB field (80 for an 80 GB part)


def per_gpu_mib(mib, count, provider):
    """Per GPU: the listed figure, or its share where the provider states the machine's total there."""
    if mib is not None and count > 1 and provider in MEMORY_IS_TOTAL:
        return mib / count
    return mib


# A part whose memory says it is the catalog's other variant of the same accelerator name (Cudo's
# "A100" rows are 80 GB parts).
MEMORY_VARIANTS = {"a100-40gb": "a100-80gb", "a100-40gb-pcie": "a100-80gb-pcie", "v100-16gb": "v100-32gb"}


def build_provider(catalog_dir, provider, gpus, as_of_override=None):
    path = os.path.join(catalog_dir, SNAPSHOT_DIR, provider + ".csv")
    comments, rows = read_commented_csv(path)
    source, read_date = snapshot_source(comments, path)
    as_of = as_of_override or read_date
    out = {"provider": provider, "instances": [], "skipped": []}
    by_type = {}
    seen_quotes = set()
    for r in rows:
        itype = r["InstanceType"].strip()
        count = int(float(r["AcceleratorCount"]))
        region = r["Region"].strip()
        zone = (r.get("AvailabilityZone") or "").strip() or None
        where = "%s%s" % (region, " / " + zone if zone else "")
        if provider in UNPRICED:
            out["skipped"].append({"instance_type": itype, "reason": UNPRICED[provider]})
            continue
        if not region:
            out["skipped"].append({"instance_type": itype, "reason": "no region in the source row"})
            continue
        gid = gpu_for(r["AcceleratorName"], itype, gpus, provider)
        if gid is None:
            out["skipped"].append({"instance_type": itype, "reason": "GPU %s is not in the GPU catalog (%s, $%s/h)"
                                   % (r["AcceleratorName"], where, r["Price"].strip() or "-")})
            continue
        mib = per_gpu_mib(listed_mib(r.get("GpuInfo")), count, provider)
        other = MEMORY_VARIANTS.get(gid)
        if mib is not None and other in gpus and abs(mib / 1024 - gpus[other]["memory_GiB"]) <= 0.1 * gpus[other]["memory_GiB"]:
            gid = other
        gpu = gpus[gid]
        if mib is not None and abs(mib / 1024 - gpu["memory_GiB"]) > 0.1 * gpu["memory_GiB"]:
            out["skipped"].append({"instance_type": itype, "reason": "%s with %.1f GiB per GPU where the catalog's %s has %s GiB (%s)"
                                   % (r["AcceleratorName"], mib / 1024, gid, gpu["memory_GiB"], where)})
            continue
        quote_key = (itype, region, zone)
        if quote_key in seen_quotes:
            out["skipped"].append({"instance_type": itype, "reason": "a second row for %s (the first is the quote)" % where})
            continue
        seen_quotes.add(quote_key)
        on_demand, spot = price(r.get("Price")), price(r.get("SpotPrice"))
        if spot is not None and spot == on_demand:
            spot = None  # a spot column copying on-demand lists no spot discount (RunPod's rows)
        if on_demand is None and spot is None:
            out["skipped"].append({"instance_type": itype, "reason": "no price in %s" % where})
            continue
        inst = by_type.get(itype)
        vcpus, mem = number(r["vCPUs"]), number(r["MemoryGiB"])
        if inst is None:
            link, gbps, net, assumed, hw_source = hardware_for(provider, itype, gpu, count)
            inst = {
                "id": "%s/%s" % (provider, itype),
                "gpu": gid,
                "gpus_per_node": count,
                "vcpus": vcpus,
                "host_memory_GiB": mem,
                "intra_node": {"link": link, "GBps_per_gpu": gbps},
                "inter_node_Gbps": net,
                "local_nvme_GB": 0,
                "interruption_bucket": None,
                "offer": "marketplace" if provider in MARKETPLACES else "instance",
                "sold_as": [],
                "prices": [],
                "source": hw_source + ("; " + MARKETPLACES[provider] if provider in MARKETPLACES else ""),
                "price_source": "%s (GPU rows kept verbatim in catalogs/%s/%s.csv)" % (source, SNAPSHOT_DIR, provider),
                "as_of": as_of,
                "notes": "",
            }
            if assumed:
                inst["assumed"] = assumed
            by_type[itype] = inst
            out["instances"].append(inst)
        elif inst["gpus_per_node"] != count or inst["gpu"] != gid:
            raise SystemExit("%s/%s: rows disagree on the GPUs (%s x %s against %s x %s)"
                             % (provider, itype, count, gid, inst["gpus_per_node"], inst["gpu"]))
        if (vcpus, mem) != (inst["vcpus"], inst["host_memory_GiB"]):
            inst["vcpus"], inst["host_memory_GiB"] = min(vcpus, inst["vcpus"]), min(mem, inst["host_memory_GiB"])
            inst["notes"] = "host vCPUs and memory differ between rows: the smallest kept."
        inst["prices"].append({"region": region, "zone": zone, "on_demand_usd_per_hour": on_demand,
                               "spot_usd_per_hour": spot, "spot_outlier": False, "note": None})
    for inst in out["instances"]:
        sold = []
        if any(q["on_demand_usd_per_hour"] is not None for q in inst["prices"]):
            sold.append("on_demand")
        if any(q["spot_usd_per_hour"] is not None for q in inst["prices"]):
            sold.append("spot")
        inst["sold_as"] = sold
        notes = [inst["notes"]] if inst["notes"] else []
        notes.append("No local NVMe figure in the source: local_nvme_GB 0 (checkpoints go to storage the "
                     "scenario names). as_of is the date the snapshot was read (the source commit's date is "
                     "not exposed).")
        inst["notes"] = " ".join(notes)
    return out, len(rows)
