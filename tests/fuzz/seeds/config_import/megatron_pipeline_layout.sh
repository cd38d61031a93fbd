#!/bin/sh
torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py --pipeline-model-parallel-size 16 \
  --pipeline-model-parallel-layout "Et*3|(tt|)*29,m|L" --microbatch-group-size-per-virtual-pipeline-stage 20 \
  --num-layers 61 --hidden-size 7168 --num-attention-heads 128 --swiglu --vocab-size 129280 \
  --seq-length 4096 --micro-batch-size 1 --global-batch-size 1920 --bf16
