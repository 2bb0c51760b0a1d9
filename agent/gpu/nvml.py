"""NVML's real implementation over `pynvml` (the interface lives in `interface.py`), and backend selection."""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import threading
import time
import weakref
from collections.abc import Collection
from ctypes import byref

from .interface import (CHECK_GROUPS, ERRORS, GONE, GROUPS, MAX_NVLINKS, NVLINK_FIELDS, NVML_READING_GROUPS,  # noqa: F401
                        UNSUPPORTED, Identity, Nvml, NvmlError)

log = logging.getLogger("gpu_npd.nvml")

SONAME = "libnvidia-ml.so.1"  # what nvidia-ml-py dlopens, by this name only (no path, no variable it reads)
# Where a node's driver keeps libnvidia-ml.so.1 on the host, by platform (docs/install.md "NVML on each platform"
# has the source of each). Looked in, in this order, only when the loader finds no libnvidia-ml.so.1 (no NVIDIA
# runtime, CDI or toolkit put one in the agent's container), through the host's root as the host's /proc shows it
# (`proc_root`/proc/1/root: the mounts of the host's init, a GPU operator driver container's /run/nvidia/driver
# too, even when it came up after the agent). The first that loads is loaded under its soname, so nvidia-ml-py's
# own dlopen of the soname gets it; nvidia-ml-py itself is not changed.
HOST_LIBRARY_DIRS: tuple[tuple[str, str], ...] = (
    ("/home/kubernetes/bin/nvidia/lib64", "GKE (COS and Ubuntu nodes): the driver installer's"),
    ("/usr/local/nvidia/lib64", "AKS: aks-gpu's"),
    ("/run/nvidia/driver/usr/lib/x86_64-linux-gnu", "GPU operator driver container, Ubuntu images"),
    ("/run/nvidia/driver/usr/lib/aarch64-linux-gnu", "GPU operator driver container, Ubuntu images (arm64)"),
    ("/run/nvidia/driver/usr/lib64", "GPU operator driver container, RHEL and RHCOS images (OpenShift)"),
    ("/usr/lib/nvidia/tesla", "Bottlerocket NVIDIA variants (EKS)"),
    ("/usr/lib64", "a driver installed on the host, RHEL-family layout (Amazon Linux)"),
    ("/usr/lib/x86_64-linux-gnu", "a driver installed on the host, Debian-family layout (Ubuntu)"),
    ("/usr/lib/aarch64-linux-gnu", "a driver installed on the host, Debian-family layout (Ubuntu, arm64)"),
)


def load_from_host(proc_root: str) -> str:
    """Make libnvidia-ml.so.1 loadable by its soname: "" when the loader finds one itself, else the host path
    (HOST_LIBRARY_DIRS) it was loaded from; NvmlError LIBRARY_NOT_FOUND, in one line naming what was tried, when
    neither."""
    try:
        ctypes.CDLL(SONAME)
        return ""
    except OSError:
        pass
    root = os.path.join(proc_root, "proc/1/root")
    failed = []  # a library there that did not load (another architecture, no access): its error
    for directory, _ in HOST_LIBRARY_DIRS:
        path = root + directory + "/" + SONAME
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as exc:
            if os.path.lexists(path):
                failed.append(f"{directory}: {' '.join(str(exc).split())}")
            continue
        log.info("NVML: %s loaded from the host's %s", SONAME, directory)
        return directory
    reach = "" if os.access(root, os.R_OK | os.X_OK) else f" ({root} cannot be read: privileged pods only)"
    raise NvmlError("LIBRARY_NOT_FOUND", f"no {SONAME} for the loader nor in the host's "
                    f"{', '.join(d for d, _ in HOST_LIBRARY_DIRS)} under {root}{reach}"
                    + (f"; found but not loaded: {'; '.join(failed)}" if failed else ""))


def _scaled(value, divisor: float):
    """A raw NVML value in its reading's unit (integers stay integers where no unit changes)."""
    return value / divisor if divisor != 1.0 else value


def _value(v):
    """A field value (nvmlFieldValue_t) by its valueType: 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong,
    5 sint."""
    return [v.value.dVal, v.value.uiVal, v.value.ulVal, v.value.ullVal, v.value.sllVal, v.value.siVal][v.valueType]


class _Unloaded:
    """`PynvmlBackend.n` until an init found the library: every NVML function fails as NVML's own do before nvmlInit."""

    class NVMLError(Exception):
        """Never raised: what `PynvmlBackend._call` catches of pynvml's."""

    NVMLLibraryMismatchError = NVMLError

    def __getattr__(self, name):
        def fail(*_a, **_k):
            raise NvmlError("UNINITIALIZED")
        return fail


