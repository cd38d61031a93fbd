"""instances/gcp.json from the pinned SkyPilot GCP snapshot (catalogs/snapshots/skypilot/gcp.csv).

GCP bills an accelerator-optimized VM as its host machine type plus its attached GPUs, and the
source catalog lists them as separate rows: a host row per machine type and zone, an accelerator row
(empty InstanceType) per GPU model, count and zone, priced for the whole count. A quote here is the
host row plus the accelerator row of the same zone, on demand and on spot alike; a zone missing
either is skipped. Rules:
  * an accelerator's regional on-demand prices that fall in two clusters more than GAP_RATIO apart
    (GCP's regional list prices step by at most ~1.3x) mix in another SKU: the lower cluster is not a
    list price (H100 x 8 at $33.61 in 7 regions against $78-102 in 12) and its quotes' on-demand is
    dropped (null, with the reason), their spot kept;
  * a spot figure above the quote's on-demand one is kept and flagged as an outlier (never priced
    unless the zone is pinned), as the loader's warnings say;
  * shapes GCP sells only as Spot or Flex-start (SPOT_ONLY) carry no on-demand price at all."""

import csv
import io
import os

from reference_csv import read_commented_csv
from snapshot_catalog import SNAPSHOT_DIR, price, snapshot_source

GAP_RATIO = 1.5

GCP_DOC = "cloud.google.com/compute/docs/accelerator-optimized-machines"
NET_DOC = "cloud.google.com/compute/docs/network-bandwidth (GPU machine types table)"
HGX = "NVSwitch at the GPU's full NVLink rate (an HGX baseboard)"

# Machine type -> (accelerator row name, GPU count, catalog GPU, link, inter-node Gb/s or None when
# not documented, source). None: read as no network (a plan keeps to one node), marked assumed.
MACHINES = {
    "a2-highgpu-1g": ("A100", 1, "a100-40gb", "pcie", None),
    "a2-highgpu-2g": ("A100", 2, "a100-40gb", "nvswitch", None),
    "a2-highgpu-4g": ("A100", 4, "a100-40gb", "nvswitch", None),
    "a2-highgpu-8g": ("A100", 8, "a100-40gb", "nvswitch", 100),
    "a2-megagpu-16g": ("A100", 16, "a100-40gb", "nvswitch", 100),
    "a2-ultragpu-1g": ("A100-80GB", 1, "a100-80gb", "pcie", None),
    "a2-ultragpu-2g": ("A100-80GB", 2, "a100-80gb", "nvswitch", None),
    "a2-ultragpu-4g": ("A100-80GB", 4, "a100-80gb", "nvswitch", None),
    "a2-ultragpu-8g": ("A100-80GB", 8, "a100-80gb", "nvswitch", 100),
    "a3-highgpu-1g": ("H100", 1, "h100-80gb", "pcie", None),
    "a3-highgpu-2g": ("H100", 2, "h100-80gb", "nvswitch", None),
    "a3-highgpu-4g": ("H100", 4, "h100-80gb", "nvswitch", None),
    "a3-highgpu-8g": ("H100", 8, "h100-80gb", "nvswitch", 1000),
    "a3-edgegpu-8g": ("H100", 8, "h100-80gb", "nvswitch", 600),
    "a3-edgegpu-8g-nolssd": ("H100", 8, "h100-80gb", "nvswitch", 600),
    "a3-megagpu-8g": ("H100-MEGA", 8, "h100-80gb", "nvswitch", 1600),
    "a3-ultragpu-8g": ("H200", 8, "h200", "nvswitch", 3200),
    "a3-ultragpu-8g-nolssd": ("H200", 8, "h200", "nvswitch", 3200),
    "a4-highgpu-8g": ("B200", 8, "b200", "nvswitch", 3200),
    "g2-standard-4": ("L4", 1, "l4", "pcie", None),
    "g2-standard-8": ("L4", 1, "l4", "pcie", None),
    "g2-standard-12": ("L4", 1, "l4", "pcie", None),
    "g2-standard-16": ("L4", 1, "l4", "pcie", None),
    "g2-standard-32": ("L4", 1, "l4", "pcie", None),
    "g2-standard-24": ("L4", 2, "l4", "pcie", None),
    "g2-standard-48": ("L4", 4, "l4", "pcie", None),
    "g2-standard-96": ("L4", 8, "l4", "pcie", 100),
}

NETWORK_NOTES = {
    100: "100 Gbps per VM (GCP's A2 and G2 maximum, %s)" % NET_DOC,
    1000: "1,000 Gbps per VM (A3 High, GPUDirect-TCPX, %s)" % NET_DOC,
    600: "600 Gbps per VM: copies of GCP's bandwidth table give A3 Edge 600 or 800 Gbps; the lower is used (%s)" % NET_DOC,
    1600: "1,600 Gbps per VM: copies of GCP's bandwidth table give A3 Mega 1,600 or 1,800 Gbps (GPUDirect-TCPXO); "
          "the lower is used (%s)" % NET_DOC,
    3200: "3,200 Gbps of RDMA per VM (8 ConnectX-7 NICs; 3,600 Gbps with the 2 gVNICs, which carry no GPU traffic; %s)" % NET_DOC,
}

# GCP sells A3 High with 1, 2 or 4 GPUs only as Spot VMs or Flex-start VMs (GCP's A3 machine
# series documentation, GCP_DOC): no on-demand price may be offered for them.
SPOT_ONLY = {"a3-highgpu-1g", "a3-highgpu-2g", "a3-highgpu-4g"}


