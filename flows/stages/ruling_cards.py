"""`ruling_cards`: the catalog cards that carry each published ruling, with the catalog date."""

from __future__ import annotations

import polars as pl

from flows.stages.dedupe import normalize_text
from flows.stages.rulings_match import match_catalog_texts

RULING_CARD_SCHEMA = {
    "ruling_id": pl.String,
    "oracle_id": pl.String,
    "card_name": pl.String,
    "catalog_date": pl.Date,
}


def build_ruling_cards(
    variants: pl.DataFrame, catalog_rulings: pl.DataFrame | None
) -> pl.DataFrame:
    """One row per (ruling_id, oracle_id) that the catalog says carries the ruling.

    A ruling matches a catalog ruling when one of its variants equals it
    (normalized) or is its near-duplicate (`rulings_match.match_catalog_texts`).

    Needs:
        variants: variant_id, ruling_id, text (`ruling_variants`).
        catalog_rulings: `rulings_match.index_catalog_rulings` output; None without a catalog.

    Returns:
        RULING_CARD_SCHEMA: ruling_id, oracle_id, card_name, catalog_date (the
        catalog's earliest date for it); sorted by ruling_id, oracle_id. Empty
        without a catalog.
    """
    if catalog_rulings is None:
        return pl.DataFrame(schema=RULING_CARD_SCHEMA)
    keyed = variants.select("ruling_id", text=normalize_text(pl.col("text")))  # as written
    matches = match_catalog_texts(keyed["text"], catalog_rulings["text"])
    return (
        keyed.join(matches, on="text")
        .join(catalog_rulings.rename({"text": "catalog_text"}), on="catalog_text")
        .group_by("ruling_id", "oracle_id")
        .agg(pl.col("card_name").min(), catalog_date=pl.col("date").min().str.to_date())
        .select(list(RULING_CARD_SCHEMA))
        .sort("ruling_id", "oracle_id")
    )
