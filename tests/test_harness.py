"""The shared test helpers themselves (tests/harness.py): what a test of the agent relies on them for."""

from __future__ import annotations

import sys
from pathlib import Path

from harness import AgentProc

# A stand-in for `gpu-npd run` as AgentProc starts it (the arguments it appends): 256 KiB to stderr before it serves
# /metrics, 256 KiB more on each scrape, and on SIGTERM one last line and exit 0.  A pipe nobody reads holds 64 KiB.
CHATTY = r"""
import http.server, os, signal, sys
args = sys.argv[1:]
fifo, port = args[args.index("--kmsg") + 1], int(args[args.index("--metrics-address") + 1].rsplit(":", 1)[1])
def say(n):
    sys.stderr.write(("x" * 1023 + "\n") * n)
    sys.stderr.flush()
say(256)
class Metrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        say(256)
        body = b"gpu_npd_build_info 1\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
def bye(*_):
    sys.stderr.write("stopped\n")
    sys.stderr.flush()
    os._exit(0)
signal.signal(signal.SIGTERM, bye)
server = http.server.HTTPServer(("127.0.0.1", port), Metrics)
reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # AgentProc's writer opens once a reader has
server.serve_forever()
"""


def test_agentproc_reads_a_chatty_agents_stderr_as_it_comes(tmp_path: Path):
    """Before, nobody read the agent's stderr until it exited: past 64 KiB a chatty agent blocked in its next log
    line (here before /metrics came up: AgentProc's start timed out), and a test waited on an agent that could not
    move.  Now it is read as it comes, and all of it is there after the agent exits."""
    a = AgentProc(tmp_path, cmd=[sys.executable, "-c", CHATTY, "gpu-npd"], start_timeout=10)
    for _ in range(3):
        a.wait_for(lambda: "gpu_npd_build_info" in a.metrics(), timeout=10, what="a scrape")
    assert a.stop()[0] == 0
    err = a.stderr()
    assert err.endswith("stopped\n") and len(err) >= 4 * 256 * 1024, len(err)
