"""The merge rule: when two comparison keys of one language may be one ruling.

Two variants (`dedupe`) are within the merge rule when they have the same
protected tokens in the same order (`PROTECTED_TOKENS`: numbers and signed
power/toughness and counters with their signs, `{symbols}`, capitalized
words, negations with or without their apostrophe, number words, quantifiers and
modals), no word of one is a
word of the other with a negating prefix added (`NEGATING_PREFIXES`:
able/unable, tap/untap), no common word is swapped for another common word
of its length that differs in two adjacent letters among its first three
(`swaps_word`: increases/decreases), no word is replaced by another common
word of similar frequency, by its inflection or by its possessive moved
(`changes_word`: dies/does, creature/creatures, player's/players'), and they
are at most `MAX_EDITS` character edits apart and `MIN_SIMILARITY` similar
(seed 000 "writing theme down" and seed 003 "writing them down" are one
ruling: a typo makes a non-word or a much rarer word).
"""

from __future__ import annotations

import difflib
import functools
import itertools
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple

import polars as pl
import regex
from rapidfuzz.distance import Levenshtein
from wordfreq import zipf_frequency

#: Bump when the merge rule changes; the id registry records it.
MERGE_RULES_VERSION = "7"

#: Tokens that must be equal, in the same order, for two texts to merge.
PROTECTED_TOKENS = (
    r"[+-]?(?:\d+|[XY*])/[+-]?(?:\d+|[XY*])"  # power/toughness and counters: +1/+0, -1/-1, */*
    r"|[+-]?\d+(?:[.,]\d+)?"  # numbers with their sign: power 2 / power 3, +2 / -2
    r"|\{[^}]*\}"  # mana and other symbols: {E}, {X}, {2}{W}
    r"|\b\p{Lu}[\p{L}\p{M}'-]*"  # capitalized words: card names, sentence starts
    r"|(?i:\b(?:not|no|never|none|nothing|cannot|\w+n't"
    r"|(?:are|is|was|were|do|does|did|could|would|should|might|has|have|had|must|need)nt"
    r"|cant|wont|shant|aint"
    r"|one|two|three|four|five|six|seven"
    r"|eight|nine|ten|first|second|third|fourth|fifth|last|once|twice|half|double"
    r"|less|more|greater|fewer|least|most"  # number words
    r"|all|any|each|every|only|both|either|neither|nor|except|without|unless|until"
    r"|before|after|may|must|can|could|would|should|might|will|shall)\b)"  # all/any, may/must
)

#: The apostrophe of a negation is no part of its token (`PROTECTED_TOKENS`):
#: `aren't` and `arent` (its typo) are one token (`ISN'T` is `ISNT`), `arent` and
#: `are` are two.
NEGATION_APOSTROPHE = r"(?i)(n)'(t)$"

#: A word that is another word of the pair with one of these in front is a
#: different ruling (able/unable, active/inactive, token/nontoken, tap/untap).
NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "non", "non-", "dis")
#: Both words of a swap this common or more (Zipf scale, wordfreq): `decreases` is 3.6.
COMMON_WORD_ZIPF = 3.0
#: Shortest word a swap is looked for on: typos make short common words (`is`/`s`).
_MIN_SWAPPED_WORD = 4
#: Shortest word a negating prefix is looked for on (`to`/`into` is no negation).
_MIN_NEGATED_WORD = 3
#: A word replaced by a word this common or more (Zipf, wordfreq, English) may change
#: the ruling (`changes_word`): `detach` (2.99) is not `attach`; the non-words typos
#: make (`effectns`, `opower`: 0) are far below.
REAL_WORD_ZIPF = 2.5
#: ... when the two words' Zipf frequencies are closer than this (a factor of ~30):
#: dies/does 1.33, into/onto 1.34 are different rulings; a typo makes a much rarer
#: word of a common one, theme/them 1.57 (seeds 000 and 003) is one ruling.
SIMILAR_ZIPF = 1.5
#: Endings that make an inflection of a word (creature/creatures, has/had is a swap).
INFLECTIONS = ("s", "es", "ed", "'s")
#: ... when the inflection is less than this much rarer (Zipf): permanent/permanents 2.99
#: apart (wordfreq's `permanents` is rare); typos 3.5 and more (control/controled 3.50,
#: copy/copys 3.55, another/anothers 3.89, the/thes 5.21).
INFLECTION_ZIPF_GAP = 3.25
#: Shortest word (letters) `changes_word` compares: typos make short common words
#: of short ones (the/he, it/i, and/an), too often to tell from a changed word.
_MIN_CHANGED_WORD = 3
_WORD = regex.compile(r"[\p{L}\p{M}'-]+")
_PROTECTED = regex.compile(PROTECTED_TOKENS)

#: At most this many character edits between two near-duplicates ...
MAX_EDITS = 2
#: ... and at least this normalized Levenshtein similarity (1 - edits / longer length):
#: one edit per 10 characters (protected tokens and negating prefixes guard the
#: meaning; 5 % of real rulings are under 67 characters, too short for 0.97).
MIN_SIMILARITY = 0.9


