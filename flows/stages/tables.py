"""Build the published tables (the contract in `schemas/tables.py`) from stage outputs."""

from __future__ import annotations

import polars as pl

from flows.stages.dedupe import normalize_text
from flows.stages.parse import STAT_LINE_PATTERN

_LANGUAGE_COLUMNS = ("text", "language", "language_probability")


def _with_language(
    frame: pl.DataFrame, text_column: str, languages: pl.DataFrame, prefix: str = ""
) -> pl.DataFrame:
    """Join `languages` (text, language, language_probability) on normalized `text_column`."""
    lookup = languages.select(_LANGUAGE_COLUMNS).rename(
        {
            "text": "_language_key",
            "language": f"{prefix}language",
            "language_probability": f"{prefix}language_probability",
        }
    )
    return (
        frame.with_columns(_language_key=normalize_text(pl.col(text_column)))
        .join(lookup, on="_language_key", how="left")
        .drop("_language_key")
    )


def build_occurrences(
    variant_entries: pl.DataFrame, clusters: pl.DataFrame, languages: pl.DataFrame
) -> pl.DataFrame:
    """One row per kept entry: the `ruling_occurrences` table.

    Needs:
        variant_entries: dump_id, line_number, published_on, source, text_raw,
            text_normalized, variant_id (from `dedupe.assign_variants`).
        clusters: variant_id, ruling_id.
        languages: text, language, language_probability (normalized texts).

    Returns:
        dump_id, line_number (Int64), published_on (Date), source, text_raw,
        variant_id, ruling_id, language, plus the working column
        `_text_normalized`; sorted by dump_id, line_number.
    """
    return (
        variant_entries.join(clusters, on="variant_id", how="left")
        .join(
            languages.select("text", "language"),
            left_on="text_normalized",
            right_on="text",
            how="left",
        )
        .select(
            "dump_id",
            "line_number",
            "published_on",
            "source",
            "text_raw",
            "variant_id",
            "ruling_id",
            "language",
            _text_normalized="text_normalized",
        )
        .sort("dump_id", "line_number")
    )


def build_variants(occurrences: pl.DataFrame) -> pl.DataFrame:
    """One row per distinct normalized text: the `ruling_variants` table.

    Needs:
        variant_id, ruling_id, _text_normalized (from `build_occurrences`).

    Returns:
        variant_id, ruling_id, text (String, normalized), occurrence_count
        (Int64); sorted by variant_id.
    """
    return (
        occurrences.group_by("variant_id")
        .agg(
            pl.col("ruling_id").first(),
            text=pl.col("_text_normalized").first(),
            occurrence_count=pl.len().cast(pl.Int64),
        )
        .sort("variant_id")
    )


def build_rulings(
    occurrences: pl.DataFrame, variants: pl.DataFrame, languages: pl.DataFrame
) -> pl.DataFrame:
    """One row per ruling: the `rulings` table.

    The ruling's text is its most frequent variant (ties: the smallest text);
    its language and probability are that variant's.

    Needs:
        occurrences: ruling_id, dump_id, published_on.
        variants: variant_id, ruling_id, text, occurrence_count.
        languages: text, language, language_probability.

    Returns:
        ruling_id, text, language, language_probability (Float64),
        first_published_on, last_published_on (Date), occurrence_count,
        dump_count, variant_count (Int64); sorted by ruling_id.
    """
    representative = (
        variants.sort(["occurrence_count", "text"], descending=[True, False])
        .group_by("ruling_id", maintain_order=True)
        .agg(pl.col("text").first(), variant_count=pl.len().cast(pl.Int64))
        .join(languages.select(_LANGUAGE_COLUMNS), on="text", how="left")
    )
    spread = occurrences.group_by("ruling_id").agg(
        first_published_on=pl.col("published_on").min(),
        last_published_on=pl.col("published_on").max(),
        occurrence_count=pl.len().cast(pl.Int64),
        dump_count=pl.col("dump_id").n_unique().cast(pl.Int64),
    )
    return (
        representative.join(spread, on="ruling_id")
        .select(
            "ruling_id",
            "text",
            "language",
            "language_probability",
            "first_published_on",
            "last_published_on",
            "occurrence_count",
            "dump_count",
            "variant_count",
        )
        .sort("ruling_id")
    )


def build_card_stubs(stubs: pl.DataFrame, languages: pl.DataFrame) -> pl.DataFrame:
    """Add each stub text's language: the `card_stubs` table.

    Needs:
        stubs: from `stubs.parse_card_stubs`.

    Returns:
        dump_id, line_number, mana_value, power, toughness, text, language,
        is_truncated; sorted by dump_id, line_number.
    """
    return (
        _with_language(stubs, "text", languages)
        .select(
            "dump_id",
            "line_number",
            "mana_value",
            "power",
            "toughness",
            "text",
            "language",
            "is_truncated",
        )
        .sort("dump_id", "line_number")
    )


def build_dumps(
    unique_dumps: pl.DataFrame,
    resolved: pl.DataFrame,
    headers: pl.DataFrame,
    languages: pl.DataFrame,
) -> pl.DataFrame:
    """One row per dump read: the `dumps` table.

    Needs:
        unique_dumps: path, dump_id, byte_count, encoding.
        resolved: dump_id, kind (one row per line, from `parse.resolve_entries`).
        headers: dump_id, header_text, claimed_translation_language.

    Returns:
        dump_id, path, encoding, byte_count, header_text, header_language,
        claimed_translation_language, line_count, entry_count, stub_count,
        rejected_line_count (Int64); sorted by path.
    """
    kind = pl.col("kind")
    counts = resolved.group_by("dump_id").agg(
        line_count=pl.len().cast(pl.Int64),
        entry_count=(kind == "date_source").sum().cast(pl.Int64),
        stub_count=(pl.col("line").str.contains(STAT_LINE_PATTERN) & (kind == "stub"))
        .sum()
        .cast(pl.Int64),
        rejected_line_count=(kind == "rejected").sum().cast(pl.Int64),
    )
    described = _with_language(headers, "header_text", languages, prefix="header_")
    zero = {c: 0 for c in ("line_count", "entry_count", "stub_count", "rejected_line_count")}
    return (
        unique_dumps.join(described, on="dump_id", how="left")
        .join(counts, on="dump_id", how="left")
        .with_columns(pl.col(c).fill_null(v) for c, v in zero.items())
        .select(
            "dump_id",
            "path",
            "encoding",
            "byte_count",
            "header_text",
            "header_language",
            "claimed_translation_language",
            *zero,
        )
        .sort("path")
    )


def build_rejects(resolved: pl.DataFrame, *more: pl.DataFrame) -> pl.DataFrame:
    """Every rejected line, plus rejects from other stages: the `rejects` table.

    Needs:
        resolved: dump_id, line_number, line, kind, reject_reason.
        more: frames with dump_id, line_number, stage, reason, content.

    Returns:
        dump_id, line_number (Int64, null for a whole-file or a table-row
        reject), stage, reason, content; sorted by stage, dump_id, line_number.
    """
    rejected_lines = resolved.filter(pl.col("kind") == "rejected").select(
        "dump_id", "line_number", stage=pl.lit("parse"), reason="reject_reason", content="line"
    )
    return pl.concat([rejected_lines, *more], how="vertical_relaxed").sort(
        "stage", "dump_id", "line_number", "reason", "content", nulls_last=True
    )
