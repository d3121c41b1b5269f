"""Match a dump's rulings to the catalog's and weigh them by how many cards carry them.

A ruling carried by n cards weighs 1/n: generic ones (energy, reconfigure,
cycling, on up to hundreds of cards) say little, a card-specific one pins the
card. Texts match when equal after `dedupe.normalize_text`, else by the
near-duplicate rule of `dedupe.cluster_variants`.
"""

from __future__ import annotations

import polars as pl

from flows.stages.card_names import text_names
from flows.stages.dedupe import normalize_text
from flows.stages.merge_rule import MAX_EDITS, protected_tokens, within_merge_rule

#: A ruling carried by at most this many cards is card-specific evidence.
MAX_SPECIFIC = 3
#: Below this score a rulings match is too weak to publish.
MIN_RULINGS_SCORE = 0.5


def index_catalog_rulings(rulings: pl.DataFrame, cards: pl.DataFrame) -> pl.DataFrame:
    """One row per (normalized ruling text, oracle_id) of the catalog, with how many cards carry it.

    Needs:
        rulings: oracle_id, date, text (`catalog.Catalog["rulings"]`);
        cards: oracle_id, name.

    Returns:
        text (String, normalized as `dedupe.normalize_text`), oracle_id, card_name,
        date (String, ISO: the catalog's earliest date for it), card_count
        (UInt32: distinct oracle_ids with this text), written (String: the
        catalog's text as written, trimmed; of several, the smallest).
    """
    names = (
        cards.filter(pl.col("oracle_id").is_not_null())
        .group_by("oracle_id")
        .agg(card_name=pl.col("name").min())
    )
    return (
        rulings.filter(pl.col("oracle_id").is_not_null() & (pl.col("text") != ""))
        .with_columns(text=normalize_text(pl.col("text")), written=pl.col("text").str.strip_chars())
        .group_by("text", "oracle_id")
        .agg(date=pl.col("date").min(), written=pl.col("written").min())
        .join(names, on="oracle_id", how="left")
        .with_columns(card_count=pl.len().over("text").cast(pl.UInt32))
        .sort("text", "oracle_id")
    )


def find_unpaired_partners(cards: pl.DataFrame) -> pl.Series:
    """Cards whose printed `Partner with NAME` names a card the catalog does not have.

    MTGJSON gives both cards of a partner pair the pair's rulings (Soulblade
    Corrupter and Soulblade Renewer carry the same ten, three of them about
    Corrupter's last ability). With both in the catalog the rulings tie; with
    one missing, a dump of the missing card's rulings looks like the other's,
    its subject name too. So such a card's rulings cannot pin it.

    Needs:
        cards: oracle_id, name, text (`catalog.Catalog["cards"]`).

    Returns:
        oracle_id (String): distinct, sorted.
    """
    partner = pl.col("text").str.extract(r"(?m)^Partner with ([^(\n]+?)\s*(?:\(|$)")
    return (
        cards.filter(pl.col("oracle_id").is_not_null())
        .select("oracle_id", _partner=partner)
        .filter(
            pl.col("_partner").is_not_null()
            & ~pl.col("_partner").is_in(cards["name"].drop_nulls().implode())
        )["oracle_id"]
        .unique()
        .sort()
    )


def match_catalog_texts(texts: pl.Series, catalog_texts: pl.Series) -> pl.DataFrame:
    """Pair each text with the catalog texts equal to it, else near-duplicates of it.

    Near-duplicates follow the merge rule of `dedupe.cluster_variants`
    (`merge_rule.within_merge_rule`: the same protected tokens in order, signs
    kept, no negating prefix, at most MAX_EDITS edits, MIN_SIMILARITY similar).

    Args:
        texts: normalized texts (String). catalog_texts: normalized catalog texts.

    Returns:
        text, catalog_text (String): one row per matching pair.
    """
    wanted = pl.DataFrame({"text": texts}).unique()
    known = pl.DataFrame({"catalog_text": catalog_texts}).unique()
    exact = wanted.join(known, left_on="text", right_on="catalog_text", how="inner").select(
        "text", catalog_text="text"
    )
    left = wanted.filter(~pl.col("text").is_in(exact["text"].implode()))
    pairs = (
        left.with_columns(_block=_block_of("text"))
        .join(known.with_columns(_block=_block_of("catalog_text")), on="_block")
        .filter(
            (pl.col("text").str.len_chars() - pl.col("catalog_text").str.len_chars()).abs()
            <= MAX_EDITS
        )
    )
    near = [
        (a, b)
        for a, b in zip(pairs["text"].to_list(), pairs["catalog_text"].to_list(), strict=True)
        if within_merge_rule(a, b)
    ]
    near_frame = pl.DataFrame(
        near, schema={"text": pl.String, "catalog_text": pl.String}, orient="row"
    )
    return pl.concat([exact, near_frame]).sort("text", "catalog_text")


