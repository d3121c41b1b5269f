"""Build the published tables (the contract in `schemas/tables.py`) from stage outputs."""

from __future__ import annotations

import polars as pl

from flows.stages.dedupe import comparison_keys
from flows.stages.language import (
    resolve_is_inferred,
    resolve_language,
    settle_is_inferred,
    settle_language,
)
from flows.stages.parse import STAT_LINE_PATTERN


def _with_language(
    frame: pl.DataFrame,
    text_column: str,
    languages: pl.DataFrame,
    prior: pl.Expr | None = None,
    context: pl.Expr | None = None,
) -> pl.DataFrame:
    """Join `languages` on normalized `text_column`; resolve unreliable results to `prior`.

    A detected language that `context` (the dump's language) neighbours, or
    Chinese of either script, is settled by `language.settle_language`.

    Adds language (String), language_probability (Float64: of `language`,
    null when inferred), language_is_inferred (Boolean).
    """
    lookup = languages.rename({"text": "_key", "language": "_found"})
    prior = pl.lit(None, dtype=pl.String) if prior is None else prior
    context = prior if context is None else context
    found = pl.col("_found")
    keys = comparison_keys(frame[text_column], "_key")
    return (
        frame.join(keys, on=text_column, how="left", nulls_equal=True, maintain_order="left")
        .join(lookup, on="_key", how="left")
        .with_columns(_detected=settle_language(found, context))
        .with_columns(
            language=resolve_language(pl.col("_detected"), pl.col("is_reliable"), prior),
            language_is_inferred=resolve_is_inferred(pl.col("is_reliable"), prior)
            | (pl.col("is_reliable") & settle_is_inferred(found, context)),
        )
        .with_columns(
            language_probability=pl.when(~pl.col("language_is_inferred")).then(
                pl.col("language_probability")
            )
        )
        .drop("_key", "_found", "_detected", "is_reliable")
    )


def describe_dump_headers(headers: pl.DataFrame, languages: pl.DataFrame) -> pl.DataFrame:
    """Add each header's language, the prior of the dump's short texts.

    Where langdetect is unreliable on the header (a short disclaimer), the
    language the header names as its translation's is used instead. An
    all-caps header is read case-folded (`detect_text_language`).

    Needs:
        headers: dump_id, header_text, claimed_translation_language.

    Adds:
        header_language (String; "und" for an empty header),
        header_language_is_inferred (Boolean: taken from the claimed code).
    """
    return (
        _with_language(
            headers, "header_text", languages, prior=pl.col("claimed_translation_language")
        )
        .with_columns(
            header_language=pl.col("language").fill_null("und"),
            header_language_is_inferred=pl.col("language_is_inferred").fill_null(False),
        )
        .drop("language", "language_probability", "language_is_inferred")
    )


def build_occurrences(variant_entries: pl.DataFrame, clusters: pl.DataFrame) -> pl.DataFrame:
    """One row per kept entry: the `ruling_occurrences` table.

    Needs:
        variant_entries: dump_id, line_number, published_on, source, text_raw,
            text_normalized, variant_id, language, language_probability,
            language_is_inferred (from `parse.assemble_entries` and
            `dedupe.assign_variants`).
        clusters: variant_id, ruling_id, is_representative.

    Returns:
        dump_id, line_number (Int64), published_on (Date), source, text_raw,
        variant_id, ruling_id, language, language_is_inferred, plus working
        columns `_text_normalized`, `_language_probability`,
        `_is_representative`; sorted by dump_id, line_number.
    """
    return (
        variant_entries.join(clusters, on="variant_id", how="left")
        .select(
            "dump_id", "line_number", "published_on", "source", "text_raw", "variant_id",
            "ruling_id", "language", "language_is_inferred",
            _text_normalized="text_normalized", _language_probability="language_probability",
            _is_representative="is_representative",
        )
        .sort("dump_id", "line_number")
    )  # fmt: skip


