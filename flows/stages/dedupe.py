"""Deduplicate rulings across dumps: exact variants, then near-duplicate rulings.

1. Key each body for comparison (`normalize_text`: invisible characters
   removed, Unicode NFKC, quotes, apostrophes and the minus sign folded,
   whitespace collapsed). Each distinct key is a *variant*. The key is for
   comparison only: published texts keep what was written.
2. Merge variants of one language that are small typo variants of each other
   (seed 000 "writing theme down" and seed 003 "writing them down") into one
   *ruling* (`MERGE_RULES_VERSION`). Two variants are within the merge rule
   when they have the same protected tokens in the same order
   (`PROTECTED_TOKENS`: numbers and signed power/toughness and counters with
   their signs, `{symbols}`, capitalized words, negations, number words,
   quantifiers and modals), no
   word of one is a word of the other with a negating prefix added
   (`NEGATING_PREFIXES`: able/unable, tap/untap), and they are at most
   `MAX_EDITS` character edits apart and `MIN_SIMILARITY` similar.
3. No chaining: near pairs are joined (union-find), then every variant of a
   group is checked against the group's representative (its most frequent
   variant, ties: the smallest key); those outside the representative's merge
   rule form groups of their own, checked the same way.

Ruling ids and the registry that keeps them across runs are in
`flows.stages.ruling_ids`. Ids are sha256 hex digests of content (never
polars' hash, which changes between polars versions).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import itertools
import logging
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import polars as pl
import regex
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from wordfreq import zipf_frequency

logger = logging.getLogger(__name__)

#: Bump when the merge rule changes; the id registry records it.
MERGE_RULES_VERSION = "3"

#: Characters that are never seen and never change a ruling: soft hyphen,
#: combining grapheme joiner, zero-width space/joiners, bidi marks, embeddings
#: and isolates, word joiner and invisible operators, BOM (case c19).
INVISIBLE_CHARACTERS = (
    r"[\u00ad\u034f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)

#: Folded in the comparison key: curly quotes and apostrophes to straight ones
#: (seed 003 writes `doesn’t` and `“may pay”` where the other seeds write
#: `doesn't`, `"may pay"`), the minus sign to a hyphen-minus (`−1/−1`).
QUOTE_FOLDS: dict[str, str] = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u2212": "-",
}

#: Tokens that must be equal, in the same order, for two texts to merge.
PROTECTED_TOKENS = (
    r"[+-]?(?:\d+|[XY*])/[+-]?(?:\d+|[XY*])"  # power/toughness and counters: +1/+0, -1/-1, */*
    r"|[+-]?\d+(?:[.,]\d+)?"  # numbers with their sign: power 2 / power 3, +2 / -2
    r"|\{[^}]*\}"  # mana and other symbols: {E}, {X}, {2}{W}
    r"|\b\p{Lu}[\p{L}\p{M}'-]*"  # capitalized words: card names, sentence starts
    r"|(?i:\b(?:not|no|never|none|nothing|cannot|\w+n't|one|two|three|four|five|six|seven"
    r"|eight|nine|ten|first|second|third|fourth|fifth|last|once|twice|half|double"
    r"|less|more|greater|fewer|least|most"  # number words
    r"|all|any|each|every|only|both|either|neither|nor|except|without|unless|until"
    r"|before|after|may|must|can|could|would|should|might|will|shall)\b)"  # all/any, may/must
)

#: A word that is another word of the pair with one of these in front is a
#: different ruling (able/unable, active/inactive, token/nontoken, tap/untap).
NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "non", "non-", "dis")
#: Both words of a swap this common or more (Zipf scale, wordfreq): `decreases` is 3.6.
COMMON_WORD_ZIPF = 3.0
#: Shortest word a swap is looked for on: typos make short common words (`is`/`s`).
_MIN_SWAPPED_WORD = 4
#: Shortest word a negating prefix is looked for on (`to`/`into` is no negation).
_MIN_NEGATED_WORD = 3
_WORD = regex.compile(r"[\p{L}\p{M}'-]+")
_PROTECTED = regex.compile(PROTECTED_TOKENS)

#: At most this many character edits between two near-duplicates ...
MAX_EDITS = 2
#: ... and at least this normalized Levenshtein similarity (1 - edits / longer length):
#: one edit per 10 characters (protected tokens and negating prefixes guard the
#: meaning; 5 % of real rulings are under 67 characters, too short for 0.97).
MIN_SIMILARITY = 0.9

_CHUNK_ROWS = 512


def normalize_text(text: pl.Expr) -> pl.Expr:
    """The comparison key of a text (never published).

    Removes INVISIBLE_CHARACTERS, applies NFKC, folds QUOTE_FOLDS, collapses
    whitespace and trims.
    """
    return (
        text.str.replace_all(INVISIBLE_CHARACTERS, "")
        .str.normalize("NFKC")
        .str.replace_many(list(QUOTE_FOLDS), list(QUOTE_FOLDS.values()))
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
    )


def comparison_keys(texts: pl.Series, alias: str) -> pl.DataFrame:
    """Each distinct value of `texts` with its comparison key (`normalize_text`) as `alias`.

    For a join back on `texts.name` (nulls_equal: a null text keys to null):
    bodies, headers and stubs recur across dumps, so each is normalized once.
    """
    return texts.unique().to_frame().with_columns(normalize_text(pl.col(texts.name)).alias(alias))


def protected_tokens(text: pl.Expr) -> pl.Expr:
    """The protected tokens of a comparison key, in order (List[String])."""
    return text.str.extract_all(PROTECTED_TOKENS)


def block_key(text: str = "text", language: str = "language") -> pl.Expr:
    """The block a variant is compared within (String): its language and protected tokens.

    `cluster_variants` compares variants of one block only, so a block's
    clusters depend on its variants alone (`reuse.cluster_changed_blocks`).
    """
    return pl.concat_str(
        language, protected_tokens(pl.col(text)).list.join("\x1f"), separator="\x1e"
    )


def sha256_hex(values: pl.Series, namespace: str = "") -> pl.Series:
    """Return the sha256 hex digest of `namespace + value` (UTF-8) for each value.

    Each distinct value is hashed once. Digests are stable across polars
    versions (unlike `Series.hash`).
    """
    distinct = values.unique()
    digests = {v: hashlib.sha256((namespace + v).encode()).hexdigest() for v in distinct.to_list()}
    return values.replace_strict(digests, return_dtype=pl.String)


def assign_variants(entries: pl.DataFrame) -> pl.DataFrame:
    """Key each entry's body for comparison and give it its variant id.

    Needs:
        text_raw (String).

    Adds:
        text_normalized (String): the comparison key (`normalize_text`).
        variant_id (String): sha256 hex of text_normalized, so bodies that
            differ only in invisible characters, NFKC forms or quotes are
            one variant.
    """
    keys = comparison_keys(entries["text_raw"], "text_normalized")
    keys = keys.with_columns(variant_id=sha256_hex(keys["text_normalized"]))
    return entries.join(keys, on="text_raw", how="left", nulls_equal=True, maintain_order="left")


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
        tokens=tuple(_PROTECTED.findall(text)),
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
    makes of a common word; one letter (`spell`/`shell`, a typo that happens
    to be a word) or a word that grows or shrinks (`theme`/`them`, seeds 000
    and 003) is left to the merge rule. Modals such as could/would are
    PROTECTED_TOKENS. Common: a Zipf frequency (wordfreq, English) of at least
    COMMON_WORD_ZIPF for both words.
    """
    if not _may_swap(_profile(a), _profile(b)):
        return False
    return any(
        len(x) == len(y) >= _MIN_SWAPPED_WORD
        and _swapped_prefix(x, y)
        and min(zipf_frequency(x, "en"), zipf_frequency(y, "en")) >= COMMON_WORD_ZIPF
        for x, y in _replaced_words(a, b, one_for_one=True)
    )


