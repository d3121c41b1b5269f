"""The steps across dumps: rulings merged, ids kept, every published table built and validated.

`build_global_tables` runs over every dump's `dumps.DumpResults`: variants
are clustered into rulings (`dedupe`, reusing the clusters of unchanged
blocks: `reuse.cluster_changed_blocks`), rulings keep their registered ids
(`ruling_ids`), and the tables of the contract (`schemas.models`) are built.
`validate_tables` checks each against its pandera model: a failing row moves
to `rejects`, a table that breaks the contract as a whole stops the run.
"""

from __future__ import annotations

import logging
from typing import TypedDict

import pandera.polars as pa
import polars as pl
from pandera.errors import SchemaErrors

from flows.errors import ContractError
from flows.stages.attribution import CatalogIndex
from flows.stages.dedupe import REGISTRY_SCHEMA, stabilize_ruling_ids
from flows.stages.dump_checks import add_dump_cards
from flows.stages.dumps import DUMP_COUNT_COLUMNS, DumpResults
from flows.stages.for_readers import add_paths, choose_ruling_texts
from flows.stages.parse import LINE_KINDS
from flows.stages.reuse import cluster_changed_blocks
from flows.stages.ruling_cards import build_ruling_cards
from schemas import TABLE_MODELS

logger = logging.getLogger(__name__)


class GlobalTables(TypedDict):
    """Frames from `build_global_tables`."""

    tables: dict[str, pl.DataFrame]  # published tables, keyed by name
    registry: pl.DataFrame  # variant_id -> ruling_id, for the next run
    ruling_ids: dict[str, int | str | None]  # ids kept, merged, split, gained vs the registry
    line_accounting: dict[str, int]  # lines per kind, of every dump (`manifest.account_lines`)
    clusters: pl.DataFrame  # CLUSTER_CACHE_SCHEMA, for the next run


