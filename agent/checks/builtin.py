"""The built-in checks, each a program in NPD's plugin protocol (exit 0 OK, 1 NonOK, 2 Unknown; one line
of stdout says why), so that NPD itself could run them too:

    python -m agent.checks.builtin nvml [--nvml SPEC] [--persistence 1] [--ecc 1] [--min-sm-clock MHZ]
                                        [--min-pcie-gen N] [--pcie-width-max]
    python -m agent.checks.builtin ib [--root /] [--min-rate-gbps N]
    python -m agent.checks.builtin dcgm [--level 1]
    python -m agent.checks.builtin gpu [--seconds 3] [--min-bandwidth-gbps N]

Each check is a function returning (exit status, message); a row of the table TABLE declares it (its keys,
flags, condition, defaults).  Expected
values are arguments (the agent passes them from `checks.builtin` in its config).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

# argparse only where flags are parsed (`parser()`, the check's own process): the agent reads TABLE at start and
# never parses a check's flags, so an idle agent does not hold argparse (idle footprint, issue 24)
if TYPE_CHECKING:
    import argparse

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
    """Persistence mode, ECC mode current and pending, max SM clock floor, PCIe generation floor and full width,
    per GPU, through `agent/gpu/nvml.py` (so it runs on the NVML stand-in)."""
    from ..gpu.nvml import NvmlError, open_backend  # noqa: PLC0415

    try:
        nvml = open_backend(args.nvml, args.proc_root)
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
    """Every InfiniBand port ACTIVE / LinkUp, GID 0 set, LID and SM LID assigned, and a rate floor, read from
    `/sys/class/infiniband` under `--root` (it runs on `tests/fixtures/sysfs`)."""
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
    """`dcgmi diag -r <level> -j`: per failed test its name, the GPUs it failed on and its error (DCGM_FR_*
    code where given); Warn results alone pass, with the warnings in the message, whatever dcgmi's exit status
    (DCGM's Warn, which dcgmi's JSON prints as "Fail", told apart by its code: persistence mode off, graphics
    processes, a CUDA variable set, a device count mismatch, the SRAM threshold count); agent/checks/dcgmdiag.py
    reads the JSON of DCGM 3.x / 4.x, or the table of any era where dcgmi prints one; a cut or unreadable output,
    or an exit without output, is Unknown (real outputs in `tests/fixtures/dcgm`)."""
    from .dcgmdiag import parse, summary  # noqa: PLC0415 - the check's own process only

    dcgmi = shutil.which("dcgmi")
    if dcgmi is None:
        return UNKNOWN, "dcgmi not found"
    try:
        proc = subprocess.run([dcgmi, "diag", "-r", str(args.level), "-j"], capture_output=True, text=True,
                              errors="replace", timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return UNKNOWN, f"dcgmi diag -r {args.level} timed out after {args.timeout:g}s"
    verdict, message = summary(parse(proc.stdout or ""), args.level)
    if verdict == "fail":
        return NONOK, message
    # dcgmi exits non-zero for its warnings too (dcgmi/Diag.cpp GetFailureResult): only a pass it contradicts
    if proc.returncode != 0 and verdict == "pass" or proc.returncode != 0 and not (proc.stdout or "").strip():
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()
        return UNKNOWN, f"dcgmi diag exited {proc.returncode}: {tail[-1] if tail else 'no output'}"
    if verdict == "unknown":
        return UNKNOWN, message
    return OK, message


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


@dataclass(frozen=True)
class Arg:
    """An expected value of a check: a key of its `checks.builtin.<check>` block and the program's flag
    (--min-rate-gbps for min_rate_gbps). A boolean is a flag given when the key is true."""
    key: str
    default: float | bool  # the configuration's default (a boolean flag is absent on the command line unless set)
    help: str = ""
    type: type = float


@dataclass(frozen=True)
class Check:
    """A built-in check, declared once: the configuration's `checks.builtin.<name>` block (its keys, off by
    default), the program's subcommand and flags, the condition it raises and when it may run derive from it."""
    name: str
    run: Callable[[argparse.Namespace], tuple[int, str]]
    condition: str  # the condition it raises by default (the block's `condition` replaces it)
    reason: str  # the reason while it fails
    args: tuple[Arg, ...] = ()
    interval: str = "5m"  # defaults of the block's interval and timeout (Go durations)
    timeout: str = "30s"
    gpu_load: bool = False  # loads the GPUs: runs only while no compute process is on any GPU
    available: Callable[[], bool] = lambda: True  # its tool is present (else the agent leaves it out); its docstring
    # says what it looks for (the generated table of docs/checks.md shows it)
    inputs: tuple[str, ...] = ()  # what the agent hands it from its own configuration (INPUTS): "root", ..