def _block_of(column: str) -> pl.Expr:
    """Texts that may match share their protected tokens, in order (`merge_rule`)."""
    return protected_tokens(pl.col(column)).list.join("\x1f")


def attribute_by_rulings(
    dump_texts: pl.DataFrame,
    catalog_rulings: pl.DataFrame,
    names: pl.DataFrame,
    matches: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The card whose catalog rulings best explain each dump's rulings.

    Each matched catalog text t weighs 1/card_count(t); a card's evidence E is
    the sum over the dump's texts it carries. The best card needs a matched
    text carried by at most MAX_SPECIFIC cards and a score
    (E_best - E_second) / (sum of the dump's matched weights) * (1 - 0.1**E_best)
    of at least MIN_RULINGS_SCORE, and one of its matched rulings must name
    it (a full, face or short name from `names`, as a name of its own:
    `card_names.text_names`): a card whose rulings never
    name it shares them with cards the catalog may not know (a new card with
    the same generic rulings), so they cannot pin it.

    Needs:
        dump_texts: dump_id, text (normalized English rulings, one row per distinct pair).
        catalog_rulings: `index_catalog_rulings` output.
        names: `card_names.index_catalog_names` output.
        matches: `match_catalog_texts` of the dump texts (computed when None).

    Returns:
        dump_id, oracle_id, card_name, rulings_score (Float64 0-1); attributed dumps only.
    """
    if matches is None:
        matches = match_catalog_texts(dump_texts["text"], catalog_rulings["text"])
    evidence = (
        dump_texts.join(matches, on="text")
        .select("dump_id", "catalog_text")
        .unique()
        .join(catalog_rulings, left_on="catalog_text", right_on="text")
        .with_columns(_w=1 / pl.col("card_count"))
    )
    scored = _score_cards(evidence)
    kept = scored.filter(pl.col("_specific") & (pl.col("rulings_score") >= MIN_RULINGS_SCORE))
    named = (
        kept.select("dump_id", "oracle_id")
        .join(evidence.select("dump_id", "oracle_id", "catalog_text"), on=["dump_id", "oracle_id"])
        .join(names.select("oracle_id", alias="name"), on="oracle_id")
        .filter(text_names(pl.col("catalog_text"), pl.col("alias")))
        .select("dump_id")
        .unique()
    )
    return kept.join(named, on="dump_id", how="semi").select(
        "dump_id", "oracle_id", "card_name", "rulings_score"
    )


def _score_cards(evidence: pl.DataFrame) -> pl.DataFrame:
    """Each dump's best card, its evidence `_e`, the runner-up's `_second`, `_specific`, and
    its rulings_score (`attribute_by_rulings`), from the matched texts' weights `_w`."""
    total = (
        evidence.unique(["dump_id", "catalog_text"])
        .group_by("dump_id")
        .agg(_total=pl.col("_w").sum())
    )
    per_card = (
        evidence.group_by("dump_id", "oracle_id", "card_name")
        .agg(_e=pl.col("_w").sum(), _specific=(pl.col("card_count") <= MAX_SPECIFIC).any())
        .sort(["dump_id", "_e", "oracle_id"], descending=[False, True, False])
    )
    best = per_card.group_by("dump_id", maintain_order=True).agg(
        pl.col("oracle_id", "card_name", "_e", "_specific").first(),
        _second=pl.col("_e").get(1, null_on_oob=True).fill_null(0.0),
    )
    return best.join(total, on="dump_id").with_columns(
        rulings_score=(
            (pl.col("_e") - pl.col("_second")) / pl.col("_total") * (1 - 0.1 ** pl.col("_e"))
        ).round(3)
    )
