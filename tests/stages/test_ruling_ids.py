"""ruling_ids: content ids when cold; registered ids kept, split, merged and gained."""

from __future__ import annotations

import hashlib

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.merge_rule import MERGE_RULES_VERSION
from flows.stages.ruling_ids import stabilize_ruling_ids


def _content(text: str) -> str:
    return hashlib.sha256(f"ruling:{text}".encode()).hexdigest()


def _clusters(*rows: tuple[str, str, bool]) -> pl.DataFrame:
    """(variant_id, content ruling_id, is_representative) rows, as `cluster_variants` returns."""
    return pl.DataFrame(
        rows,
        schema={"variant_id": pl.String, "ruling_id": pl.String, "is_representative": pl.Boolean},
        orient="row",
    ).sort("variant_id")


def _registry(*rows: tuple[str, str, bool | None]) -> pl.DataFrame:
    return pl.DataFrame(
        [(*r, MERGE_RULES_VERSION) for r in rows],
        schema={
            "variant_id": pl.String,
            "ruling_id": pl.String,
            "is_representative": pl.Boolean,
            "merge_rules_version": pl.String,
        },
        orient="row",
    )


def _ids(stable: pl.DataFrame) -> dict[str, str]:
    return dict(stable.select("variant_id", "ruling_id").iter_rows())


def _stats(result: dict) -> dict[str, int]:
    return {k: result["stats"][k] for k in ("kept", "merged", "split", "gained")}


def test_cold_run_gives_content_ids() -> None:
    clusters = _clusters(("a", _content("x"), True), ("b", _content("x"), False))
    result = stabilize_ruling_ids(clusters, _registry())
    assert_frame_equal(result["clusters"], clusters)
    assert _stats(result) == {"kept": 0, "merged": 0, "split": 0, "gained": 1}
    assert result["registry"]["merge_rules_version"].to_list() == [MERGE_RULES_VERSION] * 2


def test_new_variant_joins_and_keeps_the_registered_id() -> None:
    clusters = _clusters(("a", _content("a"), True), ("b", _content("a"), False))
    result = stabilize_ruling_ids(clusters, _registry(("b", "R", True)))
    assert _ids(result["clusters"]) == {"a": "R", "b": "R"}
    assert _stats(result) == {"kept": 1, "merged": 0, "split": 0, "gained": 0}


@pytest.mark.parametrize(
    ("representative", "keeps", "gets_own"),
    [("a", ["a", "b"], ["c"]), ("c", ["c"], ["a", "b"])],
    ids=["rep-in-bigger-part", "rep-in-smaller-part"],
)
def test_split_the_part_holding_the_representative_keeps_the_id(
    representative: str, keeps: list[str], gets_own: list[str]
) -> None:
    # a, b, c were one ruling R (bridged by b); now {a, b} and {c} are two rulings.
    registry = _registry(*((v, "R", v == representative) for v in "abc"))
    clusters = _clusters(("a", _content("a"), True), ("b", _content("a"), False),
                         ("c", _content("c"), True))  # fmt: skip
    result = stabilize_ruling_ids(clusters, registry)
    own = _content(gets_own[0])
    assert _ids(result["clusters"]) == {**dict.fromkeys(keeps, "R"), **dict.fromkeys(gets_own, own)}
    assert _stats(result) == {"kept": 1, "merged": 0, "split": 1, "gained": 0}


def test_merge_keeps_one_registered_id_and_says_so() -> None:
    registry = _registry(("a", "R2", True), ("b", "R1", True))
    clusters = _clusters(("a", _content("a"), True), ("b", _content("a"), False))
    result = stabilize_ruling_ids(clusters, registry)
    assert _ids(result["clusters"]) == {"a": "R1", "b": "R1"}  # both reps held: smallest id
    assert _stats(result) == {"kept": 0, "merged": 1, "split": 0, "gained": 0}


def test_unseen_variants_stay_registered_and_lose_representative_when_their_id_moved() -> None:
    registry = _registry(("a", "R", True), ("b", "R", False), ("z", "Z", True))
    clusters = _clusters(("b", _content("b"), True))
    result = stabilize_ruling_ids(clusters, registry)
    expected = _registry(("a", "R", False), ("b", "R", True), ("z", "Z", True))
    assert_frame_equal(result["registry"], expected)


def test_a_content_id_already_taken_is_rehashed() -> None:
    # {b} keeps R = content("a"); the split-off {a} would get content("a") too.
    registry = _registry(("a", _content("a"), False), ("b", _content("a"), True))
    clusters = _clusters(("a", _content("a"), True), ("b", _content("b"), True))
    ids = _ids(stabilize_ruling_ids(clusters, registry)["clusters"])
    assert ids == {"a": hashlib.sha256(f"ruling:{_content('a')}".encode()).hexdigest(),
                   "b": _content("a")}  # fmt: skip


def test_registry_without_representative_or_version_columns_is_read() -> None:
    old = pl.DataFrame({"variant_id": ["a", "c"], "ruling_id": ["R", "R"]})
    clusters = _clusters(("a", _content("a"), True), ("c", _content("c"), True))
    result = stabilize_ruling_ids(clusters, old)
    # neither holds R's representative (unknown), one variant each: the smaller content id wins
    winner, loser = sorted(["a", "c"], key=_content)
    assert _ids(result["clusters"]) == {winner: "R", loser: _content(loser)}
    assert result["stats"]["registry_merge_rules_version"] is None
    assert result["registry"].columns == [
        "variant_id", "ruling_id", "is_representative", "merge_rules_version"
    ]  # fmt: skip


def test_same_clusters_and_registry_give_the_same_ids() -> None:
    registry = _registry(("a", "R", True), ("b", "R", False), ("c", "S", True))
    clusters = _clusters(("a", _content("a"), True), ("b", _content("b"), True),
                         ("c", _content("a"), False))  # fmt: skip
    first = stabilize_ruling_ids(clusters, registry)
    again = stabilize_ruling_ids(clusters.reverse(), registry.reverse())
    assert_frame_equal(first["clusters"], again["clusters"])
    assert_frame_equal(first["registry"], again["registry"])
