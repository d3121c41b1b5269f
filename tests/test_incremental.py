"""Incremental global steps: clusters reused for the dedup blocks that did not change."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from flows.stages import dedupe, reuse
from tests.stages.test_dedupe import BESTOW, BESTOW_TYPO, KEEP_THEM, KEEP_THEME


def _variants(counts: dict[str, int]) -> pl.DataFrame:
    """Variants of real rulings (seed and MTGJSON texts), with occurrence counts."""
    texts = pl.Series("text", list(counts))
    return pl.DataFrame({
        "variant_id": dedupe.sha256_hex(texts),
        "text": texts,
        "language": ["en"] * len(counts),
        "occurrence_count": pl.Series(list(counts.values()), dtype=pl.UInt32),
    })  # fmt: skip


@pytest.fixture
def clustered(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of variants each `dedupe.cluster_variants` call of `reuse` got in the test."""
    sizes: list[int] = []
    real = dedupe.cluster_variants

    def spy(variants: pl.DataFrame, *args: Any) -> pl.DataFrame:
        sizes.append(variants.height)
        return real(variants, *args)

    monkeypatch.setattr(reuse, "cluster_variants", spy)
    return sizes


def test_only_changed_blocks_are_clustered_again_and_clusters_match_a_whole_run(
    clustered: list[int],
) -> None:
    first = _variants({KEEP_THEME: 1, KEEP_THEM: 3, BESTOW: 2, BESTOW_TYPO: 1})
    clusters, cache = reuse.cluster_changed_blocks(first, None)
    assert clusters["ruling_id"].n_unique() == 2  # each typo joins its ruling
    # "theme" becomes the most frequent: its block changes, bestow's does not
    second = _variants({KEEP_THEME: 5, KEEP_THEM: 3, BESTOW: 2, BESTOW_TYPO: 1})
    clustered.clear()
    again, _ = reuse.cluster_changed_blocks(second, cache)
    assert clustered == [2]  # the two Keep track variants only
    assert again.equals(dedupe.cluster_variants(second))
    representative = again.filter(pl.col("is_representative"))["variant_id"].to_list()
    assert first["variant_id"][0] in representative  # "theme" now represents its ruling


def test_a_variant_gone_from_a_block_reclusters_it(clustered: list[int]) -> None:
    _, cache = reuse.cluster_changed_blocks(
        _variants({KEEP_THEME: 1, KEEP_THEM: 3, BESTOW: 2, BESTOW_TYPO: 1}), None
    )
    fewer = _variants({KEEP_THEM: 3, BESTOW: 2, BESTOW_TYPO: 1})
    clustered.clear()
    again, next_cache = reuse.cluster_changed_blocks(fewer, cache)
    assert clustered == [1]  # the Keep track block lost a variant
    assert again.equals(dedupe.cluster_variants(fewer))
    assert next_cache["variant_id"].to_list() == sorted(fewer["variant_id"].to_list())
