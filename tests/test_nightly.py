"""The nightly refresh: stable ids, incremental reruns, retention, the lock, the deployment."""

from __future__ import annotations

import errno
import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml
from typer.testing import CliRunner

from flows import prefect_flow
from flows.cli import app
from flows.disk import files, generation, snapshot, state
from flows.disk.lock import hold_run_lock
from flows.errors import RunLockedError
from flows.prefect_flow import DEPLOYMENT_NAME, is_transient, nightly_deployment, rulings_flow
from flows.processes import interrupt
from flows.stages import reuse
from tests.conftest import REPO, SEED_DIR, copy_seeds

runner = CliRunner()

THEM_SEED = "003_321b63c5bd17bae4.txt"  # the only seed with "writing them down"


def _run(raw: Path, output: Path, retention: int = 7) -> dict[str, Any]:
    return rulings_flow(raw_dir=raw, output_dir=output, retention=retention)


def _ids(output: Path) -> dict[str, str]:
    rulings = pl.read_parquet(output / "latest" / "rulings.parquet")
    return dict(rulings.select("text", "ruling_id").iter_rows())


@pytest.mark.flow
def test_ruling_ids_never_move(prefect_harness: None, tmp_path: Path) -> None:
    output = tmp_path / "out"
    _run(copy_seeds(tmp_path, "four", skip=(THEM_SEED,)), output)
    first = _ids(output)
    five = _run(
        copy_seeds(tmp_path, "five"), output
    )  # adds the "them" variant and Sentry Bot rulings
    second = _ids(output)
    assert {k: five["ruling_ids"][k] for k in ("kept", "merged", "split", "gained")} == {
        "kept": 33, "merged": 0, "split": 0, "gained": 3,
    }  # fmt: skip
    assert len(first) == 33 and len(second) == 36  # seed 003 adds three Sentry Bot rulings
    assert {text: second[text] for text in first} == first
    keep_track = pl.read_parquet(output / "latest" / "ruling_variants.parquet").filter(
        pl.col("text").str.starts_with("Keep track")
    )
    assert keep_track["ruling_id"].n_unique() == 1 and keep_track.height == 2
    assert keep_track["ruling_id"][0] == next(
        v for t, v in first.items() if t.startswith("Keep track")
    )


@pytest.mark.flow
def test_rerun_does_no_work_and_one_change_parses_one_dump(
    prefect_harness: None, tmp_path: Path
) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    cold = _run(raw, output)
    warm = _run(raw, output)
    assert cold["work"] == {
        "dumps_parsed": 5,
        "dumps_reused": 0,
        "dumps_built": 5,
        "languages_detected": 39,
        "languages_reused": 0,
    }
    assert warm["work"] == {
        "dumps_parsed": 0,
        "dumps_reused": 5,
        "dumps_built": 0,  # every dump's results reused: no text needs its language
        "languages_detected": 0,
        "languages_reused": 0,
    }
    for name in ("rulings.parquet", "ruling_occurrences.parquet", "dumps.jsonl"):
        assert (Path(cold["snapshot"]) / name).read_bytes() == (
            Path(warm["snapshot"]) / name
        ).read_bytes()
    seed = raw / "001_a1b82e86b0acb359.txt"
    seed.write_text(
        seed.read_text()
        + "08 mars 2024 · source : wotc\nA new ruling about energy counters in this dump.\n"
    )
    (raw / "004_304d898eb3c4b8ca.txt").rename(raw / "renamed.txt")
    (raw / "002_14b9121c30f5c5b3.txt").unlink()
    changed = _run(raw, output)
    assert changed["work"] == {
        "dumps_parsed": 1,
        "dumps_reused": 3,
        "dumps_built": 1,  # 001 only: the renamed 004 keeps its results (same bytes)
        "languages_detected": 1,
        "languages_reused": 15,  # the texts of 001 but the new one
    }
    assert {k: changed["since_previous"][k] for k in ("added", "changed", "removed")} == {
        "added": ["renamed.txt"],
        "changed": ["001_a1b82e86b0acb359.txt"],
        "removed": ["002_14b9121c30f5c5b3.txt", "004_304d898eb3c4b8ca.txt"],
    }
    assert changed["since_previous"]["previous_run_id"] == warm["run_id"]
    paths = pl.read_parquet(output / "latest" / "dumps.parquet")["path"].to_list()
    assert "002_14b9121c30f5c5b3.txt" not in paths and "renamed.txt" in paths


