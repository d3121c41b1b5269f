"""The run's one sequence without Prefect, and the file index (metadata first, as git)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows import run as run_module
from flows.disk import raw as raw_files
from flows.disk.generation import roll_forward
from flows.disk.paths import OutputPaths
from flows.disk.state import load_state
from flows.errors import OutputDirError, PublishError, RulingsError, WorkerDiedError
from flows.run import DirectRunner, RunResult, RunSettings, new_run_id, run_direct, run_steps
from flows.stages.dumps import RESULTS_ORDER, build_dump_results, combine_results
from tests.conftest import SEED_DIR, run_dumps

#: What `os.statvfs` says of a full file system: no block available.
FULL_FILE_SYSTEM = os.statvfs_result((4096, 4096, 1000, 0, 0, 100, 50, 50, 0, 255))
TABLES = ("dumps", "rulings", "ruling_variants", "ruling_occurrences", "card_stubs", "rejects")
SEED = "001_a1b82e86b0acb359.txt"


def _raw(tmp_path: Path) -> Path:
    """The seeds, with mtimes a minute old (outside `raw.RACY_WINDOW_NS`)."""
    raw = tmp_path / "raw"
    raw.mkdir()
    old = os.stat(SEED_DIR).st_mtime_ns
    for seed in sorted(SEED_DIR.glob("*.txt")):
        shutil.copy(seed, raw / seed.name)
        os.utime(raw / seed.name, ns=(old, old))
    return raw


@pytest.fixture
def files_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths every `raw.load_raw_dumps` call of the test read."""
    seen: list[str] = []
    real = raw_files.load_raw_dumps

    def spy(raw_dir: Path, paths: list[str] | None = None, *args: Any) -> Any:
        seen.extend(paths or [])
        return real(raw_dir, paths, *args)

    monkeypatch.setattr(raw_files, "load_raw_dumps", spy)
    return seen


def _tables(snapshot: Path) -> dict[str, bytes]:
    return {name: (snapshot / f"{name}.parquet").read_bytes() for name in TABLES}


def test_a_warm_run_reads_only_files_whose_metadata_changed(
    tmp_path: Path, files_read: list[str]
) -> None:
    raw, output = _raw(tmp_path), tmp_path / "out"
    cold = run_direct(raw, output)
    assert sorted(files_read) == sorted(p.name for p in raw.iterdir())
    files_read.clear()
    warm = run_direct(raw, output)
    assert files_read == []  # every file matched the index: none opened
    assert warm["manifest"]["work"] == {
        "dumps_parsed": 0, "dumps_reused": 5, "dumps_built": 0,
        "languages_detected": 0, "languages_reused": 0,
    }  # fmt: skip
    assert _tables(warm["snapshot"]) == _tables(cold["snapshot"])
    assert warm["manifest"]["inputs"] == cold["manifest"]["inputs"]


def test_same_size_rewrite_with_old_mtime_is_read_and_tables_match_reading_every_file(
    tmp_path: Path, files_read: list[str]
) -> None:
    raw, output = _raw(tmp_path), tmp_path / "out"
    run_direct(raw, output)
    seed = raw / SEED
    before = os.stat(seed)
    data = seed.read_bytes()
    assert b"Energy counters aren't mana." in data
    seed.write_bytes(data.replace(b"Energy counters aren't mana.", b"Energy counters aren't life."))
    os.utime(seed, ns=(before.st_atime_ns, before.st_mtime_ns))  # size and mtime as before
    assert (os.stat(seed).st_size, os.stat(seed).st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )
    shutil.copytree(output, tmp_path / "copy", symlinks=True)  # same state, registry, latest
    files_read.clear()
    indexed = run_direct(raw, output)
    assert files_read == [SEED]  # its ctime changed: read, the others not
    assert indexed["manifest"]["work"]["dumps_parsed"] == 1
    files_read.clear()
    every = run_direct(raw, tmp_path / "copy", trust_metadata=False)
    assert sorted(files_read) == sorted(p.name for p in raw.iterdir())
    assert _tables(indexed["snapshot"]) == _tables(every["snapshot"])


def _run_on(raw: Path, output: Path, day: dt.date, **settings: Any) -> RunResult:
    """A direct run as if started at noon UTC on `day`."""
    started_at = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    settings = {"run_id": new_run_id(started_at), **settings}
    return run_steps(
        DirectRunner(),
        RunSettings(raw_dir=raw, output=OutputPaths(output), started_at=started_at, **settings),
    )


