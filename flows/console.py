"""The console script (`ruling-dumps`, `python -m flows`): the command line, loaded under Ctrl-C.

Loading `flows.cli` imports polars, pandera, typer and rich (about a second).
A Ctrl-C, SIGTERM or SIGHUP in that time ends the process with the run's one
line instead of a traceback or a silent exit 143/129; after it, `flows.cli`
says what an interrupt did.
"""

from __future__ import annotations

import signal
import sys

from flows.errors import INTERRUPTED_UNPUBLISHED  # imports nothing itself


def main() -> None:
    """Load the command line and run it; exit 1 with one line on a stop signal while it loads."""
    for signum in (signal.SIGTERM, signal.SIGHUP):  # as Ctrl-C, unless ignored (nohup)
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, signal.default_int_handler)
    try:
        from flows.cli import main as run_command_line
    except KeyboardInterrupt:
        sys.stderr.write(f"error: {INTERRUPTED_UNPUBLISHED}\n")
        raise SystemExit(1) from None
    run_command_line()
