"""The built image, run the way the DaemonSet runs it (`make image-test`; `.ci/run` runs it after `make test`).

Everything the container gets is read from the rendered manifest (`kubectl kustomize deploy/overlays/observe`):
its security context (capabilities, read-only root, no privilege escalation, uid, default seccomp), its
ConfigMap, its env and its mounts (host paths stood in by temporary directories, /dev/kmsg by a FIFO we
write records into, or the real /dev/kmsg).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
IMAGE = os.environ.get("IMAGE", "ghcr.io/gpu-npd/gpu-npd:0.1.0")
BUILDER = os.environ.get("BUILDER", "podman")
RUNTIME = shlex.split(os.environ.get("PODMAN_RUNTIME", ""))
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def manifest() -> tuple[dict, dict]:
    r = subprocess.run(["kubectl", "kustomize", str(ROOT / "deploy/overlays/observe")], capture_output=True,
                       text=True, check=True)
    objs = {d["kind"]: d for d in yaml.safe_load_all(r.stdout) if d}
    return objs["DaemonSet"]["spec"]["template"]["spec"], objs["ConfigMap"]


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Where the NVIDIA container toolkit puts the driver's libnvidia-ml.so.1 in a Debian-based image (its
# library directory, then ldconfig): the stand-in is mounted there in its place
TOOLKIT_LIBDIR = "/usr/lib/x86_64-linux-gnu"


def run_args(tmp: Path, port: int, kmsg: str, device: bool = False, config: dict | None = None,
             mounts: dict[str, str] | None = None, extra_env: dict[str, str] | None = None) -> list[str]:
    """`podman run` flags from the DaemonSet: security context, env, mounts; `config` is merged into the
    ConfigMap's configuration, `mounts` (host path -> container path, read-only) and `extra_env` added."""
    pod, cm = manifest()
    c = pod["containers"][0]
    sc = c["securityContext"]
    assert not sc.get("privileged")
    args = ["--network", "host", "--user", str(sc["runAsUser"])]
    if sc.get("readOnlyRootFilesystem"):
        args.append("--read-only")
    if sc.get("allowPrivilegeEscalation") is False:
        args += ["--security-opt", "no-new-privileges"]
    assert sc["seccompProfile"]["type"] == "RuntimeDefault"  # the runtime's default profile: podman's default
    for cap in sc["capabilities"]["drop"]:
        args += ["--cap-drop", cap]
    for cap in sc["capabilities"]["add"]:
        args += ["--cap-add", cap]
    env = {"NODE_NAME": "image-test-node", "POD_IP": "127.0.0.1"}
    for e in c["env"]:
        if "value" in e:
            env[e["name"]] = e["value"].replace("$(POD_IP)", env["POD_IP"])
    env["GPU_NPD_METRICS_ADDRESS"] = f"127.0.0.1:{port}"  # host network here: a free port, not 9810
    for k, v in {**env, **(extra_env or {})}.items():
        args += ["--env", f"{k}={v}"]
    conf = tmp / "config"
    conf.mkdir()
    (conf / "config.yaml").write_text(yaml.safe_dump({**(yaml.safe_load(cm["data"]["config.yaml"]) or {}),
                                                      **(config or {})}))
    host = {"kmsg": kmsg, "config": str(conf)}
    for v in pod["volumes"]:
        if "hostPath" in v and v["name"] not in host:
            path = v["hostPath"]["path"]
            if v["hostPath"].get("type") == "File" or path in ("/sys", "/proc"):
                host[v["name"]] = path if os.path.exists(path) else str(tmp / "empty-file")
            else:
                host[v["name"]] = str(tmp / v["name"])
                os.makedirs(host[v["name"]], exist_ok=True)
    (tmp / "empty-file").touch()
    for m in c["volumeMounts"]:
        if m["name"] == "tmp":
            args += ["--tmpfs", m["mountPath"]]
            continue
        if m["name"] == "kmsg" and device:  # what a device plugin / CDI / the privileged component grants
            args += ["--device", f"{kmsg}:{m['mountPath']}:r"]
            continue
        args += ["-v", f"{host[m['name']]}:{m['mountPath']}" + (":ro" if m.get("readOnly") else "")]
    for src, dst in (mounts or {}).items():
        args += ["-v", f"{src}:{dst}:ro"]
    return [*args, IMAGE, *c["args"]]


