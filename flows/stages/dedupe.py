"""Deduplicate rulings across dumps: exact variants, then near-duplicate rulings.

1. Key each body for comparison (`normalize_text`: invisible characters
   removed, a fraction spaced, NFKC, quotes, apostrophes, the minus sign and the
   fraction slash folded, whitespace collapsed). Each distinct key is a
   *variant*. The key is for comparison only: published texts keep what was written.
2. Merge variants of one language that are small typo variants of each other
   (seed 000 "writing theme down" and seed 003 "writing them down") into one
   *ruling*: near pairs (`MAX_EDITS` apart) are found with rapidfuzz within
   blocks of equal protected tokens, and each is checked against the merge
   rule (`merge_rule.within_merge_rule`).
3. No chaining: near pairs are joined (union-find), then every variant of a
   group is checked against the group's representative (its most frequent
   variant, ties: the smallest key); those outside the representative's merge
   rule form groups of their own, checked the same way.

4. Ruling ids: a content id on a cold run (sha256 of "ruling:" plus the
   ruling's smallest key), kept across runs by the id registry
   (`output/state/ruling_ids.*.parquet`, `stabilize_ruling_ids`): a ruling
   whose variants were registered keeps a registered id; each registered id
   goes to at most one ruling, the one holding the id's registered
   representative, else the one holding most of its registered variants
   (ties: the smallest content id); a ruling that could keep several (a
   merge) keeps the one whose representative it holds, else the one with
   most of its variants, else the smallest; a part split off (its bridge
   variant gone, or the merge rules changed) that wins no id gets its
   content id. The same `raw/` and registry give the same ids.

Ids are sha256 hex digests of content (never polars' hash, which changes
between polars versions).
"""

from __future__ import annotations

import hashlib
import logging
from typing import TypedDict

import numpy as np
import polars as pl
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from flows.stages.merge_rule import (
    MAX_EDITS,
    MERGE_RULES_VERSION,
    MIN_SIMILARITY,
    forget_profiles,
    protected_tokens,
    within_merge_rule,
)

logger = logging.getLogger(__name__)

