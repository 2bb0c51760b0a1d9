"""Generate a reproducible mixed log for the parse benchmark.

Mostly benign kernel and training lines (a fifth of the training lines are
NCCL INFO chatter, as with NCCL_DEBUG=INFO), about 0.1% error lines of
several kinds, in several envelopes.  Same seed, same file.  `--mix keyword` adds 10% benign lines carrying
a vendor keyword and 30% NCCL INFO lines; `--mix hard` adds storms of identical messages on top.

    python bench/gen_log.py OUT [--lines N] [--seed S] [--mix default|keyword|hard]
"""

from __future__ import annotations

import argparse
import random

BENIGN_KERNEL = [
    "audit: type=1400 audit({t}:{n}): apparmor=\"STATUS\" operation=\"profile_replace\" name=\"cri-containerd.apparmor.d\" pid={p}",
    "IPv6: ADDRCONF(NETDEV_CHANGE): veth{n:x}: link becomes ready",
    "cni0: port {n}(veth{n:x}) entered forwarding state",
    "eth0: renamed from tmp{n:x}",
    "EXT4-fs (nvme0n1p{d}): mounted filesystem with ordered data mode. Quota mode: none.",
    "systemd[1]: Started cri-containerd-{n:x}.scope - libcontainer container {n:x}.",
    "nvme nvme0: I/O {n} QID {d} timeout, completion polled",
    "perf: interrupt took too long ({n} > {p}), lowering kernel.perf_event_max_sample_rate to {d}000",
    "TCP: request_sock_TCP: Possible SYN flooding on port {p}. Sending cookies.",
    "overlayfs: upper fs does not support RENAME_WHITEOUT.",
]
BENIGN_TRAIN = [
    "{host}:{p}:{n} [{d}] NCCL INFO Channel {d:02d}/0 : {r}[{d}] -> {r2}[{d}] via P2P/CUMEM/read",
    "{host}:{p}:{n} [{d}] NCCL INFO comm 0x{n:x} rank {r} nranks 32 cudaDev {d} busId {d}b000 commId 0x{p:x} - Init COMPLETE",
    "{host}:{p}:{n} [{d}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ibp{d}s0:10.{d}.0.{r}<0>",
    "{host}:{p}:{n} [{d}] NCCL INFO Connected all rings",
    "iteration {n}/ 500000 | consumed samples: {p} | elapsed time per iteration (ms): 812.{d} | learning rate: 1.2E-04 | lm loss: 2.{n} |",
    "[rank{r}]: step {n} loss=2.{p} grad_norm=0.{d} tokens/s={p}",
    "INFO:root:Saving checkpoint to /mnt/ckpt/step_{n}",
    "[2026-11-22 02:05:{d:02d},{n:03d}] torch.distributed.run: [INFO] rank {r} heartbeat ok",
]
# synthetic (modelled on mlx5_core / NVRM / NCCL INFO shapes): benign lines that carry a vendor keyword and
# match no rule, for the keyword-heavy mix (`--mix keyword`)
BENIGN_VENDOR = [
    "mlx5_core 0000:{b:02x}:00.0: firmware version: 28.39.1002",
    "mlx5_core 0000:{b:02x}:00.0: E-Switch: Total vports 18, per vport: max uc(128) max mc(2048)",
    "mlx5_core 0000:{b:02x}:00.0: MLX5E: StrdRq(1) RqSz(8) StrdSz(2048) RxCqeCmprss(0 basic)",
    "mlx5_core 0000:{b:02x}:00.0 ibp{d}s0: renamed from ib{d}",
    "NVRM: GPU at PCI:0000:{b:02x}:00: GPU-{b:02x}c0ffee-1234-5678-9abc-def012345678",
    "NVRM: GPU 0000:{b:02x}:00.0: RmInitAdapter succeeded",
]
NCCL_INFO = [t for t in BENIGN_TRAIN if "NCCL INFO" in t]
ERRORS = [
    "NVRM: Xid (PCI:0000:{b:02x}:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:{b:02x}:00): 31, pid={p}, name=python3, Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f4c_38000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
    "NVRM: Xid (PCI:0000:{b:02x}:00): 48, pid={p}, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
    "NVRM: Xid (PCI:0000:{b:02x}:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 10",
    "pcieport 0000:{b:02x}:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:{b:02x}:00.0",
    "mlx5_core 0000:{b:02x}:00.0 ibp{d}s0: Link down",
    "[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={n}, OpType=ALLREDUCE, NumelIn=545914880, NumelOut=545914880, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.",
    "{host}:{p}:{n} [{d}] NCCL WARN NET/IB : Got completion from peer 10.42.0.{d}<47534> with error 12, opcode 0, len 0, vendor err 129",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {d} has a total capacity of 79.11 GiB of which 1.23 GiB is free.",
]


