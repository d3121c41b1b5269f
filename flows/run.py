"""The run: raw dumps to a published snapshot, as one sequence of steps.

`run_steps` is the only composition of a run; a cold run is the same run with an empty state. Each
step is a function of `flows.disk` (reads or writes the disk) or `flows.stages` (pure), referenced
here and executed by a runner (`processes.runner`): plainly in this process (`run_direct`), or as
Prefect tasks (`prefect_flow`), the `flows.disk` ones retried on transient OS errors.

Under the output dir's run lock (`disk.lock`), after committing the state of a
snapshot an earlier run left published uncommitted (`generation.roll_forward`):
1. the catalog (with `--catalog`): hashed, read or taken from its cache, indexed;
2. the inputs: the raw dir's listing, the state of earlier runs, the published manifest;
3. every file stat'ed (on a cold run by its batch); those whose metadata changed are read and
   parsed in batches (Parquet parts, in worker processes when there are several: another
   builds wordfreq's common lists meanwhile), then every dump assembled (`dumps.assemble_dumps`);
4. the languages of new texts detected (meanwhile: the parse cache staged, the cache keys found);
5. each new dump's results built, then the tables across dumps, validated (meanwhile the
   word lists held, the command line's preload among them, are kept in the state's cache);
6. the manifest and documents described, the snapshot staged and completed;
7. publish: the state staged, `latest` switched, the state committed (on any
   failure before the commit, everything is rolled back); old snapshots pruned.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypedDict

import polars as pl

from flows import __version__
from flows.disk import catalog, generation, raw, snapshot, state, word_lists
from flows.disk.files import remove_tree
from flows.disk.lock import hold_run_lock
from flows.disk.paths import OutputPaths, check_raw_output_overlap
from flows.errors import PublishError, RulingsError
from flows.processes import pools
from flows.processes.hooks import pause_point
from flows.processes.runner import DirectRunner, Pending, Runner, call_beside, results_of
from flows.stages import attribution, detector, dumps, manifest, parse, reuse, tables, word_scores
from flows.stages.attribution import CatalogIndex

logger = logging.getLogger(__name__)

#: Files per parse batch (a task each); worker processes take up to twice that (`pools.batch_size`).
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
        RulingsError: max_file_bytes, retention or batch_files below 1.
    """
    if min(run.max_file_bytes, run.retention, run.batch_files) < 1:  # unchecked in deployments
        raise RulingsError(
            f"max_file_bytes ({run.max_file_bytes}), retention ({run.retention}) and batch_files "
            f"({run.batch_files}) must be at least 1: nothing was read"
        )
    check_raw_output_overlap(run.raw_dir, run.output.root)  # before anything is read
    with hold_run_lock(run.output.root):
        return _sequence(runner, run)


class _Parsed(TypedDict):
    """What `_parse` gives the rest of the run."""

    dumps: dumps.ParsedDumps  # entries, headers and stubs of the dumps to build
    reused_ids: pl.Series  # dump_ids whose cached results are reused (String)
    parse_cache: parse.ParsedFiles | None  # the next run's parse cache (let go once staged)
    file_index: pl.DataFrame  # the next run's file index
    work: dict[str, int]  # dumps_parsed, dumps_reused, dumps_built
    cached_results: dict[str, pl.DataFrame] | None  # the state's per-dump results (to reuse)


class _Built(TypedDict):
    """What `_build` gives the publish."""

    languages: reuse.LanguageResults  # every current text's language
    parse_cache: dict[str, dict[str, str]]  # the staged parse cache's record entries
    results: dumps.DumpResults  # every current dump's, for the next run
    tables: tables.GlobalTables  # the tables across dumps, the registry, the clusters
    published: dict[str, pl.DataFrame]  # the tables, validated


