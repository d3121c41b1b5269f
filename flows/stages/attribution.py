"""Which card is each dump about: by its rulings, its stray stub, or the names its rulings use.

Three kinds of evidence, from strongest to weakest, and a dump gets a card
only when the evidence it has agrees (a wrong card is worse than none):

- `rulings`: the dump's English rulings matched to the catalog's rulings
  (normalized exactly, then the near-duplicate rule of `dedupe`). A ruling
  carried by n cards weighs 1/n: generic ones (energy, reconfigure, cycling,
  on up to hundreds of cards) say little, a card-specific one pins the card.
  A card needs a matched ruling carried by at most `MAX_SPECIFIC` cards, the
  clear lead, a matched ruling naming it (`rulings_match.attribute_by_rulings`)
  and to be the rulings' subject name. A card whose printed `Partner with`
  names a card the catalog lacks is never pinned by rulings: partners carry
  the same rulings (`rulings_match.find_unpaired_partners`).
- `stub`: the stray stub's mana value, power/toughness and cut text prefix
  match exactly one catalog card's text in the stub's language (`stub_match`),
  and the dump's rulings, when they name cards, name that one (a card the
  catalog lacks may print the same text: Recycle and Null Profusion).
- `name`: the name the rulings use as their subject (`card_names`). It
  confirms or vetoes the two above; alone it never gets an oracle_id (a card
  newer than the catalog, a legend's short name).
"""

from __future__ import annotations

from typing import TypedDict

import polars as pl

from flows.errors import ContractError
from flows.stages.card_names import (
    find_name_mentions,
    index_catalog_names,
    index_catalog_terms,
    pick_subject_names,
    text_names,
)
from flows.stages.cards import Catalog
from flows.stages.dedupe import comparison_keys
from flows.stages.record_match import (
    attribute_by_record,
    find_consistent_cards,
    find_missing_specific,
    index_dated_rulings,
    match_dump_entries,
)
from flows.stages.rulings_match import (
    attribute_by_rulings,
    find_unpaired_partners,
    index_catalog_rulings,
    match_catalog_texts,
)
from flows.stages.stub_match import attribute_by_stub, find_stub_conflicts, index_catalog_texts
from schemas.models import CARD_ATTRIBUTION_KINDS

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


def index_catalog(catalog: Catalog) -> CatalogIndex:
    """Build the rulings, text and name lookups from the catalog's tables."""
    return CatalogIndex(
        rulings=index_catalog_rulings(catalog["rulings"], catalog["cards"]),
        dated=index_dated_rulings(catalog["rulings"]),
        texts=index_catalog_texts(catalog["cards"], catalog["foreign"]),
        names=index_catalog_names(catalog["cards"]),
        terms=index_catalog_terms(catalog["cards"]),
        unpaired=find_unpaired_partners(catalog["cards"]),
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
    dump_entries = _english_dump_entries(occurrences)
    dump_texts = dump_entries.select("dump_id", "text").unique()
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
    matched = match_dump_entries(dump_entries, matches, index["rulings"])
    consistent = find_consistent_cards(matched, index["dated"])
    consistent = consistent.filter(~pl.col("oracle_id").is_in(index["unpaired"].implode()))
    conflicts = find_stub_conflicts(stubs, index["texts"], consistent)
    consistent = consistent.join(conflicts, on=["dump_id", "oracle_id"], how="anti")
    card_names = index["rulings"].select("oracle_id", "card_name").unique("oracle_id")
    by_record = attribute_by_record(matched, consistent, card_names)
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
    )
    return _check_kinds(combine_evidence(named, by_rulings, by_record, by_stub, consistent))


def _check_kinds(found: pl.DataFrame) -> pl.DataFrame:
    """`found` itself; raises ContractError on a card_attribution the schema does not list.

    A value missing from the schema's list would move every such dump to `rejects`
    at validation, silently: it is a code fault, so the run stops instead.
    """
    unknown = set(found["card_attribution"].unique().to_list()) - set(CARD_ATTRIBUTION_KINDS)
    if unknown:
        raise ContractError(
            f"card_attribution {sorted(unknown)} is not in schemas.models.CARD_ATTRIBUTION_KINDS "
            f"{list(CARD_ATTRIBUTION_KINDS)}: add it to the schema (and bump SCHEMA_VERSION)"
        )
    return found


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


