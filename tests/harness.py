"""A real `gpu-npd run` process fed through a kmsg-format FIFO; shared by tests and bench scripts."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# `python -c MODULES_AT_EXIT OUT <gpu-npd args>`: the console script (gpunpd.cli:main) run with the modules it loaded
# written to OUT at exit, one a line: what a command imports, read without a threshold on memory
MODULES_AT_EXIT = ("import atexit, sys\n"
                   "out = sys.argv.pop(1)\n"
                   "atexit.register(lambda: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
                   "sys.argv[0] = 'gpu-npd'\n"
                   "from gpunpd.cli import main\n"
                   "main()\n")


class AgentProc:
    def __init__(self, tmp: Path, *extra: str, stdout=None, env: dict[str, str] | None = None,
                 cmd: list[str] | None = None, cwd: str | None = None, start_timeout: float = 15.0,
                 port: int | None = None):
        self.port = port or free_port()  # chosen by the caller when a scraper must know it before the agent starts
        self.fifo = tmp / "kmsg.fifo"
        self.state = tmp / "state"
        if not self.fifo.exists():
            os.mkfifo(self.fifo)
        self.out = stdout or open(tmp / f"stdout-{self.port}.log", "w+")
        self.proc = subprocess.Popen(
            [*(cmd or [sys.executable, "-m", "gpunpd"]), "run", "--kmsg", str(self.fifo), "--no-journald",
             "--state-dir", str(self.state), "--metrics-address", f"127.0.0.1:{self.port}", *extra],
            stdout=self.out, stderr=subprocess.PIPE, cwd=cwd,
            env={**os.environ, "NODE_NAME": "gpu-node-1", **(env or {})})
        # its stderr read as it comes (kept for `stderr()` and failure messages): a pipe nobody reads holds 64 KiB,
        # and then a chatty agent blocks in its next log line, the test waiting for it in vain
        self._err = bytearray()
        self._drain = threading.Thread(target=self._read_stderr, name=f"agent-stderr-{self.port}", daemon=True)
        self._drain.start()
        try:
            self.wait_for(lambda: "gpu_npd_build_info" in self.metrics(), timeout=start_timeout,
                          what="metrics endpoint")
        except BaseException:  # not up in time: no caller holds it to stop it, so it would run on after the test
            self.proc.kill()
            self.proc.wait()
            self._drain.join(5)
            raise
        self.writer = os.open(self.fifo, os.O_WRONLY)
        # its RSS once up (modules loaded, nothing read): the floor a test's bound on what a burst costs is counted
        # from. Not an absolute figure: the same tree started 53 to 60 MiB into a burst's test depending only on the
        # virtual environment it ran from (msgspec's release, how the project is installed), so a bound of 64 MiB
        # passed in one and failed in another with the same tree
        self.idle_rss = self.rss()

    def rss(self) -> int:
        """The agent's resident set size now, in bytes."""
        with open(f"/proc/{self.proc.pid}/status") as fh:
            return int(next(ln for ln in fh if ln.startswith("VmRSS")).split()[1]) << 10

    def _read_stderr(self) -> None:
        for chunk in iter(lambda: self.proc.stderr.read1(1 << 16), b""):
            self._err += chunk

    def stderr(self) -> str:
        """What the agent wrote to stderr so far; all of it once it has exited."""
        if self.proc.poll() is not None:
            self._drain.join(5)
        return bytes(self._err).decode(errors="replace")

    def write(self, text: str) -> None:
        os.write(self.writer, text.encode())

    def metrics(self) -> str:
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=2).read().decode()
        except OSError:
            return ""

    def healthz(self) -> tuple[int, str]:
        """/healthz as (status, body): 503 is an answer here, not an error."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def value(self, name: str, **labels) -> float | None:
        for family in text_string_to_metric_families(self.metrics()):
            for sample in family.samples:
                if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                    return sample.value
        return None

    def wait_for(self, pred, timeout=15.0, what="condition"):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if pred():
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"agent exited: {self.stderr()}")
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def wait_pods_listed(self, timeout: float = 15.0) -> None:
        """Wait for the pod log source's first scan, which takes the logs there as history (a line written before it
        is never read): seen as its offsets in the state file (its `pod_logs` section), which the first state write
        after the source's first turn (it lists and reads the files) holds.  Only for a state directory whose state
        holds no offsets yet (an agent's first start)."""
        def saved() -> bool:
            try:
                return "pod_logs" in json.loads((self.state / "state.json").read_text())
            except (OSError, ValueError):
                return False
        self.wait_for(saved, timeout=timeout, what="the pod logs' first scan")

    def stop(self) -> tuple[int, float]:
        os.close(self.writer)
        t0 = time.time()
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=10)
        took = time.time() - t0
        self._drain.join(5)
        return code, took

    def events(self) -> list[dict]:
        self.out.seek(0)
        return [json.loads(line) for line in self.out if line.startswith("{")]


def ctrl_c_default() -> None:
    """`preexec_fn` of a child a test sends SIGINT (Ctrl-C): its SIGINT at the default, so that Python raises
    KeyboardInterrupt there.  A shell starts a background job (`make test &`, nohup, some CI runners) with SIGINT
    ignored, its children inherit that, and Python leaves an ignored SIGINT ignored: the test's Ctrl-C was lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_until(pred, what: str, timeout: float = 10.0):
    """Poll `pred` until it returns something truthy (returned) or fail naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def start_fleet(tmp: Path, api_url: str, pods: dict[str, list[str]], start_timeout: float = 60.0,
                config: dict[str, dict] | None = None,
                ports: dict[str, int] | None = None) -> tuple[list[AgentProc], dict[str, Path]]:
    """One real `gpu-npd run` per simulated node (its own kmsg FIFO, state and pod log tree), side by side.
    `pods`: node -> pod directory names (`<namespace>_<pod>_<uid>`), each with an empty `main/0.log` the agent
    follows from the start; `config`: node -> settings added to its configuration; `ports`: node -> metrics port
    (else free ones).  Returns the agents (in the order of `pods`) and each pod's log by pod name."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    import yaml  # noqa: PLC0415

    logs: dict[str, Path] = {}
    homes = []
    for node, dirs in pods.items():
        home = tmp / node
        for d in dirs:
            log = home / "pods" / d / "main" / "0.log"
            log.parent.mkdir(parents=True)
            log.touch()
            logs[d.split("_")[1]] = log
        (home / "pods").mkdir(parents=True, exist_ok=True)
        conf = home / "gpu-npd.yaml"
        conf.write_text(yaml.safe_dump({"mode": "observe", "kubernetes": {"api_server": api_url}, "nvml": "off",
                                        "pod_logs_root": str(home / "pods"), **(config or {}).get(node, {})}))
        homes.append((home, conf, node))
    with ThreadPoolExecutor(len(homes)) as pool:
        agents = list(pool.map(lambda h: AgentProc(h[0], "--config", str(h[1]), env={"NODE_NAME": h[2]},
                                                   start_timeout=start_timeout, port=(ports or {}).get(h[2])),
                                   homes))
    for a in agents:
        a.wait_for(lambda a=a: a.value("gpu_npd_source_up", source="pods") == 1, what="pod source")
    return agents, logs