def _sequence(runner: Runner, run: RunSettings) -> RunResult:
    out = run.output
    snapshot.check_new_run_id(out.root, run.run_id)  # before a rollback could remove its folder
    runner.call(generation.roll_forward, out)  # a publish a failed rollback left uncommitted
    index, catalog_cached, catalog_key = _load_catalog(runner, run)
    inputs = runner.call(state.load_inputs, run.raw_dir, out)
    parsed = _parse(runner, run, inputs, catalog_key)
    previous = snapshot.latest_target(out.root)  # where `latest` points before this run
    try:
        built = _build(runner, run, inputs, parsed, index, catalog_key)
        work = {
            **parsed["work"],
            "languages_detected": built["languages"]["detected"],
            "languages_reused": built["languages"]["reused"],
            **({"catalog_parsed": int(not catalog_cached)} if run.catalog else {}),
        }
        run_manifest, documents = runner.call(
            manifest.describe_run,
            run_id=run.run_id,
            started_at=run.started_at,
            finished_at=dt.datetime.now(dt.UTC),
            package_version=__version__,
            files=parsed["dumps"]["files"],
            published=built["published"],
            line_accounting=built["tables"]["line_accounting"],
            ruling_ids=built["tables"]["ruling_ids"],
            previous_manifest=inputs["previous_manifest"],
            work=work,
            state_recovered=inputs["state"]["recovered"],
        )
        published = built["published"]
        runner.call(
            snapshot.stage_snapshot, published, run_manifest, out.root, run.run_id, documents
        )
        pause_point("snapshot_staged")
        written = runner.call(snapshot.complete_snapshot, out.root, run.run_id)
        _publish(runner, run, written, inputs["state"], parsed, built)
    except BaseException as exc:  # a Ctrl-C between two steps too: nothing is left half-published
        if generation.is_committed(out.state, run.run_id):  # committed: latest and state agree
            raise
        left = generation.roll_back(out, previous, run.run_id)
        if left is None or not isinstance(exc, Exception):
            raise
        raise PublishError(f"{exc}; {left}") from exc
    try:  # retention, best effort (the run is published); `previous` is kept
        runner.call(snapshot.prune_snapshots, out.root, max(1, run.retention), previous)
    except Exception as exc:
        logger.warning("retention skipped (the run is published): %s", exc)
    rows = run_manifest["rows"]
    logger.info("published %s (%d tables, %s rows)", written, len(rows), f"{sum(rows.values()):,}")
    return RunResult(
        manifest=run_manifest, snapshot=written, report=documents["report.md"], tables=published
    )


def _build(
    runner: Runner,
    run: RunSettings,
    inputs: state.Inputs,
    parsed: _Parsed,
    index: CatalogIndex | None,
    catalog_key: str | None,
) -> _Built:
    """Languages, then the new dumps' results, then the tables across every dump, validated."""
    languages, parse_cache, kept = _languages(runner, run, parsed, inputs["state"]["languages"])
    try:
        fresh, _ = runner.call(
            dumps.build_dump_results,
            parsed["dumps"],
            languages["languages"],
            run.started_at.date(),
            index,
            catalog_key,
        )  # the second value, every line with its kind, only tests look at
        results = dumps.combine_results(parsed["cached_results"], fresh, parsed["reused_ids"])
        global_tables = runner.call(
            tables.build_global_tables,
            results,
            parsed["dumps"]["readable"],
            parsed["dumps"]["file_rejects"],
            inputs["state"]["registry"],
            index,
            inputs["state"]["clusters"] if run.reuse_results else None,
        )
    finally:  # the word lists kept before the run goes on, or rolls back (a failed keep raises)
        results_of([kept])
    published = runner.call(tables.validate_tables, global_tables["tables"])
    return _Built(
        languages=languages,
        parse_cache=parse_cache,
        results=results,
        tables=global_tables,
        published=published,
    )


def _load_catalog(runner: Runner, run: RunSettings) -> tuple[CatalogIndex | None, bool, str | None]:
    """(the catalog's lookups, whether they came from its cache, its sha256); all None without."""
    if run.catalog is None:
        return None, True, None
    digest = runner.call(catalog.hash_catalog, run.catalog)
    cards, cached = runner.call(catalog.load_catalog, run.catalog, run.output.catalog_cache, digest)
    return runner.call(attribution.index_catalog, cards), cached, digest


def _parse(
    runner: Runner, run: RunSettings, inputs: state.Inputs, catalog_key: str | None
) -> _Parsed:
    """Stat every file, parse those to read in batches (Parquet parts), assemble every dump.

    Dumps whose cached results still hold today with this catalog are not
    assembled again (`reuse.reusable_dumps`). The parts are removed afterwards
    however the run goes on, an interrupt (Ctrl-C) included; the run lock
    keeps other runs out of them.
    """
    cached = inputs["state"]["parsed"]
    cached_results = inputs["state"]["results"] if run.reuse_results else None
    known_ids = cached["dumps"]["dump_id"] if cached else pl.Series("dump_id", [], pl.String)
    if run.processes > 1 and cached is None and len(inputs["paths"]) > run.batch_files:
        pools.start_worker_server()  # every file is read, in batches: workers will be needed
        pools.preload_word_lists(word_lists.word_list_cache(run.output.word_lists))  # meanwhile
    index = inputs["state"]["file_index"] if run.trust_metadata else None
    check = runner.call(
        raw.check_files, run.raw_dir, inputs["paths"], known_ids, run.max_file_bytes, index
    )
    try:
        batch_files, fresh, stats = _parse_batches(runner, run, check, known_ids)
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
        file_index=reuse.index_files(stats, files),
        work={
            "dumps_parsed": fresh["dumps"].height,
            "dumps_reused": reused["dumps"].height,
            "dumps_built": assembled["headers"].height,
        },
        cached_results=cached_results,
    )


