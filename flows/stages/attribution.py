"""Which card is each dump about: by its rulings, its stray stub, or the names its rulings use.

Three kinds of evidence, from strongest to weakest, and a dump gets a card
only when the evidence it has agrees (a wrong card is worse than none):

- `rulings`: the dump's English rulings matched to the catalog's rulings
  (normalized exactly, then the near-duplicate rule of `dedupe`). A ruling
  carried by n cards weighs 1/n: generic ones (energy, reconfigure, cycling,
  on up to hundreds of cards) say little, a card-specific one pins the card.
  A card needs a matched ruling carried by at most `MAX_SPECIFIC` cards and the
  clear lead (`attribute_by_rulings`).
- `stub`: the stray stub's mana value, power/toughness and cut text prefix
  match exactly one catalog card's text in the stub's language (`stub_match`).
- `name`: the name the rulings use as their subject (`card_names`), checked
  against the catalog's names (oracle_id null when it is not there).
"""

from __future__ import annotations

import logging
from typing import TypedDict

import polars as pl
from rapidfuzz.distance import Levenshtein

from flows.stages.card_names import (
    find_name_mentions,
    index_catalog_names,
    index_catalog_terms,
    pick_subject_names,
)
from flows.stages.catalog import Catalog
from flows.stages.dedupe import MAX_EDITS, MIN_SIMILARITY, PROTECTED_TOKENS, normalize_text
from flows.stages.stub_match import attribute_by_stub, index_catalog_texts

logger = logging.getLogger(__name__)

#: A ruling carried by at most this many cards is card-specific evidence.
MAX_SPECIFIC = 3
#: Below this score a rulings match is too weak to publish.
MIN_RULINGS_SCORE = 0.5

ATTRIBUTION_SCHEMA = {
    "dump_id": pl.String,
    "card_name": pl.String,
    "oracle_id": pl.String,
    "card_attribution": pl.String,
    "card_attribution_score": pl.Float64,
}


def index_catalog_rulings(rulings: pl.DataFrame, cards: pl.DataFrame) -> pl.DataFrame:
    """One row per (normalized ruling text, oracle_id) of the catalog, with how many cards carry it.

    Needs:
        rulings: oracle_id, date, text (`catalog.Catalog["rulings"]`);
        cards: oracle_id, name.

    Returns:
        text (String, normalized as `dedupe.normalize_text`), oracle_id, card_name,
        date (String, ISO: the catalog's earliest date for it), card_count
        (UInt32: distinct oracle_ids with this text).
    """
    names = (
        cards.filter(pl.col("oracle_id").is_not_null())
        .group_by("oracle_id")
        .agg(card_name=pl.col("name").min())
    )
    return (
        rulings.filter(pl.col("oracle_id").is_not_null() & (pl.col("text") != ""))
        .with_columns(text=normalize_text(pl.col("text")))
        .group_by("text", "oracle_id")
        .agg(date=pl.col("date").min())
        .join(names, on="oracle_id", how="left")
        .with_columns(card_count=pl.len().over("text").cast(pl.UInt32))
        .sort("text", "oracle_id")
    )


def match_catalog_texts(texts: pl.Series, catalog_texts: pl.Series) -> pl.DataFrame:
    """Pair each text with the catalog texts equal to it, else near-duplicates of it.

    Near-duplicates follow `dedupe.cluster_variants`: the same protected tokens
    (numbers, symbols, capitalized words, negations), at most MAX_EDITS edits
    and MIN_SIMILARITY similar.

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
        if _is_near(a, b)
    ]
    near_frame = pl.DataFrame(
        near, schema={"text": pl.String, "catalog_text": pl.String}, orient="row"
    )
    return pl.concat([exact, near_frame]).sort("text", "catalog_text")


def _block_of(column: str) -> pl.Expr:
    return pl.col(column).str.extract_all(PROTECTED_TOKENS).list.sort().list.join("\x1f")


def _is_near(a: str, b: str) -> bool:
    edits = Levenshtein.distance(a, b, score_cutoff=MAX_EDITS)
    return edits <= MAX_EDITS and 1 - edits / max(len(a), len(b)) >= MIN_SIMILARITY


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
    it (a full, face or short name from `names`): a card whose rulings never
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
    scored = best.join(total, on="dump_id").with_columns(
        rulings_score=(
            (pl.col("_e") - pl.col("_second")) / pl.col("_total") * (1 - 0.1 ** pl.col("_e"))
        ).round(3)
    )
    kept = scored.filter(pl.col("_specific") & (pl.col("rulings_score") >= MIN_RULINGS_SCORE))
    named = (
        kept.select("dump_id", "oracle_id")
        .join(evidence.select("dump_id", "oracle_id", "catalog_text"), on=["dump_id", "oracle_id"])
        .join(names.select("oracle_id", alias="name"), on="oracle_id")
        .filter(pl.col("catalog_text").str.contains(pl.col("alias"), literal=True))
        .select("dump_id")
        .unique()
    )
    return kept.join(named, on="dump_id", how="semi").select(
        "dump_id", "oracle_id", "card_name", "rulings_score"
    )


class CatalogIndex(TypedDict):
    """The catalog's lookups for attribution (built once per run from `catalog.Catalog`)."""

    rulings: pl.DataFrame  # `index_catalog_rulings`
    texts: pl.DataFrame  # `stub_match.index_catalog_texts`
    names: pl.DataFrame  # `card_names.index_catalog_names`
    terms: pl.Series  # `card_names.index_catalog_terms`