_UNLOADED = _Unloaded()


class PynvmlBackend:
    """The real thing.  pynvml is imported by the first `init` that finds the library, not before: a node without
    the driver (a normal state, retried) never holds it (~1 MiB of the idle agent's RSS)."""

    def __init__(self, proc_root: str = "") -> None:
        self.n = _UNLOADED  # pynvml, once an init found the library
        self.proc_root = proc_root  # where the host's /proc is: libnvidia-ml looked for on the host (load_from_host)
        self._handles: dict[int, object] = {}
        self._events = None
        self._registered: set[int] = set()  # GPUs whose Xid events the event set carries (or that have none)
        self._open = False
        self._lock = threading.Lock()
        # the handle cache's own lock (the Xid wait asks for handles holding _lock): a handle asked before a
        # shutdown() ended its session is not kept for the next (`_session` counts shutdowns)
        self._handle_lock = threading.Lock()
        self._session = 0
        self.standin = None  # the C stand-in's control, when `nvml: fake:<scenario>` loaded it (tests, demos)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except self.n.NVMLError as exc:
            raise NvmlError(_error_name(self.n, exc.value), str(exc)) from None
        except self.n.NVMLLibraryMismatchError as exc:  # an unversioned entry point this driver lacks
            raise NvmlError("FUNCTION_NOT_FOUND", str(exc)) from None

    def _call_either(self, newer, older, *args):
        """The newer entry point, or its predecessor on a driver generation that lacks it."""
        try:
            return self._call(newer, *args)
        except NvmlError as exc:
            if exc.code != "FUNCTION_NOT_FOUND":
                raise
            return self._call(older, *args)

    def _h(self, index: int):
        h = self._handles.get(index)
        if h is None:
            session = self._session
            h = self._call(self.n.nvmlDeviceGetHandleByIndex, index)
            with self._handle_lock:
                if session == self._session:
                    self._handles[index] = h
        return h

    def init(self) -> None:
        if self.proc_root:
            load_from_host(self.proc_root)
        if self.n is _UNLOADED:
            import pynvml  # noqa: PLC0415 - optional at run time (open_backend: _Missing where not installed)
            self.n = pynvml
        self._call(self.n.nvmlInit)
        with self._lock:
            self._open = True

    def shutdown(self) -> None:
        """Let go of everything: the event set, every device handle, NVML itself (a GPU reset waits for
        every NVML client to do so)."""
        if self.n is _UNLOADED:  # no init found the library: nothing is held
            return
        with self._lock:  # an Xid wait in progress finishes first (it waits at most its timeout)
            self._open = False
            if self._events is not None:
                try:
                    self.n.nvmlEventSetFree(self._events)
                except self.n.NVMLError:
                    pass
                self._events = None
            self._registered.clear()
        try:
            self.n.nvmlShutdown()
        except self.n.NVMLError:
            pass
        with self._handle_lock:  # after NVML's shutdown: a handle call begun before it is of the session ended
            self._session += 1
            self._handles.clear()

    def driver_version(self) -> str:
        v = self._call(self.n.nvmlSystemGetDriverVersion)
        return v.decode() if isinstance(v, bytes) else v

    def count(self) -> int:
        return self._call(self.n.nvmlDeviceGetCount)

    def identity(self, index: int) -> Identity:
        h = self._h(index)
        text = lambda v: v.decode() if isinstance(v, bytes) else v  # noqa: E731
        pci = self._call(self.n.nvmlDeviceGetPciInfo, h)
        try:
            vbios = text(self._call(self.n.nvmlDeviceGetVbiosVersion, h))
        except NvmlError as exc:
            if exc.code not in UNSUPPORTED:
                raise
            vbios = ""
        return Identity(index, text(self._call(self.n.nvmlDeviceGetUUID, h)), text(pci.busId),
                        text(self._call(self.n.nvmlDeviceGetName, h)), vbios)

    def probe_pci(self, pci: str) -> None:
        """Whether NVML has a handle for the GPU at this PCI address (nvmlDeviceGetHandleByPciBusId_v2): its error
        (GPU_IS_LOST for a GPU fallen off the bus, NOT_FOUND for an address NVML has no GPU at) as NvmlError."""
        self._call(self.n.nvmlDeviceGetHandleByPciBusId, pci)

    def read(self, index: int, group: str) -> dict[str, float]:
        n, h, c = self.n, self._h(index), self._call
        if group == "ecc":
            return {f"ecc_{kind}_{counter}": c(n.nvmlDeviceGetTotalEccErrors, h, etype, ctype)
                    for kind, etype in (("corrected", n.NVML_MEMORY_ERROR_TYPE_CORRECTED),
                                        ("uncorrected", n.NVML_MEMORY_ERROR_TYPE_UNCORRECTED))
                    for counter, ctype in (("volatile", n.NVML_VOLATILE_ECC), ("aggregate", n.NVML_AGGREGATE_ECC))}
        if group == "retired_pages":
            return {"retired_pages_sbe": len(c(n.nvmlDeviceGetRetiredPages, h,
                                               n.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS)),
                    "retired_pages_dbe": len(c(n.nvmlDeviceGetRetiredPages, h,
                                               n.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)),
                    "retired_pages_pending": int(c(n.nvmlDeviceGetRetiredPagesPendingStatus, h))}
        if group == "remap":
            corr, unc, pending, failure = c(n.nvmlDeviceGetRemappedRows, h)
            return {"remap_correctable": corr, "remap_uncorrectable": unc, "remap_pending": int(pending),
                    "remap_failure": int(failure)}
        if group == "temperature":
            out = {"temperature_gpu": c(n.nvmlDeviceGetTemperature, h, n.NVML_TEMPERATURE_GPU)}
            mem = self._field(h, n.NVML_FI_DEV_MEMORY_TEMP)
            if mem is not None and 0 < mem < 200:
                out["temperature_memory"] = mem
            return out
        if group == "clocks":  # "throttle reasons" before driver 535
            return {"clocks_event_mask": self._call_either(n.nvmlDeviceGetCurrentClocksEventReasons,
                                                           n.nvmlDeviceGetCurrentClocksThrottleReasons, h)}
        if group == "sm_clock":
            return {"clock_sm": c(n.nvmlDeviceGetClockInfo, h, n.NVML_CLOCK_SM)}
        if group == "utilization":
            u = c(n.nvmlDeviceGetUtilizationRates, h)
            return {"utilization_gpu": u.gpu, "utilization_memory": u.memory}
        if group == "throttle_time":
            out = {}
            for name, policy in (("power", n.NVML_PERF_POLICY_POWER), ("thermal", n.NVML_PERF_POLICY_THERMAL),
                                 ("reliability", n.NVML_PERF_POLICY_RELIABILITY),
                                 ("board_limit", n.NVML_PERF_POLICY_BOARD_LIMIT)):
                try:
                    out[f"violation_{name}_ns"] = c(n.nvmlDeviceGetViolationStatus, h, policy).violationTime
                except NvmlError as exc:
                    if exc.code not in UNSUPPORTED or name == "power":  # power: the one every GPU has
                        raise
            return out
        if group == "thermal_limits":
            return {"temperature_slowdown": c(n.nvmlDeviceGetTemperatureThreshold, h,
                                              n.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN),
                    "temperature_shutdown": c(n.nvmlDeviceGetTemperatureThreshold, h,
                                              n.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN)}
        if group == "fabric":
            return self._fabric(h)
        if group == "nvlink_throughput":  # the sum over the GPU's links (scope UINT_MAX), KiB since driver load
            values = c(n.nvmlDeviceGetFieldValues, h, [(n.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 0xFFFFFFFF),
                                                       (n.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, 0xFFFFFFFF)])
            for v in values:  # NOT_SUPPORTED: a GPU without NVLink
                self._field_ok(v, "NVLink throughput field")
            return {"nvlink_tx_kib": _value(values[0]), "nvlink_rx_kib": _value(values[1])}
        if group in NVML_READING_GROUPS:  # one call per reading, declared in the table
            return {r.name: _scaled(c(getattr(n, r.call), h, *(getattr(n, a) for a in r.args)), r.divisor)
                    for r in NVML_READING_GROUPS[group]}
        if group == "recovery":
            (v,) = c(n.nvmlDeviceGetFieldValues, h, [n.NVML_FI_DEV_GET_GPU_RECOVERY_ACTION])
            self._field_ok(v, "recovery action field")
            return {"recovery_action": _value(v)}
        if group == "settings":
            current, pending = c(n.nvmlDeviceGetEccMode, h)
            return {"persistence_mode": int(c(n.nvmlDeviceGetPersistenceMode, h)),
                    "ecc_mode_current": int(current), "ecc_mode_pending": int(pending),
                    "clock_sm_max": c(n.nvmlDeviceGetMaxClockInfo, h, n.NVML_CLOCK_SM),
                    "clock_mem_max": c(n.nvmlDeviceGetMaxClockInfo, h, n.NVML_CLOCK_MEM)}
        if group == "processes":  # _v3 from driver 510 on
            return {"compute_processes": len(self._call_either(n.nvmlDeviceGetComputeRunningProcesses,
                                                               n.nvmlDeviceGetComputeRunningProcesses_v2, h))}
        raise NvmlError("INVALID_ARGUMENT", f"unknown group {group}")

    def compute_pids(self, index: int) -> list[int]:
        """The pids of the GPU's compute processes (_v3 from driver 510 on)."""
        n = self.n
        return [int(p.pid) for p in self._call_either(n.nvmlDeviceGetComputeRunningProcesses,
                                                      n.nvmlDeviceGetComputeRunningProcesses_v2, self._h(index))]

    def compute_mode(self, index: int) -> int:
        """Who may hold a context on the GPU (interface.COMPUTE_MODES)."""
        return int(self._call(self.n.nvmlDeviceGetComputeMode, self._h(index)))

    def nvlink(self, index: int, link: int) -> dict[str, float]:
        n, h, c = self.n, self._h(index), self._call
        out = {"state": int(c(n.nvmlDeviceGetNvLinkState, h, link))}
        for name, counter in (("crc_flit", n.NVML_NVLINK_ERROR_DL_CRC_FLIT), ("crc_data", n.NVML_NVLINK_ERROR_DL_CRC_DATA),
                              ("replay", n.NVML_NVLINK_ERROR_DL_REPLAY), ("recovery", n.NVML_NVLINK_ERROR_DL_RECOVERY)):
            try:
                out[name] = c(n.nvmlDeviceGetNvLinkErrorCounter, h, link, counter)
            except NvmlError as exc:
                if exc.code not in UNSUPPORTED:  # a counter this GPU or driver lacks: the link still reads
                    raise
        return out

    def _fabric(self, h) -> dict[str, float]:
        """nvmlGpuFabricInfo v3 (health summary, driver 560+), else v2; state NOT_SUPPORTED: no fabric here."""
        n = self.n
        info = n.c_nvmlGpuFabricInfo_v3_t()
        try:
            self._call(n.nvmlDeviceGetGpuFabricInfoV, h, byref(info))
        except NvmlError as exc:
            if exc.code != "ARGUMENT_VERSION_MISMATCH":
                raise
            info = n.c_nvmlGpuFabricInfo_v2_t()
            self._call(n.nvmlDeviceGetGpuFabricInfoV, h, byref(info))
        if info.state == n.NVML_GPU_FABRIC_STATE_NOT_SUPPORTED:
            raise NvmlError("NOT_SUPPORTED", "no NVLink fabric on this GPU")
        out = {"fabric_state": int(info.state), "fabric_status": int(info.status),
               "fabric_clique_id": int(info.cliqueId), "fabric_health_mask": int(info.healthMask)}
        if hasattr(info, "healthSummary"):
            out["fabric_health_summary"] = int(info.healthSummary)
        return out

    def _field_ok(self, v, what: str) -> None:
        """A field value's own return code as NvmlError: NOT_SUPPORTED skips the group from then on, any other
        (a GPU lost, a transient UNKNOWN) is this poll's error only."""
        if v.nvmlReturn != 0:
            raise NvmlError(_error_name(self.n, v.nvmlReturn), what)

    def _field(self, h, field_id: int) -> float | None:
        values = self._call(self.n.nvmlDeviceGetFieldValues, h, [field_id])
        v = values[0]
        if v.nvmlReturn != 0:
            return None
        return _value(v)

    def wait_xid(self, timeout_ms: int, gpus: Collection[int] | None = None) -> tuple[int, int] | None:
        """The next Xid event within the timeout, on an event set that carries GPUs `gpus`: one not yet registered
        is registered at this call, so a GPU read again after a reset has its Xids from the next wait on; one that
        does not answer (lost) is skipped and tried at the next wait, one without Xid events (NOT_SUPPORTED) asked
        once.  None: every GPU NVML counts, once, when the set is made."""
        n = self.n
        with self._lock:  # held through the wait: shutdown() never frees the set under it
            if not self._open:
                raise NvmlError("UNINITIALIZED", "NVML released")
            fresh = self._events is None
            if fresh:
                self._events = self._call(n.nvmlEventSetCreate)
            want = (range(self.count()) if fresh else ()) if gpus is None else gpus
            for i in sorted(set(want) - self._registered):
                try:
                    self._call(n.nvmlDeviceRegisterEvents, self._h(i), n.nvmlEventTypeXidCriticalError,
                               self._events)
                    self._registered.add(i)
                except NvmlError as exc:  # a GPU that does not answer (lost at start): the others' events
                    if exc.code in GONE:
                        raise
                    if exc.code in UNSUPPORTED:  # no Xid events on this GPU: never asked again
                        self._registered.add(i)
            try:
                data = self._call(n.nvmlEventSetWait_v2, self._events, timeout_ms)
            except NvmlError as exc:
                if exc.code == "TIMEOUT":
                    return None
                raise
            index = self._call(n.nvmlDeviceGetIndex, data.device)
        return index, int(data.eventData)