def _swapped_prefix(x: str, y: str) -> bool:
    """`x` and `y` differ in exactly two adjacent letters, starting at the first or second."""
    differ = [i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q]
    return len(differ) == 2 and differ[1] == differ[0] + 1 and differ[0] <= 1


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
    )


def cluster_variants(
    variants: pl.DataFrame, max_edits: int = MAX_EDITS, min_similarity: float = MIN_SIMILARITY
) -> pl.DataFrame:
    """Group near-duplicate variants into rulings (see the module docstring).

    Needs:
        variant_id (String), text (String: comparison key), language (String);
        optional occurrence_count (Int64, default 1); one row per variant.

    Returns:
        variant_id (String), ruling_id (String: content id, sha256 hex of
        "ruling:" plus the group's smallest key), is_representative (Boolean:
        the group's most frequent variant, ties: the smallest key); sorted by
        variant_id. Every variant is within the merge rule of its
        representative.
    """
    if "occurrence_count" not in variants.columns:
        variants = variants.with_columns(occurrence_count=pl.lit(1, dtype=pl.Int64))
    blocked = variants.with_columns(_block=block_key()).sort("variant_id")
    parent = {v: v for v in blocked["variant_id"].to_list()}
    for block in blocked.filter(pl.len().over("_block") > 1).partition_by("_block"):
        ids = block["variant_id"].to_list()
        for a, b in _near_pairs(block["text"].to_list(), max_edits, min_similarity):
            _union(parent, ids[a], ids[b])
    rows = {
        v: (t, c)
        for v, t, c in blocked.select("variant_id", "text", "occurrence_count").iter_rows()
    }
    groups: dict[str, list[str]] = {}
    for v in parent:
        groups.setdefault(_find(parent, v), []).append(v)
    assigned: list[tuple[str, str, bool]] = []
    for members in groups.values():
        assigned.extend(_verified_groups(members, rows, max_edits, min_similarity))
    _profile.cache_clear()  # the keys' profiles are of no use after this run
    merged = pl.DataFrame(
        assigned,
        schema={"variant_id": pl.String, "_canonical": pl.String, "is_representative": pl.Boolean},
        orient="row",
    )
    merged = merged.select(
        "variant_id",
        ruling_id=sha256_hex(merged["_canonical"], namespace="ruling:"),
        is_representative="is_representative",
    ).sort("variant_id")
    logger.info(
        "clustered %d variants into %d rulings", merged.height, merged["ruling_id"].n_unique()
    )
    return merged


