"""`python -m flows` runs the command line (see flows.cli)."""

from flows.console import main

main()