def _dcgmi_timeout(spec: dict[str, Any], *_: str) -> str:
    """dcgmi's own limit: a little inside the rule's, so that its answer gets through."""
    from .npd import parse_duration  # noqa: PLC0415

    return str(max(1.0, parse_duration(spec["timeout"]) - 5))


@dataclass(frozen=True)
class Input:
    """What the agent hands a check from its own configuration, not from the check's block (a row's `inputs` names
    it): the flag's type, its default when the program runs alone, its help, and its value on the agent's command line
    from (the check's block, the agent's sysfs_root, nvml, proc_root) (agent/checks/settings.py builtin_config)."""
    type: type
    alone: Callable[[], object]
    help: str
    value: Callable[[dict[str, Any], str, str, str], str]


INPUTS: dict[str, Input] = {
    "root": Input(str, lambda: "/", "prefix for /sys (the agent's sysfs_root)",
                  lambda spec, sysfs_root, nvml, proc_root: sysfs_root),
    "nvml": Input(str, lambda: os.environ.get("GPU_NPD_NVML", "auto"), "NVML backend (the agent's nvml)",
                  lambda spec, sysfs_root, nvml, proc_root: nvml),
    "proc_root": Input(str, lambda: "/",
                       "prefix for /proc (the agent's proc_root): libnvidia-ml looked for on the host",
                       lambda spec, sysfs_root, nvml, proc_root: proc_root),
    "timeout": Input(float, lambda: 300, "dcgmi's own limit in seconds (a little inside the check's timeout)",
                     _dcgmi_timeout),
}


def _dcgmi() -> bool:
    """dcgmi is on PATH"""
    return shutil.which("dcgmi") is not None


def _cuda_module() -> bool:
    """torch or cupy imports"""
    import importlib.util  # noqa: PLC0415

    return any(importlib.util.find_spec(m) is not None for m in ("torch", "cupy"))


TABLE: tuple[Check, ...] = (
    Check("nvml", check_nvml, "GPUConfigMismatch", "GPUSettingsUnexpected", (
        Arg("persistence", 1, "expected persistence mode (-1: any)"),
        Arg("ecc", 1, "expected ECC mode, current and pending (-1: any)"),
        Arg("min_sm_clock", 0, "max SM clock floor in MHz (0: any)"),
        Arg("min_pcie_gen", 0, "current PCIe generation floor (0: any)"),
        Arg("pcie_width_max", True, "the link runs at its maximum width", bool)), inputs=("nvml", "proc_root")),
    Check("ib", check_ib, "InfiniBandCheckFailed", "IBPortCheckFailed", (Arg("min_rate_gbps", 0),), timeout="10s",
          inputs=("root",)),
    Check("dcgm", check_dcgm, "DCGMDiagFailed", "DCGMDiagFailed", (Arg("level", 1, type=int),), interval="24h",
          timeout="10m", gpu_load=True, available=_dcgmi, inputs=("timeout",)),
    Check("gpu", check_gpu, "GPUComputeCheckFailed", "GPUComputeCheckFailed",
          (Arg("seconds", 3), Arg("min_bandwidth_gbps", 0)), interval="24h", timeout="2m", gpu_load=True,
          available=_cuda_module),
)
BY_NAME = {c.name: c for c in TABLE}
CHECKS = {c.name: c.run for c in TABLE}
GPU_LOAD = {c.name for c in TABLE if c.gpu_load}  # checks that load GPUs: run only while no compute process is on any GPU


def defaults() -> dict[str, dict]:
    """The `checks.builtin` block's defaults: each check off, its interval, timeout and expected values."""
    return {c.name: {"enabled": False, "interval": c.interval, "timeout": c.timeout,
                     **{a.key: a.default for a in c.args}} for c in TABLE}


def parser() -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415 - the check's own process only (see the import above)

    p = argparse.ArgumentParser(prog="python -m agent.checks.builtin", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="check", required=True)
    for c in TABLE:
        cmd = sub.add_parser(c.name)
        for a in c.args:
            flag = "--" + a.key.replace("_", "-")
            if a.type is bool:
                cmd.add_argument(flag, action="store_true", help=a.help or None)
            else:
                cmd.add_argument(flag, type=a.type, default=a.default, help=a.help or None)
        for name in c.inputs:  # what the agent passes from its own configuration, not from the check's block
            given = INPUTS[name]
            cmd.add_argument("--" + name.replace("_", "-"), type=given.type, default=given.alone(), help=given.help)
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
