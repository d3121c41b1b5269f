"""Match a dump's stray card stub (mana value, P/T, cut text) to one catalog card.

The stub is usually the dump's own card, cut (seed 004: `CMC 2F/E 1/3`, `.`,
`Au début du combat pendant votre tour, vous pouvez payer` is Aurora Shifter's
French text). Its text prefix is looked up in the catalog's foreign printings
and English texts: the same mana value, the same power and toughness when the
stub has them, and a catalog text that starts with the stub's text.
"""

from __future__ import annotations

import polars as pl

#: A stub prefix shorter than this (normalized characters) is too weak to match ...
MIN_PREFIX_CHARS = 20
#: ... and so is one with fewer letters than this outside mana symbols (`{T}: Add {C}.`
#: starts hundreds of lands).
MIN_PREFIX_LETTERS = 12


def fold_card_text(text: pl.Expr) -> pl.Expr:
    """Card text folded for prefix matching: NFKC, lowercase, quotes and whitespace folded."""
    return (
        text.str.normalize("NFKC")
        .str.to_lowercase()
        .str.replace_all(r"[’‘`´]", "'")
        .str.replace_all(r"[“”«»„]", '"')
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
    )


def index_catalog_texts(cards: pl.DataFrame, foreign: pl.DataFrame) -> pl.DataFrame:
    """Every printed text of the catalog, English and foreign, keyed for stub lookups.

    Needs:
        cards: uuid, oracle_id, name, mana_value, power, toughness, text.
        foreign: uuid, language, text.

    Returns:
        oracle_id, card_name, language ("en", "fr", …), mana_value (Float64),
        power, toughness, text (folded), _key (its first MIN_PREFIX_CHARS characters);
        distinct rows.
    """
    stats = cards.select("uuid", "oracle_id", card_name="name", mana_value="mana_value",
                         power="power", toughness="toughness")  # fmt: skip
    english = cards.select("uuid", "text", language=pl.lit("en"))
    texts = pl.concat([english, foreign.select("uuid", "text", "language")])
    return (
        texts.drop_nulls("text")
        .join(stats, on="uuid")
        .filter(pl.col("oracle_id").is_not_null())
        .with_columns(text=fold_card_text(pl.col("text")))
        .with_columns(_key=pl.col("text").str.slice(0, MIN_PREFIX_CHARS))
        .drop("uuid")
        .unique()
    )


def attribute_by_stub(stubs: pl.DataFrame, catalog_texts: pl.DataFrame) -> pl.DataFrame:
    """The one catalog card each dump's stub is a cut copy of.

    Needs:
        stubs: dump_id, mana_value, power, toughness, text, language,
            language_is_inferred (`card_stubs`). catalog_texts: `index_catalog_texts`.

    Returns:
        dump_id, oracle_id, card_name, stub_score (Float64: 0.5 plus the prefix
        length / 200, at most 0.95); only dumps whose stubs match exactly one
        oracle_id. A stub in a reliably detected language is matched against
        that language's texts only.
    """
    prefixes = (
        stubs.filter(pl.col("text").is_not_null())
        .with_columns(_prefix=fold_card_text(pl.col("text")))
        .filter(
            (pl.col("_prefix").str.len_chars() >= MIN_PREFIX_CHARS)
            & (_letters(pl.col("_prefix")) >= MIN_PREFIX_LETTERS)
        )
    )
    candidates = (
        prefixes.with_columns(_key=pl.col("_prefix").str.slice(0, MIN_PREFIX_CHARS))
        .join(catalog_texts, on=["_key", "mana_value"], suffix="_catalog")
        .filter(
            pl.col("text_catalog").str.starts_with(pl.col("_prefix"))
            & _same_or_unknown("power", pl.col("power").is_null())
            & _same_or_unknown("toughness", pl.col("toughness").is_null())
            & _same_or_unknown("language", pl.col("language_is_inferred"))
        )
    )  # fmt: skip
    found = candidates.group_by("dump_id").agg(
        pl.col("oracle_id").unique(),
        pl.col("card_name").first(),
        _chars=pl.col("_prefix").str.len_chars().max(),
    )
    return (
        found.filter(pl.col("oracle_id").list.len() == 1)
        .select(
            "dump_id",
            oracle_id=pl.col("oracle_id").list.first(),
            card_name="card_name",
            stub_score=(0.5 + pl.col("_chars") / 200).clip(upper_bound=0.95).round(3),
        )
        .sort("dump_id")
    )


def _same_or_unknown(column: str, unknown: pl.Expr) -> pl.Expr:
    """The stub's `column` equals the catalog's, or the stub's is `unknown`."""
    return unknown | pl.col(column).eq_missing(pl.col(f"{column}_catalog"))


def _letters(text: pl.Expr) -> pl.Expr:
    """Letters of `text` outside mana symbols such as {T} and {2}{R} (UInt32)."""
    return text.str.replace_all(r"\{[^}]*\}", "").str.count_matches(r"\p{L}")