class Container:
    def __init__(self, tmp: Path, kmsg: str, device: bool = False, **extra):
        self.port = free_port()
        self.name = f"gpu-npd-image-test-{self.port}"
        subprocess.run([BUILDER, "run", *RUNTIME, "-d", "--name", self.name,
                        *run_args(tmp, self.port, kmsg, device, **extra)],
                       check=True, capture_output=True, text=True)

    def exec_python(self, code: str) -> str:
        return subprocess.run([BUILDER, "exec", self.name, "/opt/gpu-npd/bin/python", "-c", code],
                              capture_output=True, text=True, check=True).stdout

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        except OSError:
            return 0, ""

    def wait(self, pred, what: str, timeout: float = 60.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if pred():
                return
            time.sleep(0.3)
        raise AssertionError(f"timed out waiting for {what}; logs:\n{self.logs()}")

    def logs(self) -> str:
        r = subprocess.run([BUILDER, "logs", self.name], capture_output=True, text=True)
        return r.stdout + r.stderr

    def stop(self) -> int:
        subprocess.run([BUILDER, "stop", "-t", "10", self.name], capture_output=True, check=True)
        code = subprocess.run([BUILDER, "inspect", self.name, "--format", "{{.State.ExitCode}}"],
                              capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run([BUILDER, "rm", "-f", self.name], capture_output=True)
        return int(code)


@pytest.fixture(autouse=True)
def tools():
    for tool in (BUILDER, "kubectl"):
        assert shutil.which(tool), f"{tool} is needed for the image test (.ci/run installs it)"


def test_image_runs_as_the_daemonset_does(tmp_path: Path):
    fifo = tmp_path / "kmsg.fifo"
    os.mkfifo(fifo)
    c = Container(tmp_path, str(fifo))
    writer = None
    try:
        c.wait(lambda: "gpu_npd_build_info" in c.get("/metrics")[1], "/metrics")
        writer = os.open(fifo, os.O_WRONLY)
        os.write(writer, f"3,100,4254197860,-;{XID79}\n".encode())
        c.wait(lambda: '"condition": "GPUUnhealthy"' in c.logs() or '"condition":"GPUUnhealthy"' in c.logs(),
               "GPUUnhealthy on stdout")
        status, body = c.get("/healthz")
        assert status == 200 and "kmsg=up" in body, body
        assert c.get("/livez")[0] == 200
        events = [json.loads(x) for x in c.logs().splitlines() if x.startswith("{")]
        cond = [e for e in events if e.get("event") == "condition" and e["condition"] == "GPUUnhealthy"]
        assert cond[-1]["status"] == "True" and "0000:5d:00" in cond[-1]["message"]
        assert "Traceback" not in c.logs()
    finally:
        if writer is not None:
            os.close(writer)
        code = c.stop()
    assert code == 0


def test_real_kmsg_mounted_as_hostpath_is_denied_and_the_agent_falls_back_to_kern_log(tmp_path: Path):
    """Measured here: a bind-mounted /dev/kmsg (a hostPath) is refused by the device cgroup to an unprivileged
    container whatever its capabilities. The agent must say so and follow the host's kern.log instead."""
    varlog = tmp_path / "varlog"
    varlog.mkdir()
    stamp = time.strftime("%b %e %H:%M:%S", time.localtime())
    (varlog / "kern.log").write_text(f"{stamp} gpu-node-1 kernel: [4254.197860] {XID79}\n")
    c = Container(tmp_path, "/dev/kmsg")
    try:
        c.wait(lambda: "files=up" in c.get("/healthz")[1], "the kern.log fallback")
        c.wait(lambda: 'gpu_npd_node_condition{condition="GPUUnhealthy",reason="Xid79FallenOffBus"} 1.0'
               in c.get("/metrics")[1], "GPUUnhealthy from kern.log")
        assert "kmsg source /dev/kmsg is not readable" in c.logs()
    finally:
        code = c.stop()
    assert code == 0


def test_real_kmsg_with_the_device_granted_needs_only_cap_syslog(tmp_path: Path):
    """With the device granted (device plugin, CDI, or deploy/components/privileged-kmsg), the manifest's
    capabilities (SYSLOG; everything else dropped) read the real /dev/kmsg under dmesg_restrict=1."""
    c = Container(tmp_path, "/dev/kmsg", device=True)
    try:
        c.wait(lambda: 'gpu_npd_source_records_total{source="kmsg"}' in c.get("/metrics")[1], "kmsg records")
        status, body = c.get("/healthz")
        assert status == 200 and "kmsg=up" in body, body + c.logs()
    finally:
        code = c.stop()
    assert code == 0


ZOMBIES = """
import os
n = 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        n += open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        pass
print(n)
"""


def test_what_check_plugins_leave_behind_is_reaped(tmp_path: Path):
    """Issue 31: gpu-npd ran as PID 1 with no init, so children that check plugins orphaned were never reaped
    (17 zombies at 20 s, 32 at 43 s, up to the pid limit). tini is PID 1 now."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "orphans.sh").write_text("#!/bin/sh\nsleep 0.2 &\nsleep 0.2 &\necho ok\nexit 0\n")
    (plugins / "orphans.sh").chmod(0o755)
    (plugins / "orphans.json").write_text(json.dumps({
        "plugin": "custom", "source": "orphans",
        "pluginConfig": {"invoke_interval": "1s", "timeout": "5s", "max_output_length": 80, "concurrency": 1},
        "conditions": [{"type": "OrphanProblem", "reason": "Fine", "message": "fine"}],
        "rules": [{"type": "permanent", "condition": "OrphanProblem", "reason": "Orphans",
                   "path": "/plugins/orphans.sh"}]}))
    kmsg = tmp_path / "kmsg.fifo"
    os.mkfifo(kmsg)
    c = Container(tmp_path, str(kmsg), config={"checks": {"enabled": True, "plugin_configs": ["/plugins/orphans.json"]}},
                  mounts={str(plugins): "/plugins"})
    try:
        def runs() -> float:
            m = re.search(r'gpu_npd_check_runs_total\{check="orphans",result="OK"\} ([0-9.]+)', c.get("/metrics")[1])
            return float(m.group(1)) if m else 0.0
        c.wait(lambda: runs() >= 8, "eight runs of the orphaning plugin (16 orphans)")
        assert c.exec_python("import os; print(open('/proc/1/comm').read().strip())").strip() == "tini"
        assert int(c.exec_python(ZOMBIES)) <= 2  # what the last run left may not be reaped yet
    finally:
        assert c.stop() == 0


def test_the_agent_in_the_image_reads_gpus_ecc_and_xids_from_libnvidia_ml(tmp_path: Path):
    """The C stand-in for libnvidia-ml.so.1, built here, mounted where the NVIDIA container toolkit mounts the
    driver's library: the image's own nvidia-ml-py loads it and the agent reports the GPUs, an uncorrectable
    ECC error and an Xid delivered through nvmlEventSetWait_v2."""
    from agent.gpu.standin import SONAME, build, flatten
    scen = yaml.safe_load((ROOT / "tests/fixtures/nvml/hgx-h100-r550.yaml").read_text())
    scen["gpus"][1]["values"]["ecc_uncorrected_volatile"] = 2
    scen["timeline"] = [{"at": 2, "gpu": 0, "xid": 79}]
    lib = build(tmp_path / "standin") / SONAME
    (tmp_path / "scenario.txt").write_text(flatten(scen))
    fifo = tmp_path / "kmsg.fifo"
    os.mkfifo(fifo)
    c = Container(tmp_path, str(fifo), mounts={str(lib): f"{TOOLKIT_LIBDIR}/{SONAME}",
                                               str(tmp_path / "scenario.txt"): "/run/nvml-scenario.txt"},
                  extra_env={"NVML_STANDIN_SCENARIO": "/run/nvml-scenario.txt"})
    try:
        c.wait(lambda: 'gpu_npd_gpus{seen_by="nvml"} 2.0' in c.get("/metrics")[1], "two GPUs through NVML")
        c.wait(lambda: 'gpu_npd_xid_errors_total{' in c.get("/metrics")[1], "the Xid from the NVML event")
        c.wait(lambda: 'reason="UncorrectableECCError"' in c.get("/metrics")[1], "the ECC error", timeout=90)
        body = c.get("/metrics")[1]
        assert 'gpu_npd_nvml_status{status="ok"} 1.0' in body
        assert 'pci_bus_id="0000:18:00"' in body and 'xid="79"' in body
        assert "Traceback" not in c.logs()
    finally:
        code = c.stop()
    assert code == 0