def build_variants(occurrences: pl.DataFrame) -> pl.DataFrame:
    """One row per variant (distinct comparison key): the `ruling_variants` table.

    A variant's text is its most frequent body as written (`text_raw`,
    trimmed; ties: the smallest), never the comparison key: `20½` stays
    `20½` and `Commander™` stays `Commander™` (case c20). Its language is the
    most common language of its occurrences (ties: the smallest code); it is
    inferred when every occurrence in that language was inferred; its
    probability the highest among those.

    Needs:
        variant_id, ruling_id, language, language_is_inferred, text_raw,
        _language_probability, _is_representative.

    Returns:
        variant_id, ruling_id, text (String, as written), language,
        language_is_inferred (Boolean), occurrence_count (Int64), plus working
        columns `_language_probability` (null when inferred),
        `_is_representative`; sorted by variant_id.
    """
    by_variant_language = occurrences.group_by("variant_id", "language").agg(
        language_is_inferred=pl.col("language_is_inferred").all(),
        _language_probability=pl.col("_language_probability")
        .filter(~pl.col("language_is_inferred"))
        .max(),
    )
    written = (
        occurrences.group_by("variant_id", _written=pl.col("text_raw").str.strip_chars())
        .len()
        .sort(["len", "_written"], descending=[True, False])
        .group_by("variant_id", maintain_order=True)
        .agg(text=pl.col("_written").first())
    )
    return (
        occurrences.group_by("variant_id")
        .agg(
            pl.col("ruling_id").first(),
            language=pl.col("language").mode().min(),
            occurrence_count=pl.len().cast(pl.Int64),
            _is_representative=pl.col("_is_representative").first(),
        )
        .join(written, on="variant_id", how="left")
        .join(by_variant_language, on=["variant_id", "language"], how="left")
        .select(
            "variant_id", "ruling_id", "text", "language", "language_is_inferred",
            "occurrence_count", "_language_probability", "_is_representative",
        )
        .sort("variant_id")
    )  # fmt: skip


def build_rulings(occurrences: pl.DataFrame, variants: pl.DataFrame) -> pl.DataFrame:
    """One row per ruling: the `rulings` table.

    The ruling's text, language, language_is_inferred and probability are
    those of its representative variant (`dedupe.cluster_variants`: the most
    frequent variant, ties: the smallest comparison key), its text as written.

    Needs:
        occurrences: ruling_id, variant_id, dump_id, published_on.
        variants: variant_id, ruling_id, text, language, language_is_inferred,
            _language_probability, _is_representative.

    Returns:
        ruling_id, text, language, language_is_inferred (Boolean),
        language_probability (Float64: of `language`; null when inferred),
        first_published_on, last_published_on (Date), occurrence_count,
        dump_count, variant_count (Int64); sorted by ruling_id.
    """
    representative = variants.filter(pl.col("_is_representative")).select(
        "ruling_id",
        "text",
        "language",
        "language_is_inferred",
        language_probability="_language_probability",
    )
    spread = occurrences.group_by("ruling_id").agg(
        first_published_on=pl.col("published_on").min(),
        last_published_on=pl.col("published_on").max(),
        occurrence_count=pl.len().cast(pl.Int64),
        dump_count=pl.col("dump_id").n_unique().cast(pl.Int64),
        variant_count=pl.col("variant_id").n_unique().cast(pl.Int64),
    )
    return (
        representative.join(spread, on="ruling_id")
        .select(
            "ruling_id", "text", "language", "language_probability", "language_is_inferred",
            "first_published_on",
            "last_published_on", "occurrence_count", "dump_count", "variant_count",
        )
        .sort("ruling_id")
    )  # fmt: skip


def build_card_stubs(
    stubs: pl.DataFrame, dumps: pl.DataFrame, languages: pl.DataFrame
) -> pl.DataFrame:
    """Add each stub text's language (prior: the dump's header language): `card_stubs`.

    A close call between neighbours (`language.settle_language`) goes to the
    language the header claims, else the header's language.

    Needs:
        stubs: from `stubs.parse_card_stubs`.
        dumps: dump_id, header_language, claimed_translation_language.

    Returns:
        dump_id, line_number, mana_value, power, toughness, text, language,
        language_is_inferred, is_truncated; sorted by dump_id, line_number.
    """
    with_prior = stubs.join(
        dumps.select("dump_id", "header_language", "claimed_translation_language"),
        on="dump_id",
        how="left",
    )
    has_text = pl.col("text").is_not_null()
    claimed, header = pl.col("claimed_translation_language"), pl.col("header_language")
    context = pl.when(claimed.is_null() | (claimed == "zh")).then(header).otherwise(claimed)
    return (
        _with_language(with_prior, "text", languages, prior=header, context=context)
        .with_columns(
            language=pl.when(has_text).then(pl.col("language")),
            language_is_inferred=pl.when(has_text).then(pl.col("language_is_inferred"))
            .otherwise(False),
        )
        .select(
            "dump_id", "line_number", "mana_value", "power", "toughness", "text", "language",
            "language_is_inferred", "is_truncated",
        )
        .sort("dump_id", "line_number")
    )  # fmt: skip


