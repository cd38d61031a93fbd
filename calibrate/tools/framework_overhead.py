#!/usr/bin/env python3
"""Host time of a PyTorch eager training step per transformer layer.

A step's GPU work shrinks with the model; the host's does not: every operator costs Python, the
dispatcher, autograd bookkeeping and a kernel launch whatever its size. Small models on fast GPUs
wait for the host. This script builds a GPT layer the way Megatron-LM writes it (bias linears,
fused scale-mask-softmax as one autograd Function, dropout under a forked RNG state, TorchScript
bias-dropout-add and bias-GeLU), shrinks it until its kernels take no time, and times forward,
backward, and backward with full activation recompute (torch.utils.checkpoint) per layer.

Run it with the PyTorch, CPU and GPU of the training machine and merge the result into its
calibration profile (preflight-calibrate's output), which `simulate`, `plan` and `sweep` then use:
    python3 calibrate/tools/framework_overhead.py --device cuda --profile calibrate/profiles/MACHINE.json
Without --profile it prints the "framework" object.
"""
import argparse
import json
import math
import statistics
import time

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class ScaleMaskSoftmax(torch.autograd.Function):
    """Stands for Megatron's fused scaled_upper_triang_masked_softmax: one kernel each way."""

    @staticmethod
    def forward(ctx, scores, scale):
        probs = torch.softmax(scores * scale, dim=-1)
        ctx.save_for_backward(probs)
        ctx.scale = scale
        return probs

    @staticmethod
    def backward(ctx, grad):
        (probs,) = ctx.saved_tensors
        return torch._softmax_backward_data(grad, probs, -1, probs.dtype) * ctx.scale, None


@torch.jit.script
def bias_dropout_add(x: torch.Tensor, bias: torch.Tensor, residual: torch.Tensor, prob: float) -> torch.Tensor:
    return residual + F.dropout(x + bias, p=prob, training=True)


@torch.jit.script
def bias_gelu(bias: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x = bias + y
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


class ForkedRng:
    """Megatron's CUDA RNG tracker: dropout inside tensor-parallel regions runs on its own state."""

    def __init__(self, device):
        self.device = device
        self.state = self._get()

    def _get(self):
        return torch.cuda.get_rng_state() if self.device.type == "cuda" else torch.get_rng_state()

    def _set(self, s):
        if self.device.type == "cuda":
            torch.cuda.set_rng_state(s)
        else:
            torch.set_rng_state(s)

    def __enter__(self):
        self.saved = self._get()
        self._set(self.state)

    def __exit__(self, *exc):
        self.state = self._get()
        self._set(self.saved)


class GptLayer(torch.nn.Module):
    def __init__(self, hidden, heads, device, dtype):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.heads, self.head_dim = heads, hidden // heads
        self.ln1 = torch.nn.LayerNorm(hidden, **kw)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden, **kw)
        self.dense_w = torch.nn.Parameter(torch.randn(hidden, hidden, **kw) * 0.02)
        self.dense_b = torch.nn.Parameter(torch.zeros(hidden, **kw))
        self.ln2 = torch.nn.LayerNorm(hidden, **kw)
        self.up_w = torch.nn.Parameter(torch.randn(4 * hidden, hidden, **kw) * 0.02)
        self.up_b = torch.nn.Parameter(torch.zeros(4 * hidden, **kw))
        self.down_w = torch.nn.Parameter(torch.randn(hidden, 4 * hidden, **kw) * 0.02)
        self.down_b = torch.nn.Parameter(torch.zeros(hidden, **kw))
        self.rng = ForkedRng(torch.device(device))

    def forward(self, x):  # x: [s, b, h]
        s, b, h = x.shape
        y = self.ln1(x)
        mixed = self.qkv(y).view(s, b, self.heads, 3 * self.head_dim)
        q, k, v = torch.split(mixed, self.head_dim, dim=-1)
        q = q.reshape(s, b * self.heads, self.head_dim)
        k = k.reshape(s, b * self.heads, self.head_dim)
        buf = torch.empty(b * self.heads, s, s, dtype=x.dtype, device=x.device)
        scores = torch.baddbmm(buf, q.transpose(0, 1), k.transpose(0, 1).transpose(1, 2), beta=0.0, alpha=1.0)
        probs = ScaleMaskSoftmax.apply(scores.view(b, self.heads, s, s), 1.0 / math.sqrt(self.head_dim))
        with self.rng:
            probs = F.dropout(probs, p=0.1, training=True)
        v = v.reshape(s, b * self.heads, self.head_dim)
        ctx = torch.bmm(probs.view(b * self.heads, s, s), v.transpose(0, 1))
        ctx = ctx.view(b, self.heads, s, self.head_dim).permute(2, 0, 1, 3).contiguous().view(s, b, h)
        x = bias_dropout_add(F.linear(ctx, self.dense_w), self.dense_b, x, 0.1)
        y = self.ln2(x)
        y = bias_gelu(self.up_b, F.linear(y, self.up_w))
        return bias_dropout_add(F.linear(y, self.down_w), self.down_b, x, 0.1)