def build_global_tables(
    results: DumpResults,
    readable: pl.DataFrame,
    file_rejects: pl.DataFrame,
    registry: pl.DataFrame | None = None,
    catalog: CatalogIndex | None = None,
    cached_clusters: pl.DataFrame | None = None,
) -> GlobalTables:
    """Deduplicate rulings across dumps and build every published table from per-dump results.

    `results` covers every dump of `readable`. `registry` (variant_id,
    ruling_id of earlier runs) keeps published ruling ids stable. `catalog`
    (`attribution.index_catalog`) attributes dumps to cards and fills
    `ruling_cards`; without it, dumps get names only and `ruling_cards` is
    empty. `cached_clusters`: the last run's (`reuse.cluster_changed_blocks`).
    """
    entries = results["entries"]
    variant_languages = entries.group_by("variant_id").agg(
        text=pl.col("text_normalized").first(),
        language=pl.col("language").mode().min(),
        occurrence_count=pl.len(),
    )
    clusters, cluster_cache = cluster_changed_blocks(variant_languages, cached_clusters)
    ids = stabilize_ruling_ids(
        clusters, registry if registry is not None else pl.DataFrame(schema=REGISTRY_SCHEMA)
    )
    occurrences = build_occurrences(entries, ids["clusters"])
    variant_table = build_variants(occurrences)
    ruling_translations = build_translations(results["kept_lines"], occurrences)
    dumps = build_dumps(readable, results["counts"], results["headers"])
    published = {
        "dumps": find_claimed_translations(dumps, ruling_translations),
        "ruling_occurrences": add_paths(occurrences.select(pl.exclude("^_.*$")), dumps),
        "rulings": choose_ruling_texts(
            build_rulings(occurrences, variant_table), variant_table, catalog and catalog["rulings"]
        ),
        "ruling_variants": variant_table.select(pl.exclude("^_.*$")),
        "ruling_translations": ruling_translations,
        "card_stubs": add_paths(results["card_stubs"], dumps),
        "rejects": build_rejects(results["kept_lines"], file_rejects),
        "ruling_cards": build_ruling_cards(variant_table, catalog and catalog["rulings"]),
    }
    published = add_dump_cards(published, results["attribution"], catalog and catalog["dated"])
    counts = results["counts"]
    accounting = {kind: int(counts[f"kind_{kind}"].sum()) for kind in LINE_KINDS}
    accounting["lines_read"] = int(counts["line_count"].sum())
    return GlobalTables(
        tables=published,
        registry=ids["registry"],
        ruling_ids=ids["stats"],
        line_accounting=accounting,
        clusters=cluster_cache,
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


def build_dumps(
    readable: pl.DataFrame, counts: pl.DataFrame, headers: pl.DataFrame
) -> pl.DataFrame:
    """One row per dump read: the `dumps` table (before `has_claimed_translation`).

    Needs:
        readable: path, dump_id, byte_count, encoding, encoding_repair.
        counts: dump_id and DUMP_COUNT_COLUMNS (`dumps.count_dump_lines`); a dump
            without a row counts zero.
        headers: dump_id, header_text, header_language, header_language_is_inferred,
            claimed_translation_language.

    Returns:
        dump_id, path, encoding, encoding_repair, byte_count, header_text,
        header_language, header_language_is_inferred, claimed_translation_language, line_count,
        entry_count, translation_count, stub_count, rejected_line_count,
        control_char_count, format_char_count, markup_count, paste_count (Int64); sorted by path.
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


def build_translations(marked: pl.DataFrame, occurrences: pl.DataFrame) -> pl.DataFrame:
    """The `ruling_translations` table: each translation line, linked to its ruling.

    A translation on its ruling's line (`bilingual.split_bilingual_lines`) has that line's number.

    Needs:
        marked: the output of `language.mark_translations` (translation_text,
            translation_language on the body lines split in two).
        occurrences: dump_id, line_number (of the date·source line), ruling_id.

    Returns:
        dump_id (String), line_number (Int64, of the translation line),
        ruling_id (String), language (String), text (String: as written, trimmed);
        sorted by dump_id, line_number.
    """
    on_own_line = marked.filter(pl.col("kind") == "translation")
    on_ruling_line = marked.filter(pl.col("translation_text").is_not_null()).with_columns(
        line=pl.col("translation_text"), language=pl.col("translation_language")
    )
    return (
        pl.concat([on_own_line, on_ruling_line], how="vertical_relaxed")
        .join(
            occurrences.select("dump_id", "line_number", "ruling_id"),
            left_on=["dump_id", "entry_line"],
            right_on=["dump_id", "line_number"],
            how="inner",
        )
        .select(
            "dump_id", "line_number", "ruling_id", "language", text=pl.col("line").str.strip_chars()
        )
        .sort("dump_id", "line_number")
    )


def find_claimed_translations(dumps: pl.DataFrame, translations: pl.DataFrame) -> pl.DataFrame:
    """Add `has_claimed_translation`: the language the header claims has a translation line.

    Needs:
        dumps: dump_id, claimed_translation_language ("zh" matches "zh-cn" and "zh-tw";
            "zh-tw" only "zh-tw").
        translations: dump_id, language.

    Adds:
        has_claimed_translation (Boolean): false when the header claims none.
    """
    language = pl.col("language")
    found = translations.select(
        pl.concat_str("dump_id", language, separator="|").append(
            pl.concat_str("dump_id", language.str.split("-").list.first(), separator="|")
        )
    ).to_series()
    key = pl.concat_str("dump_id", "claimed_translation_language", separator="|")
    return dumps.with_columns(has_claimed_translation=key.is_in(found.implode()).fill_null(False))


def validate_tables(built: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Validate every table against `schemas`; failing rows move to `rejects`.

    Raises:
        ContractError: a table breaks the contract as a whole, or a row of
            `rejects` does (it has nowhere to go).
    """
    valid: dict[str, pl.DataFrame] = {}
    row_rejects = [built["rejects"]]
    for name, model in TABLE_MODELS.items():
        if name != "rejects":
            valid[name], failed = validate_table(name, built[name], model)
            row_rejects.append(failed)
    all_rejects = pl.concat(row_rejects, how="vertical_relaxed")
    valid["rejects"], failed = validate_table("rejects", all_rejects, TABLE_MODELS["rejects"])
    if failed.height:  # a reject cannot be rejected: stop rather than lose it
        raise ContractError(
            f"{failed.height} rejects rows break the contract: {failed['reason'][0]}"
        )
    return {name: valid[name] for name in TABLE_MODELS}


REJECT_SCHEMA = {"dump_id": pl.String, "line_number": pl.Int64, "stage": pl.String,
                 "reason": pl.String, "content": pl.String}  # fmt: skip


def validate_table(
    name: str, table: pl.DataFrame, model: type[pa.DataFrameModel]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Validate `table` eagerly and lazily (all failures at once) against `model`.

    Returns:
        (valid, rejects): the rows that pass, and one reject row per failing
        row: dump_id and line_number (when the table has them), stage
        "validate", reason naming each failed column and check, content (the
        row as JSON).

    Raises:
        ContractError: the table fails as a whole (a column missing, extra or
            of the wrong dtype): nothing may be published.
    """
    try:
        return model.validate(table, lazy=True), pl.DataFrame(schema=REJECT_SCHEMA)
    except SchemaErrors as exc:
        cases = exc.failure_cases
    table_level = cases.filter(pl.col("index").is_null())
    if table_level.height:
        found = "; ".join(
            f"{c}: {k} (found {f})"
            for c, k, f in table_level.select("column", "check", "failure_case").iter_rows()
        )
        raise ContractError(f"table {name} breaks the contract of {model.__name__}: {found}")
    reasons = cases.group_by("index").agg(
        reason=pl.format("{} failed {}", "column", "check").unique().sort().str.join("; ")
    )
    rows = table.with_row_index("_row").join(
        reasons.with_columns(pl.col("index").cast(pl.UInt32)),
        left_on="_row",
        right_on="index",
        how="left",
    )
    failing = rows.filter(pl.col("reason").is_not_null())
    rejects = failing.select(
        dump_id=pl.col("dump_id") if "dump_id" in table.columns else pl.lit(None, pl.String),
        line_number=pl.col("line_number")
        if "line_number" in table.columns
        else pl.lit(None, pl.Int64),
        stage=pl.lit("validate"),
        reason=pl.format("{} row: {}", pl.lit(name), "reason"),
        content=pl.struct(table.columns).struct.json_encode(),
    )
    logger.warning("table %s: %d rows fail %s", name, rejects.height, model.__name__)
    return rows.filter(pl.col("reason").is_null()).drop("_row", "reason"), rejects
