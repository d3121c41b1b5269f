"""The run's steps, listed once, and their one sequence.

`STEPS` lists every step of a run (a function of `flows.nodes`, and whether
it does I/O worth retrying); `run_steps` sequences them under the output
dir's run lock. Who executes a step is a `Runner`: `DirectRunner` calls each
step plainly in this process, the submitted ones (parse and language batches)
in threads as the flow's task runner does (the benchmark's "without Prefect",
tests); the Prefect flow (`flows.rulings_flow`) passes a runner that wraps each
step in a task. So the flow and the direct run do exactly the same work with
the same concurrency (a cold run's parse batches wait on the same worker
processes, `nodes.parse_workers`), and the benchmark's orchestration share
compares one composition with and without Prefect.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypedDict

import polars as pl

from flows import nodes, pipeline
from flows.errors import RulingsError
from flows.hooks import pause_point
from flows.nodes import BATCH_FILES, Inputs, RunSettings, new_run_id
from flows.paths import OutputPaths
from flows.stages import state, write
from flows.stages.runlock import hold_run_lock

__all__ = [
    "BATCH_FILES",
    "STEPS",
    "DirectRunner",
    "Inputs",
    "RunSettings",
    "new_run_id",
    "run_steps",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """A step: its function, and whether it touches the disk (retried on transient OS errors)."""

    fn: Callable[..., Any]
    io: bool = False


#: Every step of a run, by name, in the order `run_steps` calls them.
STEPS: dict[str, Step] = {
    "load_catalog": Step(nodes.load_catalog_index, io=True),
    "load_inputs": Step(nodes.load_inputs, io=True),
    "check_files": Step(nodes.check_files, io=True),
    "parse_batch": Step(nodes.parse_batch, io=True),
    "assemble_dumps": Step(nodes.assemble_dumps),
    "split_known_texts": Step(nodes.split_known_texts),
    "detect_languages": Step(nodes.detect_languages),
    "build_tables": Step(nodes.build_tables),
    "validate_tables": Step(nodes.validate_tables),
    "describe_run": Step(nodes.describe_run),
    "write_snapshot": Step(nodes.write_snapshot, io=True),
    "stage_parse_cache": Step(nodes.stage_parse_cache, io=True),
    "stage_state": Step(nodes.stage_state, io=True),
    "switch_latest": Step(nodes.switch_latest, io=True),
    "commit_state": Step(nodes.commit_state, io=True),
    "prune_snapshots": Step(nodes.prune_snapshots, io=True),
}


class Pending(Protocol):
    """A submitted step: `result()` waits for its value (or raises its error)."""

    def result(self) -> Any: ...


class Runner(Protocol):
    """Executes the steps of `STEPS` by name."""

    def call(self, name: str, *args: Any) -> Any:
        """Run a step and return its value."""
        ...

    def submit(self, name: str, *args: Any) -> Pending:
        """Start a step that may run alongside others; `result()` gives its value."""
        ...


class DirectRunner:
    """Calls each step plainly in this process (no Prefect); submitted steps run in threads.

    `threads`: submitted steps at a time (parse and language batches), as the
    flow's task runner (`rulings_flow.LOCAL_TASK_THREADS`: one per core).
    """

    def __init__(self, threads: int = os.cpu_count() or 1) -> None:
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="step")

    def call(self, name: str, *args: Any) -> Any:
        """Run a step and return its value."""
        return STEPS[name].fn(*args)

    def submit(self, name: str, *args: Any) -> Pending:
        """Start a step in a thread; `result()` waits for its value (or raises its error)."""
        return self._threads.submit(self.call, name, *args)


class RunResult(TypedDict):
    """What `run_steps` returns."""

    manifest: dict[str, Any]
    snapshot: Path
    report: str  # report.md's text


def run_steps(runner: Runner, run: RunSettings) -> RunResult:
    """Every step of a run, under the output dir's run lock: raw dumps to a published snapshot.

    Raises:
        RunLockedError, RawDirError, ContractError, PublishError: see `rulings_flow`.
        RulingsError: max_file_bytes or retention below 1.
    """
    if run.max_file_bytes < 1 or run.retention < 1:  # deployment parameters come unchecked
        raise RulingsError(
            f"max_file_bytes ({run.max_file_bytes}) and retention ({run.retention}) must be "
            "at least 1: nothing was read"
        )
    write.check_raw_output_overlap(run.raw_dir, run.output.root)  # before anything is read
    with hold_run_lock(run.output.root):
        return _sequence(runner, run)


def _sequence(runner: Runner, run: RunSettings) -> RunResult:
    out = run.output
    catalog_index, catalog_reused, catalog_key = (
        runner.call("load_catalog", run.catalog, out) if run.catalog else (None, True, None)
    )
    inputs = runner.call("load_inputs", run.raw_dir, out)
    cached = inputs["state"]["parsed"]
    known_ids = cached["dumps"]["dump_id"] if cached else pl.Series("dump_id", [], pl.String)
    if run.processes > 1 and cached is None and len(inputs["paths"]) > run.batch_files:
        nodes.start_worker_server()  # every file is read, in batches: workers will be needed
    check = runner.call(
        "check_files",
        run.raw_dir,
        inputs["paths"],
        known_ids,
        run.max_file_bytes,
        inputs["state"]["file_index"] if run.trust_metadata else None,
    )
    today = run.started_at.date()
    cached_results = inputs["state"]["results"] if run.reuse_results else None
    parsed, reused_dumps, parsed_files, file_index, work = _parse_and_assemble(
        runner, run, check, known_ids, cached, cached_results, today, catalog_key
    )
    known = inputs["state"]["languages"]
    reused, new_texts = runner.call("split_known_texts", parsed, known)
    fresh = [
        runner.submit("detect_languages", chunk, run.processes)
        for chunk in _chunks(new_texts, run.language_batches)
    ]
    try:
        try:  # while the languages are detected: the parse cache is written, then let go
            parse_cache = runner.call("stage_parse_cache", out, parsed_files, run.run_id)
        finally:
            del parsed_files
            found = _results(fresh)  # every batch ended, even after a failed write
        detected = pipeline.combine_languages(reused, found, new_texts)
        built, results = runner.call(
            "build_tables",
            parsed,
            detected["languages"],
            inputs["state"]["registry"],
            catalog_index,
            cached_results,
            reused_dumps,
            today,
            inputs["state"]["clusters"] if run.reuse_results else None,
            catalog_key,
        )
        published = runner.call("validate_tables", built["tables"])
        languages = pipeline.next_language_cache(
            known, detected["languages"], reused_dumps.len() > 0
        )
        work = {
            **work,
            "languages_detected": detected["detected"],
            "languages_reused": detected["reused"],
            **({"catalog_parsed": int(not catalog_reused)} if run.catalog else {}),
        }
        run_manifest, documents = runner.call(
            "describe_run", run, inputs, parsed, built, published, work
        )
        snapshot = runner.call("write_snapshot", published, run_manifest, out, documents)
    except BaseException:
        _discard_run(out, run.run_id)
        raise
    _publish(
        runner,
        run,
        snapshot,
        parse_cache,
        languages,
        built,
        results,
        file_index,
        inputs["state"]["generation"],
    )
    try:
        runner.call("prune_snapshots", out, max(1, run.retention))
    except Exception as exc:  # best effort: the run is published
        logger.warning("retention skipped (the run is published): %s", exc)
    rows = run_manifest["rows"]
    logger.info("published %s (%d tables, %s rows)", snapshot, len(rows), f"{sum(rows.values()):,}")
    return RunResult(manifest=run_manifest, snapshot=snapshot, report=documents["report.md"])


def _parse_and_assemble(
    runner: Runner,
    run: RunSettings,
    check: pipeline.FileCheck,
    known_ids: pl.Series,
    cached: state.ParsedFiles | None,
    cached_results: dict[str, pl.DataFrame] | None,
    today: dt.date,
    catalog_key: str | None,
) -> tuple[pipeline.ParsedDumps, pl.Series, state.ParsedFiles, pl.DataFrame, dict[str, int]]:
    """Parse the files to read in batches (Parquet parts), then assemble every dump.

    The parts are removed afterwards however the run goes on, an interrupt
    (Ctrl-C) included; the run lock keeps other runs out of them.

    Returns:
        `nodes.assemble_dumps`'s value.
    """
    out = run.output
    batches = _batches(check["to_read"], run.batch_files)
    try:
        with nodes.parse_workers(run.processes if len(batches) > 1 else 1) as workers:
            pending = [
                runner.submit(
                    "parse_batch",
                    run.raw_dir,
                    batch,
                    known_ids,
                    out.parts(run.run_id),
                    f"batch{i:05d}",
                    run.max_file_bytes,
                    workers,
                )
                for i, batch in enumerate(batches)
            ]
            parts = _results(pending)  # every batch ended before the workers stop
        return runner.call(
            "assemble_dumps",
            parts,
            check,
            cached,
            cached_results,
            today,
            catalog_key,
        )
    finally:
        write.remove_tree(out.parts_root)


def _publish(
    runner: Runner,
    run: RunSettings,
    snapshot: Path,
    parse_cache: dict[str, dict[str, str]],
    languages: pl.DataFrame,
    built: pipeline.GlobalTables,
    results: pipeline.DumpResults,
    file_index: pl.DataFrame,
    state_read: str | None,
) -> None:
    """Stage the new state, switch `latest`, commit the state; on any failure roll back.

    `parse_cache`: the record entries of the parse cache staged while the
    languages were detected (`stage_parse_cache`); `state_read`: the
    generation the run's state came from (the next fallback).

    After a failure `latest` points where it pointed before, the new
    snapshot folder and the staged state are removed, and the error is raised;
    unless the state was committed already (an interrupt in the commit's last
    instant): then the run stays published, `latest` and the state agreeing.
    """
    out = run.output
    previous = write.latest_target(out.root)
    try:
        pause_point("snapshot_written")
        staged = runner.call(
            "stage_state",
            out,
            parse_cache,
            languages,
            built["registry"],
            file_index,
            results,
            built["clusters"],
            run.run_id,
        )
        pause_point("state_staged")
        runner.call("switch_latest", out, snapshot)
        pause_point("latest_switched")
        runner.call("commit_state", out, staged, state_read)
        pause_point("state_committed")
    except BaseException:
        if not state.is_committed(out.state, run.run_id):  # committed: latest and state agree
            _roll_back(out, previous, run.run_id)
        raise


def _discard_run(out: OutputPaths, run_id: str) -> None:
    """Remove what an unpublished run wrote: its snapshot, half-written (`.partial`) or
    whole (a Ctrl-C just after it), and its staged state (the parse cache first)."""
    write.remove_tree(out.snapshot_staging(run_id))
    write.remove_tree(out.snapshot(run_id))
    state.discard_state(out.state, run_id)


def _roll_back(out: OutputPaths, previous: str | None, run_id: str) -> None:
    """Undo a publish that failed halfway (best effort: each step is tried)."""
    steps = (
        lambda: write.restore_latest(out.root, previous),
        lambda: _discard_run(out, run_id),
    )
    for step in steps:
        try:
            step()
        except OSError as exc:
            logger.warning("rollback step failed: %s", exc)


def _results(pending: list[Pending]) -> list[Any]:
    """Each submitted step's value, in order; once every one has ended, the first error.

    So no step is left waiting or starting when its caller moves on (the parse
    workers are stopped): each batch ends with its own value or error.
    """
    values, errors = [], []
    for step in pending:
        try:
            values.append(step.result())
        except Exception as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
    return values


def _batches(paths: pl.Series, size: int) -> list[pl.Series]:
    """`paths` in batches of `size` (String Series: Prefect does not walk a Series)."""
    return [paths.slice(i, size) for i in range(0, paths.len(), size)]


def _chunks(texts: pl.Series, parts: int) -> list[pl.Series]:
    """`texts` in `parts` contiguous slices (fewer when there are few texts)."""
    size = max(1, -(-texts.len() // max(1, parts)))
    return [texts.slice(i, size) for i in range(0, texts.len(), size)] or [texts]


def run_direct(raw_dir: Path, output_dir: Path, processes: int = 1, **settings: Any) -> RunResult:
    """A whole run without Prefect (same steps, same sequence as the flow).

    With `processes` above 1, worker processes start from a forkserver, which
    imports the calling script as its `__main__`: a script must call this
    under `if __name__ == "__main__":` (as `flows/bench_direct.py` does), or
    each worker would run the script again and the run stops with
    WorkerDiedError.
    """
    started_at = dt.datetime.now(dt.UTC)
    return run_steps(
        DirectRunner(),
        RunSettings(
            raw_dir=raw_dir,
            output=OutputPaths(output_dir),
            run_id=new_run_id(started_at),
            started_at=started_at,
            processes=processes,
            **settings,
        ),
    )
