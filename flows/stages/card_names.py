"""Find the card a dump's rulings are about from the names its bodies use as their subject.

Official rulings name their own card as the subject of a sentence
(`Razorfield Ripper's triggered ability`, `as Sentry Bot's third ability
resolves`, `that Satya is attacking`) and other cards as objects or examples
(`such as the activated ability of Brass Squire`). Only subject mentions make a
name a candidate; the candidate mentioned most often (all mentions counted)
wins, and a tie gives no name.
"""

from __future__ import annotations

import re

import polars as pl

#: A run of capitalized words, joined by name connectors (`Demon of Dark Schemes`,
#: `Satya, Aetherflux Genius`), never starting inside a word (`Kor` of `Looter il-Kor`).
_NAME = re.compile(
    r"(?<![\w-])[A-Z][\w-]*(?:['’](?!s\b)\w[\w-]*)*"
    r"(?:,? (?:(?:of|the|from|for|in|to) )*[A-Z][\w-]*(?:['’](?!s\b)\w[\w-]*)*)*"
)
#: What follows a subject: a possessive, or a verb.
_SUBJECT_AFTER = re.compile(
    r"^(?:['’]s?\b| (?:is|isn't|was|wasn't|has|hasn't|had|becomes|became|enters|entered|dies|died"
    r"|attacks|blocks|copies|deals|gets|gains|leaves|will|won't|can|can't|could|would|must|may"
    r"|does|doesn't|triggers|resolves|remains|stays|isn't)\b)"
)
#: What `find_name_mentions` returns.
MENTION_SCHEMA = {
    "text": pl.String,
    "name": pl.String,
    "is_subject": pl.Boolean,
    "is_first_word": pl.Boolean,
}
#: Where a sentence ends: a one-word name right after it is only capitalized as its start.
_SENTENCE_END = re.compile(r"[.!?:;]\s+")
#: Words before a name in its sentence that make it an example, never the subject
#: (`For example, if Doubling Season's effect applies…`, `such as Brass Squire`).
_EXAMPLE_CONTEXT = re.compile(r"(?i)\b(?:for example|for instance|such as|e\.g\.|like)\b")
#: Capitalized words that start sentences: stripped from the front of a name.
_LEADING_TEXT = (
    "A An The If When Whenever As At Although Because Once Use Some Any Each Every It Its "
    "This That These Those They Their You Your Similarly Notably Specifically Rather In For "
    "On To After Before While Unless Then All No Other Another One Two Three Keep Potential "
    "Also However Since Even Only Both Either Neither Here There What Which Who How Note "
    "Otherwise Instead Likewise Normally Usually Remember"
)
LEADING_WORDS = frozenset(_LEADING_TEXT.split(" "))
#: Rules variables and the name connectors: never the start of a name.
_VARIABLES = frozenset(("X", "Y", "Z", "N"))
_CONNECTORS = frozenset(("of", "the", "from", "for", "in", "to"))
#: Rules terms: never a card name alone (with a catalog, its subtypes and keywords too).
_TERMS_TEXT = (
    "Energy Reconfigure Equipment Aura Vehicle Saga Token Creature Player Planeswalker Battle "
    "Land Artifact Enchantment Instant Sorcery Legendary Basic Snow World Tribal Class "
    "Treasure Food Clue Blood Opponent Counter Mana Phyrexian Colorless Monarch Initiative "
    "Emblem Dungeon Commander Companion Day Night"
)
RULES_TERMS = frozenset(_TERMS_TEXT.split(" "))


def _is_rules_term(name: str) -> bool:
    return name in LEADING_WORDS or name in RULES_TERMS or name.removesuffix("s") in RULES_TERMS


def text_names(text: pl.Expr, name: pl.Expr) -> pl.Expr:
    """Whether `text` uses `name` as a name of its own (Boolean), not as the start of a longer one.

    `Soulblade Corrupter's last ability` names Soulblade Corrupter, not a legend
    whose short name is Soulblade; `Hanweir Garrison` is not Hanweir, the Writhing
    Township. So the name must start a word and not run on into another
    capitalized word (after a space or comma). Plurals (`two Winding Constrictors`)
    and possessives still count.
    """
    return text.str.contains(
        pl.lit(r"(?:^|\W)") + name.str.escape_regex() + pl.lit(r"(?:$|[^ ,]|[ ,]+[^A-Z ,])")
    )


def find_name_mentions(texts: pl.Series) -> pl.DataFrame:
    """Every card-name mention in each distinct text, and whether it is the sentence's subject.

    Args:
        texts: English ruling texts (String).

    Returns:
        MENTION_SCHEMA: text (String), name (String), is_subject (Boolean: the
        name is the sentence's subject, not in an example), is_first_word
        (Boolean: a one-word name that starts its sentence, so maybe capitalized
        only for that): one row per mention.
    """
    rows: list[tuple[str, str, bool, bool]] = []
    for text in texts.drop_nulls().unique().to_list():
        for match in _NAME.finditer(text):
            words = match.group().split(" ")
            # Sentence words and variables (`the value of X in Zaxara's ability`) are no name.
            while words and (
                re.split("['’,]", words[0])[0] in LEADING_WORDS
                or words[0] in _VARIABLES
                or words[0] in _CONNECTORS
            ):
                words.pop(0)
            name = " ".join(words).rstrip(",")
            if len(name) < 3 or _is_rules_term(name) or name.isupper() or name[0].islower():
                continue
            sentence_before = _SENTENCE_END.split(text[: match.start()])[-1]
            # `Nothing can happen…`, `Discarding does…`: maybe only a sentence's first word
            first_word = (
                not sentence_before.strip(" \"'“‘(") and " " not in name and name == match.group()
            )
            after = text[match.end() :]
            is_example = bool(_EXAMPLE_CONTEXT.search(sentence_before))
            is_subject = bool(_SUBJECT_AFTER.match(after)) and not is_example
            rows.append((text, name, is_subject, first_word))
    return pl.DataFrame(rows, schema=MENTION_SCHEMA, orient="row")


