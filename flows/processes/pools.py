"""Worker processes: the parse batches' pool, the language detection's pool.

Parsing and langdetect are mostly Python, so threads of one process would
share one core: a cold run parses its batches (`parse_workers`) and detects
languages (`probe_in_workers`) in pools of worker processes.

A pool's workers start from a forkserver (no fork of a threaded process),
which imports its preload modules first (about 1 s: polars, wordfreq, and
the language engine's tables, 0.3 s of CPU, which every worker then shares
instead of building its own).
multiprocessing's forkserver ignores SIGINT only once those imports are
done, so a Ctrl-C at the terminal (SIGINT to the whole process group) during
them printed its traceback. It is therefore started with SIGINT blocked; that
mask passes to every process it forks, so each worker unblocks SIGINT first
thing (`_accept_ctrl_c`), with its default action: a Ctrl-C ends the worker
at once, and the pool breaks instead of finishing its queue. A SIGTERM or
SIGHUP sent to the run's process alone does not reach the workers:
its handler ends them (`interrupt.ending_on_stop`, `_end_workers`).
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

import polars as pl
import wordfreq

from flows.errors import WorkerDiedError
from flows.processes.hooks import WORKER_STEP, pause_point
from flows.processes.interrupt import ending_on_stop, interrupted
from flows.stages.detector import (
    COMMON_WORD_LISTS,
    NEIGHBOURS,
    SITE_LANGUAGES,
    Probe,
    load_word_lists,
    probe_texts,
    release_word_lists,
)
from flows.stages.merge_rule import load_word_frequencies
from flows.stages.word_frequency import WordListSource, word_list
from flows.stages.word_scores import held_languages, hold_word_lists, lists_on_the_way

logger = logging.getLogger(__name__)


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
        with _environment(POLARS_MAX_THREADS=str(WORKER_POLARS_THREADS)):
            multiprocessing.forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return context


#: polars threads in each worker (and the forkserver), unless POLARS_MAX_THREADS is set:
#: the workers are the parallelism, one per core. Parsing 20,000 bench files took 1.42–1.46 s
#: of CPU with one thread against 1.58–2.26 s with two, on the 2-core bench machine.
WORKER_POLARS_THREADS = 1


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    """`values` in the environment of processes started meanwhile (those already set kept)."""
    added = {name: value for name, value in values.items() if name not in os.environ}
    os.environ.update(added)
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def process_pool(processes: int, preload: list[str]) -> ProcessPoolExecutor:
    """A pool of `processes` workers from the forkserver (started by `start_forkserver`)."""
    context = start_forkserver(preload)
    return ProcessPoolExecutor(
        max_workers=processes, mp_context=context, initializer=_accept_ctrl_c
    )


@contextmanager
def running_pool(processes: int, preload: list[str]) -> Iterator[ProcessPoolExecutor]:
    """`process_pool`, whose workers a stop signal ends (`interrupt.ending_on_stop`); on
    exit it is shut down, its queued work cancelled."""
    pool = process_pool(processes, preload)
    try:
        with ending_on_stop(_end_workers(pool)):
            yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _end_workers(pool: ProcessPoolExecutor) -> Callable[[], None]:
    """What ends `pool`'s worker processes (SIGTERM) now: the pool then breaks."""

    def end() -> None:
        # the executor's own map of its workers (Python 3.14 has pool.terminate_workers())
        for worker in list((getattr(pool, "_processes", None) or {}).values()):
            worker.terminate()

    return end


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


#: What a language pool's forkserver imports: the detection and its engine's tables
#: (`batch_langdetect`: built there once, not in each worker).
LANGUAGE_PRELOAD = ["flows.stages.detector", "flows.stages.batch_langdetect"]
#: What the worker processes' forkserver imports once before forking them: the
#: parse (`disk.raw.parse_batch`) and the language detection, whose pool comes
#: later in the run from the same forkserver (multiprocessing starts one per
#: process, with the first pool's preload).
WORKER_PRELOAD = ["flows.disk.raw", *LANGUAGE_PRELOAD]


def start_worker_server() -> None:
    """Start the workers' forkserver now: its imports run alongside this process's work.

    For a run known to need `parse_workers` (no parse cache, more than one
    batch); without it the first pool starts the forkserver, and waits for it.
    """
    start_forkserver(WORKER_PRELOAD)


def preload_word_lists(word_lists: WordListSource) -> threading.Thread:
    """Build wordfreq's common lists (PRELOADED_WORD_LISTS, from `word_lists`) in a
    process of their own, hold them in this one, then load the merge rule's English
    frequencies here (`merge_rule.load_word_frequencies`); all from a thread.

    For a cold run, whose parse batches run in `parse_workers`: the lists
    (1.1-1.4 s of CPU) were built in a thread of this process during the
    parse, beside its workers, and before that beside the language workers,
    delaying the weighing (`probe_in_workers`). Built in a worker of the
    forkserver (`start_worker_server`, which the parse uses next), they take
    the CPU of whatever core is free: the command line starts them before
    importing Prefect (~1.5 s of one core). Until the lists are held, a list
    asked for waits for them (`word_scores.lists_on_the_way`) instead of being
    read twice; results do not depend on it. A failure here is only logged:
    a list is then read on its first use.

    Returns:
        The thread (a run does not wait for it; a test may); while one is
        running, a second call returns it.
    """
    with _PRELOAD_STARTING:
        running = [thread for thread in _PRELOAD if thread.is_alive()]
        if running:
            return running[0]
        waiting = threading.Event()

        def load() -> None:
            try:
                with lists_on_the_way(waiting):
                    missing = sorted(set(PRELOADED_WORD_LISTS) - set(held_languages()))
                    if missing:
                        with running_pool(1, WORKER_PRELOAD) as pool:
                            hold_word_lists(pool.submit(_lists, word_lists, missing).result())
                load_word_frequencies()
            except Exception as exc:  # read again on first use, where it raises for the run
                logger.debug("wordfreq's lists not preloaded: %s", exc)

        thread = threading.Thread(target=load, name="word-lists-preload", daemon=True)
        _PRELOAD[:] = [thread]
        thread.start()
        waiting.wait()  # from now on a list asked for here waits for the lists
        return thread


