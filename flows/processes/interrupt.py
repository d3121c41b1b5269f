"""Ctrl-C during a run: one line saying whether it was published; a second one ends it at once.

`interrupted` is the run's flag: the first SIGINT sets it (`on_ctrl_c`), and
work that waits on worker processes stops at its next result
(`pools.stop_if_interrupted`) instead of waiting for workers forked after
the Ctrl-C, which never saw it. `ctrl_c` is the command line's handler
around one run.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flows.errors import INTERRUPTED_UNPUBLISHED, RulingsError

#: Set when the run is interrupted (by `on_ctrl_c`, which reads it too).
interrupted = threading.Event()

#: What a Ctrl-C says once the run has returned and the process is ending (`ctrl_c`).
_ending_line: str | None = None


@contextmanager
def ctrl_c(latest: Callable[[], str | None], ends_with_run: bool) -> Iterator[None]:
    """Handle Ctrl-C for one run: roll back or say it was published; a second one ends it.

    The first SIGINT raises KeyboardInterrupt as Python's own handler does: the
    run rolls back unless its state was committed. Whatever then comes out
    (Prefect may turn the interrupt into its own error, or a best-effort step
    swallow it), the run ends with RulingsError `interrupted: nothing was
    published`, or `interrupted after the run was published (latest ->
    snapshots/<run_id>)`, by whether `latest` moved. A second SIGINT ends the
    process at once (`os._exit(1)`, one line, no traceback); the orphan
    watcher then ends its children.

    Args:
        latest: where `output/latest` points now (`snapshot.latest_target`).
        ends_with_run: the process ends with this run (the console script):
            the handler stays to the end, so a Ctrl-C while the summary prints
            or Prefect's exit handlers run ends the process with the published
            line, not their tracebacks. Otherwise (tests) the previous handler
            is put back after the run and the flag cleared.

    Only in the main thread (signal handlers live there), and not when SIGINT
    was ignored from the start (a background job).
    """
    global _ending_line
    before = latest()
    previous = signal.getsignal(signal.SIGINT)
    handled = threading.current_thread() is threading.main_thread() and (
        previous is not signal.SIG_IGN
    )
    if handled:
        signal.signal(signal.SIGINT, on_ctrl_c)
    interrupted.clear()  # set by the run's first Ctrl-C (`on_ctrl_c`)
    _ending_line = None
    try:
        try:
            yield
        except BaseException as exc:
            if not (interrupted.is_set() or isinstance(exc, KeyboardInterrupt)):
                raise
            raise RulingsError(_interrupted_line(before, latest())) from exc
        if interrupted.is_set():  # swallowed on its way (a best-effort step): the run went on
            raise RulingsError(_interrupted_line(before, latest()))
        _ending_line = f"error: {_interrupted_line(before, latest())}"
    finally:
        if not ends_with_run:  # the process goes on (tests): the next run starts uninterrupted
            if handled:
                signal.signal(signal.SIGINT, previous)
            _ending_line = None
            interrupted.clear()  # else the next pool in this process stops at once


def _interrupted_line(before: str | None, after: str | None) -> str:
    if after != before:
        return f"interrupted after the run was published (latest -> {after})"
    return INTERRUPTED_UNPUBLISHED


def on_ctrl_c(signum: int, frame: Any) -> None:
    """The SIGINT handler of `ctrl_c`: the first raises KeyboardInterrupt, the next exit at once."""
    if _ending_line is not None:  # the run has returned: the process is ending
        _exit_at_once(_ending_line)
    if interrupted.is_set():  # the second Ctrl-C: the first one's rollback is cut short
        _exit_at_once("error: interrupted again: stopped at once")
    interrupted.set()  # the run's flag: language detection stops at its next chunk
    raise KeyboardInterrupt


def _exit_at_once(line: str) -> None:
    os.write(2, f"{line}\n".encode())
    os._exit(1)
