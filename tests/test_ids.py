"""Ruling ids end to end (no Prefect): the tables are a function of raw/ and the id registry."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import polars as pl
import pytest

from flows.pipeline import BuiltTables, build_tables, detect_languages, parse_dumps
from flows.stages.dedupe import MERGE_RULES_VERSION, normalize_text
from flows.stages.read import load_raw_dumps
from flows.stages.state import REGISTRY_SCHEMA
from tests.conftest import REAL_DATA, TODAY, copy_seeds

THEM_SEED = "003_321b63c5bd17bae4.txt"  # the only seed with "writing them down"


def _build(raw: Path, registry: pl.DataFrame | None) -> BuiltTables:
    parsed = parse_dumps(load_raw_dumps(raw), TODAY)
    return build_tables(parsed, detect_languages(parsed)["languages"], registry)


def _table_bytes(built: BuiltTables) -> dict[str, bytes]:
    out = {}
    for name, table in built["tables"].items():
        parquet, jsonl = io.BytesIO(), io.BytesIO()
        table.write_parquet(parquet, compression="zstd")
        table.write_ndjson(jsonl)
        out[name] = parquet.getvalue() + b"\0" + jsonl.getvalue()
    return out


def _keep_track_id(built: BuiltTables) -> str:
    rulings = built["tables"]["rulings"].filter(pl.col("text").str.starts_with("Keep track"))
    return rulings["ruling_id"].item()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, BuiltTables]:
    tmp = tmp_path_factory.mktemp("ids")
    four, five = copy_seeds(tmp, "four", skip=(THEM_SEED,)), copy_seeds(tmp, "five")
    after_four = _build(four, None)
    return {
        "four": after_four,
        "cold_five": _build(five, None),
        "warm_five": _build(five, after_four["registry"]),
        "warm_five_again": _build(five, after_four["registry"]),
    }


def test_cold_run_gives_content_ids(runs: dict[str, BuiltTables]) -> None:
    tables = runs["cold_five"]["tables"]
    smallest_key = (
        tables["ruling_variants"]
        .group_by("ruling_id")
        .agg(key=normalize_text(pl.col("text")).min())
    )
    for ruling_id, key in smallest_key.iter_rows():
        assert ruling_id == hashlib.sha256(f"ruling:{key}".encode()).hexdigest()
    assert runs["cold_five"]["ruling_ids"] == {
        "kept": 0, "merged": 0, "split": 0, "gained": 36,
        "registry_merge_rules_version": None, "merge_rules_version": MERGE_RULES_VERSION,
    }  # fmt: skip


def test_same_raw_and_registry_give_byte_identical_tables(runs: dict[str, BuiltTables]) -> None:
    assert _table_bytes(runs["warm_five"]) == _table_bytes(runs["warm_five_again"])
    assert runs["warm_five"]["registry"].equals(runs["warm_five_again"]["registry"])


def test_a_warm_run_keeps_registered_ids_a_cold_run_does_not(
    runs: dict[str, BuiltTables],
) -> None:
    # Four seeds know only "writing theme down"; seed 003 adds "writing them down",
    # which is smaller, so the cold five-seed content id differs from the kept one.
    assert _keep_track_id(runs["warm_five"]) == _keep_track_id(runs["four"])
    assert _keep_track_id(runs["cold_five"]) != _keep_track_id(runs["four"])
    assert runs["warm_five"]["ruling_ids"] == {
        "kept": 33, "merged": 0, "split": 0, "gained": 3,
        "registry_merge_rules_version": MERGE_RULES_VERSION,
        "merge_rules_version": MERGE_RULES_VERSION,
    }  # fmt: skip
    assert dict(REGISTRY_SCHEMA) == dict(runs["warm_five"]["registry"].schema)


CASES = REAL_DATA.parents[1] / "cases" / "realworld"  # ../shared/cases/realworld


@pytest.mark.skipif(not (CASES / "c04_signed_pt.txt").is_file(), reason="cases not found")
def test_changed_merge_rules_split_a_ruling_and_the_representative_keeps_its_id(
    tmp_path: Path,
) -> None:
    # Merge rules version 1 made c04's +1/+0 and -1/-0 rulings one ruling "R" (registered
    # without representative or version); now they are two: one keeps R, one gets its own.
    (tmp_path / "c04.txt").write_bytes((CASES / "c04_signed_pt.txt").read_bytes())
    cold = _build(tmp_path, None)
    variant_ids = cold["tables"]["ruling_variants"].sort("text")["variant_id"].to_list()
    old = pl.DataFrame({"variant_id": variant_ids, "ruling_id": ["R", "R"]})
    old_with_rep = old.with_columns(
        is_representative=pl.Series([False, True]), merge_rules_version=pl.lit("1")
    )
    warm = _build(tmp_path, old_with_rep)
    ids = dict(warm["tables"]["ruling_variants"].select("text", "ruling_id").iter_rows())
    plus, minus = sorted(ids)  # "+1/+0" sorts before "-1/-0"
    cold_ids = dict(cold["tables"]["ruling_variants"].select("text", "ruling_id").iter_rows())
    assert ids == {plus: cold_ids[plus], minus: "R"}  # the registered representative keeps R
    assert {k: warm["ruling_ids"][k] for k in ("kept", "merged", "split", "gained")} == {
        "kept": 1, "merged": 0, "split": 1, "gained": 0,
    }  # fmt: skip
    assert warm["ruling_ids"]["registry_merge_rules_version"] == "1"
    assert warm["registry"]["merge_rules_version"].to_list() == [MERGE_RULES_VERSION] * 2
