"""What the published tables carry for their readers: each ruling's official wording, each
row's file.

- `choose_ruling_texts`: with a catalog, a ruling one of whose variants is
  exactly a catalog ruling's text (the same comparison key,
  `dedupe.normalize_text`) is published with the catalog's wording, even when
  most dumps carry a typo of it (seed 000's "writing theme down": "theme" is a
  word, no dictionary catches it). The ruling keeps its id: ids follow the
  variants, never the published text.
- `add_paths`: the dump file's `path` beside `dump_id`, so that questions
  about files need no join to `dumps`.
"""

from __future__ import annotations

import polars as pl

from flows.stages.dedupe import normalize_text

#: Where a published ruling's text comes from (`rulings.text_source`).
TEXT_SOURCES = ("catalog", "most_frequent")


def choose_ruling_texts(
    rulings: pl.DataFrame, variants: pl.DataFrame, catalog_rulings: pl.DataFrame | None
) -> pl.DataFrame:
    """Publish each ruling with the catalog's wording when one of its variants is it.

    Of several variants of a ruling that are catalog texts, the one with the
    most occurrences (ties: the smallest text) gives the wording; of several
    wordings of one catalog text (quotes, spaces), the one most cards carry
    (ties: the smallest).

    Needs:
        rulings: ruling_id, text (its most frequent variant's, as written),
            then the other `rulings` columns (`tables.build_rulings`).
        variants: ruling_id, text (as written), occurrence_count (`ruling_variants`).
        catalog_rulings: text (normalized), written (String, the catalog's
            wording) (`rulings_match.index_catalog_rulings`); None without a catalog.

    Returns:
        rulings with `text` replaced where the catalog has it and `text_source`
        (String: "catalog" or "most_frequent") added after `text`; same rows,
        same order.
    """
    source = pl.lit("most_frequent")
    rest = [c for c in rulings.columns if c not in ("ruling_id", "text")]
    if catalog_rulings is None:
        return rulings.select("ruling_id", "text", source.alias("text_source"), *rest)
    wordings = (
        catalog_rulings.group_by("text", "written")
        .len()
        .sort(["len", "written"], descending=[True, False])
        .group_by("text", maintain_order=True)
        .agg(_catalog_text=pl.col("written").first())
    )
    official = (
        variants.select("ruling_id", "occurrence_count", text=normalize_text(pl.col("text")))
        .join(wordings, on="text")
        .sort(["occurrence_count", "_catalog_text"], descending=[True, False])
        .group_by("ruling_id", maintain_order=True)
        .agg(pl.col("_catalog_text").first())
    )
    found = pl.col("_catalog_text").is_not_null()
    return rulings.join(official, on="ruling_id", how="left", maintain_order="left").select(
        "ruling_id",
        pl.when(found).then("_catalog_text").otherwise("text").alias("text"),
        pl.when(found).then(pl.lit("catalog")).otherwise(source).alias("text_source"),
        *rest,
    )


def add_paths(table: pl.DataFrame, dumps: pl.DataFrame) -> pl.DataFrame:
    """Add the dump file's `path` after `dump_id`.

    Needs:
        table: dump_id (String). dumps: dump_id, path (`dumps`: one row per dump_id).

    Returns:
        table with `path` (String: the file's path relative to the raw dir)
        right after `dump_id`; same rows, same order.
    """
    order = [name for c in table.columns for name in ([c, "path"] if c == "dump_id" else [c])]
    return table.join(
        dumps.select("dump_id", "path"), on="dump_id", how="left", maintain_order="left"
    ).select(order)
