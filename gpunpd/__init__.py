"""The `gpu-npd` command: one click group that registers each program's commands (see gpunpd.cli)."""
