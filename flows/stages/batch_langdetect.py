"""langdetect's `detect_langs`, seeded with 0, for many texts at once: the same answers.

langdetect 1.0.9 (`langdetect/detector.py`) detects one text at a time: it
cleans the text (`Detector.append`, `Detector.cleaning_text`), cuts it into
the 1- to 3-grams its profiles know (`Detector._extract_ngrams`), then runs
7 trials (`Detector._detect_block`), each multiplying 55 language
probabilities by the profile row of an n-gram drawn at random until one
language passes 0.99999. Nearly all its time is that loop, one Python float
at a time. Here the loop runs for a whole batch of texts at once with numpy
(`batch_trials`), each text at its own trial, iteration and place in the one
stream of `random.Random(0)`, so that every text gets what `detect_langs`
gives it with `DetectorFactory.seed = 0`: the same languages, in the same
order, with the same probabilities (floats equal with `==`), or the same
`LangDetectException` (`tests/stages/test_batch_langdetect.py` checks it
against langdetect; `python -m bench eval engine` on every real text).

This module is the text half: the cleaning and the n-grams, rule for rule
from langdetect's source (where a rule is an object of langdetect's, it is
used as it is: its URL and mail patterns, `NGram.normalize_vi`,
`NGram.normalize`; what is redone here is their loops, over arrays of code
points for a block of texts), and the answers in `detect_langs`' form.

The float operations follow the interpreter's: langdetect normalizes with
Python's `sum()`, left to right on Python 3.11, compensated from 3.12 on
(langdetect's own floats change there). `batch_trials` sums left to right,
so Python 3.11 is the interpreter covered (the project's and CI's); on a
later one `detect_langprobs` runs langdetect's own detector, text by text.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
from collections.abc import Collection, Iterable, Iterator, Sequence

import langdetect.detector_factory
import numpy
from langdetect.detector import Detector
from langdetect.detector_factory import PROFILES_DIRECTORY
from langdetect.lang_detect_exception import ErrorCode, LangDetectException
from langdetect.language import Language
from langdetect.utils.ngram import NGram
from numpy.typing import NDArray

from flows.stages.batch_trials import SEED, Block, run_trials


def _load_profiles() -> tuple[tuple[str, ...], dict[str, int], NDArray[numpy.float64]]:
    """langdetect's profiles as arrays: (LANGUAGES, NGRAM_ROWS, PROFILE).

    Read as `DetectorFactory.load_profile(PROFILES_DIRECTORY)` reads them (the
    folder's listing in its order, each file's JSON; a column per file listed)
    and built as its `add_profile` builds `word_lang_prob_map` (a row per
    n-gram in the order first met; `1.0 * freq / n_words[len - 1]`, the same
    float division), without its dict of Python floats (~60 MB) nor its time.
    """
    names = os.listdir(PROFILES_DIRECTORY)
    profiles = []
    for name in names:
        path = os.path.join(PROFILES_DIRECTORY, name)
        if not name.startswith(".") and os.path.isfile(path):
            with open(path, encoding="utf-8") as file:
                profiles.append(json.load(file))
    ngrams = dict.fromkeys(itertools.chain.from_iterable(p["freq"] for p in profiles))
    rows = {ngram: row for row, ngram in enumerate(ngrams)}
    profile = numpy.zeros((len(rows), len(profiles)))  # a column per profile file read
    for column, language in enumerate(profiles):
        freq = language["freq"]
        lengths = numpy.fromiter(map(len, freq), dtype=numpy.int64, count=len(freq))
        assert lengths.min() >= 1 and lengths.max() <= 3  # add_profile skips no n-gram
        counts = numpy.fromiter(freq.values(), dtype=numpy.float64, count=len(freq))
        words = numpy.array(language["n_words"], dtype=numpy.float64)[lengths - 1]
        profile[[rows[ngram] for ngram in freq], column] = counts / words
    return tuple(p["name"] for p in profiles), rows, profile


#: LANGUAGES: langdetect's languages in its own order (the profile folder's listing,
#: unsorted): the columns of every probability array here. NGRAM_ROWS: the row of each
#: n-gram of the profiles in PROFILE (the order of `word_lang_prob_map`). PROFILE: each
#: n-gram's probability in each language (float64, NGRAM_ROWS x LANGUAGES): the
#: factory's own floats (`DetectorFactory.add_profile`), ~38 MB.
LANGUAGES, NGRAM_ROWS, PROFILE = _load_profiles()
#: Texts run together in `batch_trials` (about 2 MB of state per 1,000).
BATCH_SIZE = 4096

#: `Detector.max_text_length`: characters kept after the URL, mail and
#: Vietnamese substitutions (`Detector.append`).
MAX_TEXT_LENGTH = 10_000
#: `Detector.PROB_THRESHOLD`: `detect_langs` lists the languages above it.
PROB_THRESHOLD = Detector.PROB_THRESHOLD
#: The error `Detector._detect_block` raises on a text with no known n-gram.
NO_FEATURES = "No features in text."

_SPACES = re.compile(" {2,}")
#: `Detector.cleaning_text`'s Latin test: 'A' <= ch <= 'z' (so [\]^_` count too) ...
_LATIN = re.compile("[A-z]")
#: ... and its non-Latin one: ch >= U+0300. It also excludes the block "Latin
#: Extended Additional", but compares `unicode_block(ch)` (an int) with that
#: name (a str): the exclusion never applies, and those letters count as non-Latin.
_NON_LATIN = re.compile("[\u0300-\U0010ffff]")


def detect_langs_batch(
    texts: Sequence[str], batch_size: int = BATCH_SIZE
) -> list[list[Language] | LangDetectException]:
    """What `langdetect.detect_langs(text)` gives each text with `DetectorFactory.seed = 0`.

    Args:
        texts: any strings (empty ones too).
        batch_size: texts whose trials run together (`batch_trials.run_trials`);
            results do not depend on it.

    Returns:
        One item per text, in order: the languages above PROB_THRESHOLD as
        langdetect's `Language` objects (`.lang` a code such as "en" or
        "zh-cn", `.prob` a float in 0–1), most probable first (ties in
        LANGUAGES order, as langdetect's stable sort); or, for a text without
        a known n-gram, a `LangDetectException` (code CantDetectError,
        message NO_FEATURES), returned, not raised.
    """
    probabilities, featured = detect_langprobs(texts, batch_size)
    return [
        _ranked(row) if has else LangDetectException(ErrorCode.CantDetectError, NO_FEATURES)
        for row, has in zip(probabilities.tolist(), featured.tolist(), strict=True)
    ]


def _ranked(probabilities: list[float]) -> list[Language]:
    """`Detector._sort_probability`: languages above PROB_THRESHOLD, by probability, stable."""
    found = [
        Language(lang, p)
        for lang, p in zip(LANGUAGES, probabilities, strict=True)
        if p > PROB_THRESHOLD
    ]
    found.sort(reverse=True)
    return found


def detect_langprobs(
    texts: Sequence[str], batch_size: int = BATCH_SIZE
) -> tuple[NDArray[numpy.float64], NDArray[numpy.bool_]]:
    """langdetect's whole probability vector of each text (`Detector.langprob`, seed 0).

    Returns:
        (probabilities, featured): probabilities is float64 of shape
        (len(texts), len(LANGUAGES)), each row the text's probability of each
        language in LANGUAGES order, summing to about 1, unfiltered (langdetect
        lists those above PROB_THRESHOLD); featured is bool of shape
        (len(texts),), False for a text without a known n-gram (langdetect
        raises on it; its row is all 0).
    """
    probabilities = numpy.zeros((len(texts), len(LANGUAGES)))
    featured = numpy.zeros(len(texts), dtype=bool)
    if sys.version_info >= _SUM_CHANGED:
        found: Iterable[tuple[NDArray[numpy.int64], NDArray[numpy.float64]]] = _one_by_one(texts)
    else:
        found = run_trials(_blocks(texts, max(1, batch_size // 8)), PROFILE, batch_size)
    for indices, rows in found:
        probabilities[indices], featured[indices] = rows, True
    return probabilities, featured


#: The Python whose `sum()` of floats is no longer left to right (compensated).
_SUM_CHANGED = (3, 12)


def _one_by_one(
    texts: Sequence[str],
) -> Iterator[tuple[NDArray[numpy.int64], NDArray[numpy.float64]]]:
    """langdetect's own `Detector.langprob` of each text with n-grams (slow; any Python).

    Yields:
        ([index], [vector]) for each such text: as `run_trials`, one text at a time.
    """
    for index, text in enumerate(texts):
        langdetect.detector_factory.init_factory()  # langdetect's own, once per process
        detector = langdetect.detector_factory._factory.create()
        detector.seed = SEED
        detector.append(text)
        try:
            detector.get_probabilities()
        except LangDetectException:
            continue
        yield numpy.array([index]), numpy.array([detector.langprob])


def _blocks(texts: Sequence[str], size: int) -> Iterator[Block]:
    """`texts` cleaned and cut into n-grams, `size` at a time; those without any left out."""
    for start in range(0, len(texts), size):
        rows, counts = extract_ngrams([clean_text(text) for text in texts[start : start + size]])
        featured = numpy.flatnonzero(counts)
        yield Block(start + featured, counts[featured], rows)


def clean_text(text: str) -> str:
    """The text langdetect reads from `text`: `Detector.append`, then `Detector.cleaning_text`.

    URLs, then e-mail addresses, become a space (`Detector.URL_RE`, `MAIL_RE`);
    a Latin vowel and a combining mark become one letter (`NGram.normalize_vi`);
    the first MAX_TEXT_LENGTH characters of that are kept, with each run of
    spaces (U+0020 only) cut to one. When non-Latin characters are more than
    twice the Latin ones (see _LATIN, _NON_LATIN), the Latin ones are dropped.
    """
    # each substitution only where it can match: "http", "@", a combining mark, two spaces
    if "http" in text:
        text = Detector.URL_RE.sub(" ", text)
    if "@" in text:
        text = Detector.MAIL_RE.sub(" ", text)
    if not text.isascii():
        text = NGram.normalize_vi(text)
    text = text[:MAX_TEXT_LENGTH]
    if "  " in text:
        text = _SPACES.sub(" ", text)
    if text.isascii():
        return text  # no character >= U+0300: nothing to drop
    non_latin = len(text) - len(_NON_LATIN.sub("", text))
    if not non_latin:
        return text  # none >= U+0300 (accented Latin letters are below): nothing to drop
    latin = len(text) - len(_LATIN.sub("", text))
    return _LATIN.sub("", text) if latin * 2 < non_latin else text


#: A place between two texts in `extract_ngrams`' code arrays (above every code point).
_GAP = 0x110000
_SPACE = ord(" ")
#: `_NORMAL`'s mark of a code point not normalized yet.
_UNKNOWN = 0xFFFFFFFF
#: `NGram.normalize` of each code point, filled as met; `_UPPER`: `str.isupper` of each
#: normalized code point (the capital-word rule reads normalized characters).
_NORMAL = numpy.full(_GAP + 1, _UNKNOWN, dtype=numpy.uint32)
_UPPER = numpy.zeros(_GAP + 1, dtype=bool)
_NORMAL[_GAP] = _GAP


def _ngram_keys(ngrams: Collection[str]) -> NDArray[numpy.int64]:
    """Each n-gram of 1 to 3 characters as one int64: 21 bits a character, the last lowest."""
    joined = "".join(ngrams)
    assert "\0" not in joined  # no key has a 0 character: the keys are distinct
    codes = numpy.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    lengths = numpy.fromiter(map(len, ngrams), dtype=numpy.int64, count=len(ngrams))
    ends, keys = numpy.cumsum(lengths), numpy.zeros(len(ngrams), dtype=numpy.int64)
    for back in range(3):  # the last character, the one before, the first of three
        has = lengths > back
        keys[has] |= codes[ends[has] - 1 - back].astype(numpy.int64) << 21 * back
    return keys


#: The profiles' n-gram keys, sorted, and the PROFILE row of each.
_KEYS = _ngram_keys(NGRAM_ROWS)
_KEY_ORDER = numpy.argsort(_KEYS)
_SORTED_KEYS = _KEYS[_KEY_ORDER]


def extract_ngrams(texts: Sequence[str]) -> tuple[NDArray[numpy.int64], NDArray[numpy.int64]]:
    """The PROFILE rows of `Detector._extract_ngrams`' n-grams of each cleaned text, in its order.

    langdetect feeds each character, normalized (`NGram.normalize`: ASCII
    non-letters, some Latin-1 signs and General Punctuation to a space; kana,
    Hangul and Bopomofo to one letter each; Han to its class's letter; ...),
    to a buffer of the last 3 that restarts at " " after each space
    (`NGram.add_char`). A character other than a space gives its 1-, 2- and
    3-gram (the 3-gram from the word's second character on), except a capital
    after a capital (`NGram.capitalword`); a space after a word gives the
    word's last 2-gram and 3-gram with the space (" a " for a one-letter
    word); the n-grams the profiles know are kept, in that order. Here that
    is done for all texts at once over arrays of code points.

    Returns:
        (rows, counts): rows int64, the PROFILE rows of every text's n-grams,
        text after text; counts int64 of shape (len(texts),), how many each.
    """
    lengths = numpy.array([len(text) + 2 for text in texts], dtype=numpy.int64)
    joined = "".join(["\0 " + text for text in texts])  # each text starts after a gap and " "
    codes = _normalized(joined)
    codes[numpy.cumsum(lengths) - lengths] = _GAP
    char, previous, before = codes[2:], codes[1:-1], codes[:-2]
    is_char = (char != _SPACE) & (char != _GAP)
    after_char = (previous != _SPACE) & (previous != _GAP)
    one = is_char & ~(_UPPER[char] & _UPPER[previous])
    two = one | ((char == _SPACE) & after_char)
    three = (one & after_char) | (two & ~one)
    keys = numpy.stack(
        [
            numpy.where(one, char, -1),
            numpy.where(two, previous << 21 | char, -1),
            numpy.where(three, before << 42 | previous << 21 | char, -1),
        ],
        axis=1,
    ).ravel()  # per place: its 1-, 2-, 3-gram
    places = numpy.searchsorted(_SORTED_KEYS, keys).clip(max=_SORTED_KEYS.size - 1)
    known = _SORTED_KEYS[places] == keys
    text_of = numpy.repeat(numpy.arange(len(texts)), lengths)[2:].repeat(3)
    return _KEY_ORDER[places[known]], numpy.bincount(text_of[known], minlength=len(texts))


def _normalized(text: str) -> NDArray[numpy.int64]:
    """`NGram.normalize` of each character of `text`, as int64 code points (`_NORMAL`)."""
    codes = numpy.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    normal = _NORMAL[codes]
    if (normal == _UNKNOWN).any():
        for code in numpy.unique(codes[normal == _UNKNOWN]).tolist():
            _NORMAL[code] = ord(NGram.normalize(chr(code)))
            _UPPER[_NORMAL[code]] = chr(_NORMAL[code]).isupper()
        normal = _NORMAL[codes]
    return normal.astype(numpy.int64)
