"""The steps of a run: each a plain function of plain values and polars frames.

`flows.steps` lists them (`STEPS`) and sequences them once; the Prefect flow
runs each as a task, `steps.DirectRunner` calls each plainly. The pure work
is in `flows.pipeline` and `flows.stages`; these add the I/O around it and
take their paths from `flows.paths.OutputPaths`. The publish steps look their
stage function up at call time (`state.commit_state`, `write.switch_latest`…),
so a test can replace one.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import logging
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import polars as pl

import flows
from flows import pipeline
from flows.errors import WorkerDiedError
from flows.paths import OutputPaths
from flows.stages import language, manifest, read, report, report_html, state, write
from flows.stages.attribution import CatalogIndex, index_catalog
from flows.stages.catalog import hash_catalog, load_catalog
from flows.stages.pools import process_pool, start_forkserver
from schemas import SCHEMA_VERSION
from schemas.json_schema import json_schema_documents

logger = logging.getLogger(__name__)

#: Files per parse batch: few batches (orchestration stays small), enough to share work.
BATCH_FILES = 5000


class Inputs(TypedDict):
    """What a run starts from."""

    paths: list[str]  # the dump files, relative to the raw dir
    state: state.RunState
    previous_manifest: dict[str, Any] | None


@dataclass(frozen=True)
class RunSettings:
    """One run's identity and knobs (see `rulings_flow` for each)."""

    raw_dir: Path
    output: OutputPaths
    run_id: str
    started_at: dt.datetime
    retention: int = 7
    language_batches: int = 1
    processes: int = 1
    batch_files: int = BATCH_FILES
    max_file_bytes: int = read.MAX_FILE_BYTES
    catalog: Path | None = None
    #: False: read and hash every file, whatever the file index says (for checks).
    trust_metadata: bool = True
    #: False: build every dump's results again, whatever the state holds (for checks).
    reuse_results: bool = True


def new_run_id(started_at: dt.datetime) -> str:
    """A run id: the UTC start time, `%Y%m%dT%H%M%S%fZ` (`write.RUN_ID_PATTERN`)."""
    return started_at.strftime("%Y%m%dT%H%M%S%fZ")


# The steps. Each takes and returns plain values and polars frames.


def load_inputs(raw_dir: Path, output: OutputPaths) -> Inputs:
    """List the raw files; read the state of earlier runs and the latest manifest (I/O only).

    The state and the manifest are read in threads while the files are listed
    (sha256 and Parquet reads release the GIL); an error is the one reading
    them one after the other (files, state, manifest) would raise first.
    """
    target = write.latest_target(output.root)
    published = Path(target).name if target else None
    with ThreadPoolExecutor(2) as pool:
        # Each in a copy of this context: their log lines belong to the run (Prefect).
        loaded = pool.submit(
            contextvars.copy_context().run, state.load_state, output.state, published
        )
        previous = pool.submit(
            contextvars.copy_context().run, write.read_latest_manifest, output.root
        )
        paths = read.list_dump_paths(raw_dir)  # on an error, the pool ends before it is raised
        loaded_state, previous_manifest = write.results_in_order([loaded, previous])
    return Inputs(paths=paths, state=loaded_state, previous_manifest=previous_manifest)


def check_files(
    raw_dir: Path,
    paths: list[str],
    known_ids: pl.Series,
    max_file_bytes: int,
    file_index: pl.DataFrame | None,
) -> pipeline.FileCheck:
    """Stat every file; find those whose metadata changed since the last run (to read).

    See `pipeline.check_files`; `file_index`: the last run's (`state.FILE_INDEX_SCHEMA`).
    """
    return pipeline.check_files(raw_dir, paths, known_ids, max_file_bytes, file_index)


def parse_batch(
    raw_dir: Path,
    paths: pl.Series,
    known_ids: pl.Series,
    parts_dir: Path,
    name: str,
    max_file_bytes: int = read.MAX_FILE_BYTES,
    workers: Executor | None = None,
) -> dict[str, str]:
    """Read, hash and parse one batch of files; write its Parquet parts (`pipeline.parse_batch`).

    `workers`: an executor of `parse_workers` to do the work in (the calling
    thread waits for it; the same value and errors); None: here.

    Raises:
        WorkerDiedError: a worker process ended abruptly (killed, out of memory).

    Returns:
        {part key: Parquet path} (`state.write_parts`), for `assemble_dumps`.
    """
    job = (raw_dir, paths, known_ids, parts_dir, name, max_file_bytes)
    if workers is None:
        return _parse_and_write(*job)
    try:
        return workers.submit(_parse_and_write, *job).result()
    except BrokenProcessPool as exc:
        raise WorkerDiedError(f"parse {name} ran") from exc


