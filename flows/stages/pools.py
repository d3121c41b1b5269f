"""Process pools from multiprocessing's forkserver, quiet when Ctrl-C arrives.

A pool's workers start from a forkserver (no fork of a threaded process),
which imports its preload modules first (1–2 s: polars, langdetect's
profiles). multiprocessing's forkserver ignores SIGINT only once those
imports are done, so a Ctrl-C at the terminal (SIGINT to the whole process
group) during them printed its traceback. It is therefore started with SIGINT
blocked; that mask passes to every process it forks, so each worker unblocks
SIGINT first thing (`_accept_ctrl_c`), with its default action: a Ctrl-C ends
the worker at once, and the pool breaks instead of finishing its queue.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import signal
import threading
from concurrent.futures import ProcessPoolExecutor

#: Set when the run is interrupted (the CLI's Ctrl-C handler, which reads it too): work
#: that waits on a pool's results stops at the next one (`stop_if_interrupted`) instead of waiting
#: for workers forked after the Ctrl-C, which never saw it.
interrupted = threading.Event()


def forkserver_context(preload: list[str]) -> multiprocessing.context.BaseContext:
    """The forkserver context, preloading `preload` (module names) when it starts.

    A process has one forkserver: the first start's preload list is the one used.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preload)
    return context


def start_forkserver(preload: list[str]) -> multiprocessing.context.BaseContext:
    """Start the forkserver now (if it is not running), with SIGINT blocked in it; its context."""
    context = forkserver_context(preload)
    # the resource tracker, which the forkserver needs, unblocks SIGINT after its own
    # start (multiprocessing.resource_tracker): started first, it leaves the mask alone
    multiprocessing.resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # this thread only
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return context


def process_pool(processes: int, preload: list[str]) -> ProcessPoolExecutor:
    """A pool of `processes` workers from the forkserver (started by `start_forkserver`)."""
    context = start_forkserver(preload)
    return ProcessPoolExecutor(
        max_workers=processes, mp_context=context, initializer=_accept_ctrl_c
    )


def _accept_ctrl_c() -> None:
    # SIGINT's default action ends the worker at once: with Python's handler a worker
    # returned KeyboardInterrupt as a chunk's result and went on with the next chunks,
    # so an interrupted run waited for all of them (2–3 s at 100k lines, more above)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def stop_if_interrupted(pool: ProcessPoolExecutor) -> None:
    """Cancel `pool`'s queued work and raise KeyboardInterrupt when the run was interrupted."""
    if interrupted.is_set():
        pool.shutdown(wait=False, cancel_futures=True)
        raise KeyboardInterrupt
