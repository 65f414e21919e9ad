#!/usr/bin/python3
"""One rank of a real PyTorch training loop on gpufeed's npz files, the reference that
scripts/bench/vs-pytorch.sh runs beside gpufeed. Debian's python3-torch and python3-numpy.

It is DLIO's loop (argonne-lcf/dlio_benchmark mlperf_storage_v2.0, 392621b) with the
emulation taken out: a real torch.utils.data.DataLoader with read_threads workers,
prefetch_factor ceil(prefetch_size / read_threads) and persistent workers
(torch_data_loader.py:116-159), DLIO's sampler (each rank's contiguous range, in order:
:88-107), every sample np.load(file)['x'] (npz_reader.py:36-38); compute emulated to
absolute deadlines (as gpufeed does, so neither counts its own oversleep); the barrier
after every step through torch.distributed with gloo (main.py:334); AU as statscounter.py
computes it (:404-411): the compute of the counted steps over the block's time less the
first step's load and compute.

Prints one JSON line: {"rank", "au_percent", "steps", "elapsed_s"}.
"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, Sampler


class NpzFiles(Dataset):
    """Sample i is file i (one sample per file): read as DLIO's NPZReader reads it."""

    def __init__(self, files):
        self.files = files

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        x = np.load(self.files[i], allow_pickle=True)["x"]
        # DLIO returns its resized_image, not the data: nothing large crosses the queue.
        return torch.tensor(int(x.shape[0]))


class DlioSampler(Sampler):
    """torch_data_loader.py:88-107: rank r's contiguous range of ceil(n / size)."""

    def __init__(self, rank, size, n):
        per = int(math.ceil(n / size))
        self.indices = list(range(rank * per, min((rank + 1) * per, n)))

    def __len__(self):
        return len(self.indices)

    def __iter__(self):
        return iter(self.indices)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", required=True, help="the folder of img_<i>_of_<N>.npz")
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--world", type=int, default=1)
    ap.add_argument("--port", type=int, default=29511)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--read-threads", type=int, required=True)
    ap.add_argument("--prefetch-size", type=int, required=True)
    ap.add_argument("--compute", type=float, required=True, help="seconds per step")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--barrier", type=int, default=1)
    a = ap.parse_args()

    names = [f for f in os.listdir(a.files) if f.endswith(".npz")]
    names.sort(key=lambda f: int(f.split("_")[1]))
    files = [os.path.join(a.files, f) for f in names]
    if a.world > 1:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(a.port))
        dist.init_process_group("gloo", rank=a.rank, world_size=a.world)
    factor = math.ceil(a.prefetch_size / a.read_threads) or 2
    loader = DataLoader(NpzFiles(files), batch_size=a.batch,
                        sampler=DlioSampler(a.rank, a.world, len(files)),
                        num_workers=a.read_threads, prefetch_factor=factor,
                        persistent_workers=True, drop_last=True)
    if a.world > 1:
        dist.barrier()

    computes, procs = [], []
    t0 = time.monotonic()
    start_loading = prev_end = t0
    for step, _ in enumerate(loader):
        loaded = time.monotonic()
        start = max(loaded, prev_end)
        end = start + a.compute
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            time.sleep(left)
        computes.append(a.compute)
        procs.append(end - start_loading)
        if a.barrier and a.world > 1:
            dist.barrier()
        prev_end = start_loading = time.monotonic()
        if step + 1 >= a.steps:
            break
    t_end = time.monotonic()
    # statscounter.py:406-411, exclude_start_steps 1
    total = (t_end - t0) - procs[0]
    au = 100.0 * sum(computes[1:]) / total if total > 0 else 0.0
    print(json.dumps({"rank": a.rank, "au_percent": au, "steps": len(computes),
                      "elapsed_s": t_end - t0}), flush=True)
    if a.world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
