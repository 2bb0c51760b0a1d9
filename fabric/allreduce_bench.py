"""A PyTorch all_reduce bandwidth benchmark, run by torchrun in each fabric-check pod (the `torch` preset).

Prints its result in the format of ml-engineering's all_reduce_bench.py, which fabric/results.py
parses:

    The average bandwidth of all_reduce with a 4.0GB payload (5 trials, 16 ranks):
     algbw: 44.947 GBps (359.6 Gbps)
     busbw: 84.275 GBps (674.2 Gbps)

busbw = algbw * 2 (n - 1) / n, nccl-tests' definition for all_reduce.  The CLI sends this file's text to
the pod in an environment variable (no ConfigMap, no download); it needs only torch with NCCL.
"""

import os
import time

import torch
import torch.distributed as dist

PAYLOAD_GB = float(os.environ.get("FABRIC_PAYLOAD_GB", "4"))
TRIALS = int(os.environ.get("FABRIC_TRIALS", "5"))


def main() -> None:
    dist.init_process_group("nccl")
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    n = dist.get_world_size()
    tensor = torch.rand(int(PAYLOAD_GB * 2**30 / 4), dtype=torch.float32, device="cuda")
    for _ in range(2):  # warm up: connections are set up on the first calls
        dist.all_reduce(tensor)
    torch.cuda.synchronize()
    times = []
    for _ in range(TRIALS):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(tensor)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    size = tensor.element_size() * tensor.numel()
    algbw = size / (sum(times) / len(times)) / 1e9
    busbw = algbw * 2 * (n - 1) / n
    if dist.get_rank() == 0:
        print(f"The average bandwidth of all_reduce with a {PAYLOAD_GB}GB payload ({TRIALS} trials, {n} ranks):")
        print(f" algbw: {algbw:.3f} GBps ({algbw * 8:.1f} Gbps)")
        print(f" busbw: {busbw:.3f} GBps ({busbw * 8:.1f} Gbps)", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
