"""gpus.json from the reference gpus.csv plus the GPU_EXTRA table (names, architectures as NVIDIA's
datasheets name them, notes, SM counts, and T4, which the CSV lacks)."""

import os
import re

from reference_csv import num, read_commented_csv

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
    ("h800-80gb", None, None, None),  # not in gpus.csv: GPU_EXTRA["h800-80gb"]["row"]
    ("h100-nvl", "H100 NVL", "PCIe 94GB", None),
    ("h200", "H200", "SXM", None),
    ("b200", "B200", "HGX (SXM)", None),
    ("rtx3090", "RTX 3090", "PCIe", None),
    ("rtx4090", "RTX 4090", "PCIe", None),
    ("a6000", None, None, None),  # not in gpus.csv: GPU_EXTRA["a6000"]["row"]
    ("a40", None, None, None),  # not in gpus.csv: GPU_EXTRA["a40"]["row"]
    ("l40", None, None, None),  # not in gpus.csv: GPU_EXTRA["l40"]["row"]
    ("rtx6000-ada", None, None, None),  # not in gpus.csv: GPU_EXTRA["rtx6000-ada"]["row"]
    ("gh200", None, None, None),  # not in gpus.csv: GPU_EXTRA["gh200"]["row"]
]

# Maximum board power (TDP) per the product's datasheet or specification page: what an owned
# machine's electricity estimate multiplies (gpus.csv has no power column).
BOARD_POWER_W = {
    "v100-16gb": (300, "NVIDIA V100 datasheet: 300 W (SXM2)"),
    "v100-32gb": (300, "NVIDIA V100 datasheet: 300 W (SXM2)"),
    "a10": (150, "NVIDIA A10 datasheet: 150 W"),
    "a10g": (300, "NVIDIA publishes no A10G datasheet: the 300 W power limit nvidia-smi reports on AWS g5"),
    "t4": (70, "NVIDIA T4 datasheet: 70 W"),
    "h800-80gb": (700, "NVIDIA H800 Tensor Core GPU datasheet: up to 700 W (SXM5)"),
    "l4": (72, "NVIDIA L4 datasheet: 72 W"),
    "l40s": (350, "NVIDIA L40S datasheet: 350 W"),
    "a100-40gb": (400, "NVIDIA A100 datasheet: 400 W (SXM4)"),
    "a100-80gb": (400, "NVIDIA A100 datasheet: 400 W (SXM4)"),
    "a100-40gb-pcie": (250, "NVIDIA A100 datasheet: 250 W (PCIe 40GB)"),
    "a100-80gb-pcie": (300, "NVIDIA A100 datasheet: 300 W (PCIe 80GB)"),
    "h100-80gb": (700, "NVIDIA H100 datasheet: up to 700 W (SXM5)"),
    "h100-pcie-80gb": (350, "NVIDIA H100 datasheet: 300-350 W (PCIe)"),
    "h100-nvl": (400, "NVIDIA H100 NVL product brief: 350-400 W"),
    "h200": (700, "NVIDIA H200 datasheet: up to 700 W (SXM)"),
    "b200": (1000, "NVIDIA HGX B200 specifications: 1,000 W per GPU"),
    "rtx3090": (350, "GeForce RTX 3090 specifications: 350 W total graphics power"),
    "rtx4090": (450, "GeForce RTX 4090 specifications: 450 W total graphics power"),
    "a6000": (300, "NVIDIA RTX A6000 datasheet: 300 W max power consumption"),
    "a40": (300, "NVIDIA A40 datasheet: 300 W max power consumption"),
    "l40": (300, "NVIDIA L40 datasheet: 300 W max power consumption"),
    "rtx6000-ada": (300, "NVIDIA RTX 6000 Ada Generation datasheet: 300 W total board power"),
    "gh200": (1000, "NVIDIA GH200 Grace Hopper Superchip datasheet: power (memory + CPU + GPU) configurable "
                    "450 to 1000 W; the 1000 W maximum is used, Grace CPU and LPDDR5X included (NVIDIA "
                    "publishes no GPU-only figure)"),
}

AS_OF_NOTE = ("as_of is the date the figures were transcribed into the reference folder; "
              "the datasheet revision date was not recorded.")

