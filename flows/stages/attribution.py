"""Which card is each dump about: by its rulings, its dated record, its stray stub, or names.

Four kinds of evidence, from strongest to weakest, and a dump gets a card
only when the evidence it has agrees (a wrong card is worse than none;
`evidence.combine_evidence`). Most lean on the dump being consistent with a
card's dated record (`record_match.find_consistent_cards`: every entry a
catalog ruling at a date the catalog gives it, none specific to another
card, every ruling of the card up to the dump's last date present, no stub
against it).

- `rulings`: the dump's English rulings matched to the catalog's rulings
  (normalized exactly, then the near-duplicate rule of `dedupe`). A ruling
  carried by n cards weighs 1/n: generic ones (energy, reconfigure, cycling,
  on up to hundreds of cards) say little, a card-specific one pins the card.
  A card needs a matched ruling carried by at most `MAX_SPECIFIC` cards, the
  clear lead, a matched ruling naming it (`rulings_match.attribute_by_rulings`)
  and to be the rulings' subject name, or no subject (or a part of its name)
  with the dump consistent with the card. A card whose printed `Partner with`
  names a card the catalog lacks is never pinned by rulings: partners carry
  the same rulings (`rulings_match.find_unpaired_partners`); nor is a card
  whose specific rulings the dump lacks beside a name the catalog does not know.
- `record`: rulings the catalog gives the card alone, the dump consistent with
  it (`record_match.attribute_by_record`); scored by how many
  (`record_match.FULL_SCORE_RULINGS`), or in full beside a stray stub that fits
  that card alone among the texts of its stats
  (`record_match.attribute_by_record_and_stub`, `stub_match.find_stub_fits`);
  none from a catalog that is a part of MTGJSON (`cards.is_whole`).
- `stub`: the stray stub's mana value, power/toughness and cut text prefix
  match exactly one catalog card's text in the stub's language, parting from the
  others in a word of its own (`stub_match`),
  and the dump's rulings, when they name cards, name that one (a card the
  catalog lacks may print the same text: Recycle and Null Profusion), and do
  not point at another card (`_rulings_against_stub`).
- `name`: the name the rulings use as their subject (`card_names`). It
  confirms or vetoes the others; alone it gets an oracle_id only as the full
  name of a catalog card the dump is consistent with (not a card newer than
  the catalog, nor a legend's short name).
"""

from __future__ import annotations

import logging
from typing import TypedDict

import polars as pl

from flows.stages.card_names import (
    find_name_mentions,
    index_catalog_names,
    index_catalog_terms,
    pick_subject_names,
    text_names,
)
from flows.stages.cards import Catalog, count_listed_sets, is_whole
from flows.stages.dedupe import comparison_keys
from flows.stages.evidence import combine_evidence
from flows.stages.record_match import (
    attribute_by_record,
    attribute_by_record_and_stub,
    find_consistent_cards,
    find_missing_specific,
    index_dated_rulings,
    match_dump_entries,
)
from flows.stages.rulings_match import (
    MAX_SPECIFIC,
    attribute_by_rulings,
    find_unpaired_partners,
    index_catalog_rulings,
    match_catalog_texts,
)
from flows.stages.stub_match import (
    attribute_by_stub,
    find_stub_conflicts,
    find_stub_fits,
    index_catalog_texts,
)

logger = logging.getLogger(__name__)

ATTRIBUTION_SCHEMA = {
    "dump_id": pl.String,
    "card_name": pl.String,
    "oracle_id": pl.String,
    "card_attribution": pl.String,
    "card_attribution_score": pl.Float64,
}


class CatalogIndex(TypedDict):
    """The catalog's lookups for attribution (built once per run from `catalog.Catalog`)."""

    rulings: pl.DataFrame  # `index_catalog_rulings`
    dated: pl.DataFrame  # `record_match.index_dated_rulings`
    texts: pl.DataFrame  # `stub_match.index_catalog_texts`
    names: pl.DataFrame  # `card_names.index_catalog_names`
    terms: pl.Series  # `card_names.index_catalog_terms`
    unpaired: pl.Series  # `rulings_match.find_unpaired_partners`
    whole: bool  # `cards.is_whole`: False for a few set files (no `record` evidence then)