class Asking:
    """One call on a backend, on a helper thread of its own: what it asks (`what`), the GPU it is asking now (`at`,
    e.g. 'GPU 3', set by the call as it goes; '' before a GPU is asked), its answer once it has one."""

    def __init__(self, what: str) -> None:
        self.what, self.at = what, ""
        self.answer: list = []
        self.thread: threading.Thread | None = None
        self.began = time.monotonic()
        self.said = False  # its refusals are said once


# the call in flight per backend: one NVML session at a time on a backend (each call inits and shuts down its own);
# a call past its deadline stays inside NVML (a GPU that stopped answering) until NVML answers it
_in_flight: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_in_flight_lock = threading.Lock()


def begin_alone(nvml: Nvml, what: str, name: str, ask, patient: float = 0.0) -> tuple[Asking, bool]:
    """`ask(call)` begun on a helper thread named `name`, not waited for: (the call, True); or (hung, False), `hung` an
    earlier call on the same backend that has not returned, which refuses this one at once (nothing asked; a second
    session beside it would init and shut down under the call in flight, and park one more thread inside NVML per
    call), said once per such call; not said where `hung` is younger than `patient` seconds (a call in flight within
    the caller's deadline, not a GPU that stopped answering: the caller asks again once it has returned)."""
    with _in_flight_lock:
        hung = _in_flight.get(nvml)
        if hung is not None and hung.thread.is_alive():
            if time.monotonic() - hung.began < patient:
                return hung, False
            if not hung.said:
                hung.said = True
                log.warning("NVML %s not asked: %s%s, begun %.0f s ago, has not returned (a GPU that stopped "
                            "answering); nothing is asked until it does", what, hung.what,
                            f" on {hung.at}" if hung.at else "", time.monotonic() - hung.began)
            return hung, False
        call = Asking(what)
        call.thread = threading.Thread(target=ask, args=(call,), name=name, daemon=True)
        _in_flight[nvml] = call
        call.thread.start()
    return call, True