def pick_subject_names(
    dump_texts: pl.DataFrame,
    mentions: pl.DataFrame,
    terms: pl.Series | None = None,
    excluded: pl.DataFrame | None = None,
    known: pl.Series | None = None,
) -> pl.DataFrame:
    """The card each dump is about by the names its rulings use as subject.

    Needs:
        dump_texts: dump_id, text (one row per distinct English ruling of a dump).
        mentions: `find_name_mentions` output.
        terms: lowercase rules terms never taken for a name, nor their plurals
            (the catalog's subtypes and keywords: Ninja, Rebound); None: RULES_TERMS only.
        excluded: dump_id, name pairs that are not candidates (example cards).
        known: card names (the catalog's): a one-word name met only as the first
            word of sentences is a candidate only if it is one of them.

    Returns:
        dump_id, card_name (String), name_mentions (UInt32: all mentions of it),
        name_score (Float64, 0-1: mentions / (mentions + runner-up's + 1));
        only dumps with one clear name (at least one subject mention, strictly
        more mentions than any other subject name).
    """
    if terms is not None:
        lowercase = pl.col("name").str.to_lowercase()
        mentions = mentions.filter(
            ~lowercase.is_in(terms.implode())
            & ~lowercase.str.strip_suffix("s").is_in(terms.implode())
        )
    known_name = pl.col("name").is_in(known.implode()) if known is not None else pl.lit(False)
    mentions = mentions.filter(~pl.col("is_first_word") | known_name)
    counts = (
        dump_texts.join(mentions, on="text")
        .group_by("dump_id", "name")
        .agg(mentions=pl.len(), subject=pl.col("is_subject").sum())
        .filter(pl.col("subject") > 0)
        .join(excluded if excluded is not None else no_names(), on=["dump_id", "name"], how="anti")
        .sort(["dump_id", "mentions", "name"], descending=[False, True, False])
    )
    ranked = counts.group_by("dump_id", maintain_order=True).agg(
        card_name=pl.col("name").first(),
        name_mentions=pl.col("mentions").first(),
        _second=pl.col("mentions").get(1, null_on_oob=True).fill_null(0),
    )
    return ranked.filter(pl.col("name_mentions") > pl.col("_second")).select(
        "dump_id",
        "card_name",
        "name_mentions",
        name_score=(
            pl.col("name_mentions") / (pl.col("name_mentions") + pl.col("_second") + 1)
        ).round(3),
    )


def no_names() -> pl.DataFrame:
    """An empty dump_id, name frame (nothing excluded)."""
    return pl.DataFrame(schema={"dump_id": pl.String, "name": pl.String})


def index_catalog_terms(cards: pl.DataFrame) -> pl.Series:
    """The catalog's subtypes and keywords, lowercase (String): rules words, not card names.

    Needs:
        cards: subtypes, keywords (List(String)).
    """
    terms = pl.concat([cards["subtypes"].explode(), cards["keywords"].explode()])
    return terms.drop_nulls().str.to_lowercase().unique().sort().rename("term")


def index_catalog_names(cards: pl.DataFrame) -> pl.DataFrame:
    """Every name a ruling may use for a catalog card: full, face and short (before a comma).

    Names that are also rules terms (`index_catalog_terms`) are left out.

    Needs:
        cards: oracle_id, name, face_name, subtypes, keywords (`catalog.Catalog["cards"]`).

    Returns:
        name (String), oracle_id (String), catalog_name (String: the card's
        full name), is_short (Boolean: a legend's short name, `Satya`, which a
        newer legend may share); one row per name, only names of exactly one
        oracle_id.
    """
    named = cards.filter(pl.col("oracle_id").is_not_null()).select("oracle_id", "name", "face_name")
    short = r"^([^,/]+),"  # `Satya, Aetherflux Genius` -> Satya
    aliases = (
        pl.concat(
            named.select("oracle_id", catalog_name="name", name=name, is_short=pl.lit(is_short))
            for name, is_short in (
                (pl.col("name"), False),
                (pl.col("face_name"), False),
                (pl.col("name").str.extract(short), True),
                (pl.col("face_name").str.extract(short), True),
            )
        )
        .drop_nulls()
        .unique()
    )
    terms = index_catalog_terms(cards)
    aliases = aliases.filter(~pl.col("name").str.to_lowercase().is_in(terms.implode()))
    return (
        aliases.filter(pl.col("oracle_id").n_unique().over("name") == 1)
        .sort("name", "is_short")
        .unique("name", keep="first")
        .sort("name")
    )
