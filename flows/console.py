"""The console script (`ruling-dumps`, `python -m flows`): the command line, loaded under Ctrl-C.

Before anything else, the process is fitted under an address-space limit if
one is set (`processes.memory.fit_address_space`: polars reads its settings
when imported). Loading `flows.cli` imports polars, pandera, typer and rich
(about a second). A Ctrl-C, SIGTERM or SIGHUP in that time ends the process
with the run's one line instead of a traceback or a silent exit 143/129;
after it, `flows.cli` says what an interrupt did. `describe_error` is the one
line any failure prints.
"""

from __future__ import annotations

import os
import signal
import sys

from flows.errors import (  # imports nothing itself
    INTERRUPTED_UNPUBLISHED,
    AddressSpaceError,
    RulingsError,
)
from flows.processes.memory import (  # imports nothing of ours but errors
    address_space_limit,
    check_loadable,
    describe_memory_failure,
    fit_address_space,
)


def main() -> None:
    """Load the command line and run it; exit 1 with one line on a stop signal while it loads."""
    try:
        check_loadable(address_space_limit())
    except AddressSpaceError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(1) from None
    fit_address_space()
    for signum in (signal.SIGTERM, signal.SIGHUP):  # as Ctrl-C, unless ignored (nohup)
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, signal.default_int_handler)
    try:
        from flows.cli import main as run_command_line
    except KeyboardInterrupt:
        sys.stderr.write(f"error: {INTERRUPTED_UNPUBLISHED}\n")
        raise SystemExit(1) from None
    run_command_line()


def describe_error(exc: BaseException) -> str:
    """One line saying what failed: our errors as they are, others with their type.

    At most 600 characters; memory (MemoryError, `can't start new thread`) and
    an unreachable Prefect server are said in words, with the way out.
    """
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    if isinstance(exc, RulingsError | OSError):
        text = str(exc)
    elif (memory := describe_memory_failure(exc, address_space_limit())) is not None:
        text = memory
    elif type(exc).__name__ in {"ConnectError", "ConnectTimeout"}:  # httpx, from Prefect
        url = os.environ.get("PREFECT_API_URL", "the Prefect API")
        text = (
            f"cannot reach the Prefect server at {url} ({exc}); start it "
            "(prefect server start) or fix PREFECT_API_URL"
        )
    else:
        text = f"{type(exc).__name__}: {exc} (rerun with --debug for the traceback)"
    line = " ".join(text.split())
    return line if len(line) <= 600 else line[:597] + "..."