def ask_alone(nvml: Nvml, what: str, name: str, ask, deadline: float) -> tuple[list, Asking | None]:
    """`ask(call)` begun alone (`begin_alone`) and waited for up to `deadline`: ([answer], None), or ([], hung) when
    there is none, `hung` the call that has not returned: this one, past its deadline, or the earlier one that refused
    it."""
    call, begun = begin_alone(nvml, what, name, ask)
    if begun:
        call.thread.join(deadline)
    return (call.answer[:1], None) if begun and call.answer else ([], call)


def in_session(nvml: Nvml, read, failed):
    """The helper thread's `ask(call)` of `read(call)` inside an NVML session of its own (init, read, shutdown in
    pairs: nothing of NVML stays held between calls, GPU resets); an NvmlError of the init or of the read answers
    `failed(error)`."""

    def ask(call: Asking) -> None:
        try:
            nvml.init()
        except NvmlError as e:
            call.answer.append(failed(e))
            return
        try:
            call.answer.append(read(call))
        except NvmlError as e:
            call.answer.append(failed(e))
        finally:
            nvml.shutdown()

    return ask


def ask_in_session(nvml: Nvml, what: str, name: str, read, failed, deadline: float) -> tuple[list, Asking | None]:
    """`read(call)` in a session of its own (`in_session`), asked alone (`ask_alone`): what `ask_alone` returns."""
    return ask_alone(nvml, what, name, in_session(nvml, read, failed), deadline)


