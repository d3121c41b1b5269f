"""The run: raw dumps to a published snapshot, as one sequence of steps.

`run_steps` is the only composition of a run; a cold run is the same run with
an empty state. Each step is a function of `flows.disk` (reads or writes the
disk) or `flows.stages` (pure), referenced here and executed by a `Runner`:
`DirectRunner` calls each step plainly in this process (tests, the
benchmark's "without Prefect", `run_direct`); the Prefect flow
(`flows.prefect_flow`) passes a runner that runs each step as a task and
retries the `flows.disk` ones on transient OS errors. Submitted steps (parse
and language batches) may run alongside each other: in threads here, on the
flow's task runner (or Dask workers) there; their heavy work runs in worker
processes (`flows.processes.pools`).

The sequence, under the output dir's run lock (`disk.lock`):

1. the catalog (with `--catalog`): hashed, read or taken from its cache, indexed;
2. the inputs: the raw dir's listing, the state of earlier runs, the published manifest;
3. every file stat'ed; those whose metadata changed are read and parsed in
   batches (Parquet parts), then every dump assembled (`dumps.assemble_dumps`);
4. the languages of new texts detected (the parse cache is staged meanwhile);
5. each new dump's results built (`dumps.build_dump_results`), then the
   tables across dumps (`tables.build_global_tables`), validated;
6. the manifest and documents described, the snapshot staged and completed;
7. publish: the state staged, `latest` switched, the state committed (on any
   failure before the commit, everything is rolled back); old snapshots pruned.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypedDict

import polars as pl

from flows import __version__
from flows.disk import catalog, generation, raw, snapshot, state
from flows.disk.files import remove_tree
from flows.disk.lock import hold_run_lock
from flows.disk.paths import OutputPaths
from flows.errors import RulingsError
from flows.processes import pools
from flows.processes.hooks import pause_point
from flows.stages import attribution, detector, dumps, manifest, parse, reuse, tables
from flows.stages.attribution import CatalogIndex

logger = logging.getLogger(__name__)

#: Files per parse batch: few batches (orchestration stays small), enough to share work.
BATCH_FILES = 5000


@dataclass(frozen=True)
class RunSettings:
    """One run's identity and knobs (see `prefect_flow.rulings_flow` for each)."""

    raw_dir: Path
    output: OutputPaths
    run_id: str
    started_at: dt.datetime
    retention: int = 7
    language_batches: int = 1
    processes: int = 1
    batch_files: int = BATCH_FILES
    max_file_bytes: int = raw.MAX_FILE_BYTES
    catalog: Path | None = None
    #: False: read and hash every file, whatever the file index says (for checks).
    trust_metadata: bool = True
    #: False: build every dump's results again, whatever the state holds (for checks).
    reuse_results: bool = True


def new_run_id(started_at: dt.datetime) -> str:
    """A run id: the UTC start time, `%Y%m%dT%H%M%S%fZ` (`snapshot.RUN_ID_PATTERN`)."""
    return started_at.strftime("%Y%m%dT%H%M%S%fZ")


class Pending(Protocol):
    """A submitted step: `result()` waits for its value (or raises its error)."""

    def result(self) -> Any: ...


