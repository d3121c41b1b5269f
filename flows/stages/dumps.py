"""Each dump on its own: its entries, header and stubs, then what its lines give in its context.

`assemble_dumps` resolves every file's entries, header and stubs from its
decoded and classified lines (`parse`). `build_dump_results` then gives each
dump what depends on that dump alone: its lines' languages in the dump's
context and its translations (`language`), its entries keyed as variants
(`dedupe`), its line counts, its card stubs and the card it is about
(`attribution`). These `DumpResults` are kept per dump_id in the state, so a
warm run builds them for new dumps only (`reuse.reusable_dumps`); the steps
across dumps (`tables`) run over all of them.
"""

from __future__ import annotations

import datetime as dt
from typing import TypedDict

import polars as pl

from flows.stages.attribution import CatalogIndex, attribute_dumps
from flows.stages.bilingual import bilingual_halves, split_bilingual_lines
from flows.stages.claims import claimed_language, strip_language_labels
from flows.stages.dates import FUTURE_DATE_REASON, parse_published_dates
from flows.stages.decode import split_readable_dumps
from flows.stages.dedupe import assign_variants, comparison_keys
from flows.stages.language import (
    describe_dump_headers,
    label_line_languages,
    mark_translations,
    with_comparison_key,
    with_language,
)
from flows.stages.parse import LINE_KINDS, ParsedFiles, assemble_entries, resolve_entries
from flows.stages.pastes import SITE_NAMES, count_pastes
from flows.stages.stubs import parse_card_stubs


class ParsedDumps(TypedDict):
    """Frames from `assemble_dumps` (see each stage for columns)."""

    files: pl.DataFrame  # path, dump_id, byte_count, encoding, ...: every input file
    readable: pl.DataFrame  # the same, one readable file per distinct content
    file_rejects: pl.DataFrame  # rejects rows for repeated and unreadable files
    resolved: pl.DataFrame  # one row per line read, with its kind
    headers: pl.DataFrame  # dump_id, header_text, claimed_translation_language, header_key
    stubs: pl.DataFrame  # one row per card stub, with text_key


def assemble_dumps(
    files: pl.DataFrame,
    parsed: ParsedFiles,
    today: dt.date,
    reused_ids: pl.Series | None = None,
) -> ParsedDumps:
    """Entries, headers and stubs of every file, from their decoded and classified lines.

    Header and stub texts get their comparison keys (`header_key`, `text_key`:
    `language.with_comparison_key`), found once for their languages' detection
    and lookup.

    Args:
        files: path, dump_id, byte_count; one row per input file.
        parsed: covers every dump_id of `files` but those in `reused_ids`.
        today: the run's UTC date (dates after the next day are rejected).
        reused_ids: dump_ids (String) whose results are reused from an earlier run
            (`reuse.reusable_dumps`): `files`, `readable` and `file_rejects` cover
            them, `resolved`, `headers` and `stubs` do not.
    """
    files = files.join(parsed["dumps"], on="dump_id", how="left").sort("path")
    readable, file_rejects = split_readable_dumps(files)
    todo = (
        readable
        if reused_ids is None
        else readable.filter(~pl.col("dump_id").is_in(reused_ids.implode()))
    )
    classified = (
        parsed["lines"]
        .filter(pl.col("dump_id").is_in(todo["dump_id"].implode()))
        .sort("dump_id", "line_number")
    )
    published_dates = parse_published_dates(classified["date_text"], today)
    resolved = resolve_entries(classified, published_dates)
    resolved = with_normalized_bodies(strip_language_labels(resolved))
    return ParsedDumps(
        files=files,
        readable=readable,
        file_rejects=file_rejects,
        resolved=resolved,
        headers=_with_header_key(describe_headers(todo, resolved)),
        stubs=with_comparison_key(parse_card_stubs(resolved), "text", "text_key"),
    )


#: Names no evidence of a header's language: the site's (`pastes.SITE_NAMES`:
#: `Wizards of the Coast 공식 판정` was English) and the game's (`Magic: The Gathering —
#: Clarifications officielles (FR)` was English).
HEADER_NAMES = SITE_NAMES + r"|\bmagic(?::\s*|\s+)the\s+gathering\b|\bmtg\b"


def _with_header_key(headers: pl.DataFrame) -> pl.DataFrame:
    """Add header_key (String): the comparison key of header_text without HEADER_NAMES,
    the text its language is detected on."""
    words = pl.col("header_text").str.replace_all(HEADER_NAMES, " ")
    keyed = with_comparison_key(headers.with_columns(_words=words), "_words", "header_key")
    return keyed.drop("_words")


def with_normalized_bodies(resolved: pl.DataFrame) -> pl.DataFrame:
    """Add line_normalized (String): `normalize_text` of body lines, null on the others.

    Once, for language detection and its lookup; each distinct body line is
    normalized once (bodies repeat across dumps: 19,658 distinct of 318,198
    at 1M lines).

    Needs:
        line (String), kind (String).
    """
    is_body = pl.col("kind") == "body"
    keys = comparison_keys(resolved.filter(is_body)["line"], "line_normalized")
    return resolved.join(keys, on="line", how="left", maintain_order="left").with_columns(
        line_normalized=pl.when(is_body).then(pl.col("line_normalized"))
    )