_PRELOAD: list[threading.Thread] = []  # this process's last preload thread
_PRELOAD_STARTING = threading.Lock()


#: The lists `preload_word_lists` builds: COMMON_WORD_LISTS and the site languages'
#: NEIGHBOURS that wordfreq has (bg, mk, uk: weighed for every text langdetect reads as
#: Russian; 0.4 s of CPU the weighing spent when it first met one, beside the language
#: workers; not gl, for which wordfreq would give its nearest list, es's).
PRELOADED_WORD_LISTS = tuple(
    lang
    for lang in dict.fromkeys(
        [*COMMON_WORD_LISTS, *(n for site in SITE_LANGUAGES for n in NEIGHBOURS.get(site, ()))]
    )
    if lang in wordfreq.available_languages()
)


def _lists(word_lists: WordListSource, langs: list[str]) -> dict[str, pl.DataFrame]:
    """The lists of `langs` from `word_lists`, by language (in a worker: `preload_word_lists`)."""
    return {lang: word_lists(lang) for lang in langs}


def batch_size(files: int, batch_files: int, processes: int) -> int:
    """Files per parse batch (`disk.raw.parse_batch`, a task each) of `files` to read.

    `batch_files` (`run.BATCH_FILES`: one process, or Dask, whose workers take
    the batches) unless `processes` worker processes of this machine share
    more than `batch_files` files: then fewer batches, of up to twice
    `batch_files`, as many as a multiple of `processes` (each task run costs
    Prefect's server ~50 ms of CPU; each worker gets an even share, none waits
    on a last batch): 12 of 8,337 files, not 21 of 5,000, at 1M lines.
    `batch_files` is at least 1 (`run.run_steps` refuses less).
    """
    if processes < 2 or files <= batch_files:
        return batch_files
    batches = processes * -(-files // (2 * batch_files * processes))
    return -(-files // batches)


@contextmanager
def parse_workers(processes: int) -> Iterator[Executor | None]:
    """A pool of `processes` worker processes for `disk.raw.parse_batch`; None below 2.

    The workers start from a forkserver (no fork of this threaded process),
    take small arguments (paths and ids) and write their parts themselves, so
    nothing large is pickled. On exit the pool is shut down (its memory is
    freed before language detection); batches not yet started are cancelled.
    """
    if processes < 2:
        yield None
        return
    with running_pool(processes, WORKER_PRELOAD) as pool:
        yield pool


#: Below this many texts, detection stays in the calling process: a pool costs
#: its workers' start and the weighing waits on their chunks; one process builds
#: the engine's tables itself (~100 MB). Measured by direct warm runs of the
#: 1M-line bench corpus from one state (2-core machine; `bench/README.md`, issue
#: 24's eighth round): one process was faster with 1,001 new texts in all seven
#: pairs (by 0.16-1.4 s), the pool with 2,001 and 3,032 in all five (0.12-0.71 s).
PARALLEL_MIN_TEXTS = 1500


def probe_in_workers(
    texts: list[str], processes: int, word_lists: WordListSource = word_list
) -> Iterator[Probe]:
    """`detector.probe_texts` of `texts` in `processes` worker processes; probes in order.

    For `detector.detect_languages(texts, probe=...)`: langdetect runs in the
    workers while this process loads wordfreq's common lists (from
    `word_lists`), then weighs the texts as their probes come in, so the lists
    (~76 MB of frames for the 22 languages of the 1M-line bench corpus) are
    held once; they are let go at the end. Below PARALLEL_MIN_TEXTS texts or
    2 processes: here.

    Raises:
        WorkerDiedError: a worker process ended abruptly (killed, out of memory).
        KeyboardInterrupt: the run was interrupted (`interrupt.interrupted`):
            the chunks still queued are dropped, the running ones ended.
    """
    if processes <= 1 or len(texts) < PARALLEL_MIN_TEXTS:
        yield from probe_texts(texts)
        return
    # a few chunks per process, for balance; each chunk's last steps run few texts at a
    # time (0.3 s of CPU more at 1M with 8 chunks a process than with 4)
    size = -(-len(texts) // (processes * 4))
    chunks = [texts[i : i + size] for i in range(0, len(texts), size)]
    # a forkserver started here builds the engine's tables (~1 s) while this loads the lists
    with running_pool(processes, LANGUAGE_PRELOAD) as pool:
        probes = pool.map(_probe_chunk, chunks)  # every chunk submitted; results in order
        load_word_lists(word_lists)  # while the workers start
        try:
            for part in probes:
                stop_if_interrupted(pool)  # a Ctrl-C: the chunks still queued are dropped
                yield from part
        except BrokenProcessPool as exc:
            if interrupted.is_set():  # the stop signal's handler ended the workers
                raise KeyboardInterrupt from exc
            raise WorkerDiedError("the languages were detected") from exc
        finally:
            release_word_lists()  # a run detects once; its later peak is the tables'


def _probe_chunk(texts: list[str]) -> list[Probe]:
    """`detector.probe_texts` in a worker (where the kill tests pause: `hooks.WORKER_STEP`)."""
    pause_point(WORKER_STEP)
    return probe_texts(texts)