def list_price_floor(values):
    """The lowest on-demand figure taken as a list price: the bottom of the upper cluster where the
    distinct prices have a gap wider than GAP_RATIO, else the lowest."""
    distinct = sorted(set(values))
    floor = distinct[0]
    for lo, hi in zip(distinct, distinct[1:]):
        if hi > GAP_RATIO * lo:
            floor = hi
    return floor


def build_gcp(catalog_dir, gpus):
    path = os.path.join(catalog_dir, SNAPSHOT_DIR, "gcp.csv")
    comments, rows = read_commented_csv(path)
    source, read_date = snapshot_source(comments, path)
    accelerators = {}
    for r in rows:
        if not r["InstanceType"].strip():
            key = (r["AcceleratorName"].strip(), int(float(r["AcceleratorCount"])), r["AvailabilityZone"].strip())
            accelerators[key] = r
    reference = {}
    for (name, count, _), r in accelerators.items():
        reference.setdefault((name, count), []).append(price(r["Price"]))
    reference = {k: list_price_floor([v for v in vs if v]) for k, vs in reference.items() if any(vs)}

    out = {"provider": "gcp", "instances": [], "skipped": []}
    by_type = {}
    host_rows = 0
    for r in rows:
        itype = r["InstanceType"].strip()
        if not itype:
            continue
        host_rows += 1
        zone, region = r["AvailabilityZone"].strip(), r["Region"].strip()
        acc_name, count, gid, link, net = MACHINES[itype]
        acc = accelerators.get((acc_name, count, zone))
        if acc is None:
            out["skipped"].append({"instance_type": itype, "reason": "no %s x %d accelerator row in %s" % (acc_name, count, zone)})
            continue
        host_od = float(r["Price"]) if r["Price"].strip() else None
        host_spot = float(r["SpotPrice"]) if r["SpotPrice"].strip() else None
        acc_od, acc_spot = price(acc["Price"]), price(acc["SpotPrice"])
        note = []
        on_demand = round(host_od + acc_od, 6) if acc_od is not None and host_od is not None else None
        spot = round(host_spot + acc_spot, 6) if acc_spot is not None and host_spot is not None else None
        if itype in SPOT_ONLY:
            on_demand = None
        elif acc_od is not None and acc_od < reference[(acc_name, count)]:
            note.append("on-demand dropped: the %s x %d row ($%.4f/h) is in a cluster more than %.1fx below its other "
                        "regions' (from $%.4f/h), not a list price" % (acc_name, count, acc_od, GAP_RATIO,
                                                                       reference[(acc_name, count)]))
            on_demand = None
        if host_od == 0.0 and on_demand is not None:
            note.append("host row priced 0: the accelerator row is the whole VM")
        if on_demand is None and spot is None:
            out["skipped"].append({"instance_type": itype, "reason": "no usable price in %s (%s)" % (zone, "; ".join(note) or "none listed")})
            continue
        inst = by_type.get(itype)
        if inst is None:
            gpu = gpus[gid]
            assumed = []
            if link == "pcie" and count > 1:
                hw = "L4 has no NVLink (NVIDIA L4 datasheet): PCIe gen4 x16"
                gbps = 32
            elif link == "pcie":
                hw = "one GPU: intra_node is its own PCIe gen%d x16 link" % (gpu["pcie_gen"] or 4)
                gbps = 64 if gpu["pcie_gen"] == 5 else 32
            else:
                hw = "%d x %s on %s (%s)" % (count, gid, HGX, GCP_DOC)
                gbps = gpu["nvlink_GBps_per_gpu_bidirectional"] / 2
            if net is None:
                assumed.append("inter_node_Gbps")
                net_text = "the network for this shape is not documented in the stored copies read: read as none (one node)"
            else:
                net_text = NETWORK_NOTES[net]
            inst = {
                "id": "gcp/" + itype,
                "gpu": gid,
                "gpus_per_node": count,
                "vcpus": int(float(r["vCPUs"])),
                "host_memory_GiB": int(float(r["MemoryGiB"])),
                "intra_node": {"link": link, "GBps_per_gpu": gbps},
                "inter_node_Gbps": net or 0,
                "local_nvme_GB": 0,
                "interruption_bucket": None,
                "offer": "instance",
                "sold_as": ["spot", "flex_start"] if itype in SPOT_ONLY else ["on_demand", "spot"],
                "prices": [],
                "source": hw + "; " + net_text,
                "price_source": "%s (host row + %s x %d accelerator row summed per zone; rows kept verbatim in "
                                "catalogs/%s/gcp.csv)" % (source, acc_name, count, SNAPSHOT_DIR),
                "as_of": read_date,
                "notes": ("Sold only as Spot or Flex-start VMs (%s): no on-demand price. " % GCP_DOC if itype in SPOT_ONLY else "") +
                         "local_nvme_GB 0: bundled Local SSD sizes were not found in the stored copies read (checkpoints "
                         "go to storage the scenario names). as_of is the date the snapshot was read.",
            }
            if assumed:
                inst["assumed"] = assumed
            by_type[itype] = inst
            out["instances"].append(inst)
        outlier = spot is not None and on_demand is not None and spot > on_demand
        if outlier:
            note.append("spot above on-demand")
        inst["prices"].append({"region": region, "zone": zone, "on_demand_usd_per_hour": on_demand,
                               "spot_usd_per_hour": spot, "spot_outlier": outlier, "note": "; ".join(note) or None})
    for inst in out["instances"]:
        if "on_demand" in inst["sold_as"] and not any(q["on_demand_usd_per_hour"] for q in inst["prices"]):
            inst["sold_as"].remove("on_demand")
    return out, host_rows
