"""Whether a short text has words of a site's language and not English's: the evidence
that a header read en only by default is no English header.

langdetect and the word weighing (`detector`) call a Latin text English by default
when no other language clearly wins: right for a body line (rulings are English),
wrong for a short header in a site's own language (`Clarifications officielles`,
`Rulings oficiales`: 9 of 38 short headers a probe wrote were en). `has_foreign_words`
tells such a header, whose language is then undetermined. A word no language knows
(a card or site name: `ragavan rulings`, `moxfield`, `Rullings`) is no evidence either
way, so such headers stay en (a review's find: 14 of ~150 English headers were und
when any unknown lowercase word counted).
"""

from __future__ import annotations

import polars as pl

from flows.stages.detector import (
    ENGLISH,
    SITE_LANGUAGES,
    UNDETERMINED,
    fold_capitals,
    written_words,
)
from flows.stages.word_frequency import WordListSource, word_list
from flows.stages.word_scores import UNKNOWN_WORD, word_scores

#: The languages whose words count: the Latin-script sites' (a Cyrillic text is never
#: read en by default).
_LATIN_SITES = tuple(lang for lang in SITE_LANGUAGES if lang != "ru")


def has_foreign_words(texts: pl.Series, word_lists: WordListSource = word_list) -> pl.Series:
    """For each text (String), True when one of its lowercase words is no English word and
    is a word of a Latin-script site language, fr, de, es, it or pt (wordfreq; Boolean):
    `Clarifications officielles`, `Rulings oficiales`. Words no language knows (names,
    `Regelklarstellungen`: wordfreq holds no such compound) and capitalized words (a card
    name, `Ajani Vengeant`) are no evidence. An all-capitals text is read case-folded
    (`detector.fold_capitals`). Null stays null.
    `word_lists`: where a list not held yet comes from (`word_frequency.word_list`).
    """
    words = {
        text: {
            word.casefold()
            for word in written_words(fold_capitals(text))
            if word[0].islower()  # a capitalized word may be a name: `Rulings for Ajani Vengeant`
        }
        for text in texts.drop_nulls().unique()
    }
    asked = sorted(set().union(*words.values()))
    scores = (
        word_scores({lang: asked for lang in ("en", *_LATIN_SITES)}, word_lists) if asked else {}
    )

    def foreign(word: str) -> bool:
        return scores["en"][word] <= UNKNOWN_WORD and any(
            scores[lang][word] > UNKNOWN_WORD for lang in _LATIN_SITES
        )

    found = {text: any(map(foreign, text_words)) for text, text_words in words.items()}
    return texts.replace_strict(found, default=None, return_dtype=pl.Boolean)


def undetermined_with_foreign_words(described: pl.DataFrame) -> pl.DataFrame:
    """`described` with header_language "und" where it is en by default (`_weak`: read
    unreliably, no claim used) and a word of it is a site language's, not English's
    (`has_foreign_words`).

    Needs:
        header_text (String), header_language (String), header_language_is_inferred
        (Boolean), _weak (Boolean) (`language.describe_dump_headers`).
    """
    by_default = (
        pl.col("_weak")
        & (pl.col("header_language") == ENGLISH)
        & ~pl.col("header_language_is_inferred")
    )
    texts = described.filter(by_default)["header_text"].unique()
    if texts.is_empty():  # most runs: every header read reliably, or claiming its language
        return described
    foreign = texts.filter(has_foreign_words(texts)).implode()
    return described.with_columns(
        header_language=pl.when(by_default & pl.col("header_text").is_in(foreign))
        .then(pl.lit(UNDETERMINED))
        .otherwise("header_language")
    )
