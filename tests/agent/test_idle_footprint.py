"""The idle agent's footprint (issue 24): modules only some paths need are imported where they are used, so an agent
with the default configuration (no checks, no cluster, no NVML) never holds them. A list, not an RSS threshold:
the figures themselves are bench/agent.py footprint's."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
from pathlib import Path

from harness import MODULES_AT_EXIT, AgentProc

# module -> where it is imported (only there)
NOT_AT_IDLE = {
    "argparse": "agent/checks/builtin.py parser(): a built-in check's own process",
    "concurrent.futures": "agent/checks/npd.py run_rules(): configured checks",
    "pkgutil": "parsers/catalog.py _read(): the first Xid (the sample rules are read through their loader)",
    "agent.sources.podlogs": "agent/app.py Agent.start(): pod logs followed (the pod log tree is there)",
    "triage": "agent/sources/podlogs.py (job facts of pods' lines) and agent/workloads.py observe(): pod logs",
    "parsers.progress": "agent/sources/podlogs.py: the trainers' progress lines of pod logs",
    "statistics": "triage/clock.py (with fractions): pod logs, gpu-npd triage",
    "agent.kube.poddevices": "agent/app.py _pod_devices(): pod logs followed (the hang verdict's devices)",
    # the hang tracker (its state file section kept as read without it) and what it brings: the peer fields and
    # median, the PodResources device types (their socket's default is the configuration's, agent/kube/settings.py)
    "agent.progress": "agent/app.py _progress(): pod logs followed (progress marks come only from them)",
    "agent.peers": "agent/app.py _peers(): peer_outliers enabled; agent/progress.py: pod logs followed",
    "agent.podresources": "agent/progress.py, agent/kube/*: pod logs followed, or a cluster's pod writers",
    "kubeapi.retry": "agent/kube/*: a cluster to write to, or pod logs followed (the pod-device cache's thread)",
    # the configuration is converted and bounds-checked by agent/keyspec's own walk of the declared types: msgspec
    # (~1 MiB at idle with the decimal module its core imports, and typing_extensions) only decodes the cluster's
    # lists and watches (kubeapi/pager.py)
    "msgspec": "kubeapi/pager.py: a cluster to write to (agent/kube/sink.py, cleanup.py)",
    "decimal": "msgspec's core (kubeapi/pager.py): a cluster to write to",
    "typing_extensions": "msgspec (kubeapi/pager.py): a cluster to write to",
    # socket.getaddrinfo encodes a str host with the idna codec (~0.4 MiB RSS with what it imports): the metrics
    # server asks for an ASCII host as bytes
    "encodings.idna": "agent/httpserver.py MetricsServer: a metrics host name that is not ASCII",
    "stringprep": "encodings.idna: a metrics host name that is not ASCII",
    "unicodedata": "encodings.idna (stringprep): a metrics host name that is not ASCII",
}
# a node without the driver (`nvml: auto`, a normal state): nvidia-ml-py (~1 MiB) is imported by the first NVML
# init that finds libnvidia-ml.so.1 (agent/gpu/nvml.py PynvmlBackend.init); where this host has one, it is held
WITHOUT_DRIVER = {"pynvml": "agent/gpu/nvml.py PynvmlBackend.init(): a libnvidia-ml.so.1 found"}


def _driver_here() -> bool:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


def test_the_idle_agent_does_not_hold_what_only_some_paths_need(tmp_path: Path):
    """A real `gpu-npd run` (kmsg and a log file), its modules read at exit: after start-up, SIGTERM."""
    loaded = tmp_path / "modules.txt"
    code = MODULES_AT_EXIT
    log = tmp_path / "kern.log"
    log.write_text("")
    agent = AgentProc(tmp_path, "--log-file", str(log), cmd=[sys.executable, "-c", code, str(loaded)])
    agent.write("6,1,100000,-;eth0: benign kernel line\n")
    code_, _ = agent.stop()
    assert code_ == 0
    modules = set(loaded.read_text().split())
    assert "agent.app" in modules and "agent.keyspec" in modules  # the agent ran (and validated its configuration)
    not_held = NOT_AT_IDLE | ({} if _driver_here() else WITHOUT_DRIVER)
    held = {m: why for m, why in not_held.items() if m in modules}
    assert held == {}, f"loaded at idle, meant for first use only: {held}"


def test_the_xid_144_150_decode_table_is_derived_at_its_first_line():
    """NVIDIA's Xid 144-150 decode (parsers/catalog.py NVLINK5_DECODE_ROWS) is read into its lookup table at the
    first line that asks, not when the agent imports the catalog: an idle agent holds none of it."""
    code = ("import agent.app\n"
            "from parsers import catalog\n"
            "print(catalog._nvlink5_decode.cache_info().currsize)\n"
            "print(catalog.nvlink5_decode(145, 'RLW_SRC_TRACK', 0b0011100010, 0x4))\n"
            "print(catalog._nvlink5_decode.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert out.split() == ["0", "XID_154_EVAL", "1"]


# module-level regexes only a rare line (or a path idle never takes) needs: LazyPatterns, compiled at first use, so an
# idle agent holds none of them compiled (each 1-7 KiB, and their compiling at start)
COMPILED_AT_FIRST_USE = {
    "parsers.rules": ["_OOM_V2", "_OOM_V1", "_OOM_PROCESS", "_OOM_POOL"],  # a CUDA OOM line's figures
    "parsers.envelope": ["_DMESG_PARTS", "_VERBOSE_HEADER", "_CRI_PARTIAL"],  # dmesg -T -d, journal export, pod logs
    "parsers.classify": ["_RANK", "_PG_TAG", "_PG_DESC", "_LAUNCHER_RANK"],  # a rank on a framework's line
    "parsers.workers": ["COLOURS", "_WORKER", "_SGLANG"],  # a worker's prefix (Ray, vLLM, SGLang)
    "parsers.gpus": ["_MIG_ON_GPU"],  # a MIG device's name
    "parsers.escalation": ["UNIT"],  # an Xid 13's unit
    "parsers.catalog": ["_SXID_ACTION"],  # an NVSwitch SXid's catalog row
    "agent.pidmap": ["_POD", "_CONTAINER"],  # a GPU process's pod (NVML on)
    "agent.config": ["_SERVICE_LINK"],  # a GPU_NPD_ variable that is no key (a Service's link)
}


def test_rare_line_regexes_are_compiled_at_first_use():
    """What the agent imports leaves the regexes of COMPILED_AT_FIRST_USE uncompiled (CRASH_STACKS' too): an idle agent
    never compiles them."""
    code = ("import importlib, json, sys\n"
            "import agent.app, gpunpd.cli\n"
            "from parsers.rules import CRASH_STACKS\n"
            "names = json.loads(sys.argv[1])\n"
            "out = {f'{m}.{n}': getattr(getattr(importlib.import_module(m), n), '_re', 'eager') is None\n"
            "       for m, ns in names.items() for n in ns}\n"
            "out['parsers.rules.CRASH_STACKS'] = all(getattr(p, '_re', 'eager') is None for p, _, _ in CRASH_STACKS)\n"
            "print(json.dumps(out))\n")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(COMPILED_AT_FIRST_USE)], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2]).stdout
    lazy = json.loads(out)
    assert [name for name, uncompiled in lazy.items() if not uncompiled] == []
