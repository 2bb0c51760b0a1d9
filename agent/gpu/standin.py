"""The NVML stand-in: a C `libnvidia-ml.so.1` (standin/nvml_standin.c) that nvidia-ml-py loads unmodified.

`nvml: fake:<scenario.yaml>` (tests, demos) builds it with the machine's C compiler into a cache folder,
loads it under NVML's soname before nvidia-ml-py looks for `libnvidia-ml.so.1`, and hands it the scenario;
the agent then runs its real backend (agent/gpu/nvml.py) through the binding's ctypes structs, versioned
entry points and error codes.  Scenario (YAML)::

    driver_version: "550.54.15"
    init_error: null                 # e.g. DRIVER_NOT_LOADED: nvmlInit fails so
    driver_lacks: []                 # entry points this driver generation does not have (FUNCTION_NOT_FOUND)
    replicate: 8                     # optional: clone gpus[0] into N GPUs (new index/uuid/PCI bus)
    gpus:
      - uuid: GPU-...
        pci_bus_id: "00000000:18:00.0"
        model: NVIDIA H100 80GB HBM3
        vbios: 96.00.74.00.1C
        values: {ecc_uncorrected_volatile: 0, temperature_gpu: 41, ...}   # see HEALTHY_VALUES
        nvlinks: 18                  # or a list of per-link dicts of state, crc_flit, crc_data, replay, recovery
        nvlink_values: {}            # values every link of this GPU has (e.g. counters NOT_SUPPORTED)
        absent: [recovery_action]    # healthy defaults this GPU does not have (NOT_SUPPORTED)
        lost: true                   # lost from load (fallen off the bus before the client started): every
                                     # call on it, its handles by index and by PCI bus id too, says GPU_IS_LOST
    timeline:                        # applied when the stand-in's clock passes `at` (seconds after load)
      - {at: 20, gpu: 3, set: {ecc_uncorrected_volatile: 2}}
      - {at: 20, gpu: 3, nvlink: 5, set: {state: 0}}
      - {at: 30, gpu: 1, xid: 79}                # delivered through nvmlEventSetWait_v2
      - {at: 40, gpu: 2, lost: true}             # every call on the GPU says GPU_IS_LOST
      - {at: 60, init_error: null}               # nvmlInit succeeds from now on (the driver loaded)
      - {at: 70, driver: gone}                   # the driver goes away under the agent: every call of the open
                                                 # session says UNINITIALIZED (or `error: DRIVER_NOT_LOADED`),
                                                 # nvmlInit says DRIVER_NOT_LOADED
      - {at: 90, driver: back}                   # nvmlInit succeeds again (`gpus: N`: the new session sees N)

A value may be `error:<NVML error name>` (that call fails the way NVML does) or `hang` (the call blocks
until `release()` or the next scenario's load, then fails with GPU_IS_LOST).  The value `handle` fails or blocks
only the GPU's handle calls (`values: {handle: "error:UNKNOWN"}`: the GPU NVML counts and cannot open; `set:
{handle: 0}` in the timeline: it answers again); `set: {lost: 0}` brings a lost GPU back (a reset).  The clock is the time since load,
or what `set_time` last set (tests with a fake clock).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

from .interface import NVML_READINGS

SOURCE = Path(__file__).parent / "standin" / "nvml_standin.c"
SONAME = "libnvidia-ml.so.1"

HEALTHY_VALUES: dict[str, float] = {
    "ecc_corrected_volatile": 0, "ecc_uncorrected_volatile": 0, "ecc_corrected_aggregate": 0,
    "ecc_uncorrected_aggregate": 0, "retired_pages_sbe": 0, "retired_pages_dbe": 0, "retired_pages_pending": 0,
    "remap_correctable": 0, "remap_uncorrectable": 0, "remap_pending": 0, "remap_failure": 0,
    "temperature_gpu": 38, "temperature_memory": 45, "temperature_slowdown": 87, "temperature_shutdown": 92,
    # idle (clocks_event_mask 1: GpuIdle); 345 MHz is an idle Hopper's SM clock (tests/fixtures/nvml/sources.md)
    "clocks_event_mask": 1, "clock_sm": 345, "utilization_gpu": 0, "utilization_memory": 0,
    **{r.name: r.healthy for r in NVML_READINGS},  # the one-call readings: power, PCIe
    "pcie_link_gen_device_max": 5,  # the GPU's own maximum generation (its slot's may be lower)
    "violation_power_ns": 0, "violation_thermal_ns": 0, "violation_reliability_ns": 0,
    "violation_board_limit_ns": 0,
    "nvlink_tx_kib": 0, "nvlink_rx_kib": 0,  # NVLink data since driver load (a GPU without NVLink: absent)
    "recovery_action": 0,
    # read by the active checks only
    "persistence_mode": 1, "ecc_mode_current": 1, "ecc_mode_pending": 1, "clock_sm_max": 1980,
    "clock_mem_max": 2619, "compute_processes": 0,
    # who uses the GPU (a PodGPUBusy Event names them): compute mode Default; its processes' pids, from the first
    "compute_mode": 0, "compute_pid_first": 4242,
}
HEALTHY_LINK = {"state": 1, "crc_flit": 0, "crc_data": 0, "replay": 0, "recovery": 0}
_ERROR_CODES = {"UNINITIALIZED": 1, "INVALID_ARGUMENT": 2, "NOT_SUPPORTED": 3, "NO_PERMISSION": 4, "NOT_FOUND": 6,
                "DRIVER_NOT_LOADED": 9, "TIMEOUT": 10, "LIBRARY_NOT_FOUND": 12, "FUNCTION_NOT_FOUND": 13,
                "CORRUPTED_INFOROM": 14, "GPU_IS_LOST": 15, "RESET_REQUIRED": 16, "LIB_RM_VERSION_MISMATCH": 18,
                "IN_USE": 19, "NO_DATA": 21, "ARGUMENT_VERSION_MISMATCH": 25, "NOT_READY": 27, "UNKNOWN": 999}


class StandinError(ValueError):
    """The stand-in cannot be built or a scenario is malformed (one line, for the operator)."""


# ---- scenario -> flat text the C side reads ----------------------------------------------------------

def _value(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float)):
        return repr(float(v)) if isinstance(v, float) else str(v)
    if v == "hang":
        return "H"
    if isinstance(v, str) and v.startswith("error:"):
        code = _ERROR_CODES.get(v[6:])
        if code is None:
            raise StandinError(f"{where}: unknown NVML error {v[6:]!r} (one of {', '.join(_ERROR_CODES)})")
        return f"E{code}"
    raise StandinError(f"{where}: expected a number, 'hang' or 'error:<NVML error>', got {v!r}")


def _gpus(scenario: dict) -> list[dict]:
    gpus = list(scenario.get("gpus") or [])
    n = scenario.get("replicate")
    if not n or not gpus:
        return gpus
    out = []
    for i in range(int(n)):
        g = dict(gpus[0])
        g["uuid"] = f"GPU-{i:08x}-0000-4000-8000-00000000{i:04x}"
        g["pci_bus_id"] = f"00000000:{0x18 + 0x10 * i:02X}:00.0"
        out.append(g)
    return out


def _driver_step(ev: dict, where: str) -> tuple[float, int, str, str]:
    """A timeline `driver: gone` (optional `error`, the code the open session's calls answer) or `driver: back`
    (optional `gpus`, how many GPUs the next session sees) as the C side's step."""
    try:
        at = float(ev.get("at", 0))
    except (TypeError, ValueError):
        raise StandinError(f"{where}: needs a numeric `at`") from None
    if ev["driver"] == "gone":
        return at, -1, "driver_gone", _value(f"error:{ev.get('error', 'UNINITIALIZED')}", f"{where}.error")[1:]
    if ev["driver"] == "back":
        gpus = ev.get("gpus", -1)
        if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < -1:
            raise StandinError(f"{where}.gpus: expected a count of GPUs, got {gpus!r}")
        return at, -1, "driver_back", str(gpus)
    raise StandinError(f"{where}.driver: expected 'gone' or 'back', got {ev['driver']!r}")


def flatten(scenario: dict) -> str:
    """The scenario as the stand-in's flat text (see nvml_standin.c)."""
    if not isinstance(scenario, dict):
        raise StandinError("scenario: expected a mapping")
    lines = [f"driver {scenario.get('driver_version', '550.54.15')}"]
    if scenario.get("init_error"):
        lines.append(f"init_error {_value('error:' + str(scenario['init_error']), 'init_error')[1:]}")
    lines += [f"missing {fn}" for fn in scenario.get("driver_lacks") or []]
    steps: list[tuple[float, int, str, str]] = []
    for i, g in enumerate(_gpus(scenario)):
        if not isinstance(g, dict):
            raise StandinError(f"gpus[{i}]: expected a mapping")
        for key in ("uuid", "pci_bus_id", "model", "vbios"):
            if key in g and not isinstance(g[key], str):  # YAML reads 00000000:18:00.0 as a base-60 number
                raise StandinError(f"gpus[{i}].{key}: expected a string (quote it), got {g[key]!r}")
        lines += [f"gpu {i} uuid {g.get('uuid', f'GPU-standin-{i}')}",
                  f"gpu {i} pci {g.get('pci_bus_id', f'00000000:{i + 1:02X}:00.0')}",
                  f"gpu {i} name {g.get('model', 'NVIDIA H100 80GB HBM3')}"]
        if g.get("vbios"):
            lines.append(f"gpu {i} vbios {g['vbios']}")
        absent = set(g.get("absent") or [])
        values = {k: v for k, v in HEALTHY_VALUES.items() if k not in absent}
        values.update(g.get("values") or {})
        steps += [(-1.0, i, k, _value(v, f"gpus[{i}].values.{k}")) for k, v in values.items()]
        links = g.get("nvlinks", 0)
        if isinstance(links, int):
            links = [{} for _ in range(links)]
        for n, link in enumerate(links):
            for k, v in {**HEALTHY_LINK, **(g.get("nvlink_values") or {}), **(link or {})}.items():
                steps.append((-1.0, i, f"nvlink.{n}.{k}", _value(v, f"gpus[{i}].nvlinks[{n}].{k}")))
        if g.get("lost"):
            steps.append((-1.0, i, "lost", "1"))
    for j, ev in enumerate(scenario.get("timeline") or []):
        where = f"timeline[{j}]"
        if isinstance(ev, dict) and "init_error" in ev and "gpu" not in ev:  # the driver loads or goes away
            code = _value(f"error:{ev['init_error']}", where)[1:] if ev["init_error"] else "0"
            steps.append((float(ev.get("at", 0)), -1, "init_error", code))
            continue
        if isinstance(ev, dict) and "driver" in ev and "gpu" not in ev:  # gone under the agent, then back
            steps.append(_driver_step(ev, where))
            continue
        try:
            at, gpu = float(ev["at"]), int(ev["gpu"])
        except (KeyError, TypeError, ValueError):
            raise StandinError(f"{where}: needs numeric `at` and `gpu`") from None
        if "xid" in ev:
            steps.append((at, gpu, "xid", str(int(ev["xid"]))))
        if ev.get("lost"):
            steps.append((at, gpu, "lost", "1"))
        prefix = f"nvlink.{int(ev['nvlink'])}." if "nvlink" in ev else ""
        for k, v in (ev.get("set") or {}).items():
            steps.append((at, gpu, prefix + k, _value(v, f"{where}.set.{k}")))
    for key in {s[2] for s in steps}:
        if len(key) >= 40 or " " in key:
            raise StandinError(f"scenario: field name {key!r} too long or has a space")
    if any(len({s[2] for s in steps if s[1] == i}) > 320 for i in {s[1] for s in steps}):
        raise StandinError("scenario: more than 320 fields on one GPU")  # MAX_KEYS of the C side
    steps.sort(key=lambda s: s[0])  # stable: a scenario's order within one instant is kept
    lines += [f"at {at!r} {gpu} {key} {val}" for at, gpu, key, val in steps]
    return "\n".join(lines) + "\n"


# ---- build and load -----------------------------------------------------------------------------------

def cache_dir() -> Path:
    base = os.environ.get("NVML_STANDIN_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gpu-npd")
    return Path(base)


def reading_getters() -> str:
    """C getters of the one-call readings (interface.NVML_READINGS), appended to the stand-in's source: a reading
    declared there is served by the stand-in from the scenario key of its name, in NVML's raw unit."""
    out = ["\n/* ---- generated by agent/gpu/standin.py from agent/gpu/interface.py NVML_READINGS ---- */"]
    calls: dict[str, list] = {}
    for r in NVML_READINGS:
        calls.setdefault(r.call, []).append(r)
    for call, rows in calls.items():  # rows of one call differ by their constant arguments (PCIe TX / RX)
        params = "".join(f", unsigned int arg{i}_" for i in range(len(rows[0].args)))
        body = []
        for r in rows:
            value = f"(unsigned)(v_ * {r.divisor!r} + 0.5)" if r.divisor != 1.0 else "(unsigned)v_"
            when = " && ".join(f"arg{i}_ == {_constant(a)}" for i, a in enumerate(r.args)) or "1"
            body.append(f"    if ({when}) {{ double v_; GET(dev, \"{r.name}\", v_); *out = {value}; LEAVE(OK); }}")
        out.append(f"nvmlReturn_t {call}(Gpu *dev{params}, unsigned int *out) {{\n"
                   f"    ENTER_DEV(\"{call}\", dev);\n    if (!out) LEAVE(E_ARG);\n" + "\n".join(body)
                   + "\n    LEAVE(E_ARG);\n}")
    return "\n".join(out) + "\n"


def _constant(name: str) -> int:
    """The value of an NVML constant a reading passes (pynvml's name), as the C side compares it."""
    import pynvml  # noqa: PLC0415 - the stand-in is only built where nvidia-ml-py is installed

    return int(getattr(pynvml, name))


def build(directory: Path | None = None) -> Path:
    """Compile the stand-in (once per source version) and return the folder holding libnvidia-ml.so.1."""
    src = SOURCE.read_bytes() + reading_getters().encode()
    out = (directory or cache_dir()) / f"nvml-standin-{hashlib.sha256(src).hexdigest()[:12]}"
    lib = out / SONAME
    if lib.is_file():
        return out
    cc = os.environ.get("CC") or "cc"
    if shutil.which(cc) is None:
        raise StandinError(f"the NVML stand-in (nvml: fake:...) needs a C compiler; {cc!r} is not on PATH")
    out.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out, prefix=".build-", suffix=".so")
    os.close(fd)
    try:
        source = Path(tmp).with_suffix(".c")
        source.write_bytes(src)
        r = subprocess.run([cc, "-shared", "-fPIC", "-O1", f"-Wl,-soname,{SONAME}", "-o", tmp, str(source),
                            "-lpthread"], capture_output=True, text=True, timeout=120, check=False)
        if r.returncode != 0:
            raise StandinError(f"building the NVML stand-in failed: {r.stderr.strip().splitlines()[-1:]}")
        os.replace(tmp, lib)  # atomic: a concurrent build never sees half a library
    finally:
        for left in (tmp, tmp[:-3] + ".c"):
            if os.path.exists(left):
                os.unlink(left)
    return out