class _Profile(NamedTuple):
    """What the merge rule needs of one comparison key, computed once per key."""

    tokens: tuple[str, ...]  # PROTECTED_TOKENS, in order
    words: tuple[str, ...]  # `_WORD` matches, lowercased
    negatable: frozenset[str]  # words of at least _MIN_NEGATED_WORD letters
    stems: frozenset[str]  # those words with a NEGATING_PREFIXES prefix taken off
    #: Two words of one length that may differ in two adjacent letters among their
    #: first three (`_swapped_prefix`) share a key: (length, the word from its third
    #: letter) or (-length, its first letter and the word from its fourth).
    swap_index: dict[tuple[int, str], str | None]  # key -> its word (None: several words)
    parts: tuple[str, ...]  # the words' parts (`_word_parts`, `changes_word`)


#: Enough keys for a block of near-duplicates, or a group, to be profiled once.
_PROFILES_KEPT = 4096


@functools.lru_cache(maxsize=_PROFILES_KEPT)
def _profile(text: str) -> _Profile:
    words = tuple(w.lower() for w in _WORD.findall(text))
    swap_index: dict[tuple[int, str], str | None] = {}
    for word in set(words):
        if len(word) >= _MIN_SWAPPED_WORD:
            for key in ((len(word), word[2:]), (-len(word), word[0] + word[3:])):
                swap_index[key] = word if key not in swap_index else None
    return _Profile(
        tokens=tuple(regex.sub(NEGATION_APOSTROPHE, r"\1\2", t) for t in _PROTECTED.findall(text)),
        words=words,
        negatable=frozenset(w for w in words if len(w) >= _MIN_NEGATED_WORD),
        stems=frozenset(
            w[len(p) :]
            for w in words
            if w.startswith(NEGATING_PREFIXES)
            for p in NEGATING_PREFIXES
            if w.startswith(p) and len(w) - len(p) >= _MIN_NEGATED_WORD
        ),
        swap_index=swap_index,
        parts=_word_parts(words),
    )


