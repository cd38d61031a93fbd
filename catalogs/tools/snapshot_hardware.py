"""What a SkyPilot catalog row does not say about a machine, per provider: which catalog GPU its
accelerator is, how its GPUs talk inside the node, and its network between nodes. A fact comes
from the provider's documentation or the provider's own type name, with its source; where neither
says, the fact is `assumed` and written at its conservative reading (PCIe inside the node, no
network between nodes, so no plan spans several), which the planner names wherever it is used."""

import re

# SkyPilot accelerator name (upper case, '-' '_' ' ' removed) -> catalog GPU id. A name that maps
# to several parts is split by the type name (PCIe / NVL / SXM) in gpu_for().
GPU_NAMES = {
    "V100": "v100-16gb", "V10032GB": "v100-32gb", "A10": "a10", "L4": "l4", "L40S": "l40s",
    "L40": "l40", "A40": "a40", "A6000": "a6000", "RTXA6000": "a6000",
    "RTX6000ADA": "rtx6000-ada", "A100": "a100-40gb", "A10080GB": "a100-80gb",
    "A10080GPCIE": "a100-80gb-pcie", "A10080GPCIENVLINK": "a100-80gb-pcie",
    "H100": "h100-80gb", "H100SXM": "h100-80gb", "H10080GSXM5": "h100-80gb",
    "H10080GPCIE": "h100-pcie-80gb", "H10080GPCIENVLINK": "h100-pcie-80gb",
    "H200": "h200", "H200SXM": "h200", "B200": "b200", "A10080GBSXM": "a100-80gb", "H100NVL": "h100-nvl", "GH200": "gh200", "RTX4090": "rtx4090", "RTX3090": "rtx3090",
}

# The same accelerator name rented in another form: the PCIe or NVL part where the type says so.
PCIE_PART = {"a100-40gb": "a100-40gb-pcie", "a100-80gb": "a100-80gb-pcie", "h100-80gb": "h100-pcie-80gb"}

PCIE_GBPS = {3: 16, 4: 32, 5: 64}  # GB/s per direction, x16, theoretical (PCI-SIG)

HGX = ("an SXM part sits on an NVIDIA HGX baseboard, whose GPUs reach each other through NVSwitch "
       "at the GPU's full NVLink rate (NVIDIA HGX platform specifications)")

MARKETPLACES = {
    "vast": "Vast.ai is a marketplace: each host sets its own prices and publishes its own offers "
            "(docs.vast.ai/guides/concepts); interruptible instances are per-machine bids "
            "(docs.vast.ai/cli/reference/change-bid)",
}

# Providers whose GpuInfo SizeInMiB is the machine's total GPU memory, not one GPU's (Vast: equal to
# TotalGpuMemoryInMiB; Yotta: one Gpus entry of count 1 for 2-8 GPUs; Prime Intellect: the node's
# total in the per-GPU field). Lambda, Cudo, Seeweb, Hyperbolic, DigitalOcean and RunPod state one GPU's.
MEMORY_IS_TOTAL = {"vast", "yotta", "primeintellect"}

# Providers whose catalog rows carry no price a team can pay: every row skipped with the reason.
UNPRICED = {
    "mithril": "the source lists $1.00 per GPU-hour on demand and on spot alike, a placeholder: Mithril "
               "sells capacity by limit-price auction, so there is no list price to plan with",
}

# Facts a provider documents for its own offers, by type-name pattern: (regex, fact dict, source).
DOCUMENTED = {
    "nebius": [
        (r"^gpu-(h100|h200|b200)-sxm_8gpu", {"link": "nvswitch"},
         "Nebius names these platforms 'NVIDIA H100 / H200 / B200 NVLink' "
         "(docs.nebius.com/compute/virtual-machines/preemptible); " + HGX),
    ],
}


def key(name):
    return re.sub(r"[-_ ]", "", name).upper()


# Providers whose type names say SXM where the part is SXM, so a name without it is the PCIe part
# (RunPod: "A100-80GB" and "H100" beside "A100-80GB-SXM" and "H100-SXM").
PCIE_UNLESS_SXM = {"runpod"}


def gpu_for(accelerator, itype, gpus, provider=""):
    """Catalog GPU id for a row, or None where the catalog has no such GPU."""
    gid = GPU_NAMES.get(key(accelerator))
    if gid is None:
        return None
    name = itype.lower()
    if gid in PCIE_PART and ("pci" in name or (provider in PCIE_UNLESS_SXM and "sxm" not in name)):
        gid = PCIE_PART[gid]
    if gid == "h100-80gb" and "nvl" in name and "nvlink" not in name:
        gid = "h100-nvl"
    return gid if gid in gpus else None


def sxm_named(itype):
    return re.search(r"sxm", itype, re.I) is not None


def hardware_for(provider, itype, gpu, count):
    """Intra-node link, its GB/s per direction, inter-node Gb/s, the keys assumed, and the source."""
    gen = gpu["pcie_gen"] or 4  # a part without a published generation: gen4, as GA10x and AD10x are
    assumed = []
    sources = []
    link = None
    for pattern, fact, source in DOCUMENTED.get(provider, []):
        if re.search(pattern, itype):
            link = fact.get("link", link)
            sources.append(source)
    if link is None and count > 1 and sxm_named(itype):
        link = "nvswitch"
        sources.append("the provider's type name says SXM; " + HGX)
    if count == 1:
        link = "pcie"
        sources.append("one GPU: intra_node is its own PCIe gen%d x16 link" % gen)
    if link is None:
        link = "pcie"
        assumed.append("intra_node")
        sources.append("how the GPUs connect is not documented: read as PCIe gen%d x16" % gen)
    if link == "pcie":
        gbps = PCIE_GBPS[gen]
    else:
        gbps = gpu["nvlink_GBps_per_gpu_bidirectional"] / 2
    assumed.append("inter_node_Gbps")
    sources.append("the network between these instances is not documented for the on-demand offer: "
                   "read as none, so a plan keeps to one node")
    return link, gbps, 0, assumed, "; ".join(sources)
