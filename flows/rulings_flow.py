"""The nightly Prefect flow: raw dumps in, a validated snapshot out.

This is the only module that imports Prefect. Each task wraps pure steps from
`flows.pipeline` and `flows.stages`; the flow sequences them under the output
dir's run lock, validates every table against `schemas`, publishes, saves the
state for the next run, and applies retention. Tasks use no Prefect cache
(`NO_CACHE`): a path argument does not change when a file's bytes do; the
incremental work is done by our own content-hash caches (`stages.state`).

Environment (read by Prefect; the CLI sets quiet defaults for offline machines):
    PREFECT_API_URL: a Prefect server; unset runs on a temporary local server.
    PREFECT_SERVER_ANALYTICS_ENABLED, DO_NOT_TRACK: telemetry (off in the CLI).
    PREFECT_LOGGING_LEVEL: console level of Prefect's own logs (WARNING in the CLI).
"""

from __future__ import annotations

import datetime as dt
import errno
import logging
import os
import sys
from pathlib import Path
from typing import Any, TypedDict

import polars as pl
from prefect import flow, serve, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.deployments.runner import RunnerDeployment
from prefect.schedules import Cron
from prefect.states import State
from prefect.utilities.annotations import quote

import flows
from flows import pipeline
from flows.hooks import pause_point
from flows.stages import language, manifest, read, report, report_html, state, write
from flows.stages.attribution import CatalogIndex, index_catalog
from flows.stages.catalog import load_catalog
from flows.stages.runlock import hold_run_lock
from schemas import SCHEMA_VERSION
from schemas.json_schema import json_schema_documents

#: Deployment defaults: the nightly refresh at 03:00 UTC, the last 7 snapshots kept.
NIGHTLY_CRON = "0 3 * * *"
NIGHTLY_TIMEZONE = "UTC"
DEFAULT_RETENTION = 7
DEPLOYMENT_NAME = "nightly"
#: One nightly run at a time (a second one waits; the run lock would stop it anyway).
NIGHTLY_CONCURRENCY_LIMIT = 1

#: The flow's own lines; with the stages' under `flows`, shown by the CLI and sent to the API.
logger = logging.getLogger(__name__)
# The stages' INFO lines go to the Prefect API (PREFECT_LOGGING_EXTRA_LOGGERS=flows); a
# served flow run's process has no other place that sets their level.
if logging.getLogger("flows").level == logging.NOTSET:
    logging.getLogger("flows").setLevel(logging.INFO)


#: OS errors worth retrying: the same call may well succeed a moment later. A
#: permission error, a folder where a file should be or a vanished file fails at once.
TRANSIENT_ERRNOS = frozenset(
    {errno.EAGAIN, errno.EBUSY, errno.EINTR, errno.EIO, errno.ESTALE, errno.ETIMEDOUT}
)


def is_transient(exc: BaseException) -> bool:
    """True for an OSError whose errno is in `TRANSIENT_ERRNOS`."""
    return isinstance(exc, OSError) and exc.errno in TRANSIENT_ERRNOS


def _retry_transient(task: Any, task_run: Any, state: State) -> bool:
    """Prefect retry condition: retry a task only on a transient OS error."""
    try:
        state.result()
    except Exception as exc:
        return is_transient(exc)
    return False


_IO_RETRIES: dict[str, Any] = {
    "retries": 3,
    "retry_delay_seconds": [1, 4, 16],  # exponential backoff
    "retry_condition_fn": _retry_transient,
    "cache_policy": NO_CACHE,
}


#: Files per parse task: few tasks (orchestration stays small), enough to share work.
BATCH_FILES = 5000


class Inputs(TypedDict):
    """What a run starts from."""

    paths: list[str]  # the dump files, relative to the raw dir
    state: state.RunState
    previous_manifest: dict[str, Any] | None


@task(**_IO_RETRIES)
def load_inputs_task(raw_dir: Path, output_dir: Path) -> Inputs:
    """List the raw files; read the state of earlier runs and the latest manifest (I/O only)."""
    return Inputs(
        paths=read.list_dump_paths(raw_dir),
        state=state.load_state(output_dir / "state", published=_published_run_id(output_dir)),
        previous_manifest=write.read_latest_manifest(output_dir),
    )