def envelope(rng: random.Random, i: int, msg: str, kernel: bool) -> str:
    sec = 1000 + i * 0.0123
    if kernel:
        choice = rng.randrange(3)
        if choice == 0:
            return f"[{sec:12.6f}] {msg}"
        if choice == 1:
            return f"Nov 22 {2 + i // 3_600_000:02d}:{(i // 60_000) % 60:02d}:{(i // 1000) % 60:02d} gpu-node-7 kernel: [{sec:12.6f}] {msg}"
        return f"6,{i},{int(sec * 1e6)},-;{msg}"
    frac = i % 1_000_000_000
    stream = "stderr" if rng.random() < 0.3 else "stdout"
    return f"2026-11-22T02:{(i // 60_000) % 60:02d}:{(i // 1000) % 60:02d}.{frac:09d}Z {stream} F {msg}"


# synthetic storms (modelled on the ERRORS shapes): one message repeated, each line its own timestamp, as a
# flapping GPU or link prints it; `--mix hard` puts 10% of its lines in storms of STORM lines
STORMS = [
    "NVRM: Xid (PCI:0000:{b:02x}:00): 95, pid={p}, name=python3, Uncontained: FBHUB. RST: No, D-RST: No",
    "mlx5_core 0000:{b:02x}:00.0 ibp{d}s0: Link down",
    "{host}:{p}:{n} [{d}] NCCL WARN NET/IB : Got completion from peer 10.42.0.{d}<47534> with error 12, opcode 0, len 0, vendor err 129",
]
STORM = 1000


def generate(lines: int, seed: int, mix: str = "default"):
    rng = random.Random(seed)
    storm_left, storm_msg, storm_kernel = 0, "", True
    for i in range(lines):
        if mix == "hard" and not storm_left and rng.random() < 0.1 / STORM:
            fill = dict(n=rng.randrange(1, 99999), p=rng.randrange(100, 65535), d=rng.randrange(8),
                        b=rng.choice((0x1b, 0x3b, 0x5d, 0x9a)), host=f"node-{rng.randrange(4)}")
            tpl = rng.choice(STORMS)
            storm_left, storm_msg, storm_kernel = STORM, tpl.format(**fill), not tpl.startswith("{host}")
        if storm_left:
            storm_left -= 1
            yield envelope(rng, i, storm_msg, storm_kernel)
            continue
        fill = dict(n=rng.randrange(1, 99999), p=rng.randrange(100, 65535), d=rng.randrange(8),
                    r=rng.randrange(32), r2=rng.randrange(32), b=rng.choice((0x1b, 0x3b, 0x5d, 0x9a)),
                    host=f"node-{rng.randrange(4)}", t=1_700_000_000 + i)
        roll = rng.random()
        if roll < 0.001:
            tpl = rng.choice(ERRORS)
            kernel = not tpl.startswith(("[rank", "{host}", "Runtime", "torch"))
        elif mix in ("keyword", "hard") and roll < 0.101:  # 10% benign vendor-keyword lines
            tpl, kernel = rng.choice(BENIGN_VENDOR), True
        elif mix in ("keyword", "hard") and roll < 0.401:  # 30% NCCL INFO lines
            tpl, kernel = rng.choice(NCCL_INFO), False
        elif roll < 0.45:
            tpl, kernel = rng.choice(BENIGN_KERNEL), True
        else:
            tpl, kernel = rng.choice(BENIGN_TRAIN), False
        yield envelope(rng, i, tpl.format(**fill), kernel)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--mix", choices=("default", "keyword", "hard"), default="default",
                    help="keyword: 10%% benign vendor-keyword lines, 30%% NCCL INFO lines; hard: the same with "
                         "10%% of lines in storms of 1,000 identical messages")
    args = ap.parse_args()
    with open(args.out, "w", encoding="utf-8") as fh:
        for line in generate(args.lines, args.seed, args.mix):
            fh.write(line + "\n")


if __name__ == "__main__":
    main()
