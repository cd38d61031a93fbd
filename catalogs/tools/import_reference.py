#!/usr/bin/env python3
"""Regenerate preflight's GPU and cloud-instance catalogs from the reference CSVs.

Reads (from REFERENCE_DIR, normally ../shared/reference):
  gpus.csv           datasheet peaks per GPU; its header comment names the datasheet per [TAG]
  gpu_instances.csv  cloud GPU instance rows (AWS, GCP, Azure) with on-demand and spot
                     USD/hour per region/zone; its header comment names the source repo,
                     path and commit of each cloud's price catalog

Writes (into catalogs/, next to this tools/ folder, or --out DIR):
  gpus.json                 from gpus.csv plus the small GPU_EXTRA table below (T4 is not in
                            the CSV; the A10G decision; names, notes)
  instances/aws.json        \
  instances/gcp.json         > from gpu_instances.csv plus the HARDWARE table below
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
"""

import argparse
import csv
import io
import json
import os
import re
import sys

AS_OF_DEFAULT = "2026-11-29"  # date the reference CSVs were transcribed (no catalog commit dates)

GIB_TO_GB = 1024 ** 3 / 1e9  # Azure and GCP state local disks in GiB; the catalog field is GB


def gib_to_gb(gib):
    return int(round(gib * GIB_TO_GB))


# --------------------------------------------------------------------------------------
# GPUs
# --------------------------------------------------------------------------------------

# (csv gpu, csv form_factor, memory variant or None) -> catalog id, in output order.
GPU_ROWS = [
    ("v100-16gb", "V100", "SXM2", 16),
    ("v100-32gb", "V100", "SXM2", 32),
    ("a10", "A10", "PCIe", None),
    ("a10g", "A10G", "PCIe (AWS-only)", None),
    ("t4", None, None, None),  # not in gpus.csv: GPU_EXTRA["t4"]["row"]
    ("l4", "L4", "PCIe", None),
    ("l40s", "L40S", "PCIe", None),
    ("a100-40gb", "A100-40GB", "SXM4", None),
    ("a100-80gb", "A100-80GB", "SXM4", None),
    ("a100-40gb-pcie", "A100-40GB", "PCIe", None),
    ("a100-80gb-pcie", "A100-80GB", "PCIe", None),
    ("h100-80gb", "H100", "SXM5", None),
    ("h100-pcie-80gb", "H100", "PCIe 80GB", None),
    ("h100-nvl", "H100 NVL", "PCIe 94GB", None),
    ("h200", "H200", "SXM", None),
    ("b200", "B200", "HGX (SXM)", None),
    ("rtx3090", "RTX 3090", "PCIe", None),
    ("rtx4090", "RTX 4090", "PCIe", None),
]

AS_OF_NOTE = ("as_of is the date the figures were transcribed into the reference folder; "
              "the datasheet revision date was not recorded.")