def _parse_batches(
    runner: Runner, run: RunSettings, check: raw.FileCheck, known_ids: pl.Series
) -> tuple[list[pl.DataFrame], parse.ParsedFiles, pl.DataFrame]:
    """Read and parse `check["to_read"]` in batches (in worker processes when there are several,
    which stat their files on a cold run): `raw.read_parts`, and every file's STAT_SCHEMA stats."""
    to_read = check["to_read"]
    size = pools.batch_size(to_read.len(), run.batch_files, run.processes)
    batches = [to_read.slice(i, size) for i in range(0, to_read.len(), size)]  # Series: not walked
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
                check["stats"] is None,  # take_stats: a cold run
            )
            for i, batch in enumerate(batches)
        ]
        parts = results_of(pending)  # every batch ended before the workers stop
    stats = runner.call(raw.read_stats, parts) if check["stats"] is None else check["stats"]
    return *runner.call(raw.read_parts, parts), stats


def _languages(
    runner: Runner, run: RunSettings, parsed: _Parsed, known: pl.DataFrame
) -> tuple[reuse.LanguageResults, dict[str, dict[str, str]], Pending]:
    """Detect the languages of new texts; meanwhile stage the parse cache and let it go. Returns
    every current text's language, the parse cache's record entries and the keeping of the word
    lists this process holds (`call_beside`: it runs while the results are built)."""
    texts = dumps.collect_texts(parsed["dumps"])
    reused, new_texts = runner.call(reuse.split_known_texts, texts, known)
    lists = word_lists.word_list_cache(run.output.word_lists)  # wordfreq's, kept in the state
    probe = partial(pools.probe_in_workers, processes=run.processes, word_lists=lists)
    size = max(1, -(-new_texts.len() // max(1, run.language_batches)))
    chunks = [new_texts.slice(i, size) for i in range(0, new_texts.len(), size)] or [new_texts]
    fresh = [runner.submit(detector.detect_languages, chunk, probe, lists) for chunk in chunks]
    try:  # while the languages are detected: the parse cache is written, then let go
        parse_cache = runner.call(
            generation.stage_parse_cache, run.output.state, parsed["parse_cache"], run.run_id
        )
        held = word_scores.held_word_lists()  # the CLI's preload's: kept while results are built
        runner.call(generation.state_cache_keys)  # stage_state's, found meanwhile
    finally:
        parsed["parse_cache"] = None  # its frames (the largest state files) are let go
        found = results_of(fresh)  # every batch ended, even after a failed write
    kept = call_beside(runner, word_lists.keep_held_lists, run.output.word_lists, held)
    return reuse.combine_languages(reused, found, new_texts), parse_cache, kept


def _publish(
    runner: Runner,
    run: RunSettings,
    written: Path,
    loaded: state.RunState,
    parsed: _Parsed,
    built: _Built,
) -> None:
    """Stage the new state, switch `latest`, commit the state.

    On any failure, here or in the steps before it (from the first write of the snapshot),
    `_sequence` rolls back: `latest` points where it pointed before, the new snapshot folder
    and the staged state are removed, and the error is raised; unless the state was committed
    already (an interrupt in the commit's last instant): then the run stays published,
    `latest` and the state agreeing. `loaded`: the state the run read (its generation becomes
    the fallback).
    """
    out = run.output
    languages = reuse.next_language_cache(
        loaded["languages"], built["languages"]["languages"], parsed["reused_ids"].len() > 0
    )
    pause_point("snapshot_written")
    record = runner.call(
        generation.stage_state,
        out.state,
        built["parse_cache"],
        languages,
        built["tables"]["registry"],
        run.run_id,
        parsed["file_index"],
        dict(built["results"]),
        built["tables"]["clusters"],
    )
    pause_point("state_staged")
    runner.call(snapshot.switch_latest, out.root, written)
    pause_point("latest_switched")
    runner.call(generation.commit_state, out.state, record, loaded["generation"], run.raw_dir)
    pause_point("state_committed")


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
