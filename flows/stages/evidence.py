"""Combine a dump's evidence of its card (`attribution`) into one attribution, or none.

Four kinds, used only when they agree (a wrong card is worse than none):
rulings that name the card, the card's dated record (`record_match`), the
stray stub (`stub_match`) and the rulings' subject name (`card_names`).
"""

from __future__ import annotations

import polars as pl


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
        (pl.col("_name").is_null() | _names_card("_r_name")) & pl.col("_r_fits").fill_null(False)
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


def _names_card(card_name: str) -> pl.Expr:
    """Whether the subject name `_name` is a part of `card_name` (`_part_of_name`) or holds
    its first part, before a comma or ` // `, as whole words: a word of the sentence
    glued to it (`Activating Yuriko`, `Wizard, Academy Journeymage`), a face's name
    misspelt after it (`Arlinn, the Moon Fury`)."""
    first = pl.col(card_name).str.split(", ").list.first().str.split(" // ").list.first()
    pattern = pl.lit(r"(?:^|\W)") + first.str.escape_regex() + pl.lit(r"(?:$|\W)")
    return _part_of_name(card_name) | pl.col("_name").str.contains(pattern).fill_null(False)


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
    own_part = pl.col("_fits").fill_null(False) & _names_card("_card_name")
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
