"""Ruling ids: content ids on a cold run, kept across runs by the id registry.

The published tables are a function of `raw/` and the registry
(`output/state/ruling_ids.*.parquet`):

- With no registry (a cold run), every ruling has its content id
  (`dedupe.cluster_variants`: sha256 of "ruling:" plus its smallest key).
- With a registry, a ruling whose variants were registered before keeps a
  registered id. Each registered id goes to at most one ruling: the one
  holding the id's registered representative, else the one holding most of
  its registered variants (ties: the smallest content id). A ruling that
  could keep several ids (a merge) keeps the one whose representative it
  holds, else the one with most of its variants, else the smallest. A part
  split off a registered ruling (its bridge variant disappeared, or the merge
  rules changed) that wins no id gets its content id.
- The same `raw/` and the same registry give the same ids (byte-identical tables).
"""

from __future__ import annotations

import hashlib
from typing import TypedDict

import polars as pl

from flows.stages.merge_rule import MERGE_RULES_VERSION

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