def index_catalog(catalog: Catalog) -> CatalogIndex:
    """Build the rulings, text and name lookups from the catalog's tables."""
    return CatalogIndex(
        rulings=index_catalog_rulings(catalog["rulings"], catalog["cards"]),
        texts=index_catalog_texts(catalog["cards"], catalog["foreign"]),
        names=index_catalog_names(catalog["cards"]),
        terms=index_catalog_terms(catalog["cards"]),
    )


def attribute_dumps(
    occurrences: pl.DataFrame, stubs: pl.DataFrame, index: CatalogIndex | None
) -> pl.DataFrame:
    """Attribute each dump to a card by rulings, stub or name (see the module doc).

    Evidence that disagrees (rulings and stub on two cards, or a subject name
    that is not the card the rulings or stub point at) gives no card at all.
    When several kinds agree, the score is 1 - prod(1 - score) over them.

    Needs:
        occurrences: dump_id, text_raw, language (`ruling_occurrences`).
        stubs: `card_stubs`. index: None without a catalog (names only, oracle_id null).

    Returns:
        ATTRIBUTION_SCHEMA: dump_id, card_name, oracle_id, card_attribution
        ("rulings", "stub", "name"), card_attribution_score (0-1); one row per
        attributed dump, sorted by dump_id.
    """
    dump_texts = (
        occurrences.filter(pl.col("language") == "en")
        .select("dump_id", text=normalize_text(pl.col("text_raw")))
        .unique()
    )
    if index is None:
        named = pick_subject_names(dump_texts, find_name_mentions(dump_texts["text"]))
        return named.select(
            "dump_id", "card_name", oracle_id=pl.lit(None, pl.String),
            card_attribution=pl.lit("name"), card_attribution_score="name_score",
        ).sort("dump_id")  # fmt: skip
    matches = match_catalog_texts(dump_texts["text"], index["rulings"]["text"])
    # Names in rulings the catalog gives several cards (bolster's `Abzan Skycaptain`)
    # are examples, not the dump's card.
    shared = index["rulings"].filter(pl.col("card_count") > 1).select(catalog_text="text")
    own_texts = dump_texts.join(matches.join(shared, on="catalog_text"), on="text", how="anti")
    mentions = find_name_mentions(own_texts["text"])
    carried = _carried_cards(dump_texts, matches, index["rulings"])
    examples = _example_names(own_texts, mentions, carried, index)
    named = pick_subject_names(own_texts, mentions, index["terms"], examples)
    named = _look_up_names(named, carried, index)
    by_rulings = attribute_by_rulings(dump_texts, index["rulings"], index["names"], matches)
    by_stub = attribute_by_stub(stubs, index["texts"])
    return _combine(named, by_rulings, by_stub)


def _carried_cards(
    dump_texts: pl.DataFrame, matches: pl.DataFrame, catalog_rulings: pl.DataFrame
) -> pl.DataFrame:
    """dump_id, oracle_id: the catalog cards that carry at least one of the dump's rulings."""
    return (
        dump_texts.join(matches, on="text")
        .join(catalog_rulings.select(catalog_text="text", oracle_id="oracle_id"), on="catalog_text")
        .select("dump_id", "oracle_id")
        .unique()
    )


def _example_names(
    dump_texts: pl.DataFrame, mentions: pl.DataFrame, carried: pl.DataFrame, index: CatalogIndex
) -> pl.DataFrame:
    """dump_id, name: names of catalog cards that have catalog rulings, none of which the
    dump carries: examples (`such as Sisters of Stone Death`), not the dump's card."""
    with_rulings = index["rulings"].select("oracle_id").unique()
    return (
        dump_texts.join(mentions, on="text")
        .select("dump_id", "name")
        .unique()
        .join(index["names"].filter(~pl.col("is_short")).select("name", "oracle_id"), on="name")
        .join(with_rulings, on="oracle_id", how="semi")
        .join(carried, on=["dump_id", "oracle_id"], how="anti")
        .select("dump_id", "name")
    )


