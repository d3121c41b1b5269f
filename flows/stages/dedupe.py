"""Deduplicate rulings across dumps: exact variants, then near-duplicate rulings.

1. Normalize (Unicode NFKC, curly and straight quotes and apostrophes folded,
   whitespace collapsed). Each distinct normalized text is a *variant*.
2. Merge variants of one language that are small typo variants of each other
   (seed 000 "writing theme down" and seed 003 "writing them down") into one
   *ruling*. A merge never joins texts whose protected tokens differ: numbers,
   `{symbols}`, capitalized words (card names), negations and number words,
   so "power 2 or less" and "power 3 or less" stay two rulings.

Ids are sha256 hex digests of content (never polars' hash, which changes
between polars versions).
"""

from __future__ import annotations

import hashlib
import logging

import numpy as np
import polars as pl
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

logger = logging.getLogger(__name__)

#: Curly quotes and apostrophes folded to straight ones (seed 003 writes
#: `doesn’t` and `“may pay”` where the other seeds write `doesn't`, `"may pay"`).
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
}

#: Tokens that must be equal for two texts to be near-duplicates.
PROTECTED_TOKENS = (
    r"\d+(?:[.,]\d+)?"  # numbers: power 2 / power 3
    r"|\{[^}]*\}"  # mana and other symbols: {E}, {X}, {2}{W}
    r"|\b\p{Lu}[\p{L}\p{M}'-]*"  # capitalized words: card names, sentence starts
    r"|(?i:\b(?:not|no|never|none|nothing|cannot|\w+n't|one|two|three|four|five|six|seven"
    r"|eight|nine|ten|first|second|third|fourth|fifth|last|once|twice|half|double"
    r"|less|more|greater|fewer|least|most)\b)"
)

#: At most this many character edits between two near-duplicates ...
MAX_EDITS = 2
#: ... and at least this normalized Levenshtein similarity (1 - edits / longer length).
MIN_SIMILARITY = 0.97

_CHUNK_ROWS = 512


def normalize_text(text: pl.Expr) -> pl.Expr:
    """Normalize ruling text: NFKC, quotes folded (QUOTE_FOLDS), whitespace collapsed, trimmed."""
    return (
        text.str.normalize("NFKC")
        .str.replace_many(list(QUOTE_FOLDS), list(QUOTE_FOLDS.values()))
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
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
    """Normalize each entry's body and give it its variant id.

    Needs:
        text_raw (String).

    Adds:
        text_normalized (String): see `normalize_text`.
        variant_id (String): sha256 hex of text_normalized.
    """
    with_text = entries.with_columns(text_normalized=normalize_text(pl.col("text_raw")))
    return with_text.with_columns(variant_id=sha256_hex(with_text["text_normalized"]))


def cluster_variants(
    variants: pl.DataFrame, max_edits: int = MAX_EDITS, min_similarity: float = MIN_SIMILARITY
) -> pl.DataFrame:
    """Group near-duplicate variants into rulings.

    Two variants join when they have the same language and the same protected
    tokens (PROTECTED_TOKENS), are at most `max_edits` character edits apart
    and at least `min_similarity` similar; rulings are the connected groups.

    Needs:
        variant_id (String), text (String: normalized), language (String);
        one row per variant.

    Returns:
        variant_id (String), ruling_id (String: sha256 hex of "ruling:" plus
        the group's smallest text), sorted by variant_id.
    """
    blocked = variants.with_columns(
        _block=pl.concat_str(
            "language",
            pl.col("text").str.extract_all(PROTECTED_TOKENS).list.sort().list.join("\x1f"),
            separator="\x1e",
        )
    )
    parent = {v: v for v in blocked["variant_id"].to_list()}
    for block in blocked.filter(pl.len().over("_block") > 1).partition_by("_block"):
        for a, b in _near_pairs(block["text"].to_list(), max_edits, min_similarity):
            _union(parent, block["variant_id"][a], block["variant_id"][b])
    groups = blocked.select("variant_id", "text").with_columns(
        _root=pl.col("variant_id").replace_strict({v: _find(parent, v) for v in parent})
    )
    canonical = groups.with_columns(_canonical=pl.col("text").min().over("_root"))
    merged = canonical.select(
        "variant_id", ruling_id=sha256_hex(canonical["_canonical"], namespace="ruling:")
    ).sort("variant_id")
    logger.info(
        "clustered %d variants into %d rulings", merged.height, merged["ruling_id"].n_unique()
    )
    return merged


def _near_pairs(texts: list[str], max_edits: int, min_similarity: float) -> list[tuple[int, int]]:
    """Index pairs (i < j) of texts within `max_edits` edits and `min_similarity`."""
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
            longest = max(len(texts[a]), len(texts[b]))
            if a < b and 1 - distances[i, j] / longest >= min_similarity:
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


def stabilize_ruling_ids(
    clusters: pl.DataFrame, registry: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Keep the ruling_id each variant was published under before.

    A ruling whose variants were published before keeps that id, whatever
    dumps are added, removed or renamed and whatever variant joins it; a new
    ruling gets its content id from `cluster_variants`. When a new variant
    joins two rulings published before, the smaller of their ids stays.

    Needs:
        clusters: variant_id, ruling_id (from `cluster_variants`).
        registry: variant_id, ruling_id (every variant published before).

    Returns:
        (clusters, registry): `clusters` with registered ids, sorted by
        variant_id; the registry with every current variant added or updated
        (variants no longer seen stay registered, so a dump that comes back
        brings back its ids).
    """
    registered = clusters.join(
        registry.rename({"ruling_id": "_registered"}), on="variant_id", how="left"
    ).with_columns(
        ruling_id=pl.coalesce(pl.col("_registered").min().over("ruling_id"), pl.col("ruling_id"))
    )
    stable = registered.select("variant_id", "ruling_id").sort("variant_id")
    kept = registry.filter(~pl.col("variant_id").is_in(stable["variant_id"].implode()))
    return stable, pl.concat([kept, stable]).sort("variant_id")
