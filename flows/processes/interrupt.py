"""Ctrl-C, SIGTERM or SIGHUP during a run: one line saying whether it was published; a second
signal ends it at once.

`interrupted` is the run's flag: the first stop signal sets it (`on_stop_signal`),
and work that waits on worker processes stops at its next result
(`pools.stop_if_interrupted`) instead of waiting for workers forked after the
signal, which never saw it. A terminal's Ctrl-C (and its hang-up) reaches the
whole process group, but `kill <pid>` reaches the run's own process only: the
worker pools register what ends their processes (`ending_on_stop`), which
the handler calls. `ctrl_c` is the command line's handler around one run.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from flows.errors import RulingsError

#: The signals a run stops on as on Ctrl-C: the terminal's interrupt, `kill`'s default (an
#: init system's or a scheduler's stop) and the hang-up of a closed terminal or SSH session.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: Set when the run is interrupted (by `on_stop_signal`, which reads it too).
interrupted = threading.Event()

#: The signal that interrupted the run (None: none yet, or a KeyboardInterrupt of its own).
_stopped_by: int | None = None

#: What a stop signal says once the run has returned and the process is ending (`ctrl_c`).
_ending_line: str | None = None

#: The signals `ctrl_c` handles now (`over_prefect_sigterm` takes SIGTERM back for them).
_handled: set[int] = set()

#: What ends the worker processes of the pools running now (`ending_on_stop`).
_enders: list[Callable[[], None]] = []


@contextmanager
def ctrl_c(latest: Callable[[], str | None], ends_with_run: bool) -> Iterator[None]:
    """Handle Ctrl-C, SIGTERM and SIGHUP for one run: roll back or say it was published; a
    second signal ends it.

    The first signal raises KeyboardInterrupt as Python's own SIGINT handler
    does (and ends the worker pools' processes, which a SIGTERM to this
    process alone does not reach): the run rolls back unless its state was
    committed. Whatever then comes out (Prefect may turn the interrupt into
    its own error, or a best-effort step swallow it), the run ends with
    RulingsError `interrupted: nothing was published` (`terminated (SIGTERM):
    …`, `terminated (SIGHUP): …`), or `interrupted after the run was published
    (latest -> snapshots/<run_id>)`, by whether `latest` moved. A second signal
    ends the process at once (`os._exit(1)`, one line, no traceback); the
    orphan watcher then ends its children.

    Args:
        latest: where `output/latest` points now (`snapshot.latest_target`).
        ends_with_run: the process ends with this run (the console script):
            the handlers stay to the end, so a signal while the summary prints
            or Prefect's exit handlers run ends the process with the published
            line, not their tracebacks. Otherwise (tests) the previous handlers
            are put back after the run and the flag cleared.

    Only in the main thread (signal handlers live there), and not for a
    signal ignored from the start (SIGINT in a background job, SIGHUP under nohup).
    """
    global _ending_line, _stopped_by
    before = latest()
    previous = _install_handlers()
    interrupted.clear()  # set by the run's first stop signal (`on_stop_signal`)
    _ending_line, _stopped_by = None, None
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
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            _handled.clear()
            _ending_line, _stopped_by = None, None
            interrupted.clear()  # else the next pool in this process stops at once


def _install_handlers() -> dict[int, Any]:
    """`on_stop_signal` for each stop signal not ignored, in the main thread; the handlers
    it replaced."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    previous = {s: handler for s, handler in previous.items() if handler is not signal.SIG_IGN}
    for signum in previous:
        signal.signal(signum, on_stop_signal)
    _handled.update(previous)
    return previous


def _interrupted_line(before: str | None, after: str | None) -> str:
    if _stopped_by in (None, signal.SIGINT):
        words = "interrupted"
    else:
        words = f"terminated ({signal.Signals(_stopped_by).name})"
    if after != before:
        return f"{words} after the run was published (latest -> {after})"
    return f"{words}: nothing was published"


def on_stop_signal(signum: int, frame: Any) -> None:
    """The handler of `ctrl_c`: the first signal ends the worker processes and raises
    KeyboardInterrupt, the next exit at once."""
    global _stopped_by
    if _ending_line is not None:  # the run has returned: the process is ending
        _exit_at_once(_ending_line)
    if interrupted.is_set():  # the second signal: the first one's rollback is cut short
        _exit_at_once("error: interrupted again: stopped at once")
    _stopped_by = signum
    interrupted.set()  # the run's flag: language detection stops at its next chunk
    for end in list(_enders):  # the workers, which a signal to this process alone missed
        end()
    raise KeyboardInterrupt


@contextmanager
def ending_on_stop(end: Callable[[], None]) -> Iterator[None]:
    """While inside, a stop signal calls `end` (which ends a pool's worker processes)."""
    _enders.append(end)
    try:
        yield
    finally:
        _enders.remove(end)


@contextmanager
def over_prefect_sigterm() -> Iterator[None]:
    """Inside a Prefect flow run under `ctrl_c`: SIGTERM handled by `on_stop_signal` again.

    Prefect's flow engine puts its own SIGTERM handler in while a flow runs:
    it raises TerminationSignal, which the worker pools never see, and sends
    the signal again once the flow has crashed, which ended the process with
    no line (exit 143). Outside `ctrl_c` (a served run, whose SIGTERM is
    Prefect's runner cancelling it) Prefect's handler stays.
    """
    main = threading.current_thread() is threading.main_thread()
    if signal.SIGTERM not in _handled or not main:
        yield
        return
    previous = signal.signal(signal.SIGTERM, on_stop_signal)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _exit_at_once(line: str) -> None:
    with suppress(OSError):  # no terminal left to say it on (a hang-up)
        os.write(2, f"{line}\n".encode())
    os._exit(1)


def serve_stops() -> list[int]:
    """The signals `serve` stops on: SIGINT (even when ignored from the start: a `kill -INT`
    to a server, run as a background job of a script, is a request to stop), SIGTERM, and
    SIGHUP unless ignored from the start (under nohup)."""
    return [s for s in STOP_SIGNALS if s != signal.SIGHUP or signal.getsignal(s) != signal.SIG_IGN]


@contextmanager
def recording_stops(signals: list[int]) -> Iterator[list[int]]:
    """While serving: each of `signals` (`serve_stops()`) received is appended to the list
    yielded, nothing raised, until the event loop takes them over
    (`prefect_flow.serve_nightly`) and after it; the handlers before are put back on
    exit. Main thread only."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    previous = {s: signal.signal(s, lambda n, _: received.append(n)) for s in signals}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