def _look_up_names(named: pl.DataFrame, carried: pl.DataFrame, index: CatalogIndex) -> pl.DataFrame:
    """Add oracle_id and catalog_name to each picked name when it is the full or face name
    of a catalog card whose rulings the dump carries (a short name, `Satya`, may belong
    to a newer legend: null), and _n_any: the oracle_id any alias gives the name."""
    full_names = index["names"].filter(~pl.col("is_short"))
    confirmed = full_names.select(
        card_name="name", oracle_id="oracle_id", catalog_name="catalog_name"
    )
    return (
        named.join(confirmed, on="card_name", how="left")
        .join(carried.with_columns(_carried=pl.lit(True)), on=["dump_id", "oracle_id"], how="left")
        .with_columns(
            oracle_id=pl.when(pl.col("_carried")).then("oracle_id"),
            catalog_name=pl.when(pl.col("_carried")).then("catalog_name"),
        )
        .drop("_carried")
        .join(
            index["names"].select(card_name="name", _n_any="oracle_id"), on="card_name", how="left"
        )
    )


def _combine(named: pl.DataFrame, by_rulings: pl.DataFrame, by_stub: pl.DataFrame) -> pl.DataFrame:
    """One attribution per dump from the three kinds of evidence.

    Rulings count only when the rulings' subject name is their card. Rulings
    and stub on two cards, or a subject name of another catalog card: no card.
    A subject name the catalog does not know beats a catalog match (the name
    alone is kept). A name alone never gets an oracle_id.
    """
    evidence = (
        named.select("dump_id", "_n_any", _name="card_name", _n_oid="oracle_id",
                     _n_name="catalog_name", _n_score="name_score")
        .join(by_rulings.rename({"oracle_id": "_r_oid", "card_name": "_r_name",
                                 "rulings_score": "_r_score"}), on="dump_id", how="full",
              coalesce=True)
        .join(by_stub.rename({"oracle_id": "_s_oid", "card_name": "_s_name",
                              "stub_score": "_s_score"}), on="dump_id", how="full", coalesce=True)
    )  # fmt: skip
    # Rulings pin a card only when the rulings' subject is that card.
    subject_is_card = pl.col("_n_any").eq_missing(pl.col("_r_oid"))
    evidence = evidence.with_columns(
        pl.when(subject_is_card).then(pl.col(c)).name.keep()
        for c in ("_r_oid", "_r_name", "_r_score")
    )
    card = pl.coalesce("_r_oid", "_s_oid")
    rulings_stub_agree = pl.col("_r_oid").is_null() | pl.col("_s_oid").is_null()
    rulings_stub_agree = rulings_stub_agree | (pl.col("_r_oid") == pl.col("_s_oid"))
    other_card_named = (
        pl.col("_n_oid").is_not_null() & card.is_not_null() & (pl.col("_n_oid") != card)
    )
    # The subject is a card the catalog does not know: the catalog match came
    # from rulings it shares with catalog cards; keep the name alone.
    unknown_named = pl.col("_name").is_not_null() & pl.col("_n_oid").is_null() & card.is_not_null()
    evidence = evidence.filter(rulings_stub_agree & ~other_card_named).with_columns(
        pl.when(~unknown_named).then(pl.col(c)).name.keep()
        for c in ("_r_oid", "_r_name", "_r_score", "_s_oid", "_s_name", "_s_score")
    )
    how = (
        pl.when(pl.col("_r_oid").is_not_null()).then(pl.lit("rulings"))
        .when(pl.col("_s_oid").is_not_null()).then(pl.lit("stub"))
        .otherwise(pl.lit("name"))
    )  # fmt: skip
    doubt = [(1 - pl.col(c).fill_null(0.0)) for c in ("_r_score", "_s_score", "_n_score")]
    return evidence.select(
        "dump_id",
        card_name=pl.coalesce("_r_name", "_s_name", "_name"),
        oracle_id=card,
        card_attribution=how,
        card_attribution_score=(1 - doubt[0] * doubt[1] * doubt[2]).round(3),
    ).sort("dump_id")


def add_attribution(published: dict[str, pl.DataFrame], index: CatalogIndex | None) -> None:
    """Add the attribution columns (ATTRIBUTION_SCHEMA) to `published["dumps"]`, in place.

    Needs the built `dumps`, `ruling_occurrences` and `card_stubs` tables;
    dumps without a card get nulls.
    """
    found = attribute_dumps(published["ruling_occurrences"], published["card_stubs"], index)
    published["dumps"] = published["dumps"].join(found, on="dump_id", how="left")
    logger.info(
        "attributed %d of %d dumps to a card (%d with an oracle_id)",
        found.height, published["dumps"].height, found["oracle_id"].count(),
    )  # fmt: skip