def _word_parts(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words `changes_word` compares: hyphenated words part by part, without a
    quote's apostrophes (`'tap'`); a trailing apostrophe only after an s (players')."""
    parts = []
    for word in words:
        for part in word.split("-"):
            part = part.lstrip("'")
            if part.endswith("'") and not part.endswith("s'"):
                part = part.rstrip("'")
            if part:
                parts.append(part)
    return tuple(parts)


def protected_tokens(text: pl.Expr) -> pl.Expr:
    """The protected tokens of a comparison key, in order (List[String]; `aren't` as `arent`)."""
    return text.str.extract_all(PROTECTED_TOKENS).list.eval(
        pl.element().str.replace(NEGATION_APOSTROPHE, "${1}${2}")
    )


def _may_negate(a: _Profile, b: _Profile) -> bool:
    """A word of one is a NEGATING_PREFIXES prefix plus a word of the other, aligned or not."""
    return not (a.stems.isdisjoint(b.negatable) and b.stems.isdisjoint(a.negatable))


def _may_swap(a: _Profile, b: _Profile) -> bool:
    """Two different words, one of each, share a swap key, aligned or not."""
    return any(
        a.swap_index[key] is None or a.swap_index[key] != b.swap_index[key]
        for key in a.swap_index.keys() & b.swap_index.keys()
    )


def _replaced_words(a: str, b: str, one_for_one: bool = False) -> Iterator[tuple[str, str]]:
    """Each (word of `a`, word of `b`) where difflib aligns a replacement; lowercased.

    With `one_for_one`, only words replaced one by one (a span of N words by N
    words, paired in order), never the words of a split or joined span.
    """
    return _aligned_replacements(_profile(a).words, _profile(b).words, one_for_one)


def _aligned_replacements(
    words_a: tuple[str, ...], words_b: tuple[str, ...], one_for_one: bool
) -> Iterator[tuple[str, str]]:
    matcher = difflib.SequenceMatcher(None, words_a, words_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        if not one_for_one:
            yield from itertools.product(words_a[i1:i2], words_b[j1:j2])
        elif i2 - i1 == j2 - j1:
            yield from zip(words_a[i1:i2], words_b[j1:j2], strict=True)


def negates(a: str, b: str) -> bool:
    """True when a word of `a` and a word of `b` differ by a NEGATING_PREFIXES prefix.

    Words are aligned with difflib (a word replaced by one word); case is ignored.
    """
    if not _may_negate(_profile(a), _profile(b)):
        return False
    return any(_is_negation(x, y) for x, y in _replaced_words(a, b))


def _is_negation(x: str, y: str) -> bool:
    short, long = sorted((x, y), key=len)
    return len(short) >= _MIN_NEGATED_WORD and any(long == p + short for p in NEGATING_PREFIXES)


def swaps_word(a: str, b: str) -> bool:
    """True when a word of `a` is replaced in `b` by another common English word
    of the same length (at least _MIN_SWAPPED_WORD letters) that differs from
    it in exactly two adjacent letters among its first three.

    Opposites are often such a swapped prefix (increases/decreases,
    maximum/minimum, includes/excludes, import/export), which a typo rarely
    makes of a common word, whatever their frequencies (includes 4.96,
    excludes 3.38); other words (`spell`/`shell`, `theme`/`them`, seeds 000
    and 003) are left to `changes_word`. Modals such as could/would are
    PROTECTED_TOKENS. Common: a Zipf frequency (wordfreq, English) of at least
    COMMON_WORD_ZIPF for both words.
    """
    if not _may_swap(_profile(a), _profile(b)):
        return False
    return any(
        len(x) == len(y) >= _MIN_SWAPPED_WORD
        and _swapped_prefix(x, y)
        and min(_zipf(x), _zipf(y)) >= COMMON_WORD_ZIPF
        for x, y in _replaced_words(a, b, one_for_one=True)
    )


def _swapped_prefix(x: str, y: str) -> bool:
    """`x` and `y` differ in exactly two adjacent letters, starting at the first or second."""
    differ = [i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q]
    return len(differ) == 2 and differ[1] == differ[0] + 1 and differ[0] <= 1


def changes_word(a: str, b: str) -> bool:
    """True when a word of `a` is replaced in `b` by a common word of similar frequency
    (dies/does), by its inflection (creature/creatures) or by its possessive moved
    (player's/players'); a typo makes a non-word or a much rarer word (theme/them).

    Words (`_word_parts`: hyphenated words part by part) of at least _MIN_CHANGED_WORD
    letters are aligned with difflib (replaced one by one). Similar: both at least
    REAL_WORD_ZIPF and less than SIMILAR_ZIPF apart (wordfreq, English); an
    inflection: the other word plus one of INFLECTIONS, the shorter at least
    REAL_WORD_ZIPF and the longer a word wordfreq knows, less than INFLECTION_ZIPF_GAP
    rarer. A dropped apostrophe
    (its/it's, attackers/attacker's) or hyphen is a typo. Measured on the real
    rulings (`python -m bench eval dedup`, docs/benchmarks.md).
    """
    words_a, words_b = _profile(a).parts, _profile(b).parts
    if words_a == words_b:
        return False
    more_a, more_b = Counter(words_a) - Counter(words_b), Counter(words_b) - Counter(words_a)
    if (more_a or more_b) and not any(_changed(x, y) for x in more_a for y in more_b):
        return False  # quick: no candidate among the words one has more of (none: reordered)
    return any(_changed(x, y) for x, y in _aligned_replacements(words_a, words_b, one_for_one=True))


@functools.lru_cache(maxsize=_PROFILES_KEPT)
def _changed(x: str, y: str) -> bool:
    """`changes_word`'s test of one replaced word `x` by `y` (lowercased)."""
    if x == y or min(len(x.replace("'", "")), len(y.replace("'", ""))) < _MIN_CHANGED_WORD:
        return False
    if x.replace("'", "") == y.replace("'", ""):  # a moved apostrophe, not a dropped one
        return "'" in x and "'" in y
    short, long = sorted((x, y), key=len)
    if any(long == short + ending for ending in INFLECTIONS):
        gap = _zipf(short) - _zipf(long)
        return _zipf(short) >= REAL_WORD_ZIPF and _zipf(long) > 0 and gap < INFLECTION_ZIPF_GAP
    zipf_x, zipf_y = _zipf(x), _zipf(y)
    return min(zipf_x, zipf_y) >= REAL_WORD_ZIPF and abs(zipf_x - zipf_y) < SIMILAR_ZIPF


@functools.lru_cache(maxsize=_PROFILES_KEPT)
def _zipf(word: str) -> float:
    """`word`'s Zipf frequency in wordfreq's English list (`swaps_word`, `_changed`)."""
    return zipf_frequency(word, "en")


def within_merge_rule(
    a: str, b: str, max_edits: int = MAX_EDITS, min_similarity: float = MIN_SIMILARITY
) -> bool:
    """True when comparison keys `a` and `b` may be one ruling (any language check aside)."""
    edits = Levenshtein.distance(a, b, score_cutoff=max_edits)
    longest = max(len(a), len(b), 1)
    return (
        edits <= max_edits
        and 1 - edits / longest >= min_similarity
        and _profile(a).tokens == _profile(b).tokens
        and not negates(a, b)
        and not swaps_word(a, b)
        and not changes_word(a, b)
    )


def load_word_frequencies() -> None:
    """Read wordfreq's English frequencies now (`swaps_word`'s and `changes_word`'s; results do
    not change): 0.1-0.16 s on the 2-core bench machine, else paid by the first swap a
    clustering checks, at the end of a run."""
    zipf_frequency("the", "en")  # its list and tokenizer, then cached by wordfreq


def forget_profiles() -> None:
    """Let go of the keys' profiles kept for the pairs of one clustering."""
    _profile.cache_clear()
    _changed.cache_clear()
