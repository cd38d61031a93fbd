#!/bin/bash
torchrun --nproc_per_node 8 pretrain_bert.py --num-layers 24 --hidden-size 1024 --num-attention-heads 16 --micro-batch-size 4
