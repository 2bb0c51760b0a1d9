"""The `gpu-npd` command group. Each program owns its commands; this module only puts them under one name:

- agent/   (the node agent):        run, nvml-snapshot
- offline/ (post-mortems on files): parse, triage
- fabric/  (the fabric check):      fabric-check
- cluster/ (job incidents, a Deployment): cluster
"""

from __future__ import annotations

import click

from agent.cli import nvml_snapshot, run
from cluster.cli import cluster
from fabric.cli import fabric_check
from offline.cli import parse
from offline.triage_cli import triage
from parsers.version import version


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gpu-npd", prog_name="gpu-npd", version=version())
def main() -> None:
    """GPU node problem detector: finds GPU, fabric and workload faults in node logs."""


for command in (run, parse, triage, nvml_snapshot, fabric_check, cluster):
    main.add_command(command)


if __name__ == "__main__":
    main()