#: Characters that are never seen and never change a ruling: soft hyphen,
#: combining grapheme joiner, zero-width space/joiners, bidi marks, embeddings
#: and isolates, word joiner and invisible operators, BOM (case c19).
INVISIBLE_CHARACTERS = (
    r"[\u00ad\u034f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)

#: Folded in the comparison key: curly quotes and apostrophes to straight ones
#: (seed 003 writes `doesn’t` and `“may pay”` where the other seeds write
#: `doesn't`, `"may pay"`; the modifier letter `ʼ` and the grave accent typed for
#: one: `arenʼt`; `normalize_text` folds `´`), the minus sign to a hyphen-minus.
QUOTE_FOLDS: dict[str, str] = {
    **dict.fromkeys("\u02bc\u0060\u2018\u2019\u201a\u201b\u2032", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
    "\u2212": "-",
    "\u2044": "/",  # the fraction slash (merge rules v7: VULGAR_FRACTION)
}
#: A fraction after a number (`20½`, `20 ½`; NFKC makes `20½` `201⁄2`) is one space apart
#: from it, its slash a `/` (QUOTE_FOLDS; `20 1/2` typed): merge rules v7, 5 of 5 apart.
VULGAR_FRACTION = r"(\d)\s*([\u00bc-\u00be\u2150-\u215e\u2189])"

#: Guillemets and corner brackets with the spaces inside (`« may pay »`, `「may pay」`): a
#: straight `"`, as `“may pay”` is (merge rules v6; a probe's find: 3 of 3 were apart).
QUOTATION_MARKS = r"[«「『]\s*|\s*[»」』]"

_CHUNK_ROWS = 512


def normalize_text(text: pl.Expr) -> pl.Expr:
    """The comparison key of a text (never published).

    Removes INVISIBLE_CHARACTERS, folds `´` to `'` (NFKC would make it a space and
    a combining accent), puts one space before a VULGAR_FRACTION, applies NFKC, folds
    QUOTATION_MARKS and QUOTE_FOLDS, collapses whitespace and trims.
    """
    return (
        text.str.replace_all(INVISIBLE_CHARACTERS, "")
        .str.replace_all("\u00b4", "'", literal=True)
        .str.replace_all(VULGAR_FRACTION, "${1} ${2}")
        .str.normalize("NFKC")
        .str.replace_all(QUOTATION_MARKS, '"')
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
    texts, counts = blocked["text"].to_list(), blocked["occurrence_count"].to_list()
    rows = dict(zip(blocked["variant_id"].to_list(), zip(texts, counts, strict=True), strict=True))
    shared = pl.len().over("_block") > 1
    alone = blocked.filter(~shared)  # a variant alone in its block is its own group
    assigned = [(v, rows[v][0], True) for v in alone["variant_id"].to_list()]
    blocks = blocked.filter(shared).group_by("_block", maintain_order=True).agg("variant_id")
    for ids in blocks["variant_id"].to_list():  # each block's, by variant_id
        assigned += _cluster_block(ids, rows, max_edits, min_similarity)
    forget_profiles()  # the keys' profiles are of no use after this run
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
    if merged.height:  # a warm run with nothing new clusters nothing: no line then
        logger.info(
            "clustered %d variants into %d rulings", merged.height, merged["ruling_id"].n_unique()
        )
    return merged


def _cluster_block(
    ids: list[str], rows: dict[str, tuple[str, int]], max_edits: int, min_similarity: float
) -> list[tuple[str, str, bool]]:
    """`_verified_groups` of one block's variants (`rows`: variant_id -> text, occurrence_count),
    a block at a time: each key's profile (`merge_rule`) is found again for its group."""
    parent = {v: v for v in ids}
    for a, b in _near_pairs([rows[v][0] for v in ids], max_edits, min_similarity):
        _union(parent, ids[a], ids[b])
    groups: dict[str, list[str]] = {}
    for v in parent:
        groups.setdefault(_find(parent, v), []).append(v)
    rule = (max_edits, min_similarity)
    return [row for members in groups.values() for row in _verified_groups(members, rows, *rule)]


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


#: The registry's columns. Registries written before is_representative and
#: merge_rules_version existed are read with those null.
REGISTRY_SCHEMA = {
    "variant_id": pl.String,
    "ruling_id": pl.String,
    "is_representative": pl.Boolean,
    "merge_rules_version": pl.String,
}

#: How each published ruling's id relates to the registry (manifest `ruling_ids`).
ID_OUTCOMES = ("kept", "merged", "split", "gained")


class StableIds(TypedDict):
    """Output of `stabilize_ruling_ids`."""

    clusters: pl.DataFrame  # variant_id, ruling_id, is_representative
    registry: pl.DataFrame  # REGISTRY_SCHEMA, for the next run
    stats: dict[str, int | str | None]  # ID_OUTCOMES counts, merge rules versions


def complete_registry(registry: pl.DataFrame) -> pl.DataFrame:
    """Add the REGISTRY_SCHEMA an older registry lacks (null), in order."""
    missing = [pl.lit(None, dtype=t).alias(c) for c, t in REGISTRY_SCHEMA.items()
               if c not in registry.columns]  # fmt: skip
    return registry.with_columns(missing).select(list(REGISTRY_SCHEMA))


def stabilize_ruling_ids(
    clusters: pl.DataFrame, registry: pl.DataFrame, merge_rules_version: str = MERGE_RULES_VERSION
) -> StableIds:
    """Give each ruling a registered id where it can keep one (module docstring).

    Needs:
        clusters: variant_id, ruling_id (content id), is_representative
            (from `dedupe.cluster_variants`).
        registry: variant_id, ruling_id, and is_representative,
            merge_rules_version when present (every variant published before).

    Returns:
        clusters with final ids, sorted by variant_id; the registry with every
        current variant added or updated (variants no longer seen stay
        registered, so a dump that comes back brings back its ids; they lose
        is_representative when their id is now held by another variant);
        stats: {kept, merged, split, gained} counts of published rulings
        (see ID_OUTCOMES and README), registry_merge_rules_version,
        merge_rules_version.
    """
    registry = complete_registry(registry)
    claims = (
        clusters.join(registry, on="variant_id", how="inner", suffix="_registered")
        .group_by("ruling_id", "ruling_id_registered")
        .agg(
            holds=pl.col("is_representative_registered").fill_null(False).any(),
            n=pl.len(),
        )
        .sort(["holds", "n", "ruling_id_registered", "ruling_id"],
              descending=[True, True, False, False])
    )  # fmt: skip
    won: dict[str, str] = {}  # content id -> registered id
    taken: set[str] = set()
    for content, registered, _, _ in claims.iter_rows():
        if content not in won and registered not in taken:
            won[content] = registered
            taken.add(registered)
    final = _with_fresh_ids(clusters["ruling_id"].unique().sort().to_list(), won, taken)
    stable = clusters.with_columns(ruling_id=pl.col("ruling_id").replace_strict(final)).sort(
        "variant_id"
    )
    return StableIds(
        clusters=stable,
        registry=_update_registry(registry, stable, merge_rules_version),
        stats=_id_stats(claims, won, final, registry, merge_rules_version),
    )


def _with_fresh_ids(contents: list[str], won: dict[str, str], taken: set[str]) -> dict[str, str]:
    """Content id -> final id; a content id already taken is re-hashed until free."""
    final = {}
    taken = set(taken)  # the caller's set stays as it was
    for content in contents:
        if content in won:
            final[content] = won[content]
            continue
        candidate = content
        while candidate in taken:
            candidate = hashlib.sha256(f"ruling:{candidate}".encode()).hexdigest()
        final[content] = candidate
        taken.add(candidate)
    return final


def _update_registry(
    registry: pl.DataFrame, stable: pl.DataFrame, merge_rules_version: str
) -> pl.DataFrame:
    current = stable.select(
        "variant_id",
        "ruling_id",
        "is_representative",
        merge_rules_version=pl.lit(merge_rules_version),
    )
    unseen = registry.filter(~pl.col("variant_id").is_in(current["variant_id"].implode()))
    unseen = unseen.with_columns(
        is_representative=pl.col("is_representative")
        & ~pl.col("ruling_id").is_in(current["ruling_id"].implode())
    )
    return pl.concat([unseen, current]).sort("variant_id")


def _id_stats(
    claims: pl.DataFrame,
    won: dict[str, str],
    final: dict[str, str],
    registry: pl.DataFrame,
    merge_rules_version: str,
) -> dict[str, int | str | None]:
    claimed = claims.group_by("ruling_id").agg(ids=pl.col("ruling_id_registered").n_unique())
    n_claimed = dict(claimed.iter_rows())
    counts = dict.fromkeys(ID_OUTCOMES, 0)
    for content in final:
        if content in won:
            counts["merged" if n_claimed[content] > 1 else "kept"] += 1
        else:
            counts["split" if content in n_claimed else "gained"] += 1
    versions = registry["merge_rules_version"].drop_nulls().unique().sort().to_list()
    return {
        **counts,
        "registry_merge_rules_version": ",".join(versions) or None,
        "merge_rules_version": merge_rules_version,
    }