def _english_dump_entries(occurrences: pl.DataFrame) -> pl.DataFrame:
    """dump_id, text, published_on: each dump's distinct English entries, text normalized
    (`normalize_text`). Each distinct body is normalized once: most recur across dumps."""
    english = occurrences.filter(pl.col("language") == "en").select(
        "dump_id", "text_raw", "published_on"
    )
    keys = comparison_keys(english["text_raw"], "text")
    return (
        english.join(keys, on="text_raw", nulls_equal=True)
        .select("dump_id", "text", "published_on")
        .unique()
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


def combine_evidence(
    named: pl.DataFrame,
    by_rulings: pl.DataFrame,
    by_record: pl.DataFrame,
    by_stub: pl.DataFrame,
    consistent: pl.DataFrame,
) -> pl.DataFrame:
    """One attribution per dump from the four kinds of evidence.

    Rulings count when the rulings' subject name is their card, or when no
    subject name was found and the dump is consistent with the card's record
    (`record_match.find_consistent_cards`). A subject name that is the full
    name of one catalog card whose rulings the dump carries pins that card
    when the dump is consistent with it. Evidence on two cards, or a subject
    name of another catalog card: no card. A subject name the catalog does not
    know beats a catalog match (the name alone is kept). A dump with no card
    and no name gets no row.
    """
    fits = consistent.with_columns(_fits=pl.lit(True))
    evidence = (
        named.select("dump_id", "_n_any", _name="card_name", _n_oid="oracle_id",
                     _n_name="catalog_name", _n_score="name_score")
        .join(by_rulings.rename({"oracle_id": "_r_oid", "card_name": "_r_name",
                                 "rulings_score": "_r_score"}), on="dump_id", how="full",
              coalesce=True)
        .join(by_record.rename({"oracle_id": "_c_oid", "card_name": "_c_name",
                                "record_score": "_c_score"}), on="dump_id", how="full",
              coalesce=True)
        .join(by_stub.rename({"oracle_id": "_s_oid", "card_name": "_s_name",
                              "stub_score": "_s_score"}), on="dump_id", how="full", coalesce=True)
        .join(fits.rename({"oracle_id": "_r_oid", "_fits": "_r_fits"}), on=["dump_id", "_r_oid"],
              how="left")
        .join(fits.rename({"oracle_id": "_n_oid", "_fits": "_n_fits"}), on=["dump_id", "_n_oid"],
              how="left")
    )  # fmt: skip
    # Rulings pin a card only when the rulings' subject is that card (or there is
    # no subject and the dump fits the card's record).
    subject_is_card = pl.col("_n_any").eq_missing(pl.col("_r_oid")) | (
        (pl.col("_name").is_null() | _part_of_name("_r_name")) & pl.col("_r_fits").fill_null(False)
    )
    evidence = evidence.with_columns(
        pl.when(subject_is_card).then(pl.col(c)).name.keep()
        for c in ("_r_oid", "_r_name", "_r_score")
    ).with_columns(
        _p_oid=pl.when(pl.col("_n_fits").fill_null(False)).then("_n_oid"),
    )
    card = pl.coalesce("_r_oid", "_c_oid", "_s_oid", "_p_oid")
    evidence = evidence.with_columns(_card=card).join(
        fits.rename({"oracle_id": "_card"}), on=["dump_id", "_card"], how="left"
    )
    return _decide(evidence)


def _part_of_name(card_name: str) -> pl.Expr:
    """Whether the subject name `_name` is whole words of `card_name` (a legend's short
    name, `Athreos`; a name cut at its possessive, `Ruse` of `Familiar's Ruse`; a plural,
    `two Temple Altisaurs`)."""
    name = pl.col("_name").str.strip_suffix("s").str.escape_regex()  # `Temple Altisaurs`
    pattern = pl.lit(r"(?:^|\W)") + name + pl.lit(r"s?(?:$|\W)")
    return pl.col(card_name).str.contains(pattern).fill_null(False)


def _decide(evidence: pl.DataFrame) -> pl.DataFrame:
    """The card the evidence columns agree on (`combine_evidence`), its kind and score."""
    oids = ("_r_oid", "_c_oid", "_s_oid")
    card = pl.coalesce(*oids, "_p_oid")
    agree = pl.all_horizontal(pl.col(c).is_null() | (pl.col(c) == card) for c in oids)
    other_card_named = (
        pl.col("_n_oid").is_not_null() & card.is_not_null() & (pl.col("_n_oid") != card)
    )
    # The subject is a card the catalog does not know: the catalog match came
    # from rulings it shares with catalog cards; keep the name alone.
    # A part of the card's own name (`Athreos`) is no other card when the dump fits its record.
    card_name = pl.coalesce("_r_name", "_c_name", "_s_name")
    own_part = pl.col("_fits").fill_null(False) & _part_of_name("_card_name")
    unknown_named = (
        pl.col("_name").is_not_null() & pl.col("_n_oid").is_null() & card.is_not_null() & ~own_part
    )
    kept = evidence.with_columns(_card_name=card_name).filter(agree & ~other_card_named)
    kept = kept.with_columns(
        pl.when(~unknown_named).then(pl.col(c)).name.keep()
        for c in ("_r_oid", "_r_name", "_r_score", "_c_oid", "_c_name", "_c_score",
                  "_s_oid", "_s_name", "_s_score", "_p_oid")
    )  # fmt: skip
    card = pl.coalesce(*oids, "_p_oid")
    how = (
        pl.when(pl.col("_r_oid").is_not_null()).then(pl.lit("rulings"))
        .when(pl.col("_c_oid").is_not_null()).then(pl.lit("record"))
        .when(pl.col("_s_oid").is_not_null()).then(pl.lit("stub"))
        .otherwise(pl.lit("name"))
    )  # fmt: skip
    doubt = [(1 - pl.col(c).fill_null(0.0)) for c in ("_r_score", "_c_score", "_s_score")]
    name_doubt = 1 - pl.col("_n_score").fill_null(0.0)
    return (
        kept.select(
            "dump_id",
            card_name=pl.coalesce("_r_name", "_c_name", "_s_name", "_n_name", "_name"),
            oracle_id=card,
            card_attribution=how,
            card_attribution_score=(1 - doubt[0] * doubt[1] * doubt[2] * name_doubt).round(3),
        )
        .filter(pl.col("card_name").is_not_null())
        .sort("dump_id")
    )
