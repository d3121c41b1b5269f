"""wordfreq's `word_frequency`, computed for many words at once from compact tables.

wordfreq 3.1 (`wordfreq/__init__.py`: `_word_frequency`, `get_frequency_dict`)
answers one word at a time from a Python dict of every word of a language
(~750 MB for the 22 languages the 1M-line bench corpus is weighed in). Here the same
lists are polars frames sorted by word (`word_list`: word, bucket; ~40 MB
for the eight common ones), and the frequencies of all the words a batch
asks for come from one binary search per language (`word_frequencies`).
The algorithm is wordfreq's own, step by step, and wordfreq stays the
reference it must equal (`tests/stages/test_word_frequency.py` on real and
odd words in every language, `bench/evaluate_words.py` on every word of a
corpus: the same floats, compared with `==`):

- a word's tokens are `wordfreq.lossy_tokenize(word, lang)`'s; a word that is
  its own single token is found without the tokenizer (`is_own_token`);
- no token: the minimum (0.0); a token missing from the list: 0.0;
- a token's frequency is its bucket's, `cB_to_freq(-bucket)`, the float
  `get_frequency_dict` stores (a word in two buckets keeps the last), found
  by a binary search of the list sorted by word;
  a token whose digits `smash_numbers` replaced is multiplied by `digit_freq`;
- tokens combine as 1/f = 1/f1 + 1/f2 + … (from 0.0, in order), then the
  result is rounded to 3 significant digits as wordfreq rounds it
  (`round(f, floor(-log(f, 10)) + 3)`), with Python's own `round` and `math`.

A single-token word's frequency depends on its bucket alone: it is computed
once per distinct bucket (a language has ~800), not once per word.
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache

import polars as pl
import regex
import wordfreq
from wordfreq.language_info import get_language_info
from wordfreq.numbers import digit_freq, smash_numbers

#: One language's list, sorted by word: its words (String, unique) and their bucket
#: (UInt16: the frequency is 10 ** (-bucket / 100), wordfreq's centibels).
WORD_LIST_SCHEMA = {"word": pl.String, "bucket": pl.UInt16}

#: Where a language's list comes from: `word_list`, or a cache of it (`disk.word_lists`).
WordListSource = Callable[[str], pl.DataFrame]


def word_list(lang: str) -> pl.DataFrame:
    """wordfreq's "best" list of `lang` as a frame (WORD_LIST_SCHEMA), sorted by word.

    Read from wordfreq's own file (`get_frequency_list`, not cached in this
    process: its lists of Python strings are let go at once). A word that is
    in two buckets keeps the last, as in `get_frequency_dict` (which assigns
    the buckets in order). 0.15–0.3 s for a list of 700k words, about what
    `get_frequency_dict` takes to build its dict.

    Raises:
        LookupError: wordfreq has no list for `lang` (its own error).
    """
    pack = wordfreq.get_frequency_list.__wrapped__(lang, "best")  # functools' uncached function
    lengths = pl.Series([len(bucket) for bucket in pack], dtype=pl.UInt32)
    words = pl.Series("word", list(itertools.chain.from_iterable(pack)), dtype=pl.String)
    del pack
    buckets = pl.int_range(0, lengths.len(), dtype=pl.UInt16, eager=True).repeat_by(lengths)
    return (
        pl.DataFrame({"word": words, "bucket": buckets.explode().drop_nulls()})
        .sort("word", "bucket")  # a word in two buckets: its rows in bucket order,
        .filter(pl.col("word").ne_missing(pl.col("word").shift(-1)))  # the last kept
    )


def word_frequencies(
    words: dict[str, Iterable[str]], source: WordListSource
) -> dict[str, dict[str, float]]:
    """`wordfreq.word_frequency(word, lang)` of each word, by language: the same floats.

    Args:
        words: language code (one of wordfreq's: `wordfreq.available_languages()`)
            -> words (any strings; repeats allowed).
        source: gives a language's list (WORD_LIST_SCHEMA), e.g. `word_list`.

    Returns:
        {lang: {word: frequency}} (0.0 for a word none of whose tokens is
        known, as wordfreq gives with its default minimum).
    """
    found: dict[str, dict[str, float]] = {}
    for lang, asked in words.items():
        distinct = list(dict.fromkeys(asked))
        if not distinct:  # its list is not read
            found[lang] = {}
            continue
        tokens = {word: _tokens(word, lang) for word in distinct}
        buckets = _buckets(source(lang), {t for ts in tokens.values() for t in ts})
        found[lang] = {word: _combine(ts, buckets, lang) for word, ts in tokens.items()}
    return found


def _tokens(word: str, lang: str) -> tuple[str, ...]:
    """wordfreq's tokens of `word` (`lossy_tokenize`): the word itself when `is_own_token`."""
    if is_own_token(word, lang):
        return (word,)
    return tuple(wordfreq.lossy_tokenize(word, lang))


def _buckets(table: pl.DataFrame, tokens: set[str]) -> dict[str, int]:
    """The bucket of each token of `tokens` that `table` (sorted by word) lists, after
    `smash_numbers`: found by binary search (`search_sorted`), no hash of the whole list."""
    smashed = {t if OWN_TOKEN_CHARACTERS.issuperset(t) else smash_numbers(t) for t in tokens}
    asked = pl.Series("word", list(smashed), dtype=pl.String)  # letters alone: no digit
    listed = table["word"]
    if listed.is_empty() or asked.is_empty():
        return {}
    at = listed.search_sorted(asked, side="left").clip(0, listed.len() - 1)
    known = listed.gather(at) == asked
    found = table["bucket"].gather(at).filter(known)
    return dict(zip(asked.filter(known).to_list(), found.to_list(), strict=True))


def _combine(tokens: tuple[str, ...], buckets: dict[str, int], lang: str) -> float:
    """wordfreq's `_word_frequency` of a word made of `tokens` (minimum 0.0)."""
    if len(tokens) == 1 and tokens[0] in buckets:  # the common case: one known token
        return bucket_frequency(buckets[tokens[0]])
    if not tokens:
        return 0.0
    one_over_result = 0.0
    for token in tokens:
        smashed = smash_numbers(token)
        if smashed not in buckets:
            return 0.0
        freq = wordfreq.cB_to_freq(-buckets[smashed])
        if smashed != token:
            freq *= digit_freq(token)
        one_over_result += 1.0 / freq
    freq = 1.0 / one_over_result
    if get_language_info(lang)["tokenizer"] == "jieba":
        freq *= wordfreq.INFERRED_SPACE_FACTOR ** -(len(tokens) - 1)
    return _rounded(freq)


@cache
def bucket_frequency(bucket: int) -> float:
    """wordfreq's `word_frequency` of a word that is one token (no digits) in `bucket`."""
    return _rounded(1.0 / (0.0 + 1.0 / wordfreq.cB_to_freq(-bucket)))


def _rounded(freq: float) -> float:
    """wordfreq's last step (`_word_frequency`, minimum 0.0): 3 significant digits."""
    unrounded = max(freq, 0.0)
    if unrounded == 0.0:
        return 0.0
    leading_zeroes = math.floor(-math.log(unrounded, 10))
    return round(unrounded, leading_zeroes + 3)


def is_own_token(word: str, lang: str) -> bool:
    """True when `wordfreq.lossy_tokenize(word, lang)` is `[word]`, known without running it.

    The rule: `lang` is tokenized by wordfreq's regex with NFC and nothing
    language-specific but case folding (`is_plain_language`), and every
    character of `word` is one of OWN_TOKEN_CHARACTERS. Such a word is one
    token (letters that Unicode's word segmentation never splits, UAX #29
    WB5) that no preprocessing step changes. Other words are tokenized.
    """
    return is_plain_language(lang) and OWN_TOKEN_CHARACTERS.issuperset(word)


@cache
def is_plain_language(lang: str) -> bool:
    """`lang`'s words go through wordfreq's regex tokenizer with NFC normalization, no
    transliteration and no mark removal (`wordfreq.language_info.get_language_info`)."""
    info = get_language_info(lang)
    return (
        info["tokenizer"] == "regex"
        and info["normal_form"] == "NFC"
        and info["transliteration"] is None
        and info["lookup_transliteration"] is None
        and not info["remove_marks"]
    )


def _own_token_characters() -> frozenset[str]:
    """Lowercase Latin, Greek and Cyrillic letters (Ll) of Word_Break ALetter that NFC and
    case folding (Turkish's too) leave alone, and not ş ţ ș ț (which Romanian and Turkish
    swap, `preprocess.py`): a run of them is one token. (None of them is the second
    character of a canonical composition: `tests/stages/test_word_frequency.py`.)"""
    letter = regex.compile(
        r"[[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]&&\p{Ll}&&\p{WB=ALetter}]",
        regex.V1,
    )
    return frozenset(
        char
        for code in range(0x2000)  # Latin, Greek and Cyrillic letters are below U+2000
        if letter.fullmatch(char := chr(code))
        and char not in "şţșț"
        and unicodedata.combining(char) == 0
        and unicodedata.normalize("NFC", char) == char
        and char.casefold() == char
    )


#: The characters of a word `is_own_token` finds without wordfreq's tokenizer.
OWN_TOKEN_CHARACTERS = _own_token_characters()