#: Per-dump line counts of the `dumps` table (`count_dump_lines`), in their column order.
DUMP_COUNT_COLUMNS = (
    "line_count", "entry_count", "translation_count", "stub_count", "rejected_line_count",
    "control_char_count", "format_char_count", "markup_count",
)  # fmt: skip


def count_dump_lines(lines: pl.DataFrame) -> pl.DataFrame:
    """Each dump's line counts, as the `dumps` table publishes them.

    Needs:
        lines: dump_id, kind, line, control_char_count, format_char_count,
            markup_count (one row per line).

    Returns:
        dump_id (String) and DUMP_COUNT_COLUMNS (Int64); one row per dump with lines.
    """
    kind = pl.col("kind")
    return lines.group_by("dump_id").agg(
        line_count=pl.len().cast(pl.Int64),
        entry_count=(kind == "date_source").sum().cast(pl.Int64),
        translation_count=(kind == "translation").sum().cast(pl.Int64),
        stub_count=(pl.col("line").str.contains(STAT_LINE_PATTERN) & (kind == "stub"))
        .sum()
        .cast(pl.Int64),
        rejected_line_count=(kind == "rejected").sum().cast(pl.Int64),
        control_char_count=pl.col("control_char_count").sum().cast(pl.Int64),
        format_char_count=pl.col("format_char_count").sum().cast(pl.Int64),
        markup_count=pl.col("markup_count").sum().cast(pl.Int64),
    )


def build_dumps(
    readable: pl.DataFrame, counts: pl.DataFrame, headers: pl.DataFrame
) -> pl.DataFrame:
    """One row per dump read: the `dumps` table (before `has_claimed_translation`).

    Needs:
        readable: path, dump_id, byte_count, encoding, encoding_repair.
        counts: dump_id and DUMP_COUNT_COLUMNS (`count_dump_lines`); a dump
            without a row counts zero.
        headers: dump_id, header_text, header_language, header_language_is_inferred,
            claimed_translation_language.

    Returns:
        dump_id, path, encoding, encoding_repair, byte_count, header_text,
        header_language, header_language_is_inferred, claimed_translation_language, line_count,
        entry_count, translation_count, stub_count, rejected_line_count,
        control_char_count, format_char_count, markup_count (Int64); sorted by path.
    """
    return (
        readable.join(headers, on="dump_id", how="left")
        .join(counts.select("dump_id", *DUMP_COUNT_COLUMNS), on="dump_id", how="left")
        .with_columns(pl.col(c).fill_null(0).cast(pl.Int64) for c in DUMP_COUNT_COLUMNS)
        .select(
            "dump_id", "path", "encoding", "encoding_repair", "byte_count", "header_text",
            "header_language", "header_language_is_inferred", "claimed_translation_language",
            *DUMP_COUNT_COLUMNS,
        )
        .sort("path")
    )  # fmt: skip


def build_rejects(lines: pl.DataFrame, *more: pl.DataFrame) -> pl.DataFrame:
    """Every rejected line, plus rejects from other stages: the `rejects` table.

    Needs:
        lines: dump_id, line_number, line, kind, reject_reason.
        more: frames with dump_id, line_number, stage, reason, content.

    Returns:
        dump_id, line_number (Int64, null for a whole-file or a table-row
        reject), stage, reason, content; sorted by stage, dump_id, line_number.
    """
    rejected_lines = lines.filter(pl.col("kind") == "rejected").select(
        "dump_id", "line_number", stage=pl.lit("parse"), reason="reject_reason", content="line"
    )
    return pl.concat([rejected_lines, *more], how="vertical_relaxed").sort(
        "stage", "dump_id", "line_number", "reason", "content", nulls_last=True
    )
