"""Process pools from multiprocessing's forkserver, quiet when Ctrl-C arrives.

A pool's workers start from a forkserver (no fork of a threaded process),
which imports its preload modules first (1–2 s: polars, langdetect's
profiles). multiprocessing's forkserver ignores SIGINT only once those
imports are done, so a Ctrl-C at the terminal (SIGINT to the whole process
group) during them printed its traceback. It is therefore started with SIGINT
blocked; that mask passes to every process it forks, so each worker unblocks
SIGINT first thing (`_accept_ctrl_c`) and stops on Ctrl-C as before.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import signal
from concurrent.futures import ProcessPoolExecutor


def forkserver_context(preload: list[str]) -> multiprocessing.context.BaseContext:
    """The forkserver context, preloading `preload` (module names) when it starts.

    A process has one forkserver: the first start's preload list is the one used.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preload)
    return context


def start_forkserver(preload: list[str]) -> None:
    """Start the forkserver now (if it is not running), with SIGINT blocked in it."""
    forkserver_context(preload)
    # the resource tracker, which the forkserver needs, unblocks SIGINT after its own
    # start (multiprocessing.resource_tracker): started first, it leaves the mask alone
    multiprocessing.resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # this thread only
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def process_pool(processes: int, preload: list[str]) -> ProcessPoolExecutor:
    """A pool of `processes` workers from the forkserver (started by `start_forkserver`)."""
    start_forkserver(preload)
    return ProcessPoolExecutor(
        max_workers=processes, mp_context=forkserver_context(preload), initializer=_accept_ctrl_c
    )


def _accept_ctrl_c() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