def test_a_warm_run_builds_only_changed_dumps_and_publishes_a_whole_builds_tables(
    tmp_path: Path,
) -> None:
    raw, output = _raw(tmp_path), tmp_path / "out"
    cold = run_direct(raw, output)
    assert cold["manifest"]["work"]["dumps_built"] == 5
    seed = raw / SEED
    seed.write_bytes(seed.read_bytes().replace(b"aren't mana.", b"aren't mana!"))
    shutil.copytree(output, tmp_path / "copy", symlinks=True)  # same state and registry
    warm = run_direct(raw, output)
    assert warm["manifest"]["work"]["dumps_parsed"] == 1
    assert warm["manifest"]["work"]["dumps_built"] == 1  # the 4 others: results reused
    known = set(load_state(output / "state")["languages"]["text"].to_list())
    whole = run_direct(raw, tmp_path / "copy", reuse_results=False)
    assert whole["manifest"]["work"]["dumps_built"] == 5
    assert _tables(warm["snapshot"]) == _tables(whole["snapshot"])
    # the warm run saw only 001's texts; its language cache still holds every current text
    assert set(load_state(tmp_path / "copy" / "state")["languages"]["text"].to_list()) <= known
    assert warm["manifest"]["line_accounting"] == whole["manifest"]["line_accounting"]


def test_a_dump_with_a_future_date_is_built_again_when_the_run_date_moves(tmp_path: Path) -> None:
    raw, output = _raw(tmp_path), tmp_path / "out"
    seed = raw / SEED
    seed.write_bytes(seed.read_bytes() + "10 déc. 2026 · source : wotc\nLater ruling.\n".encode())
    first = _run_on(raw, output, dt.date(2026, 12, 1))
    # the date is in the future, and its body with it
    assert first["manifest"]["line_accounting"]["rejected"] == 2
    shutil.copytree(output, tmp_path / "copy", symlinks=True)
    same_day = _run_on(raw, output, dt.date(2026, 12, 1), run_id="20261201T130000000000Z")
    assert same_day["manifest"]["work"]["dumps_built"] == 0
    later = _run_on(raw, tmp_path / "copy", dt.date(2026, 12, 10))
    assert later["manifest"]["work"]["dumps_built"] == 1  # only the dump with that date
    assert later["manifest"]["line_accounting"]["rejected"] == 0
    occurrences = pl.read_parquet(later["snapshot"] / "ruling_occurrences.parquet")
    assert dt.date(2026, 12, 10) in occurrences["published_on"].to_list()
    whole = _run_on(raw, tmp_path / "whole", dt.date(2026, 12, 10))
    assert _tables(later["snapshot"]) == _tables(whole["snapshot"])


@pytest.mark.flow
def test_the_flow_and_the_direct_runner_publish_the_same_tables(
    prefect_harness: None, tmp_path: Path
) -> None:
    from flows.prefect_flow import rulings_flow

    raw = _raw(tmp_path)
    flowed = rulings_flow(raw_dir=raw, output_dir=tmp_path / "flow")
    direct = run_direct(raw, tmp_path / "direct")
    assert _tables(direct["snapshot"]) == _tables(Path(flowed["snapshot"]))
    assert flowed["work"] == direct["manifest"]["work"]
    assert flowed["rows"] == direct["manifest"]["rows"]


