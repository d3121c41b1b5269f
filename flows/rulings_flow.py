"""The nightly Prefect flow: raw dumps in, a validated snapshot out.

This is the only module that imports Prefect. Each task wraps pure stages from
`flows.stages`; the flow sequences them, validates every table against
`schemas`, and publishes. Tasks use no Prefect cache (`NO_CACHE`): a path
argument does not change when a file's bytes do.

Environment (read by Prefect; the CLI sets quiet defaults for offline machines):
    PREFECT_API_URL: a Prefect server; unset runs on a temporary local server.
    PREFECT_SERVER_ANALYTICS_ENABLED, DO_NOT_TRACK: telemetry (off by default in the CLI).
    PREFECT_LOGGING_LEVEL: console level of Prefect's own logs (WARNING in the CLI).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import polars as pl
from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.states import State

import flows
from flows import pipeline
from flows.errors import RulingsError
from flows.stages import manifest, read, write
from schemas import SCHEMA_VERSION


def _is_transient(task: Any, task_run: Any, state: State) -> bool:
    """Retry a task only on an OSError; a RulingsError would fail the same way again."""
    try:
        state.result()
    except RulingsError:
        return False
    except OSError:
        return True
    except Exception:
        return False
    return False


@task(
    retries=3,
    retry_delay_seconds=[1, 5, 15],
    retry_condition_fn=_is_transient,
    cache_policy=NO_CACHE,
)
def load_raw_dumps_task(raw_dir: Path) -> pl.DataFrame:
    """Read the raw files (I/O only, retried on transient errors)."""
    return read.load_raw_dumps(raw_dir)


@task(cache_policy=NO_CACHE)
def parse_dumps_task(raw_dumps: pl.DataFrame, today: dt.date) -> pipeline.ParsedDumps:
    """Decode, split, classify and parse every dump into lines, entries, headers and stubs."""
    return pipeline.parse_dumps(raw_dumps, today)


@task(cache_policy=NO_CACHE)
def detect_languages_task(parsed: pipeline.ParsedDumps) -> pl.DataFrame:
    """Detect the language of every distinct normalized ruling, header and stub text."""
    return pipeline.detect_languages(parsed)


@task(cache_policy=NO_CACHE)
def build_tables_task(
    parsed: pipeline.ParsedDumps, languages: pl.DataFrame
) -> pipeline.BuiltTables:
    """Deduplicate rulings and build every published table."""
    return pipeline.build_tables(parsed, languages)


@task(cache_policy=NO_CACHE)
def validate_tables_task(built: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Validate every table; move failing rows to rejects; stop on a broken table."""
    return pipeline.validate_tables(built)


@task(
    retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=_is_transient, cache_policy=NO_CACHE
)
def write_snapshot_task(
    published: dict[str, pl.DataFrame], run_manifest: dict[str, Any], output_dir: Path
) -> Path:
    """Write the complete snapshot folder (I/O, retried on OSError)."""
    return write.write_snapshot(published, run_manifest, output_dir, run_manifest["run_id"])


@task(
    retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=_is_transient, cache_policy=NO_CACHE
)
def switch_latest_task(output_dir: Path, snapshot: Path) -> Path:
    """Point `latest` at the new snapshot atomically (I/O, retried on OSError)."""
    return write.switch_latest(output_dir, snapshot)


@flow(name="ruling-dumps", log_prints=False)
def rulings_flow(raw_dir: Path = Path("raw"), output_dir: Path = Path("output")) -> dict[str, Any]:
    """Turn the dumps in `raw_dir` into a validated snapshot under `output_dir`.

    Args:
        raw_dir: folder of dump files (*.txt, searched recursively).
        output_dir: gets `snapshots/<run_id>/` and the `latest` symlink.

    Returns:
        The run's manifest (as written to `manifest.json`, with `snapshot`: the
        snapshot folder's path).

    Raises:
        RawDirError: no dump to read. ContractError: a table breaks the
        contract as a whole (nothing is published). PublishError: see `write`.
    """
    logger = get_run_logger()
    started_at = dt.datetime.now(dt.UTC)
    run_id = started_at.strftime("%Y%m%dT%H%M%S%fZ")
    raw_dumps = load_raw_dumps_task(raw_dir)
    parsed = parse_dumps_task(raw_dumps, started_at.date())
    logger.info("parsed %d lines of %d dumps", parsed["resolved"].height, parsed["readable"].height)
    languages = detect_languages_task(parsed)
    built = build_tables_task(parsed, languages)
    published = validate_tables_task(built["tables"])
    run_manifest = manifest.build_manifest(
        run_id=run_id,
        started_at=started_at,
        finished_at=dt.datetime.now(dt.UTC),
        package_version=flows.__version__,
        schema_version=SCHEMA_VERSION,
        decoded=parsed["decoded"],
        tables=published,
        line_accounting=manifest.account_lines(built["lines"]),
    )
    snapshot = write_snapshot_task(published, run_manifest, output_dir)
    switch_latest_task(output_dir, snapshot)
    logger.info("published %s: %s", snapshot, run_manifest["rows"])
    return {**run_manifest, "snapshot": str(snapshot)}
