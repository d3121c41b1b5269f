"""The pipeline's pure steps composed from the stages (no I/O, no Prefect).

`flows.steps` lists a run's steps (these, plus the I/O ones) and sequences
them once, for the Prefect flow and the direct runner alike. `run_pipeline`
chains the pure ones over frames already in memory (tests). Each step takes
and returns polars frames.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict

import polars as pl

from flows.errors import ContractError
from flows.stages import (
    dates,
    dedupe,
    language,
    parse,
    read,
    ruling_ids,
    stubs,
    tables,
    translations,
)
from flows.stages.attribution import CatalogIndex, attribute_dumps
from flows.stages.ruling_cards import build_ruling_cards
from flows.stages.state import (
    FILE_INDEX_SCHEMA,
    LANGUAGE_SCHEMA,
    PARSED_DUMP_SCHEMA,
    REGISTRY_SCHEMA,
    ParsedFiles,
)
from flows.stages.validate import validate_table
from schemas import TABLE_MODELS

logger = logging.getLogger(__name__)


class ParsedDumps(TypedDict):
    """Frames from `parse_dumps` (see each stage for columns)."""

    files: pl.DataFrame  # path, dump_id, byte_count, encoding, ...: every input file
    readable: pl.DataFrame  # the same, one readable file per distinct content
    file_rejects: pl.DataFrame  # rejects rows for repeated and unreadable files
    resolved: pl.DataFrame  # one row per line read, with its kind
    headers: pl.DataFrame  # dump_id, header_text, claimed_translation_language
    stubs: pl.DataFrame  # one row per card stub


class GlobalTables(TypedDict):
    """Frames from `build_global_tables`."""

    tables: dict[str, pl.DataFrame]  # published tables, keyed by name
    registry: pl.DataFrame  # variant_id -> ruling_id, for the next run
    ruling_ids: dict[str, int | str | None]  # ids kept, merged, split, gained vs the registry
    line_accounting: dict[str, int]  # lines per kind, of every dump (`manifest.account_lines`)
    clusters: pl.DataFrame  # CLUSTER_CACHE_SCHEMA, for the next run


class BuiltTables(GlobalTables):
    """Frames from `build_tables`."""

    lines: pl.DataFrame  # one row per line read, with its final kind


def parse_files(hashed: pl.DataFrame) -> ParsedFiles:
    """Decode and classify files (the work the parse cache saves).

    Needs:
        dump_id (String), content (Binary) (from `read.hash_dumps`).

    Returns:
        dumps: one row per distinct dump_id (encoding, encoding_repair,
        reject_reason); lines: `parse.classify_lines` output for the readable ones.
    """
    decoded = read.decode_dumps(hashed)
    readable = decoded.filter(pl.col("reject_reason").is_null())
    return ParsedFiles(
        dumps=decoded.drop("text"),
        lines=parse.classify_lines(read.split_lines(readable)),
    )


def merge_parsed(*parts: ParsedFiles) -> ParsedFiles:
    """Parsed files of several parts together, each dump_id once.

    Each part holds each of its dump_ids once. A dump_id in two parts (the
    same content in two batches: a batch knows only the cache) is taken from
    the first; both parses are equal. Rows keep their parts' order (a dump's
    lines stay together, by line_number): not sorted across dumps. No part:
    no dump.
    """
    dumps: list[pl.DataFrame] = []
    lines: list[pl.DataFrame] = []
    seen = pl.Series("dump_id", [], pl.String)
    for part in parts:
        new = part["dumps"].filter(~pl.col("dump_id").is_in(seen.implode()))
        dumps.append(new)
        if part["lines"].width:
            fresh_lines = part["lines"]
            if new.height < part["dumps"].height:
                fresh_lines = fresh_lines.filter(pl.col("dump_id").is_in(new["dump_id"].implode()))
            lines.append(fresh_lines)
        seen = pl.concat([seen, new["dump_id"]])
    return ParsedFiles(
        dumps=pl.concat(dumps) if dumps else pl.DataFrame(schema=PARSED_DUMP_SCHEMA),
        lines=pl.concat(lines, how="vertical_relaxed") if lines else pl.DataFrame(),
    )


class ParsedBatch(TypedDict):
    """Frames from `parse_batch`."""

    files: pl.DataFrame  # path, read_reject, dump_id, byte_count: every file of the batch
    parsed: ParsedFiles  # the files whose dump_id was not known yet


class FileCheck(TypedDict):
    """Frames from `check_files`."""

    stats: pl.DataFrame  # read.STAT_SCHEMA: every file's metadata now
    unchanged: pl.DataFrame  # FILE_COLUMNS of the files not to read (read_reject null)
    to_read: pl.Series  # paths (String) of the files to read, in the order listed


#: Columns of `parse_batch`'s `files`, as `read.hash_dumps` gives them without content.
FILE_COLUMNS = ("path", "read_reject", "dump_id", "byte_count")


def check_files(
    raw_dir: Path,
    paths: list[str],
    known_ids: pl.Series,
    max_file_bytes: int = read.MAX_FILE_BYTES,
    file_index: pl.DataFrame | None = None,
) -> FileCheck:
    """Which files must be read: metadata first, as git's index.

    A file whose metadata (size, mtime_ns, ctime_ns, inode, device) matches
    `file_index` and whose dump_id is in `known_ids` is not read: its dump_id
    and size come from the index (`read.unchanged_dumps`). Every other file
    is read (`parse_batch`).

    Args:
        raw_dir: the raw folder. paths: POSIX paths relative to it.
        known_ids: dump_ids already parsed (the cache, String).
        max_file_bytes: larger files are read never (a `read` reject, by `parse_batch`).
        file_index: the last run's index (`index_files`); None: read every file.
    """
    stats = read.stat_dumps(raw_dir, paths)
    index = file_index if file_index is not None else pl.DataFrame(schema=FILE_INDEX_SCHEMA)
    unchanged = read.unchanged_dumps(stats, index, known_ids, max_file_bytes)
    every = pl.Series("path", paths, pl.String)
    return FileCheck(
        stats=stats,
        unchanged=unchanged.select(
            "path", pl.lit(None, pl.String).alias("read_reject"), "dump_id", "byte_count"
        ),
        to_read=every.filter(~every.is_in(unchanged["path"].implode())),
    )


def index_files(check: FileCheck, files: pl.DataFrame) -> pl.DataFrame:
    """The next run's file index: each file's metadata and dump_id (FILE_INDEX_SCHEMA, by path).

    Needs:
        files: path, dump_id (String): every file, read or not.
    """
    return (
        check["stats"]
        .join(files.select("path", "dump_id"), on="path", how="left")
        .select(list(FILE_INDEX_SCHEMA))
        .sort("path")
    )


def parse_batch(
    raw_dir: Path,
    paths: pl.Series,
    known_ids: pl.Series,
    max_file_bytes: int = read.MAX_FILE_BYTES,
) -> ParsedBatch:
    """Read, hash and parse one batch of files; skip contents parsed before.

    Reads the files itself, so a batch can run on another process or machine
    that sees `raw_dir`.

    Args:
        raw_dir: the raw folder. paths: POSIX paths relative to it (String).
        known_ids: dump_ids already parsed (the cache, String): not parsed again.
            (Series, not Python collections: Prefect walks collection arguments
            item by item, which cost 45 % of a warm run at a million lines.)
        max_file_bytes: larger files are not read (a `read` reject).
    """
    hashed = read.hash_dumps(read.load_raw_dumps(raw_dir, paths.to_list(), max_file_bytes))
    new = hashed.filter(~pl.col("dump_id").is_in(known_ids.implode())).unique(
        "dump_id", keep="first", maintain_order=True
    )  # a content twice in the batch is parsed once
    return ParsedBatch(files=hashed.select(FILE_COLUMNS), parsed=parse_files(new))


def parse_dumps(
    raw_dumps: pl.DataFrame, today: dt.date, parsed: ParsedFiles | None = None
) -> ParsedDumps:
    """Parse dumps (`read.load_raw_dumps` output), from `parsed` where given.

    Args:
        raw_dumps: path, content; one row per file.
        today: the run's UTC date (dates after the next day are rejected).
        parsed: decoded and classified files covering every dump_id of
            `raw_dumps` (from the cache and `parse_files`); parsed here when None.
    """
    hashed = read.hash_dumps(raw_dumps)
    parsed = parsed if parsed is not None else parse_files(hashed)
    return assemble_dumps(hashed.drop("content"), parsed, today)


def assemble_dumps(
    files: pl.DataFrame,
    parsed: ParsedFiles,
    today: dt.date,
    built: pl.Series | None = None,
) -> ParsedDumps:
    """Entries, headers and stubs of every file, from their decoded and classified lines.

    Args:
        files: path, dump_id, byte_count; one row per input file.
        parsed: covers every dump_id of `files` but those in `built`.
        today: the run's UTC date (dates after the next day are rejected).
        built: dump_ids (String) whose results are reused from an earlier run
            (`reusable_dumps`): `files`, `readable` and `file_rejects` cover
            them, `resolved`, `headers` and `stubs` do not.
    """
    files = files.join(parsed["dumps"], on="dump_id", how="left").sort("path")
    readable, file_rejects = read.split_readable_dumps(files)
    todo = readable if built is None else readable.filter(~pl.col("dump_id").is_in(built.implode()))
    classified = (
        parsed["lines"]
        .filter(pl.col("dump_id").is_in(todo["dump_id"].implode()))
        .sort("dump_id", "line_number")
    )
    published_dates = dates.parse_published_dates(classified["date_text"], today)
    resolved = parse.resolve_entries(classified, published_dates).with_columns(
        line_normalized=pl.when(pl.col("kind") == "body").then(
            dedupe.normalize_text(pl.col("line"))
        )  # once, for language detection and its lookup
    )
    return ParsedDumps(
        files=files,
        readable=readable,
        file_rejects=file_rejects,
        resolved=resolved,
        headers=parse.describe_headers(todo, resolved),
        stubs=stubs.parse_card_stubs(resolved),
    )


def collect_texts(parsed: ParsedDumps) -> pl.Series:
    """Every normalized body line, header and stub text whose language is needed (String).

    Date·source and stat lines are never sent to language detection.
    """
    return pl.concat([
        parsed["resolved"]["line_normalized"].drop_nulls(),
        parsed["headers"].select(dedupe.normalize_text(pl.col("header_text")))["header_text"],
        parsed["stubs"].select(dedupe.normalize_text(pl.col("text")))["text"],
    ])  # fmt: skip


class LanguageResults(TypedDict):
    """Frames and counts from `detect_languages`."""

    languages: pl.DataFrame  # text, language, language_probability, is_reliable
    detected: int  # texts sent to langdetect in this run
    reused: int  # texts whose result came from `known`


def split_known_texts(
    parsed: ParsedDumps, known: pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.Series]:
    """(rows of `known` for the current texts, the current texts not in `known`)."""
    texts = collect_texts(parsed).drop_nulls().unique().sort()
    known = known if known is not None else pl.DataFrame(schema=LANGUAGE_SCHEMA)
    reused = known.filter(pl.col("text").is_in(texts.implode())).select(list(LANGUAGE_SCHEMA))
    return reused, texts.filter(~texts.is_in(reused["text"].implode()))


def detect_languages(
    parsed: ParsedDumps,
    known: pl.DataFrame | None = None,
    detect: Callable[[str], language.Detection] | None = None,
    processes: int = 1,
) -> LanguageResults:
    """Language of each distinct text of `collect_texts` (see `language.detect_languages`).

    Texts in `known` (a language cache: text, language, language_probability,
    is_reliable) are not detected again; the others that have a letter are
    detected once each (by `detect` in this process when given, else seeded
    langdetect in `processes` processes). `languages` holds the rows of the
    current texts.
    """
    reused, new_texts = split_known_texts(parsed, known)
    fresh = language.detect_languages(new_texts, detect, processes)
    return combine_languages(reused, [fresh], new_texts)


def combine_languages(
    reused: pl.DataFrame, fresh: list[pl.DataFrame], new_texts: pl.Series
) -> LanguageResults:
    """Known and freshly detected languages together (see `detect_languages`)."""
    return LanguageResults(
        languages=pl.concat([reused, *fresh]).sort("text"),
        detected=int(new_texts.str.contains(r"\p{L}").sum()),
        reused=reused.height,
    )


class DumpResults(TypedDict):
    """What each dump's own lines give, whatever the other dumps are (`build_dump_results`).

    A run caches these per dump_id (`state`), so a warm run builds them only
    for new dumps. Every frame holds dump_id (String).
    """

    headers: pl.DataFrame  # `tables.describe_dump_headers`: one row per dump
    entries: pl.DataFrame  # kept entries, with variant_id (`dedupe.assign_variants`)
    kept_lines: pl.DataFrame  # the lines of kind rejected or translation, with their language
    counts: pl.DataFrame  # one row per dump: DUMP_COUNTS_SCHEMA
    card_stubs: pl.DataFrame  # `tables.build_card_stubs`: the `card_stubs` rows
    attribution: pl.DataFrame  # `attribution.attribute_dumps`: one row per attributed dump


#: `DumpResults.counts`: `tables.count_dump_lines`, one count per line kind
#: (`kind_<kind>`, for the manifest's line accounting), the run date the
#: results were built on, and whether a later date could change them (a
#: date rejected as in the future).
DUMP_COUNTS_SCHEMA = {
    "dump_id": pl.String,
    **dict.fromkeys(tables.DUMP_COUNT_COLUMNS, pl.Int64),
    **{f"kind_{kind}": pl.Int64 for kind in parse.LINE_KINDS},
    "built_on": pl.Date,
    "depends_on_date": pl.Boolean,
    "catalog": pl.String,
}

#: Each results frame's order (cached and fresh rows sorted together as a cold run sorts them).
_RESULTS_ORDER = {
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
        (the results of the dumps of `parsed["headers"]`, their lines: one row
        per line with its final kind and language).
    """
    headers = tables.describe_dump_headers(parsed["headers"], languages)
    lines = translations.mark_translations(
        translations.label_line_languages(parsed["resolved"], languages, headers)
    )
    kinds = lines.group_by("dump_id").agg(
        (pl.col("kind") == kind).sum().alias(f"kind_{kind}") for kind in parse.LINE_KINDS
    )
    date_bound = (
        lines.filter(pl.col("reject_reason").str.contains(dates.FUTURE_DATE_REASON, literal=True))
        .select("dump_id")
        .unique()
    )
    counts = (
        headers.select("dump_id")
        .join(tables.count_dump_lines(lines), on="dump_id", how="left")
        .join(kinds, on="dump_id", how="left")
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
    entries = dedupe.assign_variants(parse.assemble_entries(lines))
    card_stubs = tables.build_card_stubs(parsed["stubs"], headers, languages)
    results = DumpResults(
        headers=headers,
        entries=entries,
        kept_lines=lines.filter(pl.col("kind").is_in(["rejected", "translation"])),
        counts=counts,
        card_stubs=card_stubs,
        attribution=attribute_dumps(entries, card_stubs, catalog),  # each dump on its own
    )
    return results, lines


def reusable_dumps(
    cached: DumpResults | None, today: dt.date, catalog_key: str | None = None
) -> pl.Series:
    """The dump_ids whose cached results hold on `today` with this catalog (String).

    Results built on another date are reused unless a date of theirs was
    rejected as in the future (`depends_on_date`); none when the run date
    went back (a clock set back: every result is rebuilt), and none built
    with another catalog (`catalog_key`: its sha256, None for none).
    """
    if cached is None or cached["counts"].height == 0:
        return pl.Series("dump_id", [], pl.String)
    counts = cached["counts"]
    if counts["built_on"].max() > today:
        return pl.Series("dump_id", [], pl.String)
    built_on = pl.col("built_on")
    same_catalog = pl.col("catalog").eq_missing(pl.lit(catalog_key, pl.String))
    return counts.filter(same_catalog & ((built_on == today) | ~pl.col("depends_on_date")))[
        "dump_id"
    ]


def combine_results(
    cached: DumpResults | None, fresh: DumpResults, reused: pl.Series
) -> DumpResults:
    """The cached results of the `reused` dump_ids with the fresh ones, in a cold run's order."""
    keep = pl.col("dump_id").is_in(reused.implode())
    combined = {
        name: (
            pl.concat([cached[name].filter(keep), fresh[name]], how="vertical_relaxed")
            if cached is not None and reused.len()
            else fresh[name]
        ).sort(*order)
        for name, order in _RESULTS_ORDER.items()
    }
    return DumpResults(**combined)


#: The clusters of the last run, by variant (`cluster_changed_blocks`): its
#: `cluster_variants` input and output, with each variant's block.
CLUSTER_CACHE_SCHEMA = {
    "variant_id": pl.String,
    "block": pl.String,
    "language": pl.String,
    "occurrence_count": pl.UInt32,
    "ruling_id": pl.String,
    "is_representative": pl.Boolean,
}


def cluster_changed_blocks(
    variants: pl.DataFrame, cached: pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`dedupe.cluster_variants`, run only over the blocks that changed since `cached`.

    Variants are compared within their block only (same language, same
    protected tokens: `dedupe` module docstring), so a block's clusters are a
    function of its variants, their languages and occurrence counts. A block
    whose every variant has the language and occurrence count it had in
    `cached`, and that lost none, keeps its cached clusters; the others are
    clustered again.

    Needs:
        variants: variant_id, text (comparison key), language, occurrence_count
            (UInt32); one row per variant.
        cached: CLUSTER_CACHE_SCHEMA (the last run's), or None.

    Returns:
        (`cluster_variants` output for every variant, sorted by variant_id;
        the cache for the next run, CLUSTER_CACHE_SCHEMA).
    """
    keyed = variants.with_columns(block=dedupe.block_key())
    if cached is None or cached.height == 0:
        clusters = dedupe.cluster_variants(variants)
    else:
        previous = cached.rename({c: f"_{c}" for c in cached.columns if c != "variant_id"})
        same = (
            (pl.col("block") == pl.col("_block"))
            & (pl.col("language") == pl.col("_language"))
            & (pl.col("occurrence_count") == pl.col("_occurrence_count"))
        ).fill_null(False)
        sizes = cached.group_by("block").agg(_cached_size=pl.len())
        marked = (
            keyed.join(previous, on="variant_id", how="left")
            .join(sizes, on="block", how="left")
            .with_columns(
                _clean=same.all().over("block")
                & (pl.len().over("block") == pl.col("_cached_size").fill_null(0))
            )
        )
        clean = marked.filter(pl.col("_clean"))
        dirty = variants.filter(
            pl.col("variant_id").is_in(marked.filter(~pl.col("_clean"))["variant_id"].implode())
        )
        logger.info(
            "clusters of %d variants in unchanged blocks reused; %d clustered again",
            clean.height,
            dirty.height,
        )
        reused = clean.select(
            "variant_id", ruling_id="_ruling_id", is_representative="_is_representative"
        )
        clusters = pl.concat([reused, dedupe.cluster_variants(dirty)]).sort("variant_id")
    cache = keyed.join(clusters, on="variant_id").select(list(CLUSTER_CACHE_SCHEMA))
    return clusters, cache.sort("variant_id")


def next_language_cache(known: pl.DataFrame, current: pl.DataFrame, partial: bool) -> pl.DataFrame:
    """The language cache to keep for the next run (LANGUAGE_SCHEMA, sorted by text).

    A run that built every dump keeps the languages of its texts only (a
    removed dump's texts drop out). A run that reused cached results saw only
    the new dumps' texts: it keeps `known` too (texts of dumps removed since
    drop out at the next whole build).
    """
    if not partial:
        return current
    return pl.concat([known, current]).unique("text", keep="last").sort("text")


def build_tables(
    parsed: ParsedDumps,
    languages: pl.DataFrame,
    registry: pl.DataFrame | None = None,
    catalog: CatalogIndex | None = None,
    today: dt.date | None = None,
) -> BuiltTables:
    """Separate translations, deduplicate rulings and build every published table.

    `build_dump_results` of every dump of `parsed`, then `build_global_tables`
    (a whole rebuild: the steps of a run reuse cached results instead, see
    `flows.steps`). `today` (the run date, recorded in the results) defaults
    to the current UTC date.
    """
    day = today or dt.datetime.now(dt.UTC).date()
    fresh, lines = build_dump_results(parsed, languages, day, catalog)
    built = build_global_tables(
        combine_results(None, fresh, pl.Series([], dtype=pl.String)),
        parsed["readable"],
        parsed["file_rejects"],
        registry,
        catalog,
    )
    return BuiltTables(**built, lines=lines)


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
    empty. `cached_clusters`: the last run's (`cluster_changed_blocks`).
    """
    entries = results["entries"]
    variant_languages = entries.group_by("variant_id").agg(
        text=pl.col("text_normalized").first(),
        language=pl.col("language").mode().min(),
        occurrence_count=pl.len(),
    )
    clusters, cluster_cache = cluster_changed_blocks(variant_languages, cached_clusters)
    ids = ruling_ids.stabilize_ruling_ids(
        clusters, registry if registry is not None else pl.DataFrame(schema=REGISTRY_SCHEMA)
    )
    occurrences = tables.build_occurrences(entries, ids["clusters"])
    variant_table = tables.build_variants(occurrences)
    ruling_translations = translations.build_translations(results["kept_lines"], occurrences)
    dumps = tables.build_dumps(readable, results["counts"], results["headers"])
    published = {
        "dumps": translations.find_claimed_translations(dumps, ruling_translations),
        "ruling_occurrences": occurrences.select(pl.exclude("^_.*$")),
        "rulings": tables.build_rulings(occurrences, variant_table),
        "ruling_variants": variant_table.select(pl.exclude("^_.*$")),
        "ruling_translations": ruling_translations,
        "card_stubs": results["card_stubs"],
        "rejects": tables.build_rejects(results["kept_lines"], file_rejects),
        "ruling_cards": build_ruling_cards(variant_table, catalog and catalog["rulings"]),
    }
    published["dumps"] = published["dumps"].join(results["attribution"], on="dump_id", how="left")
    found = results["attribution"]
    logger.info(
        "attributed %d of %d dumps to a card (%d with an oracle_id)",
        found.height, published["dumps"].height, found["oracle_id"].count(),
    )  # fmt: skip
    counts = results["counts"]
    accounting = {kind: int(counts[f"kind_{kind}"].sum()) for kind in parse.LINE_KINDS}
    accounting["lines_read"] = int(counts["line_count"].sum())
    return GlobalTables(
        tables=published,
        registry=ids["registry"],
        ruling_ids=ids["stats"],
        line_accounting=accounting,
        clusters=cluster_cache,
    )


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


def run_pipeline(
    raw_dumps: pl.DataFrame, today: dt.date, catalog: CatalogIndex | None = None
) -> tuple[BuiltTables, dict[str, pl.DataFrame]]:
    """All steps but I/O: raw dumps to lines and validated tables (for tests and runners)."""
    parsed = parse_dumps(raw_dumps, today)
    built = build_tables(
        parsed, detect_languages(parsed)["languages"], catalog=catalog, today=today
    )
    return built, validate_tables(built["tables"])
