"""Ruling ids end to end (no Prefect): the tables are a function of raw/ and the id registry."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import NamedTuple

import polars as pl
import pytest

from flows.disk.generation import save_state
from flows.disk.state import load_state
from flows.stages.dedupe import REGISTRY_SCHEMA, normalize_text
from flows.stages.detector import LANGUAGE_SCHEMA
from flows.stages.merge_rule import MERGE_RULES_VERSION
from flows.stages.reuse import empty_parsed
from tests.conftest import CASES_DIR, copy_seeds, needs_cases, run_dumps

THEM_SEED = "003_321b63c5bd17bae4.txt"  # the only seed with "writing them down"


class Built(NamedTuple):
    """A run's tables, its manifest's `ruling_ids`, the registry it left, its snapshot."""

    tables: dict[str, pl.DataFrame]
    ruling_ids: dict[str, object]
    registry: pl.DataFrame
    snapshot: Path


def _build(raw: Path, output: Path) -> Built:
    """The product's run of `raw` into `output` (whose state holds the registry, if any)."""
    result = run_dumps(raw, output).result
    registry = load_state(output / "state")["registry"]
    return Built(result["tables"], result["manifest"]["ruling_ids"], registry, result["snapshot"])


def _table_bytes(built: Built) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in built.snapshot.glob("*")
        if p.suffix in (".parquet", ".jsonl")
    }


def _keep_track_id(built: Built) -> str:
    rulings = built.tables["rulings"].filter(pl.col("text").str.starts_with("Keep track"))
    return rulings["ruling_id"].item()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    tmp = tmp_path_factory.mktemp("ids")
    four, five = copy_seeds(tmp, "four", skip=(THEM_SEED,)), copy_seeds(tmp, "five")
    after_four = _build(four, tmp / "out")
    shutil.copytree(tmp / "out", tmp / "again", symlinks=True)  # the same registry
    return {
        "four": after_four,
        "cold_five": _build(five, tmp / "cold"),
        "warm_five": _build(five, tmp / "out"),
        "warm_five_again": _build(five, tmp / "again"),
    }


def test_cold_run_gives_content_ids(runs: dict[str, Built]) -> None:
    tables = runs["cold_five"].tables
    smallest_key = (
        tables["ruling_variants"]
        .group_by("ruling_id")
        .agg(key=normalize_text(pl.col("text")).min())
    )
    for ruling_id, key in smallest_key.iter_rows():
        assert ruling_id == hashlib.sha256(f"ruling:{key}".encode()).hexdigest()
    assert runs["cold_five"].ruling_ids == {
        "kept": 0, "merged": 0, "split": 0, "gained": 36,
        "registry_merge_rules_version": None, "merge_rules_version": MERGE_RULES_VERSION,
    }  # fmt: skip


def test_same_raw_and_registry_give_byte_identical_tables(runs: dict[str, Built]) -> None:
    assert _table_bytes(runs["warm_five"]) == _table_bytes(runs["warm_five_again"])
    assert runs["warm_five"].registry.equals(runs["warm_five_again"].registry)


def test_a_warm_run_keeps_registered_ids_a_cold_run_does_not(
    runs: dict[str, Built],
) -> None:
    # Four seeds know only "writing theme down"; seed 003 adds "writing them down",
    # which is smaller, so the cold five-seed content id differs from the kept one.
    assert _keep_track_id(runs["warm_five"]) == _keep_track_id(runs["four"])
    assert _keep_track_id(runs["cold_five"]) != _keep_track_id(runs["four"])
    assert runs["warm_five"].ruling_ids == {
        "kept": 33, "merged": 0, "split": 0, "gained": 3,
        "registry_merge_rules_version": MERGE_RULES_VERSION,
        "merge_rules_version": MERGE_RULES_VERSION,
    }  # fmt: skip
    assert dict(REGISTRY_SCHEMA) == dict(runs["warm_five"].registry.schema)


@needs_cases
def test_changed_merge_rules_split_a_ruling_and_the_representative_keeps_its_id(
    tmp_path: Path,
) -> None:
    # Merge rules version 1 made c04's +1/+0 and -1/-0 rulings one ruling R (registered
    # without representative or version); now they are two: one keeps R, one gets its own.
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "c04.txt").write_bytes((CASES_DIR / "c04_signed_pt.txt").read_bytes())
    cold = _build(raw, tmp_path / "cold")
    variant_ids = cold.tables["ruling_variants"].sort("text")["variant_id"].to_list()
    registered = hashlib.sha256(b"ruling:registered by merge rules version 1").hexdigest()
    old = pl.DataFrame({"variant_id": variant_ids, "ruling_id": [registered] * 2})
    old_with_rep = old.with_columns(
        is_representative=pl.Series([False, True]), merge_rules_version=pl.lit("1")
    )
    # an output whose state holds only that registry, as merge rules version 1 left it
    languages = pl.DataFrame(schema=LANGUAGE_SCHEMA)
    save_state(
        tmp_path / "warm" / "state",
        empty_parsed(),
        languages,
        old_with_rep,
        "20250101T000000000000Z",
    )
    warm = _build(raw, tmp_path / "warm")
    ids = dict(warm.tables["ruling_variants"].select("text", "ruling_id").iter_rows())
    plus, minus = sorted(ids)  # "+1/+0" sorts before "-1/-0"
    cold_ids = dict(cold.tables["ruling_variants"].select("text", "ruling_id").iter_rows())
    assert ids == {plus: cold_ids[plus], minus: registered}  # the representative keeps R
    assert {k: warm.ruling_ids[k] for k in ("kept", "merged", "split", "gained")} == {
        "kept": 1, "merged": 0, "split": 1, "gained": 0,
    }  # fmt: skip
    assert warm.ruling_ids["registry_merge_rules_version"] == "1"
    assert warm.registry["merge_rules_version"].to_list() == [MERGE_RULES_VERSION] * 2