class Runner(Protocol):
    """Executes steps: functions of `flows.disk` and `flows.stages`."""

    def call(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a step and return its value."""
        ...

    def submit(self, step: Callable[..., Any], *args: Any) -> Pending:
        """Start a step that may run alongside others; `result()` gives its value."""
        ...


class DirectRunner:
    """Calls each step plainly in this process (no Prefect); submitted steps run in threads.

    `threads`: submitted steps at a time (parse and language batches), as the
    flow's task runner (`prefect_flow.LOCAL_TASK_THREADS`: one per core).
    `keep`: steps whose values are kept in `kept` (step -> its values, in
    call order), for a look at what the run made on the way: the lines of
    `dumps.build_dump_results`, say.
    """

    def __init__(
        self, threads: int = os.cpu_count() or 1, keep: tuple[Callable[..., Any], ...] = ()
    ) -> None:
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="step")
        self.kept: dict[Callable[..., Any], list[Any]] = {step: [] for step in keep}

    def call(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a step and return its value."""
        value = step(*args, **kwargs)
        if step in self.kept:
            self.kept[step].append(value)
        return value

    def submit(self, step: Callable[..., Any], *args: Any) -> Pending:
        """Start a step in a thread; `result()` waits for its value (or raises its error)."""
        return self._threads.submit(self.call, step, *args)


class RunResult(TypedDict):
    """What `run_steps` returns."""

    manifest: dict[str, Any]
    snapshot: Path
    report: str  # report.md's text
    tables: dict[str, pl.DataFrame]  # the published tables, as written


def run_steps(runner: Runner, run: RunSettings) -> RunResult:
    """Every step of a run, under the output dir's run lock: raw dumps to a published snapshot.

    Raises:
        RunLockedError, RawDirError, ContractError, PublishError: see `prefect_flow.rulings_flow`.
        RulingsError: max_file_bytes or retention below 1.
    """
    if run.max_file_bytes < 1 or run.retention < 1:  # deployment parameters come unchecked
        raise RulingsError(
            f"max_file_bytes ({run.max_file_bytes}) and retention ({run.retention}) must be "
            "at least 1: nothing was read"
        )
    snapshot.check_raw_output_overlap(run.raw_dir, run.output.root)  # before anything is read
    with hold_run_lock(run.output.root):
        return _sequence(runner, run)


class _Parsed(TypedDict):
    """What `_parse` gives the rest of the run."""

    dumps: dumps.ParsedDumps  # entries, headers and stubs of the dumps to build
    reused_ids: pl.Series  # dump_ids whose cached results are reused (String)
    parse_cache: parse.ParsedFiles | None  # the next run's parse cache (let go once staged)
    file_index: pl.DataFrame  # the next run's file index
    work: dict[str, int]  # dumps_parsed, dumps_reused, dumps_built


def _sequence(runner: Runner, run: RunSettings) -> RunResult:
    out = run.output
    index, catalog_cached, catalog_key = _load_catalog(runner, run)
    inputs = runner.call(state.load_inputs, run.raw_dir, out)
    cached_results = inputs["state"]["results"] if run.reuse_results else None
    parsed = _parse(runner, run, inputs, cached_results, catalog_key)
    try:
        languages, parse_cache = _languages(runner, run, parsed, inputs["state"]["languages"])
        fresh, _ = runner.call(
            dumps.build_dump_results,
            parsed["dumps"],
            languages["languages"],
            run.started_at.date(),
            index,
            catalog_key,
        )  # the second value, every line with its kind, only tests look at
        results = dumps.combine_results(cached_results, fresh, parsed["reused_ids"])
        built = runner.call(
            tables.build_global_tables,
            results,
            parsed["dumps"]["readable"],
            parsed["dumps"]["file_rejects"],
            inputs["state"]["registry"],
            index,
            inputs["state"]["clusters"] if run.reuse_results else None,
        )
        published = runner.call(tables.validate_tables, built["tables"])
        work = {
            **parsed["work"],
            "languages_detected": languages["detected"],
            "languages_reused": languages["reused"],
            **({"catalog_parsed": int(not catalog_cached)} if run.catalog else {}),
        }
        run_manifest, documents = runner.call(
            manifest.describe_run,
            run_id=run.run_id,
            started_at=run.started_at,
            finished_at=dt.datetime.now(dt.UTC),
            package_version=__version__,
            files=parsed["dumps"]["files"],
            published=published,
            line_accounting=built["line_accounting"],
            ruling_ids=built["ruling_ids"],
            previous_manifest=inputs["previous_manifest"],
            work=work,
            state_recovered=inputs["state"]["recovered"],
        )
        runner.call(
            snapshot.stage_snapshot, published, run_manifest, out.root, run.run_id, documents
        )
        pause_point("snapshot_staged")
        written = runner.call(snapshot.complete_snapshot, out.root, run.run_id)
    except BaseException:
        _discard_run(out, run.run_id)
        raise
    next_languages = reuse.next_language_cache(
        inputs["state"]["languages"], languages["languages"], parsed["reused_ids"].len() > 0
    )
    staged = (parse_cache, next_languages, built["registry"], parsed["file_index"], results)
    _publish(runner, run, written, staged, built["clusters"], inputs["state"]["generation"])
    _prune(runner, out, run.retention)
    rows = run_manifest["rows"]
    logger.info("published %s (%d tables, %s rows)", written, len(rows), f"{sum(rows.values()):,}")
    return RunResult(
        manifest=run_manifest, snapshot=written, report=documents["report.md"], tables=published
    )


def _load_catalog(runner: Runner, run: RunSettings) -> tuple[CatalogIndex | None, bool, str | None]:
    """(the catalog's lookups, whether they came from its cache, its sha256); all None without."""
    if run.catalog is None:
        return None, True, None
    digest = runner.call(catalog.hash_catalog, run.catalog)
    cards, cached = runner.call(catalog.load_catalog, run.catalog, run.output.catalog_cache, digest)
    return runner.call(attribution.index_catalog, cards), cached, digest


def _parse(
    runner: Runner,
    run: RunSettings,
    inputs: state.Inputs,
    cached_results: dict[str, pl.DataFrame] | None,
    catalog_key: str | None,
) -> _Parsed:
    """Stat every file, parse those to read in batches (Parquet parts), assemble every dump.

    Dumps whose cached results still hold today with this catalog are not
    assembled again (`reuse.reusable_dumps`). The parts are removed afterwards
    however the run goes on, an interrupt (Ctrl-C) included; the run lock
    keeps other runs out of them.
    """
    cached = inputs["state"]["parsed"]
    known_ids = cached["dumps"]["dump_id"] if cached else pl.Series("dump_id", [], pl.String)
    if run.processes > 1 and cached is None and len(inputs["paths"]) > run.batch_files:
        pools.start_worker_server()  # every file is read, in batches: workers will be needed
    index = inputs["state"]["file_index"] if run.trust_metadata else None
    check = runner.call(
        raw.check_files, run.raw_dir, inputs["paths"], known_ids, run.max_file_bytes, index
    )
    try:
        batch_files, fresh = _parse_batches(runner, run, check["to_read"], known_ids)
    finally:
        remove_tree(run.output.parts_root)
    files = pl.concat([check["unchanged"], *batch_files], how="vertical_relaxed").sort("path")
    reused, _ = reuse.split_cached(files, cached)
    parse_cache = parse.merge_parsed(reused, fresh)
    today = run.started_at.date()
    reusable = reuse.reusable_dumps(cached_results, today, catalog_key)
    assembled = runner.call(dumps.assemble_dumps, files, parse_cache, today, reusable)
    logger.debug("read %d of %d files", check["to_read"].len(), files.height)
    return _Parsed(
        dumps=assembled,
        reused_ids=assembled["readable"].filter(pl.col("dump_id").is_in(reusable.implode()))[
            "dump_id"
        ],
        parse_cache=parse_cache,
        file_index=reuse.index_files(check["stats"], files),
        work={
            "dumps_parsed": fresh["dumps"].height,
            "dumps_reused": reused["dumps"].height,
            "dumps_built": assembled["headers"].height,
        },
    )


def _parse_batches(
    runner: Runner, run: RunSettings, to_read: pl.Series, known_ids: pl.Series
) -> tuple[list[pl.DataFrame], parse.ParsedFiles]:
    """Read and parse `to_read` in batches, in worker processes when there are several.

    Returns:
        `raw.read_parts` of the batches' parts.
    """
    batches = [
        to_read.slice(i, run.batch_files) for i in range(0, to_read.len(), run.batch_files)
    ]  # Series, not lists: Prefect does not walk a Series
    with pools.parse_workers(run.processes if len(batches) > 1 else 1) as workers:
        pending = [
            runner.submit(
                raw.parse_batch,
                run.raw_dir,
                batch,
                known_ids,
                run.output.parts(run.run_id),
                f"batch{i:05d}",
                run.max_file_bytes,
                workers,
            )
            for i, batch in enumerate(batches)
        ]
        parts = _results(pending)  # every batch ended before the workers stop
    return runner.call(raw.read_parts, parts)


def _languages(
    runner: Runner, run: RunSettings, parsed: _Parsed, known: pl.DataFrame
) -> tuple[reuse.LanguageResults, dict[str, dict[str, str]]]:
    """Detect the languages of new texts; meanwhile stage the parse cache and let it go.

    Returns:
        (the languages of every current text, the parse cache's record entries).
    """
    texts = dumps.collect_texts(parsed["dumps"])
    reused, new_texts = runner.call(reuse.split_known_texts, texts, known)
    probe = partial(pools.probe_in_workers, processes=run.processes)
    size = max(1, -(-new_texts.len() // max(1, run.language_batches)))
    chunks = [new_texts.slice(i, size) for i in range(0, new_texts.len(), size)] or [new_texts]
    fresh = [runner.submit(detector.detect_languages, chunk, probe) for chunk in chunks]
    try:  # while the languages are detected: the parse cache is written, then let go
        parse_cache = runner.call(
            generation.stage_parse_cache, run.output.state, parsed["parse_cache"], run.run_id
        )
    finally:
        parsed["parse_cache"] = None  # its frames (the largest state files) are let go
        found = _results(fresh)  # every batch ended, even after a failed write
    return reuse.combine_languages(reused, found, new_texts), parse_cache


def _publish(
    runner: Runner,
    run: RunSettings,
    written: Path,
    staged: tuple[Any, ...],
    clusters: pl.DataFrame,
    state_read: str | None,
) -> None:
    """Stage the new state, switch `latest`, commit the state; on any failure roll back.

    `staged`: (the parse cache's record entries, the language cache, the id
    registry, the file index, the per-dump results) for `generation.stage_state`;
    `state_read`: the generation the run's state came from (the next fallback).

    After a failure `latest` points where it pointed before, the new
    snapshot folder and the staged state are removed, and the error is raised;
    unless the state was committed already (an interrupt in the commit's last
    instant): then the run stays published, `latest` and the state agreeing.
    """
    out = run.output
    previous = snapshot.latest_target(out.root)
    parse_cache, languages, registry, file_index, results = staged
    try:
        pause_point("snapshot_written")
        record = runner.call(
            generation.stage_state,
            out.state,
            parse_cache,
            languages,
            registry,
            run.run_id,
            file_index,
            dict(results),
            clusters,
        )
        pause_point("state_staged")
        runner.call(snapshot.switch_latest, out.root, written)
        pause_point("latest_switched")
        runner.call(generation.commit_state, out.state, record, state_read)
        pause_point("state_committed")
    except BaseException:
        if not generation.is_committed(out.state, run.run_id):  # committed: latest and state agree
            _roll_back(out, previous, run.run_id)
        raise


def _prune(runner: Runner, out: OutputPaths, retention: int) -> None:
    """Delete snapshots beyond the newest `retention`; best effort (the run is published)."""
    try:
        runner.call(snapshot.prune_snapshots, out.root, max(1, retention))
    except Exception as exc:
        logger.warning("retention skipped (the run is published): %s", exc)


def _discard_run(out: OutputPaths, run_id: str) -> None:
    """Remove what an unpublished run wrote: its snapshot, half-written (`.partial`) or
    whole (a Ctrl-C just after it), and its staged state (the parse cache first)."""
    remove_tree(out.snapshot_staging(run_id))
    remove_tree(out.snapshot(run_id))
    generation.discard_state(out.state, run_id)


def _roll_back(out: OutputPaths, previous: str | None, run_id: str) -> None:
    """Undo a publish that failed halfway (best effort: each step is tried)."""
    steps = (
        lambda: snapshot.restore_latest(out.root, previous),
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


def run_direct(
    raw_dir: Path,
    output_dir: Path,
    processes: int = 1,
    started_at: dt.datetime | None = None,
    runner: DirectRunner | None = None,
    **settings: Any,
) -> RunResult:
    """A whole run without Prefect (the same steps, the same sequence as the flow).

    `started_at`: the run's UTC start (its run id and date; default: now).
    `runner`: a `DirectRunner` of the caller's (to keep steps' values).
    `settings`: more `RunSettings` fields (run_id, catalog, batch_files…).
    With `processes` above 1, worker processes start from a forkserver, which
    imports the calling script as its `__main__`: a script must call this
    under `if __name__ == "__main__":` (as `bench/direct.py` does), or each
    worker would run the script again and the run stops with WorkerDiedError.
    """
    started_at = started_at or dt.datetime.now(dt.UTC)
    settings.setdefault("run_id", new_run_id(started_at))
    return run_steps(
        runner or DirectRunner(),
        RunSettings(
            raw_dir=raw_dir,
            output=OutputPaths(output_dir),
            started_at=started_at,
            processes=processes,
            **settings,
        ),
    )