def pids_on(nvml: Nvml | None, index: int, deadline: float = 5.0) -> list[int] | None:
    """The compute pids on GPU `index` through a session of its own, asked alone (`ask_in_session`: one call at a
    time per backend); None when NVML cannot say within the deadline, or while an earlier call on the same backend
    has not returned."""
    if nvml is None:
        return None

    def read(call: Asking) -> list[int]:
        call.at = f"GPU {index}"
        return nvml.compute_pids(index)

    answer, _ = ask_in_session(nvml, "compute pids", "nvml-pids", read, lambda e: None, deadline)
    return answer[0] if answer else None


def ask_users(nvml: Nvml | None, indices: list[int], deadline: float = 0.0) -> Asking | str | None:
    """GPU index -> (its compute mode, its compute pids) for each of `indices`, asked in a session of its own, alone
    (`in_session`, `begin_alone`) and not waited for: the call, whose answer `answer_of` reads; else why it is not
    asked (one line): NVML off, or refused while an earlier call on the same backend has not returned; None (not asked
    yet, ask again) while that earlier call is younger than `deadline` (another busy Event's question in flight)."""
    if nvml is None:
        return "NVML is off (config key `nvml`)"

    def read(call: Asking) -> dict[int, tuple[int, list[int]]]:
        out = {}
        for i in indices:
            call.at = f"GPU {i}"
            try:
                out[i] = (nvml.compute_mode(i), nvml.compute_pids(i))
            except NvmlError as e:
                raise NvmlError(e.code, call.at) from None
        return out

    call, begun = begin_alone(nvml, "compute mode and pids", "nvml-users", in_session(nvml, read, str), deadline)
    if begun:
        return call
    if time.monotonic() - call.began < deadline:
        return None
    return (f"refused: an earlier NVML call has not returned ({call.what}{f' on {call.at}' if call.at else ''}, "
            f"begun {time.monotonic() - call.began:.0f} s ago)")