class _OrderRunner(DirectRunner):
    """`DirectRunner` that lists the steps it calls or submits, by name, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[str] = []

    def call(self, step: Any, *args: Any, **kwargs: Any) -> Any:
        self.steps.append(step.__name__)
        return super().call(step, *args, **kwargs)

    def submit(self, step: Any, *args: Any) -> Any:
        self.steps.append(f"submit {step.__name__}")
        return super().submit(step, *args)


def test_the_cache_keys_are_found_while_the_languages_are_detected(tmp_path: Path) -> None:
    runner = _OrderRunner()
    run_direct(_raw(tmp_path), tmp_path / "out", runner=runner)
    beside = ("detect_languages", "keep_held_lists")  # called in other threads
    steps = [s for s in runner.steps if s not in beside]
    detect, keys = steps.index("submit detect_languages"), steps.index("state_cache_keys")
    assert steps[detect:keys] == ["submit detect_languages", "stage_parse_cache"]
    assert steps[keys + 1] == "build_dump_results"  # not in the tail: stage_state finds them
    # the word lists are kept beside the results' build (`call_beside`), once
    assert runner.steps.count("keep_held_lists") == 1
    assert runner.steps.index("keep_held_lists") > runner.steps.index("state_cache_keys")


def test_a_failed_build_ends_after_the_word_lists_kept_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a fresh review: the keeping went on writing after the run had failed and rolled back
    ended = threading.Event()

    def slow_keep(cache_dir: Path, held: dict[str, pl.DataFrame]) -> None:
        threading.Event().wait(0.3)  # still keeping when the build fails (no wait: the fix's)
        ended.set()

    def failing_build(*_: Any) -> Any:
        raise OSError("the results' build failed")

    monkeypatch.setattr(run_module.word_lists, "keep_held_lists", slow_keep)
    monkeypatch.setattr(run_module.dumps, "build_dump_results", failing_build)
    with pytest.raises(OSError, match="the results' build failed"):
        run_direct(_raw(tmp_path), tmp_path / "out")
    assert ended.is_set()  # the run's failure came after the keeping's end
    assert not (tmp_path / "out" / "latest").exists()


def test_built_results_come_in_their_order_so_a_cold_run_sorts_them_no_more(
    tmp_path: Path,
) -> None:
    raw = _raw(tmp_path)
    assert sorted(p.name for p in raw.iterdir()) != [
        p.name
        for p in sorted(raw.iterdir(), key=lambda p: hashlib.sha256(p.read_bytes()).hexdigest())
    ]  # the seeds' paths and their dump_ids sort apart
    [(results, _)] = run_dumps(raw, tmp_path / "out").runner.kept[build_dump_results]
    for name, order in RESULTS_ORDER.items():
        assert_frame_equal(results[name], results[name].sort(*order))
    assert combine_results(None, results, pl.Series([], dtype=pl.String)) is results


def test_the_product_does_not_import_the_tooling() -> None:
    probe = (
        "import sys, flows.cli, flows.prefect_flow, flows.prefect_server, flows.run\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bench', 'psutil')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    "settings", [{"max_file_bytes": -1}, {"retention": 0}, {"batch_files": 0}], ids=str
)
def test_unchecked_parameters_below_one_publish_nothing(
    tmp_path: Path, settings: dict[str, int]
) -> None:
    # A fresh review: a deployment run with max_file_bytes=-1 published an empty snapshot.
    with pytest.raises(RulingsError, match="must be at least 1: nothing was read"):
        run_direct(_raw(tmp_path), tmp_path / "out", **settings)
    assert not (tmp_path / "out").exists()


def _current_files(output: Path, kind: str) -> Path:
    record = json.loads((output / "state" / "state.json").read_text())["current"]
    return output / "state" / record["files"][kind]["file"]


def test_after_a_recovery_the_fallback_is_the_generation_used_not_the_broken_one(
    tmp_path: Path,
) -> None:
    raw, output = _raw(tmp_path), tmp_path / "out"
    first = run_direct(raw, output)["manifest"]["run_id"]
    run_direct(raw, output)
    broken = _current_files(output, "results_entries")
    data = bytearray(broken.read_bytes())
    data[len(data) // 2] ^= 0x01
    broken.write_bytes(bytes(data))
    third = run_direct(raw, output)
    assert third["manifest"]["state_recovered"].endswith(f"used generation {first}")
    committed = json.loads((output / "state" / "state.json").read_text())
    assert committed["previous"]["generation"] == first  # not the broken second run's
    assert not broken.exists()
    fourth = run_direct(raw, output)
    assert fourth["manifest"]["state_recovered"] is None


def test_a_folder_in_place_of_a_state_file_is_recovered_then_removed(tmp_path: Path) -> None:
    raw, output = _raw(tmp_path), tmp_path / "out"
    run_direct(raw, output)
    run_direct(raw, output)
    languages = _current_files(output, "languages")
    languages.unlink()
    (languages / "x").mkdir(parents=True)  # a folder where the file was
    recovered = run_direct(raw, output)
    assert "is missing" in recovered["manifest"]["state_recovered"]
    assert not languages.exists()  # tidied with the broken generation
    again = run_direct(raw, output)
    assert again["manifest"]["state_recovered"] is None


def _keep_track_id(run: RunResult) -> str:
    rulings = pl.read_parquet(run["snapshot"] / "rulings.parquet")
    return rulings.filter(pl.col("text").str.starts_with("Keep track"))["ruling_id"].item()


def test_with_no_whole_generation_left_the_ids_come_from_a_sound_registry(
    tmp_path: Path,
) -> None:
    # Four seeds register "writing theme down"; seed 003 then adds the smaller "writing
    # them down", so a content id (a cold run's) would differ from the kept one.
    them = "003_321b63c5bd17bae4.txt"
    raw, output = _raw(tmp_path), tmp_path / "out"
    (tmp_path / them).write_bytes((raw / them).read_bytes())
    (raw / them).unlink()
    kept = _keep_track_id(run_direct(raw, output))
    (raw / them).write_bytes((tmp_path / them).read_bytes())
    second = run_direct(raw, output)
    assert _keep_track_id(second) == kept
    committed = json.loads((output / "state" / "state.json").read_text())
    for record in (committed["current"], committed["previous"]):  # both generations broken
        broken = output / "state" / record["files"]["languages"]["file"]
        data = bytearray(broken.read_bytes())
        data[len(data) // 2] ^= 0x01
        broken.write_bytes(bytes(data))
    third = run_direct(raw, output)
    assert third["manifest"]["work"]["dumps_parsed"] == 5  # cold: every cache lost
    assert _keep_track_id(third) == kept
    assert third["manifest"]["state_recovered"].endswith(
        "no whole generation left: cold run, ruling ids kept from generation "
        f"{second['manifest']['run_id']}'s registry"
    )
    for name in ("rulings.parquet", "ruling_variants.parquet"):  # as if nothing broke
        assert (third["snapshot"] / name).read_bytes() == (second["snapshot"] / name).read_bytes()


def _raw_with_rejects(tmp_path: Path) -> Path:
    """The seeds, a copy of one (in another batch), and files that are read rejects."""
    raw = _raw(tmp_path)
    shutil.copy(raw / SEED, raw / "zzz_copy.txt")
    os.symlink(raw / "missing", raw / "dangling.txt")
    os.mkfifo(raw / "pipe.txt")  # a worker that opened it would block the run
    (raw / "big.txt").write_bytes(b"x" * 100_000)
    return raw


def test_parse_batches_in_worker_processes_give_the_tables_of_one_batch_here(
    tmp_path: Path, files_read: list[str]
) -> None:
    raw, day = _raw_with_rejects(tmp_path), dt.date(2026, 12, 1)
    here = _run_on(raw, tmp_path / "here", day, processes=2, max_file_bytes=50_000)
    assert len(files_read) == 9  # one batch: parsed in this process, no worker started
    files_read.clear()
    workers = _run_on(
        raw, tmp_path / "workers", day, processes=2, batch_files=2, max_file_bytes=50_000
    )
    assert files_read == []  # five batches: read and parsed in the worker processes
    assert _tables(workers["snapshot"]) == _tables(here["snapshot"])
    assert workers["manifest"]["line_accounting"] == here["manifest"]["line_accounting"]
    rejects = pl.read_parquet(workers["snapshot"] / "rejects.parquet")
    assert rejects.filter(pl.col("stage") == "read").select("reason", "content").rows() == [
        ("file has the same bytes as 001_a1b82e86b0acb359.txt; its lines are read once, there",
         "zzz_copy.txt"),
        ("dangling symlink (its target does not exist): not read", "dangling.txt"),
        ("file is 100,000 bytes, over the 50,000-byte size limit: not read", "big.txt"),
        ("not a regular file but a FIFO (named pipe): not read", "pipe.txt"),
    ]  # fmt: skip


def test_a_cold_run_stats_its_files_in_its_batches_and_indexes_them_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no file of a cold run can match an index: `check_files` (before any batch starts) stats
    # none, each batch stats its files before it reads them; the index is the one of a stat first
    raw = _raw_with_rejects(tmp_path)
    old = os.stat(raw / SEED).st_mtime_ns
    for name in ("zzz_copy.txt", "big.txt"):
        os.utime(raw / name, ns=(old, old))  # out of the racy window, then as now
    stated, real_stat = [], raw_files.stat_dumps

    def stat_dumps(raw_dir: Path, paths: list[str]) -> pl.DataFrame:
        stated.append(list(paths))
        return real_stat(raw_dir, paths)

    monkeypatch.setattr(raw_files, "stat_dumps", stat_dumps)
    _run_on(raw, tmp_path / "out", dt.date(2026, 12, 1), batch_files=4, max_file_bytes=50_000)
    paths = raw_files.list_dump_paths(raw)
    assert stated == [[], paths[:4], paths[4:8], paths[8:]]
    index = load_state(tmp_path / "out" / "state")["file_index"]
    assert index.drop("dump_id").equals(real_stat(raw, paths))  # nulls: link, FIFO
    assert index.filter(pl.col("dump_id").is_null())["path"].to_list() == [
        "big.txt",
        "dangling.txt",
        "pipe.txt",
    ]


@pytest.mark.parametrize("processes", [1, 2], ids=["here", "workers"])
def test_a_failing_parse_batch_raises_its_own_error_and_publishes_nothing(
    tmp_path: Path, processes: int
) -> None:
    raw, output = _raw(tmp_path), tmp_path / "out"
    started_at = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
    run_id = new_run_id(started_at)
    parts = OutputPaths(output).parts(run_id)
    parts.parent.mkdir(parents=True)
    parts.write_text("a file where the batches' parts folder goes")
    settings = RunSettings(
        raw_dir=raw,
        output=OutputPaths(output),
        run_id=run_id,
        started_at=started_at,
        processes=processes,
        batch_files=2,
    )
    with pytest.raises(OutputDirError, match=f"^{parts} is not a folder; a run makes its own"):
        run_steps(DirectRunner(), settings)
    assert not (output / "latest").exists()


class _BrokenPool(Executor):
    """An executor whose worker died: what a ProcessPoolExecutor gives after a kill -9."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        died: Future[Any] = Future()
        died.set_exception(BrokenProcessPool("A child process terminated abruptly"))
        return died