class GptHead(torch.nn.Module):
    """Token and position embeddings in; final norm, tied lm_head and cross-entropy out."""

    def __init__(self, vocab, hidden, seq, device, dtype):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.wte = torch.nn.Embedding(vocab, hidden, **kw)
        self.wpe = torch.nn.Embedding(seq, hidden, **kw)
        self.ln = torch.nn.LayerNorm(hidden, **kw)

    def embed(self, tokens, positions):
        return F.dropout(self.wte(tokens) + self.wpe(positions), p=0.1, training=True)

    def loss(self, x, labels):
        logits = F.linear(self.ln(x), self.wte.weight).float()
        return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))


def timed(fn, device, repeats):
    samples = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads (the training process uses one per GPU)")
    ap.add_argument("--profile", help="a calibration profile to write the result into")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    dtype = torch.float16 if device.type == "cuda" else torch.float32
    # Small enough that every kernel is shorter than its launch: what is timed is the host.
    hidden, heads, seq, batch = 64, 4, 16, 1
    n = args.layers
    layers = [GptLayer(hidden, heads, args.device, dtype) for _ in range(2 * n)]
    x0 = torch.randn(seq, batch, hidden, device=device, dtype=dtype, requires_grad=True)

    def forward(count, recompute):
        x = x0
        for layer in layers[:count]:
            x = checkpoint(layer, x, use_reentrant=True) if recompute else layer(x)
        return x

    def step(count, recompute):
        forward(count, recompute).float().sum().backward()

    def per_layer(fn):
        # 2n layers less n layers, over n: what a step costs besides its layers (the loss, starting
        # autograd, synchronising) cancels out.
        return (timed(lambda: fn(2 * n), device, args.repeats) - timed(lambda: fn(n), device, args.repeats)) / n

    vocab = 128
    head = GptHead(vocab, hidden, seq, args.device, dtype)
    tokens = torch.randint(0, vocab, (seq, batch), device=device)
    positions = torch.arange(seq, device=device).unsqueeze(1).expand(seq, batch)
    hidden_in = torch.randn(seq, batch, hidden, device=device, dtype=dtype, requires_grad=True)

    def head_forward():
        # The embedding's output reaches the loss, so backward runs through both ends of the model.
        return head.loss(head.embed(tokens, positions) + hidden_in, tokens)

    def head_step():
        head_forward().backward()

    for _ in range(5):  # warm up TorchScript's profiling executor and the allocator
        step(2 * n, False)
        step(2 * n, True)
        head_step()
    # The first forward under full recompute runs through checkpoint() (no graph kept, RNG states saved).
    fwd_checkpointed = per_layer(lambda k: forward(k, True))
    fwd = per_layer(lambda k: forward(k, False))
    train = per_layer(lambda k: step(k, False))
    train_recompute = per_layer(lambda k: step(k, True))
    head_fwd = timed(head_forward, device, args.repeats)
    head_train = timed(head_step, device, args.repeats)
    us = 1e6
    framework = {
        "name": "pytorch-eager",
        "version": torch.__version__,
        "device": str(device),
        "layer_forward_us": round(fwd * us, 1),
        "layer_forward_no_grad_us": round(fwd_checkpointed * us, 1),
        "layer_backward_us": round((train - fwd) * us, 1),
        "layer_backward_with_recompute_us": round((train_recompute - fwd_checkpointed) * us, 1),
        "head_forward_us": round(head_fwd * us, 1),
        "head_backward_us": round((head_train - head_fwd) * us, 1),
        "source": "calibrate/tools/framework_overhead.py: a Megatron-style GPT layer shrunk to h=%d, s=%d, "
                  "%d against %d layers, medians of %d" % (hidden, seq, 2 * n, n, args.repeats),
    }
    if args.profile:
        with open(args.profile) as f:
            profile = json.load(f)
        profile["framework"] = framework
        with open(args.profile, "w") as f:
            f.write(json.dumps(profile, indent=2) + "\n")
    print(json.dumps({"framework": framework}, indent=2))

if __name__ == "__main__":
    main()
