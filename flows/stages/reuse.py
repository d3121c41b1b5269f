"""What a run takes from the state of earlier runs instead of doing the work again.

Every reuse is decided here, each from content and never from a clock:

- files: a file whose metadata (size, mtime, ctime, inode, device) equals the
  last run's file index, and whose dump_id's parse is cached, is not read
  again (`unchanged_files`, as git's index);
- parses: a dump whose dump_id (the sha256 of its bytes) is in the parse
  cache is not decoded or classified again (`split_cached`);
- per-dump results: a dump's `dumps.DumpResults` built with the same catalog
  hold unless a date of theirs was rejected as in the future and the run
  date moved (`reusable_dumps`);
- languages: a text whose language is cached is not detected again
  (`split_known_texts`);
- clusters: a dedup block whose variants, languages and occurrence counts
  are unchanged keeps its clusters (`cluster_changed_blocks`).

A cache is used at all only when it was made under this code's key (the code
and libraries that shape it: `disk.cache_keys`; `usable_caches`). The tables
are the same as a whole rebuild's.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import TypedDict

import polars as pl

from flows.stages.dedupe import block_key, cluster_variants
from flows.stages.detector import LANGUAGE_SCHEMA
from flows.stages.dumps import RESULTS_ORDER, DumpResults
from flows.stages.parse import PARSED_DUMP_SCHEMA, ParsedFiles

logger = logging.getLogger(__name__)


#: The file metadata a file index compares, as git's index does: a file whose
#: size, mtime, ctime, inode and device all match the last run's is not read again.
STAT_SCHEMA = {
    "path": pl.String,
    "size": pl.Int64,
    "mtime_ns": pl.Int64,
    "ctime_ns": pl.Int64,
    "ino": pl.UInt64,
    "dev": pl.UInt64,
}

#: A file modified less than this before its metadata was taken is not indexed

#: The file index: each raw file's metadata and dump_id at the last run (`index_files`).
FILE_INDEX_SCHEMA = {**STAT_SCHEMA, "dump_id": pl.String}


def unchanged_files(
    stats: pl.DataFrame, index: pl.DataFrame, known_ids: pl.Series, max_file_bytes: int
) -> pl.DataFrame:
    """The files whose metadata matches the last run's index: their dump_id without reading.

    Needs:
        stats: `disk.raw.stat_dumps` output. index: STAT_SCHEMA plus dump_id (String),
        the last run's files. known_ids: dump_ids whose parse is cached (String).

    Returns:
        path, dump_id (String), byte_count (Int64) of the files whose every
        metadata column equals the index's, whose dump_id is cached and whose
        size is within `max_file_bytes`; a file not listed here must be read.
    """
    keys = list(STAT_SCHEMA)
    return (
        stats.drop_nulls()
        .join(index.select(*keys, "dump_id").drop_nulls(), on=keys, how="inner")
        .filter(pl.col("dump_id").is_in(known_ids.implode()) & (pl.col("size") <= max_file_bytes))
        .select("path", "dump_id", byte_count="size")
    )


def index_files(stats: pl.DataFrame, files: pl.DataFrame) -> pl.DataFrame:
    """The next run's file index: each file's metadata and dump_id (FILE_INDEX_SCHEMA, by path).

    Needs:
        stats: STAT_SCHEMA, every file's metadata now (`disk.raw.stat_dumps`).
        files: path, dump_id (String): every file, read or not.
    """
    return (
        stats.join(files.select("path", "dump_id"), on="path", how="left")
        .select(list(FILE_INDEX_SCHEMA))
        .sort("path")
    )


def empty_parsed() -> ParsedFiles:
    """Parsed files of no dump (PARSED_DUMP_SCHEMA; lines without columns)."""
    return ParsedFiles(dumps=pl.DataFrame(schema=PARSED_DUMP_SCHEMA), lines=pl.DataFrame())


def split_cached(
    files: pl.DataFrame, parsed: ParsedFiles | None
) -> tuple[ParsedFiles, pl.DataFrame]:
    """Split current files into those parsed before and those to parse.

    Needs:
        files: dump_id (String), one row per file (repeats allowed).

    Returns:
        (cached, to_parse): the cached frames of current dump_ids only (a
        removed dump drops out), and the rows of `files` whose dump_id is new.
    """
    if parsed is None:
        return empty_parsed(), files
    current = files["dump_id"].unique().implode()
    cached = ParsedFiles(
        dumps=parsed["dumps"].filter(pl.col("dump_id").is_in(current)),
        lines=parsed["lines"].filter(pl.col("dump_id").is_in(current)),
    )
    return cached, files.filter(~pl.col("dump_id").is_in(cached["dumps"]["dump_id"].implode()))


class LanguageResults(TypedDict):
    """The languages of a run's texts (`combine_languages`)."""

    languages: pl.DataFrame  # LANGUAGE_SCHEMA: every current text, sorted by text
    detected: int  # texts sent to langdetect in this run (those with a letter)
    reused: int  # texts whose result came from the language cache


def split_known_texts(texts: pl.Series, known: pl.DataFrame) -> tuple[pl.DataFrame, pl.Series]:
    """(rows of `known` for `texts`, the distinct `texts` not in `known`, sorted).

    Needs:
        texts: String, repeats and nulls allowed (`dumps.collect_texts`).
        known: LANGUAGE_SCHEMA, the language cache.
    """
    distinct = texts.drop_nulls().unique().sort()
    reused = known.filter(pl.col("text").is_in(distinct.implode())).select(list(LANGUAGE_SCHEMA))
    return reused, distinct.filter(~distinct.is_in(reused["text"].implode()))


def combine_languages(
    reused: pl.DataFrame, fresh: list[pl.DataFrame], new_texts: pl.Series
) -> LanguageResults:
    """Known and freshly detected languages together (`split_known_texts`, `detect_languages`)."""
    return LanguageResults(
        languages=pl.concat([reused, *fresh]).sort("text"),
        detected=int(new_texts.str.contains(r"\p{L}").sum()),
        reused=reused.height,
    )


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
    """`cluster_variants`, run only over the blocks that changed since `cached`.

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
    keyed = variants.with_columns(block=block_key())
    if cached is None or cached.height == 0:
        clusters = cluster_variants(variants)
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
        clusters = pl.concat([reused, cluster_variants(dirty)]).sort("variant_id")
    cache = keyed.join(clusters, on="variant_id").select(list(CLUSTER_CACHE_SCHEMA))
    return clusters, cache.sort("variant_id")


def usable_caches(recorded: dict[str, str], keys: dict[str, str], stored: set[str]) -> set[str]:
    """The caches of a state generation a run may use: those made under this code's keys.

    Args:
        recorded: the generation's cache keys ("parsed", "languages", "results" -> hex).
        keys: this code's (`disk.cache_keys.cache_keys`).
        stored: the kinds of state file the generation holds (`results_entries`, …).

    Returns:
        A subset of {"parsed", "languages", "results", "clusters"}: the per-dump
        results need every `results_*` file, the clusters their own; both are
        made under the "results" key.
    """
    usable = {
        kind for kind in ("parsed", "languages", "results") if recorded.get(kind) == keys[kind]
    }
    if "results" in usable and "clusters" in stored:
        usable.add("clusters")
    if not all(f"results_{name}" in stored for name in RESULTS_ORDER):
        usable.discard("results")
    return usable
