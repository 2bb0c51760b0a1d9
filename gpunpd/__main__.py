"""`python -m gpunpd`: the `gpu-npd` command."""

from .cli import main

main(prog_name="gpu-npd")  # usage and errors name the command as the docs and the console script do