def collect_texts(parsed: ParsedDumps) -> pl.Series:
    """Every normalized body line (and both halves of a line that may hold its
    translation: `bilingual.bilingual_halves`), header and stub text whose
    language is needed (String).

    Date·source and stat lines are never sent to language detection.
    """
    halves = bilingual_halves(parsed["resolved"])
    return pl.concat([
        parsed["resolved"]["line_normalized"].drop_nulls(),
        halves["first_key"],
        halves["second_key"],
        parsed["headers"]["header_key"],
        parsed["stubs"]["text_key"],
    ])  # fmt: skip


class DumpResults(TypedDict):
    """What each dump's own lines give, whatever the other dumps are (`build_dump_results`).

    A run caches these per dump_id (`disk.state`), so a warm run builds them only
    for new dumps. Every frame holds dump_id (String).
    """

    headers: pl.DataFrame  # `describe_dump_headers`: one row per dump
    entries: pl.DataFrame  # kept entries, with variant_id (`dedupe.assign_variants`)
    kept_lines: pl.DataFrame  # the lines of kind rejected or translation, with their language
    counts: pl.DataFrame  # one row per dump: DUMP_COUNTS_SCHEMA
    card_stubs: pl.DataFrame  # `build_card_stubs`: the `card_stubs` rows
    attribution: pl.DataFrame  # `attribution.attribute_dumps`: one row per attributed dump


#: Per-dump line counts of the `dumps` table (`count_dump_lines`), in their column order.
DUMP_COUNT_COLUMNS = (
    "line_count", "entry_count", "translation_count", "stub_count", "rejected_line_count",
    "control_char_count", "format_char_count", "markup_count", "paste_count",
)  # fmt: skip


#: `DumpResults.counts`: `count_dump_lines`, one count per line kind
#: (`kind_<kind>`, for the manifest's line accounting), the run date the
#: results were built on, and whether a later date could change them (a
#: date rejected as in the future).
DUMP_COUNTS_SCHEMA = {
    "dump_id": pl.String,
    **dict.fromkeys(DUMP_COUNT_COLUMNS, pl.Int64),
    **{f"kind_{kind}": pl.Int64 for kind in LINE_KINDS},
    "built_on": pl.Date,
    "depends_on_date": pl.Boolean,
    "catalog": pl.String,
}

#: Each results frame's order (cached and fresh rows sorted together as a cold run sorts them).
RESULTS_ORDER = {
    "headers": ("dump_id",),
    "entries": ("dump_id", "line_number"),
    "kept_lines": ("dump_id", "line_number"),
    "counts": ("dump_id",),
    "card_stubs": ("dump_id", "line_number"),
    "attribution": ("dump_id",),
}


def build_dump_results(
    parsed: ParsedDumps,
    languages: pl.DataFrame,
    today: dt.date,
    catalog: CatalogIndex | None = None,
    catalog_key: str | None = None,
) -> tuple[DumpResults, pl.DataFrame]:
    """Label line languages, separate translations, key entries and attribute, dump by dump.

    Args:
        parsed: `assemble_dumps` output (its `resolved`, `headers`, `stubs`).
        languages: text, language, language_probability, is_reliable for
            every text of `collect_texts(parsed)`.
        today: the run's UTC date (recorded as `built_on`).
        catalog: `attribution.index_catalog` (None: names only, as `attribute_dumps`).
        catalog_key: the catalog's sha256 (recorded as `catalog`: results
            are reused only with the same catalog).

    Returns:
        (the results of the dumps of `parsed["headers"]`, each frame in
        RESULTS_ORDER (counts in its headers' order); their lines: one row per
        line with its final kind and language).
    """
    headers = describe_dump_headers(parsed["headers"], languages, parsed["resolved"])
    split = split_bilingual_lines(parsed["resolved"], languages, headers)
    lines = mark_translations(label_line_languages(split, languages, headers))
    future = pl.col("reject_reason").str.contains(FUTURE_DATE_REASON, literal=True)
    date_bound = lines.filter(future).select("dump_id").unique()
    counts = (
        headers.select("dump_id")
        .join(
            count_dump_lines(lines, parsed["stubs"]),
            on="dump_id",
            how="left",
            maintain_order="left",
        )
        .with_columns(
            built_on=pl.lit(today, pl.Date),
            depends_on_date=pl.col("dump_id").is_in(date_bound["dump_id"].implode()),
            catalog=pl.lit(catalog_key, pl.String),
        )
        .select(
            pl.col(name).fill_null(0).cast(dtype) if dtype == pl.Int64 else pl.col(name)
            for name, dtype in DUMP_COUNTS_SCHEMA.items()
        )
    )
    entries = assign_variants(assemble_entries(lines)).sort(*RESULTS_ORDER["entries"])
    card_stubs = build_card_stubs(parsed["stubs"], headers, languages)
    results = DumpResults(
        headers=headers.drop("framing_script"),
        entries=entries,
        kept_lines=lines.filter(  # rejects and translations (on lines of their own or not)
            pl.col("kind").is_in(["rejected", "translation"])
            | pl.col("translation_text").is_not_null()
        ).sort(*RESULTS_ORDER["kept_lines"]),
        counts=counts,
        card_stubs=card_stubs,
        attribution=attribute_dumps(entries, card_stubs, catalog),  # each dump on its own
    )
    return results, lines