def test_a_dead_parse_worker_is_named_as_such(tmp_path: Path) -> None:
    raw = _raw(tmp_path)
    paths = pl.Series("path", sorted(p.name for p in raw.iterdir()))
    with pytest.raises(WorkerDiedError) as raised:
        raw_files.parse_batch(
            raw, paths, pl.Series("dump_id", [], pl.String), tmp_path / "parts", "batch00003",
            raw_files.MAX_FILE_BYTES, _BrokenPool(),
        )  # fmt: skip
    assert str(raised.value) == (
        "a worker process ended abruptly while parse batch00003 ran (killed, or out of "
        "memory?); nothing was published"
    )
    assert not (tmp_path / "parts").exists()


def _failing(error: BaseException) -> Any:
    def fail(*_: object, **__: object) -> None:
        raise error

    return fail


def test_a_failed_run_leaves_a_latest_it_did_not_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a second review: the rollback of a run that failed before its switch unlinked an
    # operator's regular file at `latest` (and logged "latest restored to None")
    output = tmp_path / "out"
    output.mkdir()
    (output / "latest").write_text("an operator's note\n")
    monkeypatch.setattr(run_module.tables, "validate_tables", _failing(OSError(5, "I/O error")))
    with pytest.raises(OSError, match="I/O error"):
        run_direct(SEED_DIR, output, started_at=dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC))
    assert (output / "latest").read_text() == "an operator's note\n"
    assert list((output / "snapshots").glob("*")) == []