@task(**_IO_RETRIES)
def parse_batch_task(
    raw_dir: Path,
    paths: pl.Series,
    known_ids: pl.Series,
    parts_dir: Path,
    name: str,
    max_file_bytes: int = read.MAX_FILE_BYTES,
) -> dict[str, str]:
    """Read, hash and parse one batch of files (on a worker); write its Parquet parts."""
    batch = pipeline.parse_batch(raw_dir, paths, known_ids, max_file_bytes)
    return state.write_parts(parts_dir, name, {"files": batch["files"], **batch["parsed"]})


@task(cache_policy=NO_CACHE)
def assemble_dumps_task(
    parts: list[dict[str, str]], cached: state.ParsedFiles | None, today: dt.date
) -> tuple[pipeline.ParsedDumps, state.ParsedFiles, dict[str, int]]:
    """Gather the workers' parts with the cached parse; find entries, headers and stubs."""
    batches = [state.read_parts(p) for p in parts]
    files = pl.concat([b["files"] for b in batches]).sort("path")
    fresh = pipeline.merge_parsed(
        *(state.ParsedFiles(dumps=b["dumps"], lines=b["lines"]) for b in batches)
    )
    reused, _ = state.split_cached(files, cached)
    parsed_files = pipeline.merge_parsed(reused, fresh)
    counts = {"dumps_parsed": fresh["dumps"].height, "dumps_reused": reused["dumps"].height}
    return pipeline.assemble_dumps(files, parsed_files, today), parsed_files, counts


@task(cache_policy=NO_CACHE)
def split_known_texts_task(
    parsed: pipeline.ParsedDumps, known: pl.DataFrame
) -> tuple[pl.DataFrame, pl.Series]:
    """The texts whose language is known from earlier runs, and the new ones."""
    return pipeline.split_known_texts(parsed, known)


@task(cache_policy=NO_CACHE)
def detect_languages_task(texts: pl.Series, processes: int) -> pl.DataFrame:
    """Detect the language of a batch of new texts (langdetect in `processes` processes)."""
    return language.detect_languages(texts, processes=processes)


@task(**_IO_RETRIES)
def load_catalog_task(catalog: Path, output_dir: Path) -> tuple[CatalogIndex, bool]:
    """The catalog's lookups, from `state/catalog/` when this catalog was read before."""
    tables, reused = load_catalog(catalog, output_dir / "state" / "catalog")
    return index_catalog(tables), reused


@task(cache_policy=NO_CACHE)
def build_tables_task(
    parsed: pipeline.ParsedDumps,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    catalog: CatalogIndex | None = None,
) -> pipeline.BuiltTables:
    """Separate translations, deduplicate rulings (ids from the registry), build every table."""
    return pipeline.build_tables(parsed, languages, registry, catalog)