GPU_EXTRA = {
    "v100-16gb": {
        "name": "NVIDIA Tesla V100 16GB SXM2",
        "architecture": "volta",
        "sm_count": 80,
        "sm_count_source": "Volta whitepaper: 80 SMs (5120 CUDA cores / 64 per SM)",
        "notes": "No bf16/tf32/fp8 in hardware (Volta). fp16 is the tensor-core peak. "
                 "Also used for Azure NCv3 (documented by Azure only as 'Tesla V100'); "
                 "the V100 PCIe part is ~10% slower (112 fp16 / 14 fp32 per gpus.csv).",
    },
    "v100-32gb": {
        "name": "NVIDIA Tesla V100 32GB SXM2",
        "architecture": "volta",
        "sm_count": 80,
        "sm_count_source": "Volta whitepaper: 80 SMs (5120 CUDA cores / 64 per SM)",
        "notes": "No bf16/tf32/fp8 in hardware (Volta). fp16 is the tensor-core peak.",
    },
    "a10": {
        "name": "NVIDIA A10",
        "architecture": "ampere",
        "sm_count": 72,
        "sm_count_source": "A10 datasheet: 9216 CUDA cores / 128 per GA10x SM",
        "notes": "No NVLink. No fp8 in hardware (Ampere).",
    },
    "a10g": {
        "name": "NVIDIA A10G",
        "architecture": "ampere",
        "sm_count": None,
        "sm_count_source": "NVIDIA publishes no core count for the AWS-only A10G: unknown",
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
    "h800-80gb": {
        "name": "NVIDIA H800 80GB SXM5",
        "architecture": "hopper",
        "sm_count": 132,
        "sm_count_source": "the H100 SXM5's configuration, whose tensor-core peaks the H800 datasheet lists",
        "notes": "Not in gpus.csv: the export variant of the H100 SXM5 (China), the same SMs, memory and "
                 "peaks with NVLink cut to 400 GB/s bidirectional (8 links against 18). DeepSeek-V3 was "
                 "trained on 2,048 of them (its technical report, arXiv:2412.19437, 3.1). as_of is the "
                 "date these figures were transcribed from the sources named.",
        "as_of": "2026-12-03",
        "row": {
            "form_factor": "SXM5",
            "memory_GiB": 80,
            "memory_type": "HBM3",
            "memory_bandwidth_GBps": 3350,
            "peak_tflops": {"fp32": 67, "tf32": 494.5, "bf16": 989.4, "fp16": 989.4, "fp8": 1979},
            "nvlink_GBps_per_gpu_bidirectional": 400,
            "pcie_gen": 5,
            "source": "NVIDIA H800 Tensor Core GPU datasheet (www.nvidia.cn/data-center/h800/): 80 GB HBM3 "
                      "at 3.35 TB/s, NVLink 400 GB/s, the H100 SXM5's dense tensor-core peaks; DeepSeek-V3 "
                      "technical report (arXiv:2412.19437) 3.2.2: 160 GB/s of NVLink achieved between H800s",
        },
    },
    "t4": {
        "name": "NVIDIA T4",
        "architecture": "turing",
        "sm_count": 40,
        "sm_count_source": "T4 datasheet: 2560 CUDA cores / 64 per Turing SM",
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
        "architecture": "ada",
        "sm_count": 58,
        "sm_count_source": "L4 datasheet: 7424 CUDA cores / 128 per Ada SM",
        "notes": "No NVLink. Cloud catalogs report 22.35 GiB usable memory.",
    },
    "l40s": {
        "name": "NVIDIA L40S",
        "architecture": "ada",
        "sm_count": 142,
        "sm_count_source": "L40S datasheet: 18176 CUDA cores / 128 per Ada SM",
        "notes": "No NVLink. Cloud catalogs report 44.7 GiB usable memory.",
    },
    "a100-40gb": {
        "name": "NVIDIA A100 40GB SXM4",
        "architecture": "ampere",
        "sm_count": 108,
        "sm_count_source": "A100 whitepaper: 108 SMs",
        "notes": "NVLink3 via NVSwitch on HGX A100 boards. No fp8 in hardware (Ampere).",
    },
    "a100-80gb": {
        "name": "NVIDIA A100 80GB SXM4",
        "architecture": "ampere",
        "sm_count": 108,
        "sm_count_source": "A100 whitepaper: 108 SMs",
        "notes": "NVLink3 via NVSwitch on HGX A100 boards. No fp8 in hardware (Ampere).",
    },
    "a100-40gb-pcie": {
        "name": "NVIDIA A100 40GB PCIe",
        "architecture": "ampere",
        "sm_count": 108,
        "sm_count_source": "A100 whitepaper: 108 SMs",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (not a switch). "
                 "No fp8 in hardware (Ampere).",
    },
    "a100-80gb-pcie": {
        "name": "NVIDIA A100 80GB PCIe",
        "architecture": "ampere",
        "sm_count": 108,
        "sm_count_source": "A100 whitepaper: 108 SMs",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (not a switch). "
                 "No fp8 in hardware (Ampere).",
    },
    "h100-80gb": {
        "name": "NVIDIA H100 80GB SXM5",
        "architecture": "hopper",
        "sm_count": 132,
        "sm_count_source": "H100 whitepaper: 132 SMs on SXM5",
        "notes": "NVLink4 via NVSwitch on HGX H100 boards.",
    },
    "h100-pcie-80gb": {
        "name": "NVIDIA H100 PCIe 80GB",
        "architecture": "hopper",
        "sm_count": 114,
        "sm_count_source": "H100 whitepaper: 114 SMs on PCIe",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (not a switch).",
    },
    "h100-nvl": {
        "name": "NVIDIA H100 NVL 94GB",
        "architecture": "hopper",
        "sm_count": 132,
        "sm_count_source": "H100 NVL product brief: 16896 CUDA cores / 128 per Hopper SM",
        "notes": "PCIe card. NVLink figure is the NVLink bridge between 2 GPUs only "
                 "(not a switch).",
    },
    "h200": {
        "name": "NVIDIA H200 141GB SXM",
        "architecture": "hopper",
        "sm_count": 132,
        "sm_count_source": "H200 is the GH100 die of H100 SXM5 with HBM3e: 132 SMs",
        "notes": "NVLink4 via NVSwitch on HGX H200 boards.",
    },
    "b200": {
        "name": "NVIDIA B200 (HGX B200, per GPU)",
        "architecture": "blackwell",
        "sm_count": None,
        "sm_count_source": "NVIDIA publishes no SM count for B200: unknown",
        "notes": "NVLink5 via NVSwitch. pcie_gen not published in the cited datasheets "
                 "(empty in gpus.csv), so null. Cloud catalogs report 179.06 GiB usable memory "
                 "(AWS: 8 x 179 GiB).",
    },
    "rtx3090": {
        "name": "NVIDIA GeForce RTX 3090",
        "architecture": "ampere",
        "sm_count": 82,
        "sm_count_source": "GeForce RTX 3090 specifications: 10496 CUDA cores / 128 per GA10x SM",
        "notes": "NVLink figure is the NVLink bridge between 2 GPUs only (112.5 GB/s "
                 "bidirectional). Tensor peaks are FP32-accumulate rates (FP16-accumulate is "
                 "2x). No fp8 in hardware (Ampere).",
    },
    "rtx4090": {
        "name": "NVIDIA GeForce RTX 4090",
        "architecture": "ada",
        "sm_count": 128,
        "sm_count_source": "GeForce RTX 4090 specifications: 16384 CUDA cores / 128 per Ada SM",
        "notes": "No NVLink. Tensor peaks are FP32-accumulate rates (FP16-accumulate is 2x).",
    },
    "a6000": {
        "name": "NVIDIA RTX A6000",
        "architecture": "ampere",
        "sm_count": 84,
        "sm_count_source": "RTX A6000 datasheet: 10,752 CUDA cores / 128 per GA10x SM",
        "notes": "Not in gpus.csv: a GA102 workstation card that neoclouds rent. The datasheet quotes a single "
                 "tensor figure, 309.7 TFLOPS with sparsity; halved to 154.8 dense and used for bf16 and fp16 "
                 "(taken as the FP32-accumulate rate, as the A40 datasheet lists for the same professional "
                 "GA102 board family; the A6000 datasheet does not say). tf32 null: the datasheet publishes no "
                 "TF32 peak (the GA102 whitepaper v2 has an RTX A6000 appendix that could not be read here). "
                 "No fp8 in hardware (Ampere). NVLink: bridge between 2 GPUs. The figures were read from copies "
                 "of the datasheet's specification table (the NVIDIA PDF itself was not in the searchable "
                 "store) and agree between them. as_of is the date these figures were transcribed from the "
                 "sources named.",
        "as_of": "2026-12-06",
        "row": {
            "form_factor": "PCIe",
            "memory_GiB": 48,
            "memory_type": "GDDR6",
            "memory_bandwidth_GBps": 768,
            "peak_tflops": {"fp32": 38.7, "tf32": None, "bf16": 154.8, "fp16": 154.8, "fp8": None},
            "nvlink_GBps_per_gpu_bidirectional": 112.5,
            "pcie_gen": 4,
            "source": "NVIDIA RTX A6000 datasheet (www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/"
                      "quadro-product-literature/proviz-print-nvidia-rtx-a6000-datasheet-us-nvidia-1454980-r9-web.pdf): "
                      "48 GB GDDR6 with ECC, 768 GB/s, 10,752 CUDA cores, single-precision 38.7 TFLOPS, tensor "
                      "performance 309.7 TFLOPS with sparsity, PCI Express 4.0 x16, NVLink 112.5 GB/s "
                      "(bidirectional) connecting 2x RTX A6000, 300 W max power consumption",
        },
    },
    "a40": {
        "name": "NVIDIA A40",
        "architecture": "ampere",
        "sm_count": 84,
        "sm_count_source": "A40 datasheet: 10,752 CUDA cores / 128 per GA10x SM",
        "notes": "Not in gpus.csv: the passively cooled data-center GA102 board that neoclouds rent. The "
                 "datasheet lists dense | sparse pairs; the dense values are used. bf16 is its 'BF16 Tensor with "
                 "FP32 Accumulate' 149.7; fp16 is its 'FP16 Tensor with FP16 Accumulate' at the same 149.7. No "
                 "fp8 in hardware (Ampere). NVLink: bridge between 2 GPUs. The figures were read from copies of "
                 "the datasheet's specification table (the NVIDIA PDF itself was not in the searchable store) "
                 "and agree between them. as_of is the date these figures were transcribed from the sources "
                 "named.",
        "as_of": "2026-12-06",
        "row": {
            "form_factor": "PCIe",
            "memory_GiB": 48,
            "memory_type": "GDDR6",
            "memory_bandwidth_GBps": 696,
            "peak_tflops": {"fp32": 37.4, "tf32": 74.8, "bf16": 149.7, "fp16": 149.7, "fp8": None},
            "nvlink_GBps_per_gpu_bidirectional": 112.5,
            "pcie_gen": 4,
            "source": "NVIDIA A40 datasheet (images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf): "
                      "48 GB GDDR6 with ECC, 696 GB/s, NVLink 112.5 GB/s (bidirectional), PCIe Gen4 64 GB/s, "
                      "10,752 CUDA cores, peak FP32 37.4, TF32 Tensor 74.8 | 149.6*, BF16 Tensor (FP32 "
                      "accumulate) 149.7 | 299.4*, FP16 Tensor (FP16 accumulate) 149.7 | 299.4* TFLOPS "
                      "(* with sparsity), 300 W max power consumption",
        },
    },
    "l40": {
        "name": "NVIDIA L40",
        "architecture": "ada",
        "sm_count": 142,
        "sm_count_source": "L40 datasheet: 18,176 CUDA cores / 128 per Ada SM",
        "notes": "Not in gpus.csv. No NVLink. The datasheet lists dense | sparse pairs; the dense values are "
                 "used. They are half the l40s entry's figures for the same 142-SM AD102 at nearly the same "
                 "clock: NVIDIA does not say which FP16/BF16 accumulate rate each of the two documents quotes, "
                 "so compare the two GPUs only after calibration. The figures were read from copies of the "
                 "datasheet's specification table (the NVIDIA PDF itself was not in the searchable store) and "
                 "agree between them. as_of is the date these figures were transcribed from the sources named.",
        "as_of": "2026-12-06",
        "row": {
            "form_factor": "PCIe",
            "memory_GiB": 48,
            "memory_type": "GDDR6",
            "memory_bandwidth_GBps": 864,
            "peak_tflops": {"fp32": 90.5, "tf32": 90.5, "bf16": 181.05, "fp16": 181.05, "fp8": 362},
            "nvlink_GBps_per_gpu_bidirectional": 0,
            "pcie_gen": 4,
            "source": "NVIDIA L40 GPU datasheet (images.nvidia.com/content/Solutions/data-center/vgpu-L40-datasheet.pdf): "
                      "48 GB GDDR6 with ECC, 864 GB/s, PCIe Gen4 x16 64 GB/s bidirectional, 18,176 CUDA cores, "
                      "FP32 90.5, TF32 Tensor 90.5 | 181*, BFLOAT16 Tensor 181.05 | 362.1*, FP16 Tensor "
                      "181.05 | 362.1*, FP8 Tensor 362 | 724* TFLOPS (* with sparsity), 300 W max power consumption",
        },
    },
    "rtx6000-ada": {
        "name": "NVIDIA RTX 6000 Ada Generation",
        "architecture": "ada",
        "sm_count": 142,
        "sm_count_source": "RTX 6000 Ada Generation datasheet: 18,176 CUDA cores / 128 per Ada SM",
        "notes": "Not in gpus.csv: an AD102 workstation card that neoclouds rent. No NVLink. fp8 is the "
                 "datasheet's 1457.0 TFLOPS ('effective FP8 TFLOPS using the new sparsity feature') halved to "
                 "728.5 dense. tf32, bf16 and fp16 are null: the datasheet publishes no peak for them, and the "
                 "FP8 figure does not settle which accumulate rate FP16/BF16 run at (the same 142-SM AD102 is "
                 "quoted at 181.05 dense BF16 on the L40 datasheet and 362.05 for the L40S). Third-party "
                 "figures (about 364 TFLOPS bf16 dense) are unverified and NOT used; supply a calibration "
                 "profile to plan bf16 on this GPU. The figures were read from a transcription of the "
                 "datasheet's specification table (the NVIDIA PDF itself was not in the searchable store). "
                 "as_of is the date these figures were transcribed from the sources named.",
        "as_of": "2026-12-06",
        "row": {
            "form_factor": "PCIe",
            "memory_GiB": 48,
            "memory_type": "GDDR6",
            "memory_bandwidth_GBps": 960,
            "peak_tflops": {"fp32": 91.1, "tf32": None, "bf16": None, "fp16": None, "fp8": 728.5},
            "nvlink_GBps_per_gpu_bidirectional": 0,
            "pcie_gen": 4,
            "source": "NVIDIA RTX 6000 Ada Generation datasheet (www.nvidia.com/content/dam/en-zz/Solutions/"
                      "design-visualization/rtx-6000/proviz-print-rtx6000-datasheet-web-2504660.pdf): 48 GB "
                      "GDDR6 with ECC, 960 GB/s, 18,176 CUDA cores, single-precision 91.1 TFLOPS, tensor "
                      "performance 1457.0 TFLOPS (effective FP8 with sparsity), PCIe 4.0 x16, NVLink: no, "
                      "total board power 300 W",
        },
    },
    "gh200": {
        "name": "NVIDIA GH200 Grace Hopper Superchip 96GB (GPU)",
        "architecture": "hopper",
        "sm_count": 132,
        "sm_count_source": "the H100 SXM5's 132 SMs (H100 whitepaper), whose dense tensor-core peaks the GH200 "
                           "datasheet lists; the GH200 datasheet gives no SM count",
        "notes": "Not in gpus.csv: the GPU of one GH200 superchip as Lambda rents it (96 GB HBM3). Peaks are the "
                 "H100 SXM5's dense tensor-core peaks (as the h100-80gb entry), which the GH200 datasheet prints "
                 "rounded: TF32 494, BF16/FP16 990, FP8 1,979 dense (989 / 1,979 / 3,958 with sparsity). "
                 "nvlink 0: NVLink-C2C (900 GB/s) joins the GPU to its own Grace CPU, not to another GPU, and a "
                 "one-superchip instance has no GPU peer (multi-superchip NVLink systems such as GH200 NVL2 are "
                 "not described here). pcie_gen 5 is the superchip's PCIe Gen5 links (NICs, storage); the GPU "
                 "reaches the CPU's 480 GB LPDDR5X, not counted in memory_GiB, over NVLink-C2C. Board power: the "
                 "datasheet gives only the module's power (memory + CPU + GPU), configurable 450 to 1000 W; "
                 "board_power_W uses the 1000 W maximum, so an owned GH200's electricity estimate is an upper "
                 "bound that includes the CPU. The figures were read from a transcription of the datasheet's "
                 "specification table (the NVIDIA PDF itself was not in the searchable store). as_of is the "
                 "date these figures were transcribed from the sources named.",
        "as_of": "2026-12-06",
        "row": {
            "form_factor": "Superchip",
            "memory_GiB": 96,
            "memory_type": "HBM3",
            "memory_bandwidth_GBps": 4000,
            "peak_tflops": {"fp32": 67, "tf32": 494.5, "bf16": 989.4, "fp16": 989.4, "fp8": 1979},
            "nvlink_GBps_per_gpu_bidirectional": 0,
            "pcie_gen": 5,
            "source": "NVIDIA GH200 Grace Hopper Superchip datasheet (nvdam.widen.net/s/rrgqqnpbz8/"
                      "grace-datasheet-gh200-grace-hopper-superchip-3773000): 96 GB HBM3 at up to 4 TB/s, FP32 "
                      "67, TF32 Tensor 989* | 494, BFLOAT16/FP16 Tensor 1,979* | 990, FP8 Tensor 3,958* | 1,979 "
                      "teraFLOPS (* with sparsity), NVLink-C2C CPU-to-GPU 900 GB/s, PCIe Gen5 links, power "
                      "(memory + CPU + GPU) configurable 450 to 1000 W; the exact dense peaks are the H100 SXM5's "
                      "(H100 datasheet and whitepaper, as the h100-80gb entry)",
        },
    },
}

FORM_FACTOR = {  # csv form_factor -> catalog form_factor
    "SXM2": "SXM2", "SXM4": "SXM4", "SXM5": "SXM5", "SXM": "SXM", "HGX (SXM)": "SXM",
    "PCIe": "PCIe", "PCIe 80GB": "PCIe", "PCIe 94GB": "PCIe", "PCIe (AWS-only)": "PCIe",
}


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
            entry = {"id": gid, "name": extra["name"], "architecture": extra["architecture"]}
            for key, value in extra["row"].items():
                if key == "source":
                    entry["sm_count"] = extra["sm_count"]
                    entry["sm_count_source"] = extra["sm_count_source"]
                    entry["board_power_W"], entry["board_power_source"] = BOARD_POWER_W[gid]
                entry[key] = value
            # A GPU the reference folder lacks carries the date its own sources were transcribed.
            entry["as_of"] = extra.get("as_of", as_of)
            entry["notes"] = extra["notes"] if "as_of" in extra else extra["notes"] + " " + AS_OF_NOTE
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
            "architecture": extra["architecture"],
            "form_factor": FORM_FACTOR[csv_ff],
            "memory_GiB": memory,
            "memory_type": r["mem_type"].strip(),
            "memory_bandwidth_GBps": num(r["mem_bw_gbps"]),
            "peak_tflops": peaks,
            "nvlink_GBps_per_gpu_bidirectional": nvl,
            "pcie_gen": pcie,
            "sm_count": extra["sm_count"],
            "sm_count_source": extra["sm_count_source"],
            "board_power_W": BOARD_POWER_W[gid][0],
            "board_power_source": BOARD_POWER_W[gid][1],
            "source": sources[tag],
            "as_of": as_of,
            "notes": " ".join(n for n in notes if n) + " " + AS_OF_NOTE,
        }
        gpus.append(entry)
    ids = [g["id"] for g in gpus]
    assert len(ids) == len(set(ids))
    return {"gpus": gpus}
