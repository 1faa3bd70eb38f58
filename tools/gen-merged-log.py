#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/gen-merged-log.py MB OUT - a Slurm/mpirun-style merged job log of
about MB megabytes for measuring the log reader (tools/bench-logread.c): 64
ranks on 8 hosts, NCCL INFO chatter behind launcher tags, settings and
version lines, a few WARN failures, application output and kernel lines."""
import random
import sys

mb, out = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(32)
lines = [
    "{tag}gpu-{h:02d}:{pid}:{tid} [{d}] NCCL INFO Channel {c:02d}/0 : {r}[{d}] -> {p}[{d}] [send] via NET/IB/{d}/GDRDMA",
    "{tag}gpu-{h:02d}:{pid}:{tid} [{d}] NCCL INFO NCCL_IB_HCA set by environment to mlx5_{d}",
    "{tag}gpu-{h:02d}:{pid}:{tid} [{d}] NCCL INFO comm 0x55d5{pid:x} rank {r} nranks 64 cudaDev {d} nvmlDev {d} busId 18000 commId 0x6f1b2c3d - Init START",
    "{tag}gpu-{h:02d}:{pid}:{tid} [{d}] NCCL INFO transport/net_ib.cc:640 -> 2",
    "{tag}step {c} loss 2.{pid} lr 0.0003 tokens/s 184000",
    "{tag}2026-12-01T10:00:{c:02d}.123Z gpu-{h:02d}:{pid}:{tid} [{d}] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA {d} 'mlx5_{d}'",
]
rare = [
    "{tag}gpu-{h:02d}:{pid}:{tid} [{d}] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
    "{tag}gpu-{h:02d}:{pid}:{tid} [{d}] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.{h}<4242> with error 12, opcode 0, len 4096, vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGid ::ffff:10.0.0.2",
    "[ {c}.123456] mlx5_core 0000:08:00.0: mlx5_cmd_out_err:838:(pid {pid}): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x7f3a21), err(-12)",
    "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
]
size = 0
with open(out, "w") as f:
    while size < mb * 1000000:
        r = rnd.randrange(64)
        v = dict(tag="[1,%d]<stdout>:" % r, h=r // 8, pid=4000 + r, tid=4100 + r, d=r % 8, r=r,
                 p=(r + 1) % 64, c=rnd.randrange(32))
        t = rare[rnd.randrange(len(rare))] if rnd.random() < 0.001 else lines[rnd.randrange(len(lines))]
        s = t.format(**v) + "\n"
        f.write(s)
        size += len(s)