def index_catalog(catalog: Catalog) -> CatalogIndex:
    """Build the rulings, text and name lookups from the catalog's tables.

    A catalog that is a part of MTGJSON (`cards.is_whole`) pins no card by its record:
    a cycle's or a mechanic's rulings (adventure, Food) look like one card's there.
    """
    whole = is_whole(catalog["cards"])
    if not whole:
        held, listed = count_listed_sets(catalog["cards"])
        logger.warning(
            "the catalog holds %d of the %d sets its cards are printed in (MTGJSON's "
            "`printings`; a few set files, not AllPrintings): no card is pinned by its "
            "record alone", held, listed,
        )  # fmt: skip
    return CatalogIndex(
        rulings=index_catalog_rulings(catalog["rulings"], catalog["cards"]),
        dated=index_dated_rulings(catalog["rulings"]),
        texts=index_catalog_texts(catalog["cards"], catalog["foreign"]),
        names=index_catalog_names(catalog["cards"]),
        terms=index_catalog_terms(catalog["cards"]),
        unpaired=find_unpaired_partners(catalog["cards"]),
        whole=whole,
    )


def attribute_dumps(
    occurrences: pl.DataFrame, stubs: pl.DataFrame, index: CatalogIndex | None
) -> pl.DataFrame:
    """Attribute each dump to a card by rulings, record, stub or name (see the module doc).

    Evidence that disagrees (two kinds on two cards, or a subject name that is
    not the card the others point at) gives no card at all.
    When several kinds agree, the score is 1 - prod(1 - score) over them.

    Needs:
        occurrences: dump_id, text_raw, language, published_on (`ruling_occurrences`);
            text_normalized (`dedupe.normalize_text` of text_raw) when present.
        stubs: `card_stubs`. index: None without a catalog (names only, oracle_id null).

    Returns:
        ATTRIBUTION_SCHEMA: dump_id, card_name, oracle_id, card_attribution
        ("rulings", "record", "stub", "name": `schemas.models.CARD_ATTRIBUTION_KINDS`),
        card_attribution_score (0-1); one row per dump with a card or a name, sorted
        by dump_id.
    """
    english = _english_entries(occurrences)
    dump_texts = english.select("dump_id", "text").unique()
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
    full_names = index["names"].filter(~pl.col("is_short"))["name"]
    named = pick_subject_names(own_texts, mentions, index["terms"], examples, full_names)
    named = _look_up_names(named, carried, index)
    matched = match_dump_entries(english.unique(), matches, index["rulings"])
    consistent = find_consistent_cards(matched, index["dated"])
    consistent = consistent.filter(~pl.col("oracle_id").is_in(index["unpaired"].implode()))
    conflicts = find_stub_conflicts(stubs, index["texts"], consistent)
    consistent = consistent.join(conflicts, on=["dump_id", "oracle_id"], how="anti")
    card_names = index["rulings"].select("oracle_id", "card_name").unique("oracle_id")
    by_record = _attribute_by_record(matched, consistent, stubs, card_names, index)
    by_rulings = attribute_by_rulings(dump_texts, index["rulings"], index["names"], matches)
    by_rulings = by_rulings.filter(~pl.col("oracle_id").is_in(index["unpaired"].implode()))
    by_rulings = by_rulings.join(
        _incomplete_beside_unknown_names(matched, own_texts, mentions, by_rulings, index),
        on=["dump_id", "oracle_id"],
        how="anti",
    )
    by_stub = attribute_by_stub(stubs, index["texts"])
    by_stub = by_stub.join(
        _names_against_stub(own_texts, mentions, by_stub, index), on="dump_id", how="anti"
    ).join(_rulings_against_stub(matched, by_stub, index), on=["dump_id", "oracle_id"], how="anti")
    return combine_evidence(named, by_rulings, by_record, by_stub, consistent)


def _attribute_by_record(
    matched: pl.DataFrame,
    consistent: pl.DataFrame,
    stubs: pl.DataFrame,
    card_names: pl.DataFrame,
    index: CatalogIndex,
) -> pl.DataFrame:
    """`record_match.attribute_by_record`, at RECORD_SCORE where the stub fits the card too
    (`record_match.attribute_by_record_and_stub`); none from a catalog that is not whole."""
    if not index["whole"]:
        return attribute_by_record(matched, consistent.clear(), card_names)
    by_record = attribute_by_record(matched, consistent, card_names)
    fits = find_stub_fits(stubs, index["texts"])
    with_stub = attribute_by_record_and_stub(matched, consistent, fits, card_names)
    return pl.concat([with_stub, by_record]).unique("dump_id", keep="first").sort("dump_id")


