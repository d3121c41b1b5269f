"""Match a dump's stray card stub (mana value, P/T, cut text) to one catalog card.

The stub is usually the dump's own card, cut (seed 004: `CMC 2F/E 1/3`, `.`,
`Au début du combat pendant votre tour, vous pouvez payer` is Aurora Shifter's
French text). Its text prefix is looked up in the catalog's foreign printings
and English texts: the same mana value, the same power and toughness when the
stub has them, and a catalog text that starts with the stub's text.
"""

from __future__ import annotations

import os

import polars as pl

#: A stub prefix shorter than this (normalized characters) is too weak to match ...
MIN_PREFIX_CHARS = 20
#: ... and so is one with fewer letters than this outside mana symbols (`{T}: Add {C}.`
#: starts hundreds of lands).
MIN_PREFIX_LETTERS = 12
#: Letters the stub must have after it parts from every other card's text of its
#: stats, and from every card's text of other stats.
MIN_TAIL_LETTERS = 8
MIN_TAIL_LETTERS_OTHER_STATS = 4


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

    The catalog texts compared are those of the stub's language (when reliably
    detected), mana value and power/toughness (when the stub has them): the
    cards left are the candidates and the rivals the stub must part from.

    Needs:
        stubs: dump_id, mana_value, power, toughness, text, language,
            language_is_inferred (`card_stubs`). catalog_texts: `index_catalog_texts`.

    Returns:
        dump_id, oracle_id, card_name, stub_score (Float64: 0.5 plus the prefix
        length / 200, at most 0.95); only dumps whose stub matches exactly one
        oracle_id and goes on for MIN_TAIL_LETTERS letters after it parts from
        every other card's text, with a word there that none of them prints
        (`_template_only`). A stub in a reliably detected language is matched
        against that language's texts only.
    """
    same_start, found = _match_prefixes(stubs, catalog_texts)
    tails = _distinct_tail(found, same_start.filter("_same_stats"))
    distinct = tails.select("dump_id", "_tail").join(
        _distinct_tail(found, same_start.filter(~pl.col("_same_stats"))).select(
            "dump_id", _tail_other="_tail"
        ),
        on="dump_id",
        how="full",
        coalesce=True,
    )
    return (
        found.join(distinct, on="dump_id", how="left")
        .join(_template_only(found, same_start, tails), on="dump_id", how="anti")
        .filter(
            (_letters(pl.col("_tail").fill_null(pl.col("_prefix"))) >= MIN_TAIL_LETTERS)
            & (
                _letters(pl.col("_tail_other").fill_null(pl.col("_prefix")))
                >= MIN_TAIL_LETTERS_OTHER_STATS
            )
        )
        .select(
            "dump_id",
            "oracle_id",
            "card_name",
            stub_score=(0.5 + pl.col("_prefix").str.len_chars() / 200)
            .clip(upper_bound=0.95)
            .round(3),
        )
        .unique("dump_id", keep="none")
        .sort("dump_id")
    )


def _match_prefixes(
    stubs: pl.DataFrame, catalog_texts: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the catalog texts starting as each usable stub, `_same_stats` flagged; the dumps
    whose stub starts the texts of exactly one card of its stats: dump_id, _prefix,
    oracle_id, card_name)."""
    keyed = _usable_stubs(stubs).with_columns(_key=pl.col("_prefix").str.slice(0, MIN_PREFIX_CHARS))
    # Narrowed by language, mana value and power/toughness before the texts are
    # compared: the candidates, and the rivals the stub must part from by
    # MIN_TAIL_LETTERS letters; a card of other stats that prints the same words
    # is a weaker rival (MIN_TAIL_LETTERS_OTHER_STATS): the words are generic, a
    # card the catalog lacks may print them with these stats (a functional reprint).
    same_start = keyed.join(catalog_texts, on="_key", suffix="_catalog").filter(
        _same_or_unknown("language", pl.col("language_is_inferred"))
    )
    same_start = same_start.with_columns(
        _same_stats=pl.col("mana_value").eq_missing(pl.col("mana_value_catalog"))
        & _same_or_unknown("power", pl.col("power").is_null())
        & _same_or_unknown("toughness", pl.col("toughness").is_null())
    )
    candidates = same_start.filter(
        pl.col("_same_stats") & pl.col("text_catalog").str.starts_with(pl.col("_prefix"))
    )
    found = (
        candidates.group_by("dump_id", "_prefix")
        .agg(pl.col("oracle_id").unique(), pl.col("card_name").first())
        .filter(pl.col("oracle_id").list.len() == 1)
        .with_columns(pl.col("oracle_id").list.first())
    )
    return same_start, found


def find_stub_fits(stubs: pl.DataFrame, catalog_texts: pl.DataFrame) -> pl.DataFrame:
    """dump_id, oracle_id: the one card of the stub's stats whose text the stub starts.

    `attribute_by_stub`'s candidates before its tail rule: the stub's language
    (when reliably detected), mana value and power/toughness, and exactly one
    card whose printed text starts with the stub's text. Alone this pins
    nothing (the stub may end before it parts from a card the catalog lacks);
    `record_match.attribute_by_record_and_stub` takes it beside the dump's record.

    Needs:
        stubs: `card_stubs`. catalog_texts: `index_catalog_texts`.
    """
    same_start, found = _match_prefixes(stubs, catalog_texts)
    tails = _distinct_tail(found, same_start.filter("_same_stats"))
    return (
        found.join(_template_only(found, same_start, tails), on="dump_id", how="anti")
        .select("dump_id", "oracle_id")
        .sort("dump_id")
    )


