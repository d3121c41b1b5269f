"""`python -m flows` runs the command line (see flows.cli)."""

from flows.cli import main

main()