class Standin:
    """The loaded stand-in: scenario control for tests (clock, hung calls, call counts)."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        self.scenario_text = ""
        lib.standin_set_time.argtypes = [ctypes.c_double]
        lib.standin_calls.restype = ctypes.c_long

    def load(self, scenario: dict) -> None:
        text = flatten(scenario)
        fd, path = tempfile.mkstemp(prefix="gpu-npd-nvml-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            rc = self.lib.standin_load(path.encode())
        finally:
            os.unlink(path)
        if rc != 0:
            raise StandinError(f"the stand-in could not read its scenario ({os.strerror(rc)})")
        self.scenario_text = text

    def set_time(self, seconds: float) -> None:
        self.lib.standin_set_time(float(seconds))

    def release(self) -> None:
        self.lib.standin_release()

    @property
    def calls(self) -> int:
        return self.lib.standin_calls()

    @property
    def refcount(self) -> int:
        """nvmlInit calls not yet matched by nvmlShutdown (0: the agent holds nothing of NVML)."""
        return self.lib.standin_refcount()


_loaded: Standin | None = None


def activate(scenario: dict, again: bool = True) -> Standin:
    """Build and load the stand-in under NVML's soname, and give it this scenario (again: from its start,
    even if it is the one playing; else a second backend on the same scenario joins the one playing)."""
    global _loaded
    if _loaded is None:
        lib = ctypes.CDLL(str(build() / SONAME), mode=ctypes.RTLD_GLOBAL)
        # nvidia-ml-py dlopens the soname: the loader must hand it this library, not a real one loaded earlier
        if not hasattr(ctypes.CDLL(SONAME), "standin_load"):
            raise StandinError(f"a real {SONAME} is already loaded in this process; the stand-in cannot replace it")
        _loaded = Standin(lib)
    if again or _loaded.scenario_text != flatten(scenario):
        _loaded.load(scenario)
    return _loaded


def read_scenario(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            scenario = yaml.safe_load(fh) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise StandinError(f"nvml scenario {path}: {exc}") from None
    if not isinstance(scenario, dict):
        raise StandinError(f"nvml scenario {path}: expected a mapping")
    flatten(scenario)  # malformed values are reported now, with the key that holds them
    return scenario