def combine_results(
    cached: DumpResults | None, fresh: DumpResults, reused: pl.Series
) -> DumpResults:
    """The cached results of the `reused` dump_ids with the fresh ones, in a cold run's order
    (RESULTS_ORDER, in which `build_dump_results` gives `fresh`: as they are when none is reused).
    """
    if cached is None or not reused.len():
        return fresh
    keep = pl.col("dump_id").is_in(reused.implode())
    combined = {
        name: pl.concat([cached[name].filter(keep), fresh[name]], how="vertical_relaxed").sort(
            *order
        )
        for name, order in RESULTS_ORDER.items()
    }
    return DumpResults(**combined)


def describe_headers(dumps: pl.DataFrame, resolved: pl.DataFrame) -> pl.DataFrame:
    """Collect each dump's header and the translation language it claims.

    Needs:
        dumps: dump_id (String), one row per dump (an empty dump has no line).
        resolved: dump_id (String), line_number (Int64), line (String), kind (String).

    Returns:
        One row per row of `dumps`:
        dump_id (String), header_text (String: header lines joined by "\\n",
        "" when none), claimed_translation_language (String: lowercased ISO
        code the header names in a translation context, e.g. "fr" from seed
        line 1 "La traduction FR", "es" from "(ES)", "zh" from "TW翻譯";
        null when it names none: see `claimed_language`).
    """
    headers = (
        resolved.filter(pl.col("kind") == "header")
        .sort("dump_id", "line_number")
        .group_by("dump_id", maintain_order=True)
        .agg(header_text=pl.col("line").str.join("\n"))
    )
    texts = dumps.select("dump_id").join(headers, on="dump_id", how="left")
    texts = texts.with_columns(pl.col("header_text").fill_null(""))
    claims = (  # once per distinct header (a site's header repeats on its every dump)
        texts.select(pl.col("header_text").unique()).with_columns(
            claimed_translation_language=claimed_language(pl.col("header_text"))
        )
    )
    return texts.join(claims, on="header_text", how="left", maintain_order="left")


def build_card_stubs(
    stubs: pl.DataFrame, dumps: pl.DataFrame, languages: pl.DataFrame
) -> pl.DataFrame:
    """Add each stub text's language (prior: the dump's header language): `card_stubs`.

    A close call between neighbours (`language.settle_language`) goes to the
    language the header claims, else the header's language.

    Needs:
        stubs: from `stubs.parse_card_stubs`, with text_key (`assemble_dumps`: text's
            comparison key, dropped).
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
        with_language(with_prior, "text", languages, prior=header, context=context, key="text_key")
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


def count_dump_lines(lines: pl.DataFrame, stubs: pl.DataFrame) -> pl.DataFrame:
    """Each dump's line counts, as the `dumps` table publishes them, and per line kind.

    Needs:
        lines: dump_id, line_number, kind, line, control_char_count,
            format_char_count, markup_count (one row per line).
        stubs: dump_id, one row per card stub (`stubs.parse_card_stubs`).

    Returns:
        dump_id (String), DUMP_COUNT_COLUMNS (Int64) and `kind_<kind>` (UInt32:
        its lines of each of LINE_KINDS), in one pass; one row per dump with
        lines. paste_count is 1 plus the header blocks that follow other lines
        (a page pasted after another: `parse.classify_lines`).
    """
    kind = pl.col("kind")
    return (
        lines.group_by("dump_id")
        .agg(
            *((kind == name).sum().alias(f"kind_{name}") for name in LINE_KINDS),
            line_count=pl.len().cast(pl.Int64),
            entry_count=(kind == "date_source").sum().cast(pl.Int64),
            translation_count=(
                (kind == "translation").sum() + pl.col("translation_text").count()
            ).cast(pl.Int64),
            rejected_line_count=(kind == "rejected").sum().cast(pl.Int64),
            control_char_count=pl.col("control_char_count").sum().cast(pl.Int64),
            format_char_count=pl.col("format_char_count").sum().cast(pl.Int64),
            markup_count=pl.col("markup_count").sum().cast(pl.Int64),
        )
        .join(count_pastes(lines), on="dump_id", how="left")
        .join(stubs.group_by("dump_id").agg(stub_count=pl.len().cast(pl.Int64)), on="dump_id",
              how="left")
        .with_columns(pl.col("paste_count").fill_null(1), pl.col("stub_count").fill_null(0))
    )  # fmt: skip