GPU_EXTRA = {
    "v100-16gb": {
        "name": "NVIDIA Tesla V100 16GB SXM2",
        "notes": "No bf16/tf32/fp8 in hardware (Volta). fp16 is the tensor-core peak. "
                 "Also used for Azure NCv3 (documented by Azure only as 'Tesla V100'); "
                 "the V100 PCIe part is ~10% slower (112 fp16 / 14 fp32 per gpus.csv).",
    },
    "v100-32gb": {
        "name": "NVIDIA Tesla V100 32GB SXM2",
        "notes": "No bf16/tf32/fp8 in hardware (Volta). fp16 is the tensor-core peak.",
    },
    "a10": {
        "name": "NVIDIA A10",
        "notes": "No NVLink. No fp8 in hardware (Ampere).",
    },
    "a10g": {
        "name": "NVIDIA A10G",
        "notes": "AWS-only GA102 variant (G5 instances). NVIDIA publishes no A10G datasheet and "
                 "gpus.csv leaves its peaks empty (not published), so every peak is null. "
                 "The stored copy of the source named in gpus.csv (Baseten blog) that could be "
                 "searched here stops before its spec table, and no NVIDIA or AWS page with "
                 "citable A10G TFLOP/s was found. Figures quoted by third parties "
                 "(about 31.5 fp32, 35 tf32, 70 bf16/fp16 dense) are unverified and NOT used; "
                 "supply a calibration profile to plan on A10G. pcie_gen not published (null); "
                 "instance files assume PCIe gen4 x16 like the A10. Cloud catalogs report "
                 "22.35 GiB usable memory (22888 MiB).",
    },
    "t4": {
        "name": "NVIDIA T4",
        "notes": "Not in gpus.csv; figures from NVIDIA's T4 datasheet: 65 TFLOPS fp16 mixed "
                 "precision (tensor), 8.1 TFLOPS fp32, 16 GB GDDR6, 320 GB/s, PCIe gen3 x16. "
                 "No bf16/tf32/fp8 in hardware (Turing). No NVLink.",
        "row": {
            "form_factor": "PCIe",
            "memory_GiB": 16,
            "memory_type": "GDDR6",
            "memory_bandwidth_GBps": 320,
            "peak_tflops": {"fp32": 8.1, "tf32": None, "bf16": None, "fp16": 65, "fp8": None},
            "nvlink_GBps_per_gpu_bidirectional": 0,
            "pcie_gen": 3,
            "source": "NVIDIA T4 Tensor Core GPU datasheet: www.nvidia.com/content/dam/en-zz/"
                      "Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf",
        },
    },
    "l4": {
        "name": "NVIDIA L4",
        "notes": "No NVLink. Cloud catalogs report 22.35 GiB usable memory.",
    },
    "l40s": {
        "name": "NVIDIA L40S",
        "notes": "No NVLink. Cloud catalogs report 44.7 GiB usable memory.",
    },
    "a100-40gb": {
        "name": "NVIDIA A100 40GB SXM4",
        "notes": "NVLink3 via NVSwitch on HGX A100 boards. No fp8 in hardware (Ampere).",
    },
    "a100-80gb": {
        "name": "NVIDIA A100 80GB SXM4",
        "notes": "NVLink3 via NVSwitch on HGX A100 boards. No fp8 in hardware (Ampere).",
    },
    "a100-40gb-pcie": {
        "name": "NVIDIA A100 40GB PCIe",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (not a switch). "
                 "No fp8 in hardware (Ampere).",
    },
    "a100-80gb-pcie": {
        "name": "NVIDIA A100 80GB PCIe",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (not a switch). "
                 "No fp8 in hardware (Ampere).",
    },
    "h100-80gb": {
        "name": "NVIDIA H100 80GB SXM5",
        "notes": "NVLink4 via NVSwitch on HGX H100 boards.",
    },
    "h100-pcie-80gb": {
        "name": "NVIDIA H100 PCIe 80GB",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (not a switch).",
    },
    "h100-nvl": {
        "name": "NVIDIA H100 NVL 94GB",
        "notes": "PCIe card. NVLink figure is the NVLink bridge between 2 GPUs only "
                 "(not a switch).",
    },
    "h200": {
        "name": "NVIDIA H200 141GB SXM",
        "notes": "NVLink4 via NVSwitch on HGX H200 boards.",
    },
    "b200": {
        "name": "NVIDIA B200 (HGX B200, per GPU)",
        "notes": "NVLink5 via NVSwitch. pcie_gen not published in the cited datasheets "
                 "(empty in gpus.csv), so null. Cloud catalogs report 179.06 GiB usable memory "
                 "(AWS: 8 x 179 GiB).",
    },
    "rtx3090": {
        "name": "NVIDIA GeForce RTX 3090",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (112.5 GB/s "
                 "bidirectional). Tensor peaks are FP32-accumulate rates (FP16-accumulate is "
                 "2x). No fp8 in hardware (Ampere).",
    },
    "rtx4090": {
        "name": "NVIDIA GeForce RTX 4090",
        "notes": "No NVLink. Tensor peaks are FP32-accumulate rates (FP16-accumulate is 2x).",
    },
}

FORM_FACTOR = {  # csv form_factor -> catalog form_factor
    "SXM2": "SXM2", "SXM4": "SXM4", "SXM5": "SXM5", "SXM": "SXM", "HGX (SXM)": "SXM",
    "PCIe": "PCIe", "PCIe 80GB": "PCIe", "PCIe 94GB": "PCIe", "PCIe (AWS-only)": "PCIe",
}


def read_commented_csv(path):
    """Return (header comment lines without '# ', list of row dicts)."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    comments, body = [], []
    for line in text.splitlines(keepends=True):
        if line.startswith("#") and not body:
            comments.append(line[1:].strip())
        else:
            body.append(line)
    rows = list(csv.DictReader(io.StringIO("".join(body))))
    return comments, rows


def num(text):
    """CSV number -> int when integral in the text, else float. Empty/NA -> None."""
    text = text.strip()
    if text in ("", "NA"):
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return float(text)


def parse_gpu_sources(comments):
    """'[TAG] document; [TAG] document; ...' in the header -> {TAG: document}."""
    header = " ".join(comments)
    m = re.search(r"Sources:\s*(.*)", header)
    if not m:
        raise SystemExit("gpus.csv: no 'Sources:' list in the header comment")
    text = m.group(1)
    text = text.split(". Rows were cross-checked")[0]
    out = {}
    for piece in text.split(";"):
        piece = piece.strip()
        pm = re.match(r"\[([A-Za-z0-9]+)\]\s*(.+)", piece)
        if pm:
            out[pm.group(1)] = pm.group(2).strip()
    return out


def nvlink_value(text):
    """'600 (2-GPU bridge)' -> (600, True); '900' -> (900, False); '' -> (None, False)."""
    text = text.strip()
    if text == "":
        return None, False
    m = re.match(r"([\d.]+)\s*(\(.*\))?$", text)
    if not m:
        raise SystemExit("gpus.csv: cannot read nvlink value %r" % text)
    return num(m.group(1)), bool(m.group(2)) and "bridge" in m.group(2)


def build_gpus(ref_dir, as_of):
    comments, rows = read_commented_csv(os.path.join(ref_dir, "gpus.csv"))
    sources = parse_gpu_sources(comments)
    by_key = {}
    for r in rows:
        by_key.setdefault((r["gpu"].strip(), r["form_factor"].strip()), r)

    gpus = []
    for gid, csv_gpu, csv_ff, mem_variant in GPU_ROWS:
        extra = GPU_EXTRA[gid]
        if csv_gpu is None:
            entry = {"id": gid, "name": extra["name"]}
            entry.update(extra["row"])
            entry["as_of"] = as_of
            entry["notes"] = extra["notes"] + " " + AS_OF_NOTE
            gpus.append(entry)
            continue
        r = by_key.get((csv_gpu, csv_ff))
        if r is None:
            raise SystemExit("gpus.csv: no row for %s / %s (needed for %s)" % (csv_gpu, csv_ff, gid))
        notes = [extra["notes"]]
        mem_text = r["mem_gb"].strip()
        if "|" in mem_text:
            choices = [num(x) for x in mem_text.split("|")]
            if mem_variant not in choices:
                raise SystemExit("gpus.csv: %s memory %r lacks %s" % (csv_gpu, mem_text, mem_variant))
            memory = mem_variant
        else:
            memory = num(mem_text)
        peaks = {
            "fp32": num(r["fp32_tflops"]),
            "tf32": num(r["tf32_tensor_tflops"]),
            "bf16": num(r["bf16_tensor_tflops"]),
            "fp16": num(r["fp16_tensor_tflops"]),
            "fp8": num(r["fp8_tensor_tflops"]),
        }
        nvl, bridge = nvlink_value(r["nvlink_gbps_per_gpu_bidir"])
        if bridge and "bridge between 2 GPUs" not in extra["notes"]:
            notes.append("NVLink: bridge between 2 GPUs.")
        pcie = num(r["pcie_gen"])
        tag = r["source"].strip()
        if tag not in sources:
            raise SystemExit("gpus.csv: source tag [%s] not in the header list" % tag)
        entry = {
            "id": gid,
            "name": extra["name"],
            "form_factor": FORM_FACTOR[csv_ff],
            "memory_GiB": memory,
            "memory_type": r["mem_type"].strip(),
            "memory_bandwidth_GBps": num(r["mem_bw_gbps"]),
            "peak_tflops": peaks,
            "nvlink_GBps_per_gpu_bidirectional": nvl,
            "pcie_gen": pcie,
            "source": sources[tag],
            "as_of": as_of,
            "notes": " ".join(n for n in notes if n) + " " + AS_OF_NOTE,
        }
        gpus.append(entry)
    ids = [g["id"] for g in gpus]
    assert len(ids) == len(set(ids))
    return {"gpus": gpus}


# --------------------------------------------------------------------------------------
# Instances: hand-written hardware facts per (cloud, instance_type)
# --------------------------------------------------------------------------------------

AWS_AC = ("AWS EC2 Instance Types Guide, 'Specifications for Amazon EC2 accelerated computing "
          "instances' (docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): network and "
          "instance store tables")
AWS_PG = ("AWS EC2 Instance Types Guide, previous-generation specifications "
          "(docs.aws.amazon.com/ec2/latest/instancetypes/pg.html): network and instance store "
          "tables")
AZ = "learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"
AZ_REPO = "github.com/MicrosoftDocs/azure-docs articles/virtual-machines/sizes/gpu-accelerated/"
GCP_DOC = ("GCP 'Accelerator-optimized machine family' (cloud.google.com/compute/docs/"
           "accelerator-optimized-machines)")

PCIE = {3: 16, 4: 32, 5: 64}  # GB/s per direction, x16, theoretical

BURST_NOTE = ("inter_node_Gbps is the documented baseline; the type bursts to {burst} Gbps on "
              "network credits only, and training traffic is sustained.")

# Keys: (cloud, instance_type).  gpu: gpus.json id.  csv_gpu: the CSV gpu_model expected
# (guards against a catalog refresh changing what the type means).  gpus_per_node: only when
# the CSV's count is overridden.  nvme_GB: instance-store NVMe in GB (0 if none).
HARDWARE = {
    # ---------------------------------------------------------------- AWS
    ("aws", "g4dn.xlarge"): dict(
        gpu="t4", csv_gpu="T4", link="pcie", GBps=PCIE[3], net=5, nvme_GB=125,
        source=AWS_AC + ": 5.0 / 25.0 Gbps baseline/burst, 1 x 125 GB NVMe SSD; "
               "T4 PCIe gen3 x16 (NVIDIA T4 datasheet).",
        notes=BURST_NOTE.format(burst=25) + " Single GPU: intra_node is its PCIe gen3 x16 link."),
    ("aws", "g5.12xlarge"): dict(
        gpu="a10g", csv_gpu="A10G", link="pcie", GBps=PCIE[4], net=40, nvme_GB=3800,
        source=AWS_AC + ": 40 Gbps, 1 x 3800 GB NVMe SSD.",
        notes="A10G has no NVLink; GPUs talk over PCIe. assumed: PCIe gen4 x16 per GPU "
              "(A10G pcie_gen is not published; A10 and other GA102 parts are gen4). "
              "A10G compute peaks are null in gpus.json (not published)."),
    ("aws", "p3.8xlarge"): dict(
        gpu="v100-16gb", csv_gpu="V100", link="nvlink", GBps=100, net=10, nvme_GB=0,
        source=AWS_PG + ": 10 Gbps, EBS only (no instance store); P3 GPUs are NVLink-connected "
               "(AWS EC2 User Guide, accelerated computing instances, github.com/awsdocs/"
               "amazon-ec2-user-guide doc_source/accelerated-computing-instances.md).",
        notes="assumed: 100 GB/s per GPU per direction = 4 of each V100's 6 NVLink2 links "
              "(25 GB/s/direction each) staying inside the 4-GPU half of the DGX-1-style hybrid "
              "cube-mesh; AWS does not publish the p3.8xlarge NVLink topology."),
    ("aws", "p3dn.24xlarge"): dict(
        gpu="v100-32gb", csv_gpu="V100-32GB", link="nvlink", GBps=150, net=100, nvme_GB=1800,
        source=AWS_PG + ": 100 Gbps (EFA), 2 x 900 GB NVMe SSD; per-GPU NVLink 300 GB/s "
               "bidirectional from gpus.csv [V100].",
        notes="8 x V100 32GB in an NVLink hybrid cube-mesh (point-to-point NVLink, no "
              "NVSwitch): 150 GB/s per direction is each GPU's total NVLink bandwidth, not "
              "all-to-all."),
    ("aws", "p4d.24xlarge"): dict(
        gpu="a100-40gb", csv_gpu="A100", link="nvswitch", GBps=300, net=400, nvme_GB=8000,
        source=AWS_AC + ": 4x 100 Gigabit (EFA), 8 x 1000 GB NVMe SSD; P4 instances use "
               "NVSwitch (AWS EC2 User Guide, github.com/awsdocs/amazon-ec2-user-guide "
               "doc_source/accelerated-computing-instances.md); 600 GB/s bidirectional per GPU "
               "from gpus.csv [A100].",
        notes=None),
    ("aws", "p4de.24xlarge"): dict(
        gpu="a100-80gb", csv_gpu="A100-80GB", link="nvswitch", GBps=300, net=400, nvme_GB=8000,
        source=AWS_AC + ": 4x 100 Gigabit (EFA), 8 x 1000 GB NVMe SSD; NVSwitch as p4d; "
               "600 GB/s bidirectional per GPU from gpus.csv [A100].",
        notes=None),
    ("aws", "p5.48xlarge"): dict(
        gpu="h100-80gb", csv_gpu="H100", link="nvswitch", GBps=450, net=3200, nvme_GB=30400,
        source=AWS_AC + ": 3200 Gigabit (EFA, 32 network cards), 8 x 3800 GB NVMe SSD; "
               "900 GB/s bidirectional NVLink per GPU via NVSwitch from gpus.csv [H100].",
        notes=None),
    ("aws", "p5.4xlarge"): dict(
        gpu="h100-80gb", csv_gpu="H100", link="pcie", GBps=PCIE[5], net=100, nvme_GB=3800,
        source=AWS_AC + ": 100 Gigabit (EFA), 1 x 3800 GB NVMe SSD; H100 PCIe gen5 from "
               "gpus.csv [H100].",
        notes="Single GPU: intra_node is its PCIe gen5 x16 host link."),
    ("aws", "p5e.48xlarge"): dict(
        gpu="h200", csv_gpu="H200", link="nvswitch", GBps=450, net=3200, nvme_GB=30400,
        source=AWS_AC + ": 3200 Gigabit (EFA), 8 x 3800 GB NVMe SSD; 900 GB/s bidirectional "
               "NVLink per GPU from gpus.csv [H200].",
        notes=None),
    ("aws", "p5en.48xlarge"): dict(
        gpu="h200", csv_gpu="H200", link="nvswitch", GBps=450, net=3200, nvme_GB=30400,
        source=AWS_AC + ": 3200 Gigabit (EFA, 16 network cards), 8 x 3800 GB NVMe SSD; "
               "900 GB/s bidirectional NVLink per GPU from gpus.csv [H200].",
        notes=None),
    ("aws", "p6-b200.48xlarge"): dict(
        gpu="b200", csv_gpu="B200", link="nvswitch", GBps=900, net=3200, nvme_GB=30400,
        source=AWS_AC + ": 3200 Gigabit (EFA), 8 x 3800 GB NVMe SSD; NVLink5 1800 GB/s "
               "bidirectional per GPU from gpus.csv [B200].",
        notes=None),
    ("aws", "g5.2xlarge"): dict(
        gpu="a10g", csv_gpu="A10G", link="pcie", GBps=PCIE[4], net=5, nvme_GB=450,
        source=AWS_AC + ": 5.0 / 10.0 Gbps baseline/burst, 1 x 450 GB NVMe SSD.",
        notes=BURST_NOTE.format(burst=10) + " Single GPU. assumed: PCIe gen4 x16 (A10G "
              "pcie_gen not published). A10G compute peaks are null in gpus.json."),
    ("aws", "g5.48xlarge"): dict(
        gpu="a10g", csv_gpu="A10G", link="pcie", GBps=PCIE[4], net=100, nvme_GB=7600,
        source=AWS_AC + ": 100 Gigabit (EFA), 2 x 3800 GB NVMe SSD.",
        notes="8 x A10G over PCIe, no NVLink. assumed: PCIe gen4 x16 per GPU (A10G pcie_gen "
              "not published). A10G compute peaks are null in gpus.json."),
    ("aws", "g6.xlarge"): dict(
        gpu="l4", csv_gpu="L4", link="pcie", GBps=PCIE[4], net=2.5, nvme_GB=250,
        source=AWS_AC + ": 2.5 / 10.0 Gbps baseline/burst, 1 x 250 GB NVMe SSD; L4 PCIe gen4 "
               "from gpus.csv [L4].",
        notes=BURST_NOTE.format(burst=10) + " Single GPU: intra_node is its PCIe gen4 x16 link."),
    ("aws", "g6e.12xlarge"): dict(
        gpu="l40s", csv_gpu="L40S", link="pcie", GBps=PCIE[4], net=100, nvme_GB=3800,
        source=AWS_AC + ": 100 Gigabit (EFA), 2 x 1900 GB NVMe SSD; L40S PCIe gen4 from "
               "gpus.csv [L40S].",
        notes="4 x L40S over PCIe, no NVLink."),
    # ---------------------------------------------------------------- GCP
    ("gcp", "a2-highgpu-8g"): dict(
        gpu="a100-40gb", csv_gpu="A100", link="nvswitch", GBps=300, net=100, nvme_GB=0,
        source=GCP_DOC + ": A2 Standard, 8 x A100 40GB, 100 Gbps; Local SSD optional (not "
               "bundled); 600 GB/s bidirectional NVLink per GPU via NVSwitch from gpus.csv [A100].",
        notes="Only the introduction of the GCP page was readable in the stored copy searched "
              "here; 100 Gbps and 'no bundled Local SSD' are GCP's documented A2 figures but "
              "were not re-read this time. local_nvme_GB 0 because Local SSD must be added "
              "(and paid) separately. The europe-west4 row's CSV note flags an on-demand GPU "
              "component about half of us-central1's; kept as given."),
    ("gcp", "a2-ultragpu-8g"): dict(
        gpu="a100-80gb", csv_gpu="A100-80GB", link="nvswitch", GBps=300, net=100,
        nvme_GB=gib_to_gb(3000),
        source=GCP_DOC + ": A2 Ultra, 8 x A100 80GB, 100 Gbps, 3,000 GiB bundled Local SSD; "
               "600 GB/s bidirectional NVLink per GPU via NVSwitch from gpus.csv [A100].",
        notes="Local SSD 3,000 GiB = 3,221 GB. Only the introduction of the GCP page was "
              "readable in the stored copy searched here; figures are GCP's documented A2 Ultra "
              "values but were not re-read this time. Price trap, kept as given: the us-central1 "
              "row's CSV note flags the GPU component's spot price above its on-demand price "
              "(the summed VM spot is still below on-demand) and an on-demand price that looks "
              "low next to us-east5."),
    ("gcp", "a3-highgpu-1g"): dict(
        gpu="h100-80gb", csv_gpu="H100", link="pcie", GBps=PCIE[5], net=25,
        nvme_GB=gib_to_gb(750),
        source=GCP_DOC + ": A3 High a3-highgpu-1g, 1 x H100 80GB, 750 GiB bundled Local SSD; "
               "H100 PCIe gen5 from gpus.csv [H100].",
        notes="assumed: inter_node_Gbps 25 (the smallest A3 High type; GCP's per-type table "
              "could not be read from a stored copy here and third-party tables disagree "
              "(25-200 Gbps), so the conservative value is used). Single GPU: intra_node is its "
              "PCIe gen5 x16 link. Local SSD 750 GiB = 805 GB. GCP sells the 1/2/4-GPU A3 High "
              "types as Spot or Flex-start only. The us-central1 row's CSV note flags an H100 "
              "on-demand component less than half of us-east4's (likely a non-standard SKU); "
              "kept as given."),
    # ---------------------------------------------------------------- Azure
    ("azure", "Standard_NC24ads_A100_v4"): dict(
        gpu="a100-80gb-pcie", csv_gpu="A100-80GB", link="pcie", GBps=PCIE[4], net=20,
        nvme_GB=gib_to_gb(960),
        source=AZ + "nca100v4-series (" + AZ_REPO + "nca100v4-series.md @ dcab08d7; "
               "includes/nca100v4-series-specs.md @ 707aea39): NVIDIA A100 PCIe 80GB, "
               "20,000 Mbps, 960 GiB NVMe disk per GPU.",
        notes="Single GPU: intra_node is its PCIe gen4 x16 link. local_nvme_GB: 960 GiB NVMe "
              "= 1,031 GB (the separate 64 GiB temp disk is not counted)."),
    ("azure", "Standard_NC96ads_A100_v4"): dict(
        gpu="a100-80gb-pcie", csv_gpu="A100-80GB", link="pcie", GBps=PCIE[4], net=80,
        nvme_GB=gib_to_gb(4 * 960),
        source=AZ + "nca100v4-series (" + AZ_REPO + "nca100v4-series.md @ dcab08d7; "
               "includes/nca100v4-series-specs.md @ 707aea39): 4 x NVIDIA A100 PCIe 80GB, "
               "80,000 Mbps, 4 x 960 GiB NVMe.",
        notes="assumed: GPUs talk over PCIe gen4 x16; Azure does not document NVLink bridges "
              "for this size. local_nvme_GB: 4 x 960 GiB NVMe = 4,123 GB."),
    ("azure", "Standard_ND96asr_v4"): dict(
        gpu="a100-40gb", csv_gpu="A100", link="nvswitch", GBps=300, net=1600,
        nvme_GB=gib_to_gb(6000),
        source=AZ + "ndasra100v4-series (" + AZ_REPO + "ndasra100v4-series.md @ 0f88f753; "
               "includes/ndasra100v4-series-summary.md @ 6acc6f60): 8 x A100 40GB, NVLink 3.0, "
               "one 200 Gb/s HDR InfiniBand link per GPU (1.6 Tb/s per VM), 6000 GiB temp disk.",
        notes="Azure names the size Standard_ND96asr_A100_v4; the price catalog lists it as "
              "Standard_ND96asr_v4. inter_node_Gbps is the InfiniBand backend (8 x 200); the "
              "Ethernet NICs are 24 Gbps. Intra-node: HGX A100 NVSwitch, 600 GB/s bidirectional "
              "per GPU (gpus.csv [A100]). local_nvme_GB: 6000 GiB temp disk = 6,442 GB "
              "(Azure's table does not say NVMe)."),
    ("azure", "Standard_ND96amsr_A100_v4"): dict(
        gpu="a100-80gb", csv_gpu="A100-80GB", link="nvswitch", GBps=300, net=1600,
        nvme_GB=gib_to_gb(6400),
        source=AZ + "ndma100v4-series (" + AZ_REPO + "ndma100v4-series.md @ dcab08d7; "
               "includes/ndma100v4-series-summary.md @ 516167e9): 8 x A100 80GB, NVLink 3.0, "
               "one 200 Gb/s HDR InfiniBand link per GPU (1.6 Tb/s per VM), 6400 GiB temp disk.",
        notes="inter_node_Gbps is the InfiniBand backend (8 x 200). Azure documents 1900 GB "
              "host memory; the price catalog says 1800 (kept as the CSV gives it). local_nvme_GB: "
              "6400 GiB temp disk = 6,872 GB (Azure's table does not say NVMe)."),
    ("azure", "Standard_NC40ads_H100_v5"): dict(
        gpu="h100-nvl", csv_gpu="H100", link="pcie", GBps=PCIE[5], net=40,
        nvme_GB=gib_to_gb(3576),
        source=AZ + "ncadsh100v5-series (" + AZ_REPO + "ncadsh100v5-series.md @ 02affc86; "
               "includes/ncadsh100v5-series-summary.md @ 21f95353): 1 x NVIDIA H100 NVL 94GB, "
               "40,000 Mbps, 3576 GiB temp disk.",
        notes="The price catalog says 'H100'; Azure documents this series as H100 NVL (94 GB), "
              "hence h100-nvl. Single GPU: intra_node is its PCIe gen5 x16 link. local_nvme_GB: "
              "3576 GiB temp disk = 3,840 GB (Azure's table does not say NVMe)."),
    ("azure", "Standard_ND96isr_H100_v5"): dict(
        gpu="h100-80gb", csv_gpu="H100", gpus_per_node=8, link="nvswitch", GBps=450, net=3200,
        nvme_GB=gib_to_gb(28000),
        source=AZ + "ndh100v5-series (" + AZ_REPO + "ndh100v5-series.md @ aadaee5d: "
               "Accelerators 8, 640 GB; includes/ndh100v5-series-summary.md @ 2467ea47: eight "
               "H100, NVLink 4.0, one 400 Gb/s Quantum-2 CX7 InfiniBand link per GPU, 3.2 Tbps "
               "per VM), 28000 GiB temp disk.",
        notes="gpus_per_node = 8: the price catalog's AcceleratorCount is 12, but Azure documents "
              "ND H100 v5 as 8 x H100 per VM (Accelerators (Qty.) 8, 640 GB). inter_node_Gbps is "
              "the InfiniBand backend (8 x 400). local_nvme_GB: 28000 GiB temp disk = 30,065 GB."),
    ("azure", "Standard_NC6s_v3"): dict(
        gpu="v100-16gb", csv_gpu="V100", link="pcie", GBps=PCIE[3], net=10,
        nvme_GB=gib_to_gb(736),
        source=AZ + "ncv3-series (" + AZ_REPO + "ncv3-series.md @ 882af9a1): 1 x Tesla V100 "
               "16GB, 736 GiB temp disk, network bandwidth not listed.",
        notes="assumed: inter_node_Gbps 10 (Azure lists no bandwidth for NCv3 and no "
              "Accelerated Networking; no InfiniBand on this size). Azure says only 'Tesla V100'; "
              "mapped to v100-16gb (the catalog has no V100 PCIe id), compute may be ~10% "
              "optimistic if the part is PCIe. Single GPU: intra_node is PCIe gen3 x16. "
              "local_nvme_GB: 736 GiB temp SSD = 790 GB (not stated to be NVMe)."),
    ("azure", "Standard_NC24s_v3"): dict(
        gpu="v100-16gb", csv_gpu="V100", link="pcie", GBps=PCIE[3], net=10,
        nvme_GB=gib_to_gb(2948),
        source=AZ + "ncv3-series (" + AZ_REPO + "ncv3-series.md @ 882af9a1): 4 x Tesla V100 "
               "16GB, 2948 GiB temp disk, network bandwidth not listed.",
        notes="assumed: inter_node_Gbps 10 (Azure lists no bandwidth for NCv3; the InfiniBand "
              "variant is NC24rs_v3, not this size). assumed: GPUs talk over PCIe gen3 x16 (Azure "
              "documents no NVLink for NCv3). Mapped to v100-16gb (no V100 PCIe id in the "
              "catalog). local_nvme_GB: 2948 GiB temp SSD = 3,165 GB (not stated to be NVMe)."),
    ("azure", "Standard_ND40rs_v2"): dict(
        gpu="v100-32gb", csv_gpu="V100-32GB", link="nvlink", GBps=150, net=100,
        nvme_GB=gib_to_gb(2948),
        source=AZ + "ndv2-series (" + AZ_REPO + "ndv2-series.md @ 45356a18; "
               "includes/ndv2-series-summary.md @ 60e1879f): 8 x V100 32GB NVLink-connected, "
               "100 Gb/s InfiniBand EDR backend, 2948 GiB temp disk; per-GPU NVLink 300 GB/s "
               "bidirectional from gpus.csv [V100].",
        notes="inter_node_Gbps is the 100 Gb/s EDR InfiniBand backend (Ethernet: 24 Gbps). "
              "NVLink is point-to-point (hybrid cube-mesh, no NVSwitch): 150 GB/s per direction "
              "is each GPU's total. local_nvme_GB: 2948 GiB temp disk = 3,165 GB."),
    ("azure", "Standard_NV36ads_A10_v5"): dict(
        gpu="a10", csv_gpu="A10", link="pcie", GBps=PCIE[4], net=40, nvme_GB=gib_to_gb(1440),
        source=AZ + "nvadsa10v5-series (" + AZ_REPO + "nvadsa10v5-series.md @ de83e2ca): "
               "1 x A10 (full GPU), 40,000 Mbps, 1440 GiB temp disk.",
        notes="Single GPU: intra_node is its PCIe gen4 x16 link. local_nvme_GB: 1440 GiB temp "
              "disk = 1,546 GB (not stated to be NVMe)."),
    ("azure", "Standard_NC4as_T4_v3"): dict(
        gpu="t4", csv_gpu="T4", link="pcie", GBps=PCIE[3], net=8, nvme_GB=gib_to_gb(176),
        source=AZ + "ncast4v3-series (" + AZ_REPO + "ncast4v3-series.md @ dcab08d7): 1 x T4, "
               "8000 Mbps, 176 GiB temp disk.",
        notes="Single GPU: intra_node is its PCIe gen3 x16 link. local_nvme_GB: 176 GiB temp "
              "disk = 189 GB (not stated to be NVMe)."),
}

PROVIDERS = ["aws", "gcp", "azure"]


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
        inst["prices"].append({
            "region": r["region"].strip(),
            "zone": r["zone"].strip() or None,
            "on_demand_usd_per_hour": num(r["ondemand_usd_per_hr"]),
            "spot_usd_per_hour": num(r["spot_usd_per_hr"]),
            "note": r["note"].strip() or None,
        })

    if missing:
        raise SystemExit("instance types without hardware facts in HARDWARE (add them with a "
                         "source, or a skip rule):\n  " + "\n  ".join(sorted(set(missing))))

    for p in PROVIDERS:
        for inst in out[p]["instances"]:
            finish_notes(inst)
    return out, row_count


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


# --------------------------------------------------------------------------------------


def dump(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


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
