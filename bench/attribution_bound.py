"""The structural bound of attribution by rulings: dumps no rulings-only rule can name.

A dump of a card removed from the catalog (X) looks, by its rulings and
their dates, exactly like the dump of a catalog card (Y) when X's rulings
are Y's (at Y's dates) plus rulings the catalog gives several cards, and Y's
are all X's: cards of one cycle ruled the same day (Absolute Grace and
Absolute Law: `This affects all creatures, not just your own.`, 2004-10-04),
partners, a meld card and its half. Once X is removed, Y's rulings look
unique to Y; a rule that names Y from its dump also names Y from X's. So
the best recall a rule on rulings and dates can reach with no wrong card is
the share of identifiable dumps whose card has no such removed twin (the
twin's stub or name may still tell them apart).

`confusable_cards` finds the pairs with the record rule of
`flows.stages.record_match` at its loosest (one ruling unique to Y, every
ruling of Y present in the dump); `structural_bound` counts them over an
evaluation's dumps (`bench/evaluate_attribution.py`'s work folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from flows.stages.cards import Catalog
from flows.stages.dedupe import normalize_text
from flows.stages.rulings_match import MAX_SPECIFIC
from flows.stages.stub_match import MIN_PREFIX_CHARS


def dated_records(catalog: Catalog) -> pl.DataFrame:
    """oracle_id (String), text (String, `normalize_text`), date (Date): distinct rows."""
    return (
        catalog["rulings"]
        .filter(pl.col("oracle_id").is_not_null() & (pl.col("text").str.strip_chars() != ""))
        .select(
            "oracle_id",
            text=normalize_text(pl.col("text")),
            date=pl.col("date").str.to_date(strict=False),
        )
        .drop_nulls()
        .unique()
    )


def confusable_cards(records: pl.DataFrame, removed: list[str]) -> pl.DataFrame:
    """removed_id, kept_id (String): each removed card whose dump, all its rulings at their
    dates, the record rule would give to a card kept in the catalog.

    Needs:
        records: `dated_records` of the whole catalog. removed: oracle_ids taken out.

    The dump of X is consistent with Y (kept) when every entry is a ruling the
    kept catalog knows at a date it records for the text, every entry Y carries
    is at Y's date, every specific entry (on at most MAX_SPECIFIC kept cards)
    is Y's, all of Y's rulings are in the dump, and of the rulings the kept
    catalog gives one card alone the dump's are all Y's (at least one).
    """
    kept = records.filter(~pl.col("oracle_id").is_in(removed))
    counts = kept.group_by("text").agg(card_count=pl.col("oracle_id").n_unique())
    dumps = records.filter(pl.col("oracle_id").is_in(removed)).rename({"oracle_id": "removed_id"})
    known = dumps.join(counts, on="text", how="left")
    vetoed = pl.concat([
        known.filter(pl.col("card_count").is_null()).select("removed_id"),
        dumps.join(kept.select("text", "date"), on=["text", "date"], how="anti").select(
            "removed_id"
        ),
    ])  # fmt: skip
    unique_owner = (
        known.filter(pl.col("card_count") == 1)
        .join(kept.select("text", kept_id="oracle_id"), on="text")
        .group_by("removed_id")
        .agg(pl.col("kept_id").unique())
        .filter(pl.col("kept_id").list.len() == 1)
        .with_columns(pl.col("kept_id").list.first())
        .join(vetoed, on="removed_id", how="anti")
    )
    own = kept.rename({"oracle_id": "kept_id"})
    entries = unique_owner.join(known, on="removed_id")
    carried = entries.join(own, on=["kept_id", "text"], how="left", suffix="_kept")
    not_own = carried.filter(
        pl.col("date_kept").is_null() & (pl.col("card_count") <= MAX_SPECIFIC)
    ).select("removed_id", "kept_id")
    misdated = (
        carried.filter(pl.col("date_kept").is_not_null())
        .group_by("removed_id", "kept_id", "text")
        .agg(_ok=(pl.col("date_kept") == pl.col("date")).any())
        .filter(~pl.col("_ok"))
        .select("removed_id", "kept_id")
    )
    missing = (
        unique_owner.join(own, on="kept_id")
        .join(dumps.select("removed_id", "text"), on=["removed_id", "text"], how="anti")
        .select("removed_id", "kept_id")
    )
    return (
        unique_owner.join(pl.concat([not_own, misdated, missing]), on=["removed_id", "kept_id"],
                          how="anti")
        .select("removed_id", "kept_id")
        .unique()
        .sort("removed_id", "kept_id")
    )  # fmt: skip


def structural_bound(catalog: Catalog, work: Path) -> dict[str, Any]:
    """The bound over one evaluation's dumps (`work/eval-expected.parquet`, written by
    `evaluate_attribution`: path `in_…`/`out_…`, expected_oracle_id, stub_chars, identifiable).

    Returns: identifiable (dumps of catalog cards), confusable (of them, cards with a
    removed twin), confusable_without_stub (no stub of MIN_PREFIX_CHARS characters),
    bound_rulings_only and bound_with_stubs (shares, 4 decimals), pairs (removed
    card's name -> kept card's name, every kept card, in the evaluation or not).
    """
    expected = pl.read_parquet(work / "eval-expected.parquet")
    removed = expected.filter(pl.col("path").str.starts_with("out_"))["expected_oracle_id"]
    pairs = confusable_cards(dated_records(catalog), removed.unique().to_list())
    identifiable = expected.filter(
        pl.col("path").str.starts_with("in_") & pl.col("identifiable").is_not_null()
    )
    lost = identifiable.filter(pl.col("expected_oracle_id").is_in(pairs["kept_id"].implode()))
    without_stub = lost.filter(pl.col("stub_chars") < MIN_PREFIX_CHARS)
    names = catalog["cards"].select("oracle_id", "name").unique("oracle_id")
    named = pairs.join(names.rename({"oracle_id": "removed_id", "name": "removed"}),
                       on="removed_id").join(
        names.rename({"oracle_id": "kept_id", "name": "kept"}), on="kept_id")  # fmt: skip
    total = identifiable.height
    return {
        "identifiable": total,
        "confusable": lost.height,
        "confusable_without_stub": without_stub.height,
        "bound_rulings_only": round((total - lost.height) / total, 4) if total else None,
        "bound_with_stubs": round((total - without_stub.height) / total, 4) if total else None,
        "pairs": dict(sorted(named.select("removed", "kept").iter_rows())),
    }