def _rulings_against_stub(
    matched: pl.DataFrame, by_stub: pl.DataFrame, index: CatalogIndex
) -> pl.DataFrame:
    """dump_id, oracle_id: stub matches whose dump's rulings point at another card (an entry
    the catalog does not know, or a specific ruling the stub's card does not carry) while
    none of them is the card's, or the card's own specific rulings are missing.

    Lace with Moonglove (not in the catalog) prints the words Serpent's Gift starts with;
    its page carries a deathtouch ruling the catalog does not know, none of Serpent's
    Gift's.
    """
    pairs = by_stub.select("dump_id", "oracle_id")
    carried = matched.join(pairs, on=["dump_id", "oracle_id"], how="semi").select("dump_id", "text")
    elsewhere = (
        matched.group_by("dump_id", "text")
        .agg(_min=pl.col("card_count").min())
        .filter(pl.col("_min").is_null() | (pl.col("_min") <= MAX_SPECIFIC))
        .join(carried, on=["dump_id", "text"], how="anti")
        .select("dump_id")
        .unique()
    )
    doubted = pairs.join(elsewhere, on="dump_id", how="semi")
    carries_none = doubted.join(carried.select("dump_id").unique(), on="dump_id", how="anti")
    lacks_own = find_missing_specific(matched, index["dated"], index["rulings"], doubted)
    return pl.concat([carries_none, lacks_own]).unique()


def _incomplete_beside_unknown_names(
    matched: pl.DataFrame,
    dump_texts: pl.DataFrame,
    mentions: pl.DataFrame,
    pins: pl.DataFrame,
    index: CatalogIndex,
) -> pl.DataFrame:
    """dump_id, oracle_id: `pins` of dumps that name a card the catalog does not know and lack
    a specific ruling of the pinned card (`record_match.find_missing_specific`).

    Opalescence's page (Opalescence not in the catalog) carries the rulings it shares with
    Humility, which name both, but none of Humility's own: not Humility's page.
    """
    terms = index["terms"].implode()
    names = index["names"]["name"].implode()
    lowercase = pl.col("name").str.to_lowercase()
    unknown = (
        dump_texts.join(mentions, on="text")
        .filter(
            ~pl.col("name").is_in(names)
            & ~pl.col("name").str.strip_suffix("s").is_in(names)
            & ~lowercase.is_in(terms)
            & ~lowercase.str.strip_suffix("s").is_in(terms)
        )
        .select("dump_id")
        .unique()
    )
    pins = pins.join(unknown, on="dump_id", how="semi")
    return find_missing_specific(matched, index["dated"], index["rulings"], pins)


def _english_entries(occurrences: pl.DataFrame) -> pl.DataFrame:
    """dump_id, text, published_on: each dump's English entries (repeats kept), text
    normalized (`normalize_text`): `text_normalized` when `occurrences` has it
    (`dedupe.assign_variants`), else each distinct body normalized once (most recur
    across dumps)."""
    english = occurrences.filter(pl.col("language") == "en")
    if "text_normalized" in english.columns:  # keyed already: not normalized twice
        return english.select("dump_id", pl.col("text_normalized").alias("text"), "published_on")
    english = english.select("dump_id", "text_raw", "published_on")
    keys = comparison_keys(english["text_raw"], "text")
    return english.join(keys, on="text_raw", nulls_equal=True).select(
        "dump_id", "text", "published_on"
    )


def _names_against_stub(
    dump_texts: pl.DataFrame, mentions: pl.DataFrame, by_stub: pl.DataFrame, index: CatalogIndex
) -> pl.DataFrame:
    """dump_id: stub-matched dumps whose rulings name cards, but never the stub's card.

    A stub cut from a text two cards print word for word (Recycle and Null
    Profusion, both mana value 6) matches the one the catalog has even when the
    dump is the other's; the rulings then name the other (`put Recycle onto the
    battlefield`) or only other cards (`Spellbook`), never the stub's card.
    Any capitalized name counts (subject or not), rules terms aside; the stub's
    card counts as named when a text holds its full, face or short name.
    """
    terms = index["terms"].implode()
    lowercase = pl.col("name").str.to_lowercase()
    named = (
        dump_texts.join(mentions, on="text")
        .select("dump_id", "name")
        .unique()
        .join(by_stub.select("dump_id", "oracle_id"), on="dump_id")
        .filter(~lowercase.is_in(terms) & ~lowercase.str.strip_suffix("s").is_in(terms))
    )
    # The stub's card is named when a text holds one of its names (`Ral's Dispersal`
    # is no single mention: the name pattern stops at the possessive).
    own = (
        by_stub.select("dump_id", "oracle_id")
        .join(index["names"].select("oracle_id", alias="name"), on="oracle_id")
        .join(dump_texts, on="dump_id")
        .filter(text_names(pl.col("text"), pl.col("alias")))
        .select("dump_id")
        .unique()
    )
    return named.select("dump_id").unique().join(own, on="dump_id", how="anti")


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