def test_a_run_id_given_twice_never_removes_the_first_snapshot(tmp_path: Path) -> None:
    # a second review: the second run's rollback removed the first run's snapshot, which
    # `latest` named once the state was gone
    output, started = tmp_path / "out", dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
    first = run_direct(SEED_DIR, output, started_at=started)["snapshot"]
    shutil.rmtree(output / "state")
    with pytest.raises(RulingsError, match="already exists; run ids must be unique"):
        run_direct(SEED_DIR, output, started_at=started)
    assert (output / "latest").resolve() == Path(first).resolve()
    assert (Path(first) / "manifest.json").is_file()


def test_a_rollback_that_cannot_restore_latest_keeps_the_snapshot_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a second review: the restore failed (a full disk) and the snapshot `latest` had been
    # switched to was removed all the same: `latest` named nothing
    output = tmp_path / "out"
    run_direct(SEED_DIR, output, started_at=dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC))
    real_symlink = os.symlink

    def no_restore(target: str, link: Any) -> None:
        if str(link).endswith(".latest.restore.tmp"):
            raise OSError(28, "No space left on device")
        real_symlink(target, link)

    monkeypatch.setattr(os, "symlink", no_restore)
    no_space = OSError(28, "No space left on device")
    monkeypatch.setattr(run_module.generation, "commit_state", _failing(no_space))
    # issue 23: the line says what the output holds, and the next run repairs it first
    with pytest.raises(PublishError) as failed:
        run_direct(SEED_DIR, output, started_at=dt.datetime(2026, 11, 30, 13, tzinfo=dt.UTC))
    assert str(failed.value) == (
        "[Errno 28] No space left on device; the rollback failed too ([Errno 28] No space left "
        "on device): latest -> snapshots/20261130T130000000000Z, this run's complete, validated "
        "snapshot, with its state staged but not committed; the next run commits that state "
        "first and goes on from it"
    )
    assert (output / "latest").resolve().name == "20261130T130000000000Z"
    assert ((output / "latest") / "manifest.json").is_file()
    committed = json.loads((output / "state" / "state.json").read_text())
    assert committed["current"]["generation"] == "20261130T120000000000Z"
    monkeypatch.undo()
    assert roll_forward(OutputPaths(output)) == (
        "latest -> snapshots/20261130T130000000000Z had its state uncommitted: committed it "
        "(rolled forward)"
    )
    committed = json.loads((output / "state" / "state.json").read_text())
    assert committed["current"]["generation"] == "20261130T130000000000Z"
    assert committed["previous"]["generation"] == "20261130T120000000000Z"
    assert roll_forward(OutputPaths(output)) is None  # repaired: nothing more to do
    third = run_direct(SEED_DIR, output, started_at=dt.datetime(2026, 11, 30, 14, tzinfo=dt.UTC))
    assert (output / "latest").resolve() == Path(third["snapshot"]).resolve()
    assert third["manifest"]["state_recovered"] is None
    assert third["manifest"]["since_previous"]["previous_run_id"] == "20261130T130000000000Z"


