"""The pipeline's steps composed from the stages, still without Prefect.

`flows.rulings_flow` wraps each step in a Prefect task; tests and other
runners call them directly. Each step takes and returns polars frames.
"""

from __future__ import annotations

import datetime as dt
from typing import TypedDict

import polars as pl

from flows.stages import dates, dedupe, language, parse, read, stubs, tables
from flows.stages.validate import validate_table
from schemas import TABLE_MODELS


class ParsedDumps(TypedDict):
    """Frames from `parse_dumps` (see each stage for columns)."""

    decoded: pl.DataFrame  # path, dump_id, byte_count, encoding: every input file
    unique_dumps: pl.DataFrame  # the same, one file per distinct content
    duplicate_rejects: pl.DataFrame  # rejects rows for repeated files
    resolved: pl.DataFrame  # one row per line read, with its kind
    entries: pl.DataFrame  # one row per kept entry, with variant_id
    headers: pl.DataFrame  # dump_id, header_text, claimed_translation_language
    stubs: pl.DataFrame  # one row per card stub


def parse_dumps(raw_dumps: pl.DataFrame, today: dt.date) -> ParsedDumps:
    """Decode, split, classify and parse dumps (`read.load_raw_dumps` output).

    `today` is the run's UTC date: later dates are rejected.
    """
    decoded = read.decode_dumps(raw_dumps)
    unique_dumps, duplicate_rejects = read.drop_duplicate_dumps(decoded)
    classified = parse.classify_lines(read.split_lines(unique_dumps))
    published_dates = dates.parse_published_dates(classified["date_text"], today)
    resolved = parse.resolve_entries(classified, published_dates)
    return ParsedDumps(
        decoded=decoded.drop("text"),
        unique_dumps=unique_dumps.drop("text"),
        duplicate_rejects=duplicate_rejects,
        resolved=resolved,
        entries=dedupe.assign_variants(parse.assemble_entries(resolved)),
        headers=parse.describe_headers(unique_dumps, resolved),
        stubs=stubs.parse_card_stubs(resolved),
    )


def collect_texts(parsed: ParsedDumps) -> pl.Series:
    """Every normalized ruling, header and stub text whose language is needed (String)."""
    return pl.concat(
        [
            parsed["entries"]["text_normalized"],
            parsed["headers"].select(dedupe.normalize_text(pl.col("header_text")))["header_text"],
            parsed["stubs"].select(dedupe.normalize_text(pl.col("text")))["text"],
        ]
    )


def detect_languages(parsed: ParsedDumps) -> pl.DataFrame:
    """Language of each distinct text of `collect_texts` (see `language.detect_languages`)."""
    return language.detect_languages(collect_texts(parsed))


def build_tables(parsed: ParsedDumps, languages: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Deduplicate rulings and build every published table, keyed by table name."""
    entries = parsed["entries"]
    variants = (
        entries.select("variant_id", text="text_normalized")
        .unique("variant_id")
        .join(languages.select("text", "language"), on="text", how="left")
    )
    occurrences = tables.build_occurrences(entries, dedupe.cluster_variants(variants), languages)
    variant_table = tables.build_variants(occurrences)
    return {
        "dumps": tables.build_dumps(
            parsed["unique_dumps"], parsed["resolved"], parsed["headers"], languages
        ),
        "ruling_occurrences": occurrences.drop("_text_normalized"),
        "rulings": tables.build_rulings(occurrences, variant_table, languages),
        "ruling_variants": variant_table,
        "card_stubs": tables.build_card_stubs(parsed["stubs"], languages),
        "rejects": tables.build_rejects(parsed["resolved"], parsed["duplicate_rejects"]),
    }


def validate_tables(built: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Validate every table against `schemas`; failing rows move to `rejects`.

    Raises:
        ContractError: a table breaks the contract as a whole.
    """
    valid: dict[str, pl.DataFrame] = {}
    row_rejects = [built["rejects"]]
    for name, model in TABLE_MODELS.items():
        if name != "rejects":
            valid[name], failed = validate_table(name, built[name], model)
            row_rejects.append(failed)
    all_rejects = pl.concat(row_rejects, how="vertical_relaxed")
    valid["rejects"], _ = validate_table("rejects", all_rejects, TABLE_MODELS["rejects"])
    return {name: valid[name] for name in TABLE_MODELS}


def run_pipeline(
    raw_dumps: pl.DataFrame, today: dt.date
) -> tuple[ParsedDumps, dict[str, pl.DataFrame]]:
    """All steps but I/O: raw dumps to validated tables (for tests and other runners)."""
    parsed = parse_dumps(raw_dumps, today)
    return parsed, validate_tables(build_tables(parsed, detect_languages(parsed)))