def _usable_stubs(stubs: pl.DataFrame) -> pl.DataFrame:
    """`stubs` with a text long enough to match (MIN_PREFIX_CHARS, MIN_PREFIX_LETTERS),
    plus _prefix: the text folded (`fold_card_text`)."""
    return (
        stubs.filter(pl.col("text").is_not_null())
        .with_columns(_prefix=fold_card_text(pl.col("text")))
        .filter(
            (pl.col("_prefix").str.len_chars() >= MIN_PREFIX_CHARS)
            & (_letters(pl.col("_prefix")) >= MIN_PREFIX_LETTERS)
        )
    )


def _distinct_tail(found: pl.DataFrame, same_start: pl.DataFrame) -> pl.DataFrame:
    """dump_id, _prefix, _shared (characters in common with the nearest rival), _tail: the
    stub's text after its longest common start with another card's text.

    A stub that only repeats what other cards print too (`{T}: Add {C}.`) and
    ends where they part says nothing about which of them it is.
    """
    rivals = same_start.join(found.select("dump_id", _card="oracle_id"), on="dump_id").filter(
        pl.col("oracle_id") != pl.col("_card")
    )
    shared = [
        len(os.path.commonprefix([a, b]))  # noqa: RUF071 (characters, not paths)
        for a, b in zip(rivals["_prefix"].to_list(), rivals["text_catalog"].to_list(), strict=True)
    ]
    return (
        rivals.with_columns(_shared=pl.Series(shared, dtype=pl.Int64))
        .group_by("dump_id", "_prefix")
        .agg(pl.col("_shared").max())
        .select("dump_id", "_prefix", "_shared",
                _tail=pl.col("_prefix").str.slice(pl.col("_shared")))
    )  # fmt: skip


#: A word of the stub's tail counts when it has this many letters (`_template_only`).
MIN_WORD_LETTERS = 4


def _template_only(
    found: pl.DataFrame, same_start: pl.DataFrame, tails: pl.DataFrame
) -> pl.DataFrame:
    """dump_id: stubs that part from every other card's text of their stats only in words
    those cards print too: a cycle's template, not one card's text. `tails`: the stubs'
    `_distinct_tail` against the texts of their stats.

    From the word where the stub parts from its nearest rival (same language, mana value,
    power/toughness) to its end, no word of MIN_WORD_LETTERS letters is missing from all
    rivals' texts. Curse of the Forsaken (removed from the catalog) and Curse of Predation
    print `Immer wenn eine Kreatur den verzauberten Spieler angreift, ...` and part after
    it; a stub cut there parts from Curse of Inertia's `Immer wenn ein Spieler den
    verzauberten Spieler ...` with words Inertia prints too. Stubs without a rival pass.
    """
    same_stats = same_start.filter("_same_stats")
    start = pl.col("_prefix").str.slice(0, pl.col("_shared")).str.replace(r"\S*$", "")
    words = (
        tails.select("dump_id", _word=pl.col("_prefix").str.slice(start.str.len_chars()))
        .with_columns(pl.col("_word").str.split(" "))
        .explode("_word")
        .with_columns(pl.col("_word").str.strip_chars(".,;:!?()[]\"'«»"))
        .filter(pl.col("_word").str.count_matches(r"\p{L}") >= MIN_WORD_LETTERS)
        .unique()
    )
    rivals = same_stats.join(found.select("dump_id", _card="oracle_id"), on="dump_id").filter(
        pl.col("oracle_id") != pl.col("_card")
    )
    printed = (
        words.join(rivals.select("dump_id", "text_catalog"), on="dump_id")
        .filter(pl.col("text_catalog").str.contains(pl.col("_word"), literal=True))
        .select("dump_id", "_word")
        .unique()
    )
    own_word = words.join(printed, on=["dump_id", "_word"], how="anti").select("dump_id")
    return tails.select("dump_id").unique().join(own_word, on="dump_id", how="anti")


def _same_or_unknown(column: str, unknown: pl.Expr) -> pl.Expr:
    """The stub's `column` equals the catalog's, or the stub's is `unknown`."""
    return unknown | pl.col(column).eq_missing(pl.col(f"{column}_catalog"))


def _letters(text: pl.Expr) -> pl.Expr:
    """Letters of `text` outside mana symbols such as {T} and {2}{R} (UInt32)."""
    return text.str.replace_all(r"\{[^}]*\}", "").str.count_matches(r"\p{L}")


def find_stub_conflicts(
    stubs: pl.DataFrame, catalog_texts: pl.DataFrame, candidates: pl.DataFrame
) -> pl.DataFrame:
    """dump_id, oracle_id: candidate cards that none of the dump's usable stubs is cut from.

    A stub long enough to match (`attribute_by_stub`'s MIN_PREFIX_CHARS and
    MIN_PREFIX_LETTERS) that starts none of a candidate's printed texts (any
    language, the same mana value) is another card's: a card the catalog
    lacks whose rulings the candidate shares (Contested Cliffs' Italian stub
    in a dump whose one ruling is Triangle of War's too).

    Needs:
        stubs: dump_id, mana_value, text (`card_stubs`). catalog_texts: `index_catalog_texts`.
        candidates: dump_id, oracle_id.
    """
    usable = _usable_stubs(stubs).select("dump_id", "mana_value", "_prefix")
    pairs = candidates.select("dump_id", "oracle_id").join(usable, on="dump_id")
    fitting = (
        pairs.join(catalog_texts.select("oracle_id", "text", _mv="mana_value"), on="oracle_id")
        .filter(
            pl.col("text").str.starts_with(pl.col("_prefix"))
            & pl.col("mana_value").eq_missing(pl.col("_mv"))
        )
        .select("dump_id", "oracle_id")
        .unique()
    )
    return (
        pairs.select("dump_id", "oracle_id")
        .unique()
        .join(fitting, on=["dump_id", "oracle_id"], how="anti")
        .sort("dump_id", "oracle_id")
    )