@pytest.mark.flow
def test_retention_keeps_the_newest_snapshots(prefect_harness: None, tmp_path: Path) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    runs = [_run(raw, output, retention=2)["run_id"] for _ in range(3)]
    assert sorted(p.name for p in (output / "snapshots").iterdir()) == runs[1:]
    assert os.readlink(output / "latest") == f"snapshots/{runs[2]}"
    assert "## Rows per table" in (output / "latest" / "report.md").read_text()


HOLD_THE_LOCK = """
import sys, time
from pathlib import Path
from flows.disk.lock import hold_run_lock
with hold_run_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(3600)
"""


@contextmanager
def _lock_held_by_another_process(output: Path) -> Iterator[int]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(output)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait(timeout=60)


@pytest.mark.flow
def test_a_second_run_at_once_stops_with_a_clear_message(
    prefect_harness: None, tmp_path: Path
) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    with (
        _lock_held_by_another_process(output) as pid,
        pytest.raises(RunLockedError, match=rf"another run holds .*\.lock \(pid {pid},"),
    ):
        _run(raw, output)
    assert not (output / "latest").exists()
    assert _run(raw, output)["rows"]["rulings"] == 36  # the lock is free again


def test_the_cli_holds_the_lock_from_its_first_second(tmp_path: Path) -> None:
    output = tmp_path / "out"
    with _lock_held_by_another_process(output) as pid:
        result = runner.invoke(app, ["run", "--raw", str(SEED_DIR), "--output", str(output)])
    assert result.exit_code == 1
    assert result.output == (
        f"error: another run holds {output / '.lock'} (pid {pid}, started "
        f"{result.output.split('started ')[1].split(')')[0]}); "
        "it publishes when done, try again later\n"
    )  # one line, before the Prefect server was even started


def test_the_lock_is_exclusive_between_processes_and_reentrant_within_one(
    tmp_path: Path,
) -> None:
    with hold_run_lock(tmp_path), hold_run_lock(tmp_path):  # the CLI, then its flow
        assert (tmp_path / ".lock").read_text().startswith(f"pid {os.getpid()}, started ")
    assert (tmp_path / ".lock").read_text() == ""
    with (
        _lock_held_by_another_process(tmp_path) as pid,
        pytest.raises(RunLockedError, match=f"pid {pid}, .*try again later"),
        hold_run_lock(tmp_path),
    ):
        pass
    with hold_run_lock(tmp_path):  # free again once the holder is gone
        pass


def test_deployment_carries_the_cron_schedule_and_parameters(tmp_path: Path) -> None:
    deployment = nightly_deployment(tmp_path / "raw", tmp_path / "out", retention=5)
    assert deployment.name == DEPLOYMENT_NAME == "nightly"
    assert [(s.schedule.cron, s.schedule.timezone) for s in deployment.schedules] == [
        ("0 3 * * *", "UTC")
    ]
    assert deployment.parameters == {
        "raw_dir": str(tmp_path / "raw"),
        "output_dir": str(tmp_path / "out"),
        "retention": 5,
        "one_line_outcome": True,
    }
    assert deployment.concurrency_limit == 1
    custom = nightly_deployment(tmp_path, tmp_path, cron="30 1 * * *", timezone="Europe/Paris")
    assert [(s.schedule.cron, s.schedule.timezone) for s in custom.schedules] == [
        ("30 1 * * *", "Europe/Paris")
    ]


