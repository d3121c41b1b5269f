"""The weighing's word scores: log10 wordfreq frequency by language and word, for a batch.

`detector.decide_languages` weighs a batch of texts by the mean log10
frequency of their words in candidate languages (`mean_score`). The
frequencies are wordfreq's (`word_frequency.word_frequencies`, equal to
`wordfreq.word_frequency`), from wordfreq's lists held in this process as
frames (`held_word_list`: ~76 MB for the 22 languages the 1M-line bench
corpus is weighed in, where wordfreq's own dicts took ~750 MB) until
`release_word_lists`.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache

import polars as pl

from flows.stages.word_frequency import WordListSource, word_frequencies

#: log10 frequency given to a word a language's list does not hold.
UNKNOWN_WORD = -8.0

_FLOOR = 10**UNKNOWN_WORD
#: wordfreq's lists read in this process (`word_frequency.WORD_LIST_SCHEMA`), by language.
_HELD: dict[str, pl.DataFrame] = {}
#: Held while a list is read: a thread asking for a list another thread is reading
#: (`processes.pools.preload_word_lists`) waits for it instead of reading it again.
_READING = threading.Lock()


def held_word_list(lang: str, source: WordListSource) -> pl.DataFrame:
    """`lang`'s list (`word_frequency.WORD_LIST_SCHEMA`), from `source` on its first use in
    this process and held until `release_word_lists` (every source gives the same frame)."""
    held = _HELD.get(lang)
    if held is None:
        with _READING:
            held = _HELD.get(lang)
            if held is None:
                held = _HELD[lang] = source(lang)
    return held


@contextmanager
def lists_on_the_way(started: threading.Event) -> Iterator[None]:
    """While inside, a list not held yet is waited for (`held_word_list`): lists being read
    elsewhere (`processes.pools.preload_word_lists`) come with `hold_word_lists`. `started`
    is set once the wait is in force."""
    with _READING:
        started.set()
        yield


def hold_word_lists(lists: dict[str, pl.DataFrame]) -> None:
    """Hold `lists` (WORD_LIST_SCHEMA frames, by language), as `held_word_list` would have
    read them; a language held already keeps its frame (the same list)."""
    for lang, frame in lists.items():
        _HELD.setdefault(lang, frame)


def release_word_lists() -> None:
    """Let go of the lists and scores held in this process (read again on next use; results
    do not change).

    Memory: ~76 MB of frames after the 1M-line bench corpus's 22 languages
    (wordfreq's own dicts, no longer read, took ~750 MB).
    """
    _HELD.clear()
    _SCORES.clear()


def held_languages() -> list[str]:
    """The languages whose lists this process holds, sorted."""
    return sorted(_HELD)


def held_word_lists() -> dict[str, pl.DataFrame]:
    """The lists this process holds, by language (a copy of the mapping; frames are shared)."""
    return dict(_HELD)


def word_scores(
    words: dict[str, Iterable[str]], source: WordListSource
) -> dict[str, dict[str, float]]:
    """log10 of each word's wordfreq frequency, floored at 1e-8 (UNKNOWN_WORD), by language.

    Args:
        words: language (one of wordfreq's) -> words (repeats allowed).
        source: where a list not held yet comes from (`held_word_list`).

    Returns:
        {lang: {word: score}} for at least the words asked:
        `math.log10(max(wordfreq.word_frequency(word, lang), 1e-8))`, the same
        float (a word absent from the list scores -8.0). Scores are kept for
        the next batches (MAX_KEPT_SCORES a language) until `release_word_lists`.
    """
    new: dict[str, list[str]] = {}
    for lang, asked in words.items():
        distinct, kept = dict.fromkeys(asked), _SCORES.setdefault(lang, {})
        if len(kept) + len(distinct) > MAX_KEPT_SCORES:
            kept.clear()
        new[lang] = [word for word in distinct if word not in kept]
    for lang, found in word_frequencies(new, lambda lang: held_word_list(lang, source)).items():
        _SCORES[lang].update((word, _log_score(freq)) for word, freq in found.items())
    return {lang: _SCORES[lang] for lang in words}


#: Word scores kept by language (`word_scores`), at most MAX_KEPT_SCORES each.
_SCORES: dict[str, dict[str, float]] = {}
MAX_KEPT_SCORES = 200_000


@cache
def _log_score(frequency: float) -> float:
    """One frequency's score (few distinct values: wordfreq's lists are in buckets)."""
    return math.log10(max(frequency, _FLOOR))


def mean_score(words: list[str], scores: dict[str, float]) -> float:
    """Mean score of `words` (UNKNOWN_WORD for none), summed left to right as floats add.

    Every word must be in `scores` (KeyError otherwise). The order is the
    words' own: the same sum to the last bit as a loop over them, on every
    Python (numpy's `sum` is pairwise, and Python's compensated from 3.12).
    """
    if not words:
        return UNKNOWN_WORD
    if _SUM_ADDS_IN_ORDER:  # the same additions, in C
        return sum(map(scores.__getitem__, words), 0.0) / len(words)
    total = 0.0
    for word in words:
        total += scores[word]
    return total / len(words)


#: Python's `sum()` of floats adds them one by one, left to right, until 3.12 (compensated
#: from then: "What's New In Python 3.12"), where `mean_score` adds them itself.
_SUM_ADDS_IN_ORDER = sys.version_info < (3, 12)
