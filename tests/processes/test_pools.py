"""pools: the forkserver ignores a Ctrl-C from its first import on; its workers end on one;
the run's preload of wordfreq's lists."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any

import polars as pl
import pytest

from flows.processes import pools
from flows.stages import detector, word_scores
from flows.stages.word_frequency import WORD_LIST_SCHEMA
from tests.conftest import REPO

#: Starts the forkserver and a pool as a run does; prints the forkserver's blocked
#: signals (/proc SigBlk), a worker's, and this thread's after the start.
PROBE = """
import signal, time, psutil
from flows.processes.pools import process_pool, start_forkserver

def forkserver():  # once exec'd: its command line names multiprocessing's forkserver
    for child in psutil.Process().children():
        try:
            if "multiprocessing.forkserver" in " ".join(child.cmdline()):
                return child
        except psutil.Error:
            pass

if __name__ == "__main__":
    start_forkserver(["flows.processes.pools"])
    deadline = time.monotonic() + 300  # generous: a busy machine may take long to exec it
    while (server := forkserver()) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    status = open(f"/proc/{server.pid}/status").read()
    blocked = int(status.split("SigBlk:")[1].split()[0], 16)
    print("forkserver", bool(blocked & 1 << (signal.SIGINT - 1)))
    with process_pool(1, ["flows.processes.pools"]) as pool:
        worker = pool.submit(signal.pthread_sigmask, signal.SIG_BLOCK, []).result()
        action = pool.submit(signal.getsignal, signal.SIGINT).result()
    print("worker", signal.SIGINT in worker, action is signal.SIG_DFL)
    print("caller", signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))
"""


def test_the_forkserver_blocks_sigint_and_its_workers_do_not() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["forkserver True", "worker False True", "caller False"]


def test_a_list_being_read_is_waited_for_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads asking for one list (the run's preload and its weighing) read it once."""
    monkeypatch.setattr(word_scores, "_HELD", {})
    reading, release, calls = threading.Event(), threading.Event(), []

    def source(lang: str) -> pl.DataFrame:
        calls.append(lang)
        reading.set()
        release.wait()
        return pl.DataFrame({"word": ["de"], "bucket": [0]}, schema=WORD_LIST_SCHEMA)

    got: list[pl.DataFrame] = []
    first = threading.Thread(target=lambda: got.append(word_scores.held_word_list("xx", source)))
    first.start()
    reading.wait()
    second = threading.Thread(target=lambda: got.append(word_scores.held_word_list("xx", source)))
    second.start()
    for _ in range(100):  # give the second thread the time to read it again, if it would
        if len(calls) > 1:
            break
        time.sleep(0.01)
    release.set()
    first.join()
    second.join()
    assert calls == ["xx"]
    assert len(got) == 2 and got[0] is got[1]


def test_the_preload_builds_the_common_lists_in_another_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`preload_word_lists` builds each of PRELOADED_WORD_LISTS in a worker process, once,
    and holds it here; a later `load_word_lists` (the weighing's) reads none again."""
    monkeypatch.setattr(word_scores, "_HELD", {})
    monkeypatch.setattr(pools, "_PRELOAD", [])  # not a run's, should one still be going
    pools.preload_word_lists(_list_naming_its_process).join()
    assert word_scores.held_languages() == sorted(pools.PRELOADED_WORD_LISTS)
    # Russian's neighbours, not Spanish's gl, which wordfreq would answer with its es list
    assert {"bg", "mk", "uk"} < set(
        pools.PRELOADED_WORD_LISTS
    ) and "gl" not in pools.PRELOADED_WORD_LISTS
    for lang, frame in word_scores.held_word_lists().items():
        built_by = int(frame["word"][0].split(":")[1])
        assert frame["word"][0].startswith(f"{lang}:") and built_by != os.getpid()
    detector.load_word_lists(_no_list)  # none read again


def test_a_list_asked_for_while_the_lists_are_on_the_way_waits_for_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Inside `lists_on_the_way`, `held_word_list` waits for `hold_word_lists` instead of
    reading the list itself."""
    frame = pl.DataFrame({"word": ["xx"], "bucket": [0]}, schema=WORD_LIST_SCHEMA)
    on_the_way, asked, got = threading.Event(), threading.Event(), []

    class Held(dict):  # type: ignore[type-arg]
        def get(self, key: Any, default: Any = None) -> Any:
            asked.set()  # the asking thread found no list held: now it waits, or reads it
            return super().get(key, default)

    monkeypatch.setattr(word_scores, "_HELD", Held())

    def preload() -> None:
        with word_scores.lists_on_the_way(on_the_way):
            asked.wait()
            word_scores.hold_word_lists({"xx": frame})

    preloading = threading.Thread(target=preload)
    preloading.start()
    assert on_the_way.wait(timeout=600)  # at once; the timeout only ends a broken test
    asking = threading.Thread(target=lambda: got.append(word_scores.held_word_list("xx", _no_list)))
    asking.start()
    preloading.join()
    asking.join()
    assert len(got) == 1 and got[0] is frame


def _list_naming_its_process(lang: str) -> pl.DataFrame:
    """A list whose one word is "<lang>:<pid of the process that built it>" (picklable)."""
    return pl.DataFrame({"word": [f"{lang}:{os.getpid()}"], "bucket": [0]}, schema=WORD_LIST_SCHEMA)


def _no_list(lang: str) -> pl.DataFrame:
    raise AssertionError(f"{lang}'s list was read again")


@pytest.mark.parametrize(
    ("files", "batch_files", "processes", "sizes"),
    [
        (100_041, 5000, 2, [8337] * 11 + [8334]),  # the 1M-line bench corpus: 6 a worker
        (8000, 5000, 2, [4000, 4000]),  # one a worker
        (5001, 5000, 2, [2501, 2500]),
        (5000, 5000, 2, [5000]),  # one batch: in the run's process
        (100_041, 5000, 1, [5000] * 20 + [41]),  # one process (Dask's driver): as given
        (10, 2, 2, [3, 3, 3, 1]),  # the tests' batch_files=2
    ],
)
def test_worker_processes_take_fewer_batches_of_one_size(
    files: int, batch_files: int, processes: int, sizes: list[int]
) -> None:
    size = pools.batch_size(files, batch_files, processes)
    assert [min(size, files - start) for start in range(0, files, size)] == sizes