def test_prefect_yaml_declares_the_same_deployment_as_the_code() -> None:
    declared = yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"][0]
    code = nightly_deployment(REPO / "raw", REPO / "output")
    assert declared["name"] == code.name
    assert declared["description"] == code.description
    assert declared["entrypoint"] == code.entrypoint
    assert declared["concurrency_limit"] == code.concurrency_limit
    assert [(s["cron"], s["timezone"]) for s in declared["schedules"]] == [
        (s.schedule.cron, s.schedule.timezone) for s in code.schedules
    ]
    paths = ("raw_dir", "output_dir")  # relative to the project folder in prefect.yaml
    assert {k: str(REPO / v) if k in paths else v for k, v in declared["parameters"].items()} == (
        code.parameters
    )


@pytest.mark.flow
def test_small_batches_with_repeated_files_give_the_same_tables(
    prefect_harness: None, tmp_path: Path
) -> None:
    raw = copy_seeds(tmp_path, "raw")
    shutil.copy(
        raw / "000_fbe1a54fee004163.txt", raw / "zzz_copy_of_000.txt"
    )  # lands in another batch
    one = rulings_flow(raw_dir=raw, output_dir=tmp_path / "one")
    many = rulings_flow(raw_dir=raw, output_dir=tmp_path / "many", batch_files=2)
    assert many["line_accounting"] == one["line_accounting"]
    assert many["line_accounting"]["lines_read"] == 154
    for name in (
        "rulings.parquet",
        "ruling_occurrences.parquet",
        "dumps.parquet",
        "rejects.parquet",
    ):
        assert (Path(many["snapshot"]) / name).read_bytes() == (
            Path(one["snapshot"]) / name
        ).read_bytes()
    rejects = pl.read_parquet(Path(many["snapshot"]) / "rejects.parquet")
    assert rejects.select("stage", "content").rows() == [("read", "zzz_copy_of_000.txt")]


def _fail_with(exc: OSError) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return fail


DENIED = PermissionError(errno.EACCES, "Permission denied")


def _published_state(output: Path) -> tuple[str, str | None]:
    """(the run id `latest` points at, the state generation a next run would read)."""
    latest_run = os.readlink(output / "latest").removeprefix("snapshots/")
    loaded = state.load_state(output / "state", published=latest_run)
    assert loaded["recovered"] is None
    committed = json.loads((output / "state" / "state.json").read_text())
    assert committed["current"]["generation"] == loaded["generation"]
    return latest_run, loaded["generation"]


@pytest.mark.flow
@pytest.mark.parametrize(
    ("module", "step"),
    [
        (generation, "stage_parse_cache"),  # written while the languages are detected
        (snapshot, "stage_snapshot"),  # after the parse cache was staged
        (snapshot, "_write_document"),  # halfway through the snapshot: its .partial is removed
        (snapshot, "complete_snapshot"),  # the whole .partial is removed
        (generation, "stage_state"),
        (snapshot, "switch_latest"),
        (generation, "commit_state"),
    ],
    ids=[
        "stage-parse-cache",
        "stage-snapshot",
        "snapshot-half-written",
        "complete-snapshot",
        "stage-state",
        "switch-latest",
        "commit-state",
    ],
)
def test_a_failing_publish_step_publishes_nothing(
    prefect_harness: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: Any, step: str
) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = _run(raw, output)["run_id"]
    assert _published_state(output) == (first, first)
    monkeypatch.setattr(module, step, _fail_with(DENIED))
    result = runner.invoke(app, ["run", "--raw", str(raw), "--output", str(output)])
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (
        1,
        "error: [Errno 13] Permission denied",
    )
    assert [line for line in result.stderr.splitlines() if "error" in line.lower()] == [
        "error: [Errno 13] Permission denied"
    ]
    assert _published_state(output) == (first, first)  # latest and state agree: run 1
    assert [p.name for p in (output / "snapshots").iterdir()] == [first]
    assert sorted({p.name.split(".")[1] for p in (output / "state").glob("*.*.*")}) == [first]