def answer_of(call: Asking, deadline: float):
    """The answer of a call begun alone (`begin_alone`, `ask_users`): its own; else why there is none (one line) once
    it is `deadline` old, or its thread ended without one; None while it may still come."""
    alive = call.thread.is_alive()  # (before the answer is read: a thread ended has answered, if ever)
    if call.answer:
        return call.answer[0]
    if alive and time.monotonic() - call.began < deadline:
        return None
    at = f" on {call.at}" if call.at else ""
    return f"NVML did not answer{at} within {deadline:g} s" if alive else f"NVML's call failed{at}"


def _error_name(n, value: int) -> str:
    for name in ERRORS:
        if getattr(n, f"NVML_ERROR_{name}", None) == value:
            return name
    return f"CODE_{value}"


def nvml_spec_problem(spec: str) -> str | None:
    """Why an NVML spec (config key `nvml`, `--nvml` of parse and nvml-snapshot) is unusable, or None."""
    if not (spec in ("auto", "off") or spec.startswith("fake:")):
        return f"expected auto, off or fake:<scenario.yaml>, got {spec!r}"
    if spec.startswith("fake:") and not os.path.isfile(spec[5:]):
        return f"scenario file {spec[5:]!r} " + ("is not a file" if os.path.exists(spec[5:]) else "does not exist")
    return None


def open_backend(spec: str, proc_root: str = "", fresh: bool = False) -> Nvml | None:
    """`auto`: the real library (looked for on the host under `proc_root` too, where given: load_from_host);
    `fake:<scenario.yaml>`: nvidia-ml-py over the C stand-in; `off`: none.  `fresh`: a run's first handle (the agent's
    poller, a command's): the stand-in plays its scenario from its start even where the same one is playing, as a
    process of its own would (an earlier run in this process, a test's: nothing it released, advanced or left
    initialised carries over); else a later handle of the run joins the scenario playing."""
    if spec == "off":
        return None
    standin = None
    if spec.startswith("fake:"):
        from . import standin as standin_mod  # noqa: PLC0415

        try:
            standin = standin_mod.activate(standin_mod.read_scenario(spec[5:]), again=fresh)
        except standin_mod.StandinError as exc:
            raise ValueError(str(exc)) from None
    if importlib.util.find_spec("pynvml") is None:
        return _Missing()
    backend = PynvmlBackend("" if standin else proc_root)
    backend.standin = standin
    return backend


class _Missing:
    """pynvml itself is not installed: behaves like NVML without its shared library."""

    def init(self) -> None:
        raise NvmlError("LIBRARY_NOT_FOUND", "the pynvml module is not installed")

    def __getattr__(self, name):
        def fail(*_a, **_k):
            raise NvmlError("UNINITIALIZED")
        return fail