@task(cache_policy=NO_CACHE)
def validate_tables_task(built: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Validate every table; move failing rows to rejects; stop on a broken table."""
    return pipeline.validate_tables(built)


@task(**_IO_RETRIES)
def write_snapshot_task(
    published: dict[str, pl.DataFrame],
    run_manifest: dict[str, Any],
    output_dir: Path,
    report_markdown: str,
    documents: dict[str, str] | None = None,
) -> Path:
    """Write the complete snapshot folder, report.md and `documents` included (I/O, retried)."""
    return write.write_snapshot(
        published,
        run_manifest,
        output_dir,
        run_manifest["run_id"],
        {"report.md": report_markdown, **(documents or {})},
    )


@task(**_IO_RETRIES)
def switch_latest_task(output_dir: Path, snapshot: Path) -> Path:
    """Point `latest` at the new snapshot atomically (I/O, retried on OSError)."""
    return write.switch_latest(output_dir, snapshot)


@task(**_IO_RETRIES)
def stage_state_task(
    output_dir: Path,
    parsed_files: state.ParsedFiles,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    generation: str,
) -> state.StateRecord:
    """Write the next state generation (caches, id registry), not yet current."""
    return state.stage_state(output_dir / "state", parsed_files, languages, registry, generation)


@task(**_IO_RETRIES)
def commit_state_task(output_dir: Path, record: state.StateRecord) -> None:
    """Make the staged state generation current (the last step of a publish)."""
    state.commit_state(output_dir / "state", record)


@task(**_IO_RETRIES)
def prune_snapshots_task(output_dir: Path, retention: int) -> list[str]:
    """Delete snapshots beyond the newest `retention` (never the one `latest` points at)."""
    return write.prune_snapshots(output_dir, retention)


@flow(name="ruling-dumps", log_prints=False)
def rulings_flow(
    raw_dir: Path = Path("raw"),
    output_dir: Path = Path("output"),
    retention: int = DEFAULT_RETENTION,
    language_batches: int = 1,
    processes: int = 0,
    batch_files: int = BATCH_FILES,
    max_file_bytes: int = read.MAX_FILE_BYTES,
    one_line_outcome: bool = False,
    catalog: Path | None = None,
) -> dict[str, Any]:
    """Turn the dumps in `raw_dir` into a validated snapshot under `output_dir`.

    Args:
        raw_dir: folder of dump files (*.txt, searched recursively).
        output_dir: gets `snapshots/<run_id>/`, the `latest` symlink, and
            `state/` (caches and the id registry).
        retention: how many snapshots to keep (at least 1).
        language_batches: tasks the new texts' language detection is split
            into (one per Dask worker or more; 1 on a single machine).
        processes: langdetect processes per detection task (0: one per core;
            1 on Dask workers, which are processes already).
        batch_files: files per parse task.
        max_file_bytes: files larger than this are not read (a `read` reject
            with their size; default 64 MB).
        one_line_outcome: print one line on stderr when the run ends (run id,
            rows, snapshot; or `error: ...`): the served nightly runs do.
        catalog: an MTGJSON AllPrintings.json(.xz|.gz) or folder of set files:
            dumps are attributed to its cards and `ruling_cards` is filled
            (its tables are cached under `state/catalog/` by sha256).

    Returns:
        The run's manifest (as written to `manifest.json`), with `snapshot`:
        the snapshot folder's path.

    Raises:
        RunLockedError: another run is publishing into `output_dir`.
        RawDirError: no dump to read, or raw and output overlap. ContractError: a table breaks the
        contract as a whole (nothing is published). PublishError: see `write`.
    """
    started_at = dt.datetime.now(dt.UTC)
    run_id = started_at.strftime("%Y%m%dT%H%M%S%fZ")
    write.check_raw_output_overlap(raw_dir, output_dir)  # before anything is read or written
    try:
        with hold_run_lock(output_dir):
            result = _run(
                raw_dir,
                output_dir,
                retention,
                started_at,
                run_id,
                language_batches,
                processes or os.cpu_count() or 1,
                batch_files,
                max_file_bytes,
                catalog,
            )
    except Exception as exc:
        if one_line_outcome:
            _say(f"error: run {run_id} failed, nothing published: {exc}")
        raise
    _post_report(f"{result['report']}\nCharts: `{result['snapshot'] / 'report.html'}`\n", run_id)
    if one_line_outcome:
        _say(
            f"run {run_id} published {result['manifest']['rows']['rulings']} rulings "
            f"({sum(result['manifest']['rows'].values())} rows) to {result['snapshot']}"
        )
    return {
        **result["manifest"],
        "snapshot": str(result["snapshot"]),
        "report_html": str(result["snapshot"] / "report.html"),
    }


def _run(
    raw_dir: Path,
    output_dir: Path,
    retention: int,
    started_at: dt.datetime,
    run_id: str,
    language_batches: int,
    processes: int,
    batch_files: int,
    max_file_bytes: int,
    catalog: Path | None,
) -> dict[str, Any]:
    """The flow's steps under the run lock; see `rulings_flow`."""
    catalog_index, catalog_reused = (
        load_catalog_task(catalog, output_dir) if catalog else (None, True)
    )
    inputs = load_inputs_task(raw_dir, output_dir)
    cached = inputs["state"]["parsed"]
    known_ids = cached["dumps"]["dump_id"] if cached else pl.Series("dump_id", [], pl.String)
    parts_dir = output_dir / "state" / "parts" / run_id
    batches = [
        pl.Series("path", inputs["paths"][i : i + batch_files], pl.String)
        for i in range(0, len(inputs["paths"]), batch_files)
    ]
    parts = [
        parse_batch_task.submit(
            raw_dir, batch, known_ids, parts_dir, f"batch{i:05d}", max_file_bytes
        )
        for i, batch in enumerate(batches)
    ]
    parsed, parsed_files, work = assemble_dumps_task(
        [p.result() for p in parts], cached, started_at.date()
    )
    write.remove_tree(parts_dir.parent)  # the run lock keeps other runs out
    reused, new_texts = split_known_texts_task(parsed, inputs["state"]["languages"])
    fresh = [
        detect_languages_task.submit(chunk, processes)
        for chunk in _chunks(new_texts, language_batches)
    ]
    detected = pipeline.combine_languages(reused, [f.result() for f in fresh], new_texts)
    built = build_tables_task(
        parsed, detected["languages"], inputs["state"]["registry"], catalog_index
    )
    published = validate_tables_task(built["tables"])
    run_manifest = manifest.build_manifest(
        run_id=run_id,
        started_at=started_at,
        finished_at=dt.datetime.now(dt.UTC),
        package_version=flows.__version__,
        schema_version=SCHEMA_VERSION,
        files=parsed["files"],
        tables=published,
        line_accounting=manifest.account_lines(built["lines"]),
        ruling_ids=built["ruling_ids"],
        since_previous={
            "previous_run_id": (inputs["previous_manifest"] or {}).get("run_id"),
            **manifest.compare_inputs(inputs["previous_manifest"], parsed["files"]),
        },
        work={
            **work,
            "languages_detected": detected["detected"],
            "languages_reused": detected["reused"],
            **({"catalog_parsed": int(not catalog_reused)} if catalog else {}),
        },
    )
    run_manifest["state_recovered"] = inputs["state"]["recovered"]
    markdown = report.build_report(run_manifest, published) + _recovery_note(inputs["state"])
    # quote(): Prefect would walk the manifest's 100,000 inputs item by item.
    documents = {
        "report.html": report_html.build_report_html(run_manifest, published),
        **json_schema_documents(),  # typed readers work on empty tables too
    }
    snapshot = write_snapshot_task(published, quote(run_manifest), output_dir, markdown, documents)
    pause_point("snapshot_written")
    _publish(output_dir, snapshot, run_id, parsed_files, detected["languages"], built["registry"])
    try:
        prune_snapshots_task(output_dir, max(1, retention))
    except Exception as exc:  # best effort: the run is published
        logger.warning("retention skipped (the run is published): %s", exc)
    logger.info("published %s: %s", snapshot, run_manifest["rows"])
    return {"manifest": run_manifest, "snapshot": snapshot, "report": markdown}


def _publish(
    output_dir: Path,
    snapshot: Path,
    run_id: str,
    parsed_files: state.ParsedFiles,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
) -> None:
    """Stage the new state, switch `latest`, commit the state; on any failure roll back.

    After a failure `latest` points where it pointed before, the new
    snapshot folder and the staged state are removed, and the error is raised.
    """
    previous = write.latest_target(output_dir)
    try:
        staged = stage_state_task(output_dir, parsed_files, languages, registry, run_id)
        pause_point("state_staged")
        switch_latest_task(output_dir, snapshot)
        pause_point("latest_switched")
        commit_state_task(output_dir, staged)
        pause_point("state_committed")
    except BaseException:
        _roll_back(output_dir, previous, snapshot, run_id)
        raise


def _roll_back(output_dir: Path, previous: str | None, snapshot: Path, run_id: str) -> None:
    """Undo a publish that failed halfway (best effort: each step is tried)."""
    steps = (
        lambda: write.restore_latest(output_dir, previous),
        lambda: write.remove_tree(snapshot),
        lambda: state.discard_state(output_dir / "state", run_id),
    )
    for step in steps:
        try:
            step()
        except OSError as exc:
            logger.warning("rollback step failed: %s", exc)


def _recovery_note(loaded: state.RunState) -> str:
    """A report section when the state had to be recovered (empty otherwise)."""
    if loaded["recovered"] is None:
        return ""
    return f"\n## State recovered\n\n**Warning**: {loaded['recovered']}\n"


def _post_report(markdown: str, run_id: str) -> None:
    """The report as a Prefect artifact (best effort: the run is already published)."""
    try:
        create_markdown_artifact(
            markdown=markdown, key="ruling-dumps-report", description=f"ruling-dumps run {run_id}"
        )
    except Exception as exc:
        logger.warning("report artifact not posted (the run is published): %s", exc)


def _say(line: str) -> None:
    """One outcome line on stderr (served runs: the operator's console)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _published_run_id(output_dir: Path) -> str | None:
    """The run id of the snapshot `latest` points at (its folder name), or None."""
    target = write.latest_target(output_dir)
    return Path(target).name if target else None


def _chunks(texts: pl.Series, parts: int) -> list[pl.Series]:
    """`texts` in `parts` contiguous slices (fewer when there are few texts)."""
    size = max(1, -(-texts.len() // max(1, parts)))
    return [texts.slice(i, size) for i in range(0, texts.len(), size)] or [texts]


def run_on_dask(
    raw_dir: Path,
    output_dir: Path,
    retention: int = DEFAULT_RETENTION,
    address: str | None = None,
    workers: int = 2,
    max_file_bytes: int = read.MAX_FILE_BYTES,
    catalog: Path | None = None,
) -> dict[str, Any]:
    """Run `rulings_flow` with its parse and language batches on a Dask cluster.

    Args:
        address: an existing cluster's scheduler (`tcp://HOST:8786`); its
            workers must see `raw_dir` and `output_dir` at the same paths (the
            parse batches read the raw files and write Parquet parts under
            `output_dir/state/parts/`), and have this package installed.
        workers: without `address`, the size of a local cluster of worker
            processes (one thread each) started for this run.

    The global steps (dedup, ids, validation, publish) run here, on the driver.
    """
    from distributed import LocalCluster
    from prefect_dask import DaskTaskRunner

    def run(runner: DaskTaskRunner, batches: int) -> dict[str, Any]:
        result: dict[str, Any] = rulings_flow.with_options(task_runner=runner)(
            raw_dir=raw_dir,
            output_dir=output_dir,
            retention=retention,
            language_batches=batches,
            processes=1,
            max_file_bytes=max_file_bytes,
            catalog=catalog,
        )
        return result

    if address:
        return run(DaskTaskRunner(address=address), 4 * workers)
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    try:
        return run(DaskTaskRunner(address=cluster.scheduler_address), 4 * workers)
    finally:
        _close_cluster(cluster)


def _close_cluster(cluster: Any) -> None:
    """Stop a local cluster's workers gracefully, then the cluster (no worker is killed)."""
    from distributed import Client

    with Client(cluster, set_as_default=False) as client:
        client.retire_workers(close_workers=True)
    cluster.close(timeout=60)


def nightly_deployment(
    raw_dir: Path,
    output_dir: Path,
    retention: int = DEFAULT_RETENTION,
    cron: str = NIGHTLY_CRON,
    timezone: str = NIGHTLY_TIMEZONE,
    catalog: Path | None = None,
) -> RunnerDeployment:
    """The `nightly` deployment of `rulings_flow`: on `cron` in `timezone`, these parameters,
    one run at a time, each printing one line when it ends."""
    return rulings_flow.to_deployment(
        name=DEPLOYMENT_NAME,
        schedules=[Cron(cron, timezone=timezone)],
        parameters={
            "raw_dir": str(raw_dir.resolve()),
            "output_dir": str(output_dir.resolve()),
            "retention": retention,
            "one_line_outcome": True,
            **({"catalog": str(catalog.resolve())} if catalog else {}),
        },
        description="Nightly refresh of the ruling tables under output/latest.",
        version=flows.__version__,
        concurrency_limit=NIGHTLY_CONCURRENCY_LIMIT,
    )


def serve_nightly(deployment: RunnerDeployment) -> None:
    """Serve `deployment` until interrupted: its scheduled and triggered runs run here.

    Needs a Prefect server (PREFECT_API_URL): schedules do not fire on the
    temporary in-process server.
    """
    serve(deployment, pause_on_shutdown=False)
