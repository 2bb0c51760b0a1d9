"""The built-in checks, each a program in NPD's plugin protocol (exit 0 OK, 1 NonOK, 2 Unknown; one line
of stdout says why), so that NPD itself could run them too:

    python -m agent.checks.builtin nvml [--nvml SPEC] [--persistence 1] [--ecc 1] [--min-sm-clock MHZ]
                                        [--min-pcie-gen N] [--pcie-width-max]
    python -m agent.checks.builtin ib [--root /] [--min-rate-gbps N]
    python -m agent.checks.builtin dcgm [--level 1]
    python -m agent.checks.builtin gpu [--seconds 3] [--min-bandwidth-gbps N]

Each check is a function returning (exit status, message); the table CHECKS names them.  Expected
values are arguments (the agent passes them from `checks.builtin` in its config).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from typing import Callable

from ..sysfs import read_int, read_text

OK, NONOK, UNKNOWN = 0, 1, 2


def _worst(found: list[tuple[int, str]], ok_message: str) -> tuple[int, str]:
    bad = [m for s, m in found if s == NONOK]
    unknown = [m for s, m in found if s == UNKNOWN]
    if bad:
        return NONOK, "; ".join(bad)
    if unknown:
        return UNKNOWN, "; ".join(unknown)
    return OK, ok_message


# ---- NVML settings ---------------------------------------------------------------------------------

# (field, argument, test, what is wrong): a reading that fails the test against the expected value is NonOK
NVML_EXPECT: tuple[tuple[str, str, Callable[[float, float], bool], str], ...] = (
    ("persistence_mode", "persistence", lambda v, want: want < 0 or v == want, "persistence mode {v:g} (expected {want:g})"),
    ("ecc_mode_current", "ecc", lambda v, want: want < 0 or v == want, "ECC mode {v:g} (expected {want:g})"),
    ("ecc_mode_pending", "ecc", lambda v, want: want < 0 or v == want, "pending ECC mode {v:g} (expected {want:g})"),
    ("clock_sm_max", "min_sm_clock", lambda v, want: v >= want, "max SM clock {v:g} MHz (expected >= {want:g})"),
    ("pcie_link_gen", "min_pcie_gen", lambda v, want: v >= want, "PCIe gen {v:g} (expected >= {want:g})"),
)


def check_nvml(args: argparse.Namespace) -> tuple[int, str]:
    from ..gpu.nvml import NvmlError, open_backend  # noqa: PLC0415

    try:
        nvml = open_backend(args.nvml)
    except ValueError as e:
        return UNKNOWN, str(e)
    if nvml is None:
        return UNKNOWN, "NVML is off"
    try:
        nvml.init()
        count = nvml.count()
    except NvmlError as e:
        return UNKNOWN, f"NVML init failed: {e}"
    found: list[tuple[int, str]] = []
    for i in range(count):
        try:
            values = {**nvml.read(i, "settings"), **nvml.read(i, "pcie")}
        except NvmlError as e:
            found.append((UNKNOWN, f"GPU {i}: {e}"))
            continue
        for name, arg, test, text in NVML_EXPECT:
            want = float(getattr(args, arg))
            if name in values and not test(values[name], want):
                found.append((NONOK, f"GPU {i}: " + text.format(v=values[name], want=want)))
        if args.pcie_width_max and values.get("pcie_link_width", 0) < values.get("pcie_link_width_max", 0):
            found.append((NONOK, f"GPU {i}: PCIe x{values['pcie_link_width']:g} of x{values['pcie_link_width_max']:g}"))
    try:
        nvml.shutdown()
    except NvmlError:
        pass
    return _worst(found, f"{count} GPUs: settings as expected")


# ---- InfiniBand ports and GIDs -----------------------------------------------------------------------

ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000"


def check_ib(args: argparse.Namespace) -> tuple[int, str]:
    base = os.path.join(args.root, "sys/class/infiniband")
    try:
        devices = sorted(os.listdir(base))
    except OSError:
        return OK, "no InfiniBand devices"
    found: list[tuple[int, str]] = []
    ports = 0
    for dev in devices:
        try:
            nums = sorted(os.listdir(os.path.join(base, dev, "ports")))
        except OSError:
            found.append((UNKNOWN, f"{dev}: ports unreadable"))
            continue
        for num in nums:
            ports += 1
            path, name = os.path.join(base, dev, "ports", num), f"{dev}/{num}"
            state, phys = read_int(os.path.join(path, "state")), read_int(os.path.join(path, "phys_state"))
            if state is None:
                found.append((UNKNOWN, f"{name}: state unreadable"))
                continue
            if state != 4 or phys != 5:
                found.append((NONOK, f"{name}: {read_text(os.path.join(path, 'state'))} / "
                                     f"{read_text(os.path.join(path, 'phys_state'))}"))
                continue
            gid0 = read_text(os.path.join(path, "gids", "0"))
            if gid0 is None or gid0 == ZERO_GID or gid0.endswith("0000:0000:0000:0000"):
                found.append((NONOK, f"{name}: GID 0 is {gid0 or 'missing'}"))
            if read_text(os.path.join(path, "link_layer")) == "InfiniBand":
                if not read_int(os.path.join(path, "lid")):
                    found.append((NONOK, f"{name}: no LID (subnet manager has not configured the port)"))
                elif not read_int(os.path.join(path, "sm_lid")):
                    found.append((NONOK, f"{name}: no subnet manager LID"))
            rate = read_text(os.path.join(path, "rate")) or ""
            try:
                gbps = float(rate.split()[0])
            except (ValueError, IndexError):
                gbps = 0.0
            if gbps < args.min_rate_gbps:
                found.append((NONOK, f"{name}: rate {rate or 'unknown'} below {args.min_rate_gbps:g} Gb/s"))
    return _worst(found, f"{ports} InfiniBand ports active with valid GIDs")


# ---- DCGM diagnostics --------------------------------------------------------------------------------

def check_dcgm(args: argparse.Namespace) -> tuple[int, str]:
    dcgmi = shutil.which("dcgmi")
    if dcgmi is None:
        return UNKNOWN, "dcgmi not found"
    try:
        proc = subprocess.run([dcgmi, "diag", "-r", str(args.level)], capture_output=True, text=True,
                              errors="replace", timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return UNKNOWN, f"dcgmi diag -r {args.level} timed out after {args.timeout:g}s"
    failed = [" ".join(line.replace("|", " ").split()) for line in proc.stdout.splitlines() if "fail" in line.lower()]
    if proc.returncode == 0 and not failed:
        return OK, f"dcgmi diag -r {args.level} passed"
    if failed:
        return NONOK, f"dcgmi diag -r {args.level}: " + "; ".join(failed)
    tail = (proc.stderr or proc.stdout).strip().splitlines()
    return UNKNOWN, f"dcgmi diag exited {proc.returncode}: {tail[-1] if tail else ''}"


# ---- short GPU compute and bandwidth check -----------------------------------------------------------

MATRIX_N = 512  # A = ones, B[i][j] = j: every element of A @ B is exactly N * j in float32

def check_gpu(args: argparse.Namespace) -> tuple[int, str]:
    """A few seconds of matrix math per GPU compared with a CPU-known result, and a device-memory copy
    bandwidth floor.  torch first, then cupy; neither importable -> Unknown."""
    try:
        import torch  # noqa: PLC0415
        xp = "torch"
    except ImportError:
        try:
            import cupy  # noqa: PLC0415, F401
            xp = "cupy"
        except ImportError:
            return UNKNOWN, "no CUDA runtime (torch or cupy) importable"
    return (_gpu_torch if xp == "torch" else _gpu_cupy)(args)


def _gpu_torch(args: argparse.Namespace) -> tuple[int, str]:
    import time  # noqa: PLC0415

    import torch  # noqa: PLC0415
    if not torch.cuda.is_available():
        return UNKNOWN, "torch has no CUDA device"
    n = MATRIX_N
    found: list[tuple[int, str]] = []
    slowest = float("inf")
    for d in range(torch.cuda.device_count()):
        dev = torch.device("cuda", d)
        a = torch.ones((n, n), device=dev)
        b = torch.arange(n, device=dev, dtype=torch.float32).repeat(n, 1)
        want = b * n
        end = time.monotonic() + args.seconds / 2
        rounds = 0
        while time.monotonic() < end:
            c = a @ b
            rounds += 1
        torch.cuda.synchronize(dev)
        if not torch.equal(c, want):
            found.append((NONOK, f"GPU {d}: matrix product differs from the known result"))
        buf = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
        out = torch.empty_like(buf)
        torch.cuda.synchronize(dev)
        t0, copies = time.monotonic(), 0
        while time.monotonic() - t0 < args.seconds / 2:
            out.copy_(buf)
            copies += 1
            torch.cuda.synchronize(dev)
        gbps = 2 * copies * buf.numel() / (time.monotonic() - t0) / 1e9
        slowest = min(slowest, gbps)
        if gbps < args.min_bandwidth_gbps:
            found.append((NONOK, f"GPU {d}: memory bandwidth {gbps:.0f} GB/s below {args.min_bandwidth_gbps:g}"))
    return _worst(found, f"matrix results exact; memory bandwidth >= {slowest:.0f} GB/s")


def _gpu_cupy(args: argparse.Namespace) -> tuple[int, str]:
    import time  # noqa: PLC0415

    import cupy as cp  # noqa: PLC0415
    n = MATRIX_N
    found: list[tuple[int, str]] = []
    slowest = float("inf")
    for d in range(cp.cuda.runtime.getDeviceCount()):
        with cp.cuda.Device(d):
            a = cp.ones((n, n), dtype=cp.float32)
            b = cp.tile(cp.arange(n, dtype=cp.float32), (n, 1))
            end = time.monotonic() + args.seconds / 2
            while time.monotonic() < end:
                c = a @ b
            cp.cuda.Device(d).synchronize()
            if not bool((c == b * n).all()):
                found.append((NONOK, f"GPU {d}: matrix product differs from the known result"))
            buf = cp.empty(256 << 20, dtype=cp.uint8)
            out = cp.empty_like(buf)
            t0, copies = time.monotonic(), 0
            while time.monotonic() - t0 < args.seconds / 2:
                out[...] = buf
                copies += 1
                cp.cuda.Device(d).synchronize()
            gbps = 2 * copies * buf.size / (time.monotonic() - t0) / 1e9
            slowest = min(slowest, gbps)
            if gbps < args.min_bandwidth_gbps:
                found.append((NONOK, f"GPU {d}: memory bandwidth {gbps:.0f} GB/s below {args.min_bandwidth_gbps:g}"))
    return _worst(found, f"matrix results exact; memory bandwidth >= {slowest:.0f} GB/s")


CHECKS: dict[str, Callable[[argparse.Namespace], tuple[int, str]]] = {
    "nvml": check_nvml, "ib": check_ib, "dcgm": check_dcgm, "gpu": check_gpu,
}
GPU_LOAD = {"dcgm", "gpu"}  # checks that load GPUs: run only while no compute process is on any GPU


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m agent.checks.builtin", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="check", required=True)
    n = sub.add_parser("nvml")
    n.add_argument("--nvml", default=os.environ.get("GPU_NPD_NVML", "auto"))
    n.add_argument("--persistence", type=float, default=1, help="expected persistence mode (-1: any)")
    n.add_argument("--ecc", type=float, default=1, help="expected ECC mode, current and pending (-1: any)")
    n.add_argument("--min-sm-clock", type=float, default=0, help="max SM clock floor in MHz (0: any)")
    n.add_argument("--min-pcie-gen", type=float, default=0, help="current PCIe generation floor (0: any)")
    n.add_argument("--pcie-width-max", action="store_true", help="the link runs at its maximum width")
    i = sub.add_parser("ib")
    i.add_argument("--root", default="/")
    i.add_argument("--min-rate-gbps", type=float, default=0)
    d = sub.add_parser("dcgm")
    d.add_argument("--level", type=int, default=1)
    d.add_argument("--timeout", type=float, default=300)
    g = sub.add_parser("gpu")
    g.add_argument("--seconds", type=float, default=3)
    g.add_argument("--min-bandwidth-gbps", type=float, default=0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        status, message = CHECKS[args.check](args)
    except Exception as e:  # noqa: BLE001 - the protocol's answer to "could not tell" is Unknown
        status, message = UNKNOWN, f"{args.check} check failed: {type(e).__name__}: {e}"
    print(message)
    return status


if __name__ == "__main__":
    sys.exit(main())
