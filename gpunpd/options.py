"""The command-line options that more than one program's commands take, each declared once (tests/test_cli_options.py).
Every program may import this module (tests/test_import_cycles.py: it imports nothing of ours, only click), unlike
the rest of gpunpd, the command group above them: `gpu-npd parse` takes the agent's --config and --proc-root without
loading the agent (tests/offline/test_cli_parse.py NOT_FOR_PARSE)."""

from __future__ import annotations

from typing import Callable, TypeVar

import click

F = TypeVar("F", bound=Callable)


def config_option(help: str) -> Callable[[F], F]:
    """--config: the agent's configuration file (also $GPU_NPD_CONFIG); `help` says what the command reads of it."""
    return click.option("--config", "config_file", type=click.Path(dir_okay=False), envvar="GPU_NPD_CONFIG", help=help)


def host_options(command: F) -> F:
    """--config and --proc-root of a command that opens NVML outside the agent (`nvml-snapshot`, `parse --nvml`):
    the agent's proc_root, so that its NVML looks for libnvidia-ml.so.1 on the host as the agent's does
    (agent/gpu/nvml.py load_from_host; agent.cli agent_proc_root)."""
    command = click.option("--proc-root", default=None,
                           help="Prefix for the host's /proc: libnvidia-ml.so.1 looked for on the host under it, as "
                                "the agent does (default: the configuration's proc_root; in the agent's pod "
                                "/host).")(command)
    return config_option("The agent's configuration file, for its proc_root (--nvml auto; in the agent's pod "
                         "/etc/gpu-npd/config.yaml).")(command)


def cluster_options(api_server_envvar: str | None = None, kubeconfig_envvar: str | None = None) -> Callable[[F], F]:
    """--api-server and --kubeconfig of a command that reaches its cluster through kubeapi.client.make_api
    (`cleanup`, `fabric-check`, `cluster`), in this order; the environment variables that may also give them (the
    cluster Deployment's).  `gpu-npd run` takes its cluster from the agent's configuration instead."""

    def decorate(command: F) -> F:
        command = click.option("--kubeconfig", envvar=kubeconfig_envvar, default="",
                               help="kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).")(command)
        return click.option("--api-server", envvar=api_server_envvar, default="",
                            help="API server URL (default: in-cluster config, then kubeconfig).")(command)

    return decorate
