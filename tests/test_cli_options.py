"""Every command-line option declared once (issue 24): an option name that several `gpu-npd` commands take is one
declaration (the same type, default, environment variable and help) among the commands where it means one thing;
MEANINGS lists the names that mean different things in different commands, each group of commands sharing one
declaration, and why.  The commands are gpunpd.cli's, its groups walked (`config check`)."""

from __future__ import annotations

from collections import defaultdict

import click

from gpunpd.cli import main

# option -> the groups of commands that share its declaration, where the name is not one thing everywhere
MEANINGS = {
    # run and config check: the whole file; nvml-snapshot and parse: its proc_root only (gpunpd.options host_options);
    # cleanup: one file per node pool, repeatable, read for what gpu-npd wrote (no GPU_NPD_CONFIG)
    "--config": ({"run", "config check"}, {"nvml-snapshot", "parse"}, {"cleanup"}),
    # run: a key of the agent's configuration (outside a pod, the only kubeconfig it writes with);
    # the others: where the command reaches its cluster (gpunpd.options cluster_options, for kubeapi.client.make_api)
    "--kubeconfig": ({"cleanup", "cluster", "fabric-check"}, {"run"}),
    "--format": ({"parse"}, {"triage"}, {"fabric-check"}),  # each command's own outputs
    "--log-level": ({"cluster"}, {"run"}),  # run: overrides the configuration's log_level (None: the file's)
    "--metrics-address": ({"cluster"}, {"run"}),  # two servers: 9811 and 9810
    "--namespace": ({"cluster"}, {"fabric-check"}),  # the Lease's; the test Jobs'
    "--nvml": ({"nvml-snapshot"}, {"parse"}),  # parse also takes off; a snapshot of nothing is no snapshot
    "--year": ({"parse"}, {"triage"}),  # defaults: this year; the year of the job's dated stamps
    # the same fact (triage.attribute.DEFAULT_WINDOW, its default in both), but no package below offline and
    # cluster holds command-line options (parsers and triage stay free of click; kubeapi is Kubernetes plumbing)
    "--window": ({"cluster"}, {"triage"}),
}
# the cluster Deployment's replica also reads these from its environment (cluster/cli.py); the rest is one
ENV_PER_COMMAND = {"--api-server", "--kubeconfig"}


def commands(group: click.Group = main, prefix: str = ""):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from commands(command, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}", command


def declarations() -> dict[str, dict[str, dict]]:
    """option -> command -> its declaration (click's info dict)."""
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for name, command in commands():
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in param.opts:
                    info = param.to_info_dict()
                    if opt in ENV_PER_COMMAND:
                        info.pop("envvar")
                    out[opt][name] = info
    return out


def test_an_option_many_commands_take_is_one_declaration():
    wrong = []
    for opt, uses in sorted(declarations().items()):
        if len(uses) < 2:
            continue
        groups = MEANINGS.get(opt, (set(uses),))
        assert set().union(*groups) == set(uses), f"{opt}: MEANINGS names {groups}, taken by {sorted(uses)}"
        for group in groups:
            first, *rest = sorted(group)
            wrong += [f"{opt}: {name} differs from {first}: {uses[name]} != {uses[first]}"
                      for name in rest if uses[name] != uses[first]]
    assert wrong == []


def test_the_meanings_are_options_still_taken():
    taken = declarations()
    assert [opt for opt in (*MEANINGS, *ENV_PER_COMMAND) if len(taken.get(opt, ())) < 2] == []
