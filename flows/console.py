"""The console script (`ruling-dumps`, `python -m flows`): the command line, loaded under Ctrl-C.

Loading `flows.cli` imports polars, pandera, typer and rich (about a second).
A Ctrl-C in that time ends the process with the run's one line instead of a
traceback; after it, `flows.cli` says what an interrupt did.
"""

from __future__ import annotations

import sys

from flows.errors import INTERRUPTED_UNPUBLISHED  # imports nothing itself


def main() -> None:
    """Load the command line and run it; exit 1 with one line on a Ctrl-C while it loads."""
    try:
        from flows.cli import main as run_command_line
    except KeyboardInterrupt:
        sys.stderr.write(f"error: {INTERRUPTED_UNPUBLISHED}\n")
        raise SystemExit(1) from None
    run_command_line()
