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

import flows
from flows.stages import dates, dedupe, language, manifest, parse, read, stubs, tables, write
from flows.stages.validate import validate_table
from schemas import SCHEMA_VERSION, TABLE_MODELS


@task(retries=3, retry_delay_seconds=[1, 5, 15], cache_policy=NO_CACHE)
def load_raw_dumps_task(raw_dir: Path) -> pl.DataFrame:
    """Read the raw files (I/O only, retried on transient errors)."""
    return read.load_raw_dumps(raw_dir)


@task(cache_policy=NO_CACHE)
def parse_dumps_task(raw_dumps: pl.DataFrame, today: dt.date) -> dict[str, pl.DataFrame]:
    """Decode, split, classify and parse every dump into lines, entries, headers and stubs."""
    decoded = read.decode_dumps(raw_dumps)
    unique_dumps, duplicate_rejects = read.drop_duplicate_dumps(decoded)
    classified = parse.classify_lines(read.split_lines(unique_dumps))
    published_dates = dates.parse_published_dates(classified["date_text"], today)
    resolved = parse.resolve_entries(classified, published_dates)
    return {
        "decoded": decoded.drop("text"),
        "unique_dumps": unique_dumps.drop("text"),
        "duplicate_rejects": duplicate_rejects,
        "resolved": resolved,
        "entries": dedupe.assign_variants(parse.assemble_entries(resolved)),
        "headers": parse.describe_headers(resolved),
        "stubs": stubs.parse_card_stubs(resolved),
    }


@task(cache_policy=NO_CACHE)
def detect_languages_task(parsed: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Detect the language of every distinct normalized ruling, header and stub text."""
    texts = pl.concat([
        parsed["entries"]["text_normalized"],
        parsed["headers"].select(dedupe.normalize_text(pl.col("header_text")))["header_text"],
        parsed["stubs"].select(dedupe.normalize_text(pl.col("text")))["text"],
    ])
    return language.detect_languages(texts)


@task(cache_policy=NO_CACHE)
def build_tables_task(
    parsed: dict[str, pl.DataFrame], languages: pl.DataFrame
) -> dict[str, pl.DataFrame]:
    """Deduplicate rulings and build every published table."""
    entries = parsed["entries"]
    variants = (
        entries.select("variant_id", text="text_normalized")
        .unique("variant_id")
        .join(languages.select("text", "language"), on="text", how="left")
    )
    clusters = dedupe.cluster_variants(variants)
    occurrences = tables.build_occurrences(entries, clusters, languages)
    variant_table = tables.build_variants(occurrences)
    return {
        "dumps": tables.build_dumps(parsed["unique_dumps"], parsed["resolved"],
                                    parsed["headers"], languages),
        "ruling_occurrences": occurrences.drop("_text_normalized"),
        "rulings": tables.build_rulings(occurrences, variant_table, languages),
        "ruling_variants": variant_table,
        "card_stubs": tables.build_card_stubs(parsed["stubs"], languages),
        "rejects": tables.build_rejects(parsed["resolved"], parsed["duplicate_rejects"]),
    }


@task(cache_policy=NO_CACHE)
def validate_tables_task(built: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Validate every table; move failing rows to rejects; stop on a broken table."""
    valid: dict[str, pl.DataFrame] = {}
    row_rejects = []
    for name, model in TABLE_MODELS.items():
        if name == "rejects":
            continue
        valid[name], failed = validate_table(name, built[name], model)
        row_rejects.append(failed)
    all_rejects = pl.concat([built["rejects"], *row_rejects], how="vertical_relaxed")
    valid["rejects"], _ = validate_table("rejects", all_rejects, TABLE_MODELS["rejects"])
    return valid


@task(retries=2, retry_delay_seconds=[2, 10], cache_policy=NO_CACHE)
def publish_task(
    published: dict[str, pl.DataFrame], run_manifest: dict[str, Any], output_dir: Path
) -> Path:
    """Write the snapshot and switch `latest` to it (I/O, retried)."""
    snapshot = write.write_snapshot(published, run_manifest, output_dir, run_manifest["run_id"])
    write.switch_latest(output_dir, snapshot)
    return snapshot


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
    logger.info("parsed %d lines of %d dumps into %d entries",
                parsed["resolved"].height, parsed["unique_dumps"].height, parsed["entries"].height)
    languages = detect_languages_task(parsed)
    published = validate_tables_task(build_tables_task(parsed, languages))
    run_manifest = manifest.build_manifest(
        run_id=run_id, started_at=started_at, finished_at=dt.datetime.now(dt.UTC),
        package_version=flows.__version__, schema_version=SCHEMA_VERSION,
        decoded=parsed["decoded"], tables=published,
        line_accounting=manifest.account_lines(parsed["resolved"]),
    )
    snapshot = publish_task(published, run_manifest, output_dir)
    logger.info("published %s: %s", snapshot, run_manifest["rows"])
    return {**run_manifest, "snapshot": str(snapshot)}