def _verified_groups(
    members: list[str],
    rows: dict[str, tuple[str, int]],
    max_edits: int,
    min_similarity: float,
) -> list[tuple[str, str, bool]]:
    """Split a union-find group so every variant is within its representative's rule.

    Returns (variant_id, smallest key of its group, is_representative) rows.
    """
    remaining = sorted(members, key=lambda v: (-rows[v][1], rows[v][0]))
    out = []
    while remaining:
        rep, rest = remaining[0], remaining[1:]
        group = [rep] + [
            v
            for v in rest
            if within_merge_rule(rows[rep][0], rows[v][0], max_edits, min_similarity)
        ]
        canonical = min(rows[v][0] for v in group)
        out.extend((v, canonical, v == rep) for v in group)
        taken = set(group)
        remaining = [v for v in rest if v not in taken]
    return out


def _near_pairs(texts: list[str], max_edits: int, min_similarity: float) -> list[tuple[int, int]]:
    """Index pairs (i < j) of texts within the merge rule (`within_merge_rule`).

    Candidates come from `rapidfuzz.process.cdist` (edits only); the full
    rule, negating prefixes included, is checked on each.
    """
    pairs = []
    for start in range(0, len(texts), _CHUNK_ROWS):
        distances = process.cdist(
            texts[start : start + _CHUNK_ROWS],
            texts,
            scorer=Levenshtein.distance,
            score_cutoff=max_edits,
            dtype=np.int32,
        )
        for i, j in zip(*np.nonzero(distances <= max_edits), strict=True):
            a, b = start + int(i), int(j)
            if a < b and within_merge_rule(texts[a], texts[b], max_edits, min_similarity):
                pairs.append((a, b))
    return pairs


def _find(parent: dict[str, str], v: str) -> str:
    while parent[v] != v:
        parent[v] = parent[parent[v]]
        v = parent[v]
    return v


def _union(parent: dict[str, str], a: str, b: str) -> None:
    root_a, root_b = _find(parent, a), _find(parent, b)
    if root_a != root_b:
        parent[max(root_a, root_b)] = min(root_a, root_b)
