"""Hand-written hardware facts per (cloud, instance type), each with its source: what the price CSV
does not say (intra-node link, inter-node network, local NVMe)."""

from reference_csv import gib_to_gb

AWS_AC = ("AWS EC2 Instance Types Guide, 'Specifications for Amazon EC2 accelerated computing "
          "instances' (docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): network and "
          "instance store tables")
AWS_PG = ("AWS EC2 Instance Types Guide, previous-generation specifications "
          "(docs.aws.amazon.com/ec2/latest/instancetypes/pg.html): network and instance store "
          "tables")
AZ = "learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"
AZ_REPO = "github.com/MicrosoftDocs/azure-docs articles/virtual-machines/sizes/gpu-accelerated/"
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