def _parse_and_write(
    raw_dir: Path,
    paths: pl.Series,
    known_ids: pl.Series,
    parts_dir: Path,
    name: str,
    max_file_bytes: int,
) -> dict[str, str]:
    batch = pipeline.parse_batch(raw_dir, paths, known_ids, max_file_bytes)
    return state.write_parts(parts_dir, name, {"files": batch["files"], **batch["parsed"]})


#: What the worker processes' forkserver imports once before forking them: the
#: parse (`_parse_and_write`) and the language detection, whose pool comes
#: later in the run from the same forkserver (multiprocessing starts one per
#: process, with the first pool's preload).
WORKER_PRELOAD = [__name__, "flows.stages.language"]


def start_worker_server() -> None:
    """Start the workers' forkserver now: its imports run alongside this process's work.

    For a run known to need `parse_workers` (no parse cache, more than one
    batch); without it the first pool starts the forkserver, and waits for it.
    """
    start_forkserver(WORKER_PRELOAD)


@contextmanager
def parse_workers(processes: int) -> Iterator[Executor | None]:
    """A pool of `processes` worker processes for `parse_batch`; None below 2.

    Parsing is mostly Python, so the batches' threads (Prefect's task runner,
    `steps.DirectRunner`) share one core unless the work runs in processes.
    The workers start from a forkserver (no fork of this threaded process),
    take small arguments (paths and ids) and write their parts themselves, so
    nothing large is pickled. On exit the pool is shut down (its memory is
    freed before language detection); batches not yet started are cancelled.
    """
    if processes < 2:
        yield None
        return
    pool = process_pool(processes, WORKER_PRELOAD)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def assemble_dumps(
    parts: list[dict[str, str]],
    check: pipeline.FileCheck,
    cached: state.ParsedFiles | None,
    results: dict[str, pl.DataFrame] | None,
    today: dt.date,
    catalog_key: str | None = None,
) -> tuple[pipeline.ParsedDumps, pl.Series, state.ParsedFiles, pl.DataFrame, dict[str, int]]:
    """Gather the batches' parts with the files not read and the cached parse; assemble dumps.

    Dumps whose per-dump results (`results`, of the last run) still hold
    today, with the catalog of sha256 `catalog_key` (None: none), are not
    assembled again (`pipeline.reusable_dumps`).

    Returns:
        (parsed dumps (entries, headers and stubs of the dumps to build only),
        the dump_ids whose cached results are reused (String), the parse
        cache for the next run, the file index for the next run, work counts).
    """
    batches = [state.read_parts(p) for p in parts]
    files = pl.concat(
        [check["unchanged"], *(b["files"] for b in batches)], how="vertical_relaxed"
    ).sort("path")
    fresh = pipeline.merge_parsed(
        *(state.ParsedFiles(dumps=b["dumps"], lines=b["lines"]) for b in batches)
    )  # no batch (nothing to read): no dump
    reused, _ = state.split_cached(files, cached)
    parsed_files = pipeline.merge_parsed(reused, fresh)
    reusable = pipeline.reusable_dumps(results, today, catalog_key)
    parsed = pipeline.assemble_dumps(files, parsed_files, today, built=reusable)
    built = parsed["readable"].filter(pl.col("dump_id").is_in(reusable.implode()))["dump_id"]
    counts = {
        "dumps_parsed": fresh["dumps"].height,
        "dumps_reused": reused["dumps"].height,
        "dumps_built": parsed["headers"].height,
    }
    logger.debug(
        "read %d of %d files (the others unchanged by metadata)",
        check["to_read"].len(),
        files.height,
    )
    return parsed, built, parsed_files, pipeline.index_files(check, files), counts


def split_known_texts(
    parsed: pipeline.ParsedDumps, known: pl.DataFrame
) -> tuple[pl.DataFrame, pl.Series]:
    """The texts whose language is known from earlier runs, and the new ones."""
    return pipeline.split_known_texts(parsed, known)


def detect_languages(texts: pl.Series, processes: int) -> pl.DataFrame:
    """Detect the language of a batch of new texts (langdetect in `processes` processes).

    Raises:
        WorkerDiedError: a worker process ended abruptly (killed, out of memory).
    """
    try:
        return language.detect_languages(texts, processes=processes)
    except BrokenProcessPool as exc:
        raise WorkerDiedError("the languages were detected") from exc


def load_catalog_index(catalog: Path, output: OutputPaths) -> tuple[CatalogIndex, bool, str]:
    """The catalog's lookups, from the catalog cache when this catalog was read before.

    Returns:
        (the lookups, True when they came from the cache: this run did not
        parse the catalog, the parse of an enclosing `checked_catalog`
        counting as this run's; the catalog's sha256 hex).
    """
    digest = hash_catalog(catalog)
    tables, reused = load_catalog(catalog, output.catalog_cache, digest)
    return index_catalog(tables), reused, digest


