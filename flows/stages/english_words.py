"""Whether a short text's words are English: the evidence a header read en needs.

langdetect and the word weighing (`detector`) call a Latin text English by default
when no other language clearly wins: right for a body line (rulings are English),
wrong for a short header in a site's own language (`Clarifications officielles`,
`Regelklarstellungen`, `Rulings oficiales`: 9 of 38 short headers a probe wrote were
en). `lacks_english_words` tells such a header, whose language is then undetermined.
"""

from __future__ import annotations

import re

import polars as pl

from flows.stages.detector import fold_capitals
from flows.stages.word_frequency import WordListSource, word_list
from flows.stages.word_scores import UNKNOWN_WORD, word_scores

#: A word as written (as `detector` reads one): letters, inner apostrophes and hyphens.
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_NUMBERED = re.compile(r"(?<=\d)[^\W\d_]+|\{[^}]*\}")  # `704.5j`, `{T}`: no words


def lacks_english_words(texts: pl.Series, word_lists: WordListSource = word_list) -> pl.Series:
    """For each text (String), True when its words give no evidence of English (Boolean):
    none of them is an English word (wordfreq), or a word in lowercase is not one
    (`Clarifications officielles`, `Regelklarstellungen`, `Rulings oficiales`). A
    capitalized word English does not know may be a name and counts neither way
    (`Tarmogoyf rulings`, `Rulings: Ragavan, Nimble Pilferer` are English). An
    all-capitals text is read case-folded (`detector.fold_capitals`). Null stays null.
    `word_lists`: where a list not held yet comes from (`word_frequency.word_list`).
    """
    words = {
        text: _WORD.findall(_NUMBERED.sub(" ", fold_capitals(text).replace("’", "'")))
        for text in texts.drop_nulls().unique()
    }
    asked = [word.casefold() for found in words.values() for word in found]
    english = word_scores({"en": asked}, word_lists)["en"] if asked else {}
    lacking = {}
    for text, found in words.items():
        known = [english[word.casefold()] > UNKNOWN_WORD for word in found]
        unknown_lowercase = any(
            not is_known and word[0].islower() for word, is_known in zip(found, known, strict=True)
        )
        lacking[text] = not any(known) or unknown_lowercase
    return texts.replace_strict(lacking, default=None, return_dtype=pl.Boolean)