@pytest.mark.flow
def test_a_full_disk_is_one_line_naming_the_file(
    prefect_harness: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the issue: `ComputeError: parquet: File out of specification: underlying IO error: No
    # space left on device`; a full disk is no transient error: not retried
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = _run(raw, output)["run_id"]
    (raw / "new.txt").write_text("x\n07 juin 2024 · source : wotc\nNew ruling.\n")
    real_write = pl.DataFrame.write_ndjson

    def onto_a_full_disk(frame: pl.DataFrame, file: Any, *args: Any, **kwargs: Any) -> Any:
        full = ".partial" in str(file)
        return real_write(frame, "/dev/full" if full else file, *args, **kwargs)  # ENOSPC

    monkeypatch.setattr(pl.DataFrame, "write_ndjson", onto_a_full_disk)
    result = runner.invoke(app, ["run", "--raw", str(raw), "--output", str(output)])
    assert result.exit_code == 1
    [line] = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    partial = f"{output / 'snapshots'}/.{line.split('/.')[-1].split('.partial')[0]}.partial"
    assert line == f"error: no space left on device writing {partial}/dumps.jsonl"
    assert _published_state(output) == (first, first)
    assert [p.name for p in (output / "snapshots").iterdir()] == [first]


def _interrupted_after(step: Any) -> Any:
    """`step`, then a Ctrl-C (KeyboardInterrupt) the moment it returns."""

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        step(*args, **kwargs)
        raise KeyboardInterrupt

    return interrupted


files_fsync = files.fsync_path


def _interrupted_at_a_staged_state_file(path: Path) -> None:
    """Ctrl-C while a state file is written: its `.tmp` is on disk, not yet renamed."""
    if path.name.endswith(".tmp"):
        raise KeyboardInterrupt
    files_fsync(path)


@pytest.mark.flow
@pytest.mark.parametrize(
    "where",
    [
        "snapshot-written",
        "between-snapshot-and-publish",
        "state-file-half-written",
        "state-committed",
        "after-the-publish",
        "swallowed-in-retention",
    ],
)
def test_ctrl_c_rolls_back_or_says_the_run_is_published(
    prefect_harness: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # the moments a fresh reviewer's Ctrl-C left a whole unpublished snapshot, `*.tmp`
    # state files, or said "interrupted" of a published run
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = _run(raw, output)["run_id"]
    if where == "snapshot-written":
        done = _interrupted_after(snapshot.complete_snapshot)
        monkeypatch.setattr(snapshot, "complete_snapshot", done)
    elif where == "between-snapshot-and-publish":  # a second review: the whole snapshot was left
        between = _interrupted_after(reuse.next_language_cache)
        monkeypatch.setattr(reuse, "next_language_cache", between)
    elif where == "state-file-half-written":  # the state's files, written whole (`files`)
        monkeypatch.setattr(files, "fsync_path", _interrupted_at_a_staged_state_file)
    elif where == "state-committed":  # in the commit's last instant: no rollback after it
        committed = _interrupted_after(generation.commit_state)
        monkeypatch.setattr(generation, "commit_state", committed)
    elif where == "after-the-publish":
        pruned = _interrupted_after(snapshot.prune_snapshots)
        monkeypatch.setattr(snapshot, "prune_snapshots", pruned)
    else:  # Prefect turned the interrupt into its own error, which retention let pass

        def swallowed(*args: Any, **kwargs: Any) -> None:
            interrupt.interrupted.set()  # as the SIGINT handler does
            raise ValueError("Task run is not set")

        monkeypatch.setattr(snapshot, "prune_snapshots", swallowed)
    result = runner.invoke(app, ["run", "--raw", str(raw), "--output", str(output)])
    assert result.exit_code == 1
    # the flag ends with the run: a stale one stopped the next test's process pool at once
    assert not interrupt.interrupted.is_set()
    latest, _ = _published_state(output)
    if where in ("state-committed", "after-the-publish", "swallowed-in-retention"):
        assert latest != first
        assert result.stderr.splitlines()[-1] == (
            f"error: interrupted after the run was published (latest -> snapshots/{latest})"
        )
        assert _published_state(output) == (latest, latest)
        return
    assert result.stderr.splitlines()[-1] == "error: interrupted: nothing was published"
    assert _published_state(output) == (first, first)
    assert [p.name for p in (output / "snapshots").iterdir()] == [first]
    assert sorted({p.name.split(".")[1] for p in (output / "state").glob("*.*.*")}) == [first]


@pytest.mark.flow
@pytest.mark.parametrize(
    ("module", "step"),
    [(snapshot, "prune_snapshots"), (prefect_flow, "create_markdown_artifact")],
    ids=["prune", "artifact"],
)
def test_prune_and_the_report_artifact_are_best_effort(
    prefect_harness: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: Any, step: str
) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    monkeypatch.setattr(module, step, _fail_with(DENIED))
    result = runner.invoke(app, ["run", "--raw", str(raw), "--output", str(output)])
    assert result.exit_code == 0, result.output
    run_id = result.stderr.split("run: ")[1].split("\n")[0]
    assert "(the run is published): [Errno 13] Permission denied" in result.stderr
    assert _published_state(output) == (run_id, run_id)


@pytest.mark.flow
def test_only_transient_os_errors_are_retried(
    prefect_harness: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    real_commit = generation.commit_state
    calls: list[str] = []

    @functools.wraps(real_commit)  # a step of flows.disk: the flow retries its transient errors
    def commit_fails_once(state_dir: Path, record: state.StateRecord, *rest: Any) -> None:
        calls.append(record["generation"])
        if len(calls) == 1:
            raise OSError(errno.EIO, "Input/output error")
        real_commit(state_dir, record, *rest)

    monkeypatch.setattr(generation, "commit_state", commit_fails_once)
    run_id = _run(raw, output)["run_id"]
    assert calls == [run_id, run_id]  # EIO: retried once, then committed
    assert _published_state(output) == (run_id, run_id)
    for denied in (DENIED, IsADirectoryError(errno.EISDIR, "Is a directory")):
        calls.clear()

        @functools.wraps(real_commit)
        def commit_denied(
            state_dir: Path, record: state.StateRecord, *rest: Any, exc: OSError = denied
        ) -> None:
            calls.append(record["generation"])
            raise exc

        monkeypatch.setattr(generation, "commit_state", commit_denied)
        with pytest.raises(OSError, match=denied.strerror):
            _run(raw, output)
        assert len(calls) == 1  # not retried
        assert _published_state(output) == (run_id, run_id)


def test_the_transient_errno_allow_list() -> None:
    assert [is_transient(OSError(e, "x")) for e in (errno.EIO, errno.EAGAIN, errno.ESTALE)] == [
        True
    ] * 3
    assert [
        is_transient(exc)
        for exc in (
            PermissionError(errno.EACCES, "x"),
            IsADirectoryError(errno.EISDIR, "x"),
            FileNotFoundError(errno.ENOENT, "x"),
            RunLockedError("x"),
        )
    ] == [False] * 4


@pytest.mark.flow
def test_a_corrupt_registry_is_recovered_loudly_and_keeps_the_ids(
    prefect_harness: None, tmp_path: Path
) -> None:
    output = tmp_path / "out"
    _run(copy_seeds(tmp_path, "four", skip=(THEM_SEED,)), output)
    raw = copy_seeds(tmp_path, "five")
    second = _run(raw, output)
    ids = _ids(output)
    registry = output / "state" / f"ruling_ids.{second['run_id']}.parquet"
    data = bytearray(registry.read_bytes())
    data[len(data) // 2] ^= 0x01  # a flipped byte that may still decode
    registry.write_bytes(bytes(data))
    third = _run(raw, output)
    first_generation = sorted(p.name for p in (output / "snapshots").iterdir())[0]
    assert third["state_recovered"] == (
        f"generation {second['run_id']}: {registry.name} differs from its recorded sha256; "
        f"used generation {first_generation}"
    )
    assert "## State recovered" in (output / "latest" / "report.md").read_text()
    assert _ids(output) == ids  # the previous generation's registry kept every id
    assert (
        json.loads((output / "latest" / "manifest.json").read_text())["state_recovered"]
        == (third["state_recovered"])
    )