@pytest.mark.parametrize(
    ("written", "named"),
    [
        ("/state/parts/", "state/parts/{run_id}/batch00000.files.parquet"),
        (".partial/", "snapshots/.{run_id}.partial/dumps.parquet"),
        ("/ruling_ids.", "state/ruling_ids.{run_id}.parquet"),
    ],
    ids=["parse-parts", "snapshot", "state"],
)
def test_a_full_disk_names_the_file_and_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str, named: str
) -> None:
    # the issue: `ComputeError: parquet: File out of specification: underlying IO error: No
    # space left on device`, with no path
    raw, output = _raw(tmp_path), tmp_path / "out"
    first = run_direct(raw, output)["manifest"]["run_id"]
    state_files = sorted(p.name for p in (output / "state").iterdir())
    (raw / "new.txt").write_bytes((raw / SEED).read_bytes().replace(b"energy", b"Energy"))
    real_write = pl.DataFrame.write_parquet

    def onto_a_full_disk(frame: pl.DataFrame, file: Any, *args: Any, **kwargs: Any) -> None:
        full = written in str(getattr(file, "name", file))  # a path, or a file opened on it
        real_write(frame, "/dev/full" if full else file, *args, **kwargs)  # a real ENOSPC

    monkeypatch.setattr(pl.DataFrame, "write_parquet", onto_a_full_disk)
    # and the file system says it has no block left, as a full one does (a small Parquet
    # file's failed flush reads `Invalid thrift: transport error`, without the cause)
    monkeypatch.setattr(os, "statvfs", lambda path: FULL_FILE_SYSTEM)
    started_at = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
    with pytest.raises(OSError) as failed:
        run_direct(raw, output, started_at=started_at)
    path = output / named.format(run_id=new_run_id(started_at))
    assert str(failed.value) == f"no space left on device writing {path}"
    assert os.readlink(output / "latest") == f"snapshots/{first}"  # nothing published
    assert [p.name for p in (output / "snapshots").iterdir()] == [first]
    assert sorted(p.name for p in (output / "state").iterdir()) == state_files