def build_tables(
    parsed: pipeline.ParsedDumps,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    catalog: CatalogIndex | None,
    cached: dict[str, pl.DataFrame] | None,
    reused: pl.Series,
    today: dt.date,
    cached_clusters: pl.DataFrame | None = None,
    catalog_key: str | None = None,
) -> tuple[pipeline.GlobalTables, pipeline.DumpResults]:
    """Build the results of the new dumps, reuse the others' (`cached`), build every table.

    `cached_clusters`: the last run's clusters (`pipeline.cluster_changed_blocks`);
    `catalog_key`: the catalog's sha256 (recorded with the results).

    Returns:
        (the tables and ids, the per-dump results of every current dump for the next run).
    """
    fresh, _ = pipeline.build_dump_results(parsed, languages, today, catalog, catalog_key)
    results = pipeline.combine_results(cached, fresh, reused)
    built = pipeline.build_global_tables(
        results, parsed["readable"], parsed["file_rejects"], registry, catalog, cached_clusters
    )
    return built, results


def validate_tables(built: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Validate every table; move failing rows to rejects; stop on a broken table."""
    return pipeline.validate_tables(built)


def describe_run(
    run: RunSettings,
    inputs: Inputs,
    parsed: pipeline.ParsedDumps,
    built: pipeline.GlobalTables,
    published: dict[str, pl.DataFrame],
    work: dict[str, int],
) -> tuple[dict[str, Any], dict[str, str]]:
    """The run's manifest and its documents (report.md, report.html, JSON Schemas)."""
    run_manifest = manifest.build_manifest(
        run_id=run.run_id,
        started_at=run.started_at,
        finished_at=dt.datetime.now(dt.UTC),
        package_version=flows.__version__,
        schema_version=SCHEMA_VERSION,
        files=parsed["files"],
        tables=published,
        line_accounting=built["line_accounting"],
        ruling_ids=built["ruling_ids"],
        since_previous={
            "previous_run_id": (inputs["previous_manifest"] or {}).get("run_id"),
            **manifest.compare_inputs(inputs["previous_manifest"], parsed["files"]),
        },
        work=work,
    )
    run_manifest["state_recovered"] = inputs["state"]["recovered"]
    documents = {
        "report.md": report.build_report(run_manifest, published) + _recovery_note(inputs["state"]),
        "report.html": report_html.build_report_html(run_manifest, published),
        **json_schema_documents(),  # typed readers work on empty tables too
    }
    return run_manifest, documents


def write_snapshot(
    published: dict[str, pl.DataFrame],
    run_manifest: dict[str, Any],
    output: OutputPaths,
    documents: dict[str, str],
) -> Path:
    """Write the complete snapshot folder, documents included."""
    return write.write_snapshot(
        published, run_manifest, output.root, run_manifest["run_id"], documents
    )


def stage_parse_cache(
    output: OutputPaths, parsed_files: state.ParsedFiles, generation: str
) -> dict[str, dict[str, str]]:
    """Write the next state generation's parse cache early (`state.stage_parse_cache`)."""
    return state.stage_parse_cache(output.state, parsed_files, generation)


def stage_state(
    output: OutputPaths,
    parse_cache: dict[str, dict[str, str]],
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    file_index: pl.DataFrame,
    results: pipeline.DumpResults,
    clusters: pl.DataFrame,
    generation: str,
) -> state.StateRecord:
    """Write the rest of the next state generation (caches, results, file index, registry) and
    its record, not yet current; `parse_cache`: what `stage_parse_cache` wrote."""
    return state.stage_state(
        output.state,
        parse_cache,
        languages,
        registry,
        generation,
        file_index,
        dict(results),
        clusters,
    )


def switch_latest(output: OutputPaths, snapshot: Path) -> Path:
    """Point `latest` at the new snapshot atomically."""
    return write.switch_latest(output.root, snapshot)


def commit_state(output: OutputPaths, record: state.StateRecord, used: str | None = None) -> None:
    """Make the staged state generation current (the last step of a publish)."""
    state.commit_state(output.state, record, used)


def prune_snapshots(output: OutputPaths, retention: int) -> list[str]:
    """Delete snapshots beyond the newest `retention` (never the one `latest` points at)."""
    return write.prune_snapshots(output.root, retention)


def _recovery_note(loaded: state.RunState) -> str:
    """A report section when the state had to be recovered (empty otherwise)."""
    if loaded["recovered"] is None:
        return ""
    return f"\n## State recovered\n\n**Warning**: {loaded['recovered']}\n"
