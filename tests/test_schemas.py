"""schemas: the contract; failing rows become rejects, a broken table stops the run."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.errors import ContractError
from flows.run import DirectRunner, run_direct
from flows.stages.tables import build_global_tables, validate_table, validate_tables
from schemas import PublishedCardStub, PublishedOccurrence, PublishedVariant
from tests.conftest import SEED_DIR, SEED_ROWS


def test_built_seed_tables_pass_whole(tmp_path: Path) -> None:
    runner = DirectRunner(keep=(build_global_tables,))
    validated = run_direct(SEED_DIR, tmp_path / "out", runner=runner)["tables"]
    [built_tables] = runner.kept[build_global_tables]
    built = built_tables["tables"]  # as built, before any validation
    assert {n: t.height for n, t in validated.items()} == SEED_ROWS
    for name, table in built.items():
        assert_frame_equal(validated[name], table)  # no row moved to rejects, none changed


def test_failing_rows_move_to_rejects_with_the_check(seed_tables: dict[str, pl.DataFrame]) -> None:
    occurrences = seed_tables["ruling_occurrences"]
    broken = occurrences.with_columns(
        source=pl.when(pl.col("line_number") == 2).then(pl.lit("wo tc")).otherwise("source")
    )
    valid, rejects = validate_table("ruling_occurrences", broken, PublishedOccurrence)
    assert valid.height == occurrences.height - 5  # line 2 is the first entry of all five seeds
    assert rejects["line_number"].to_list() == [2] * 5
    assert rejects["stage"].unique().to_list() == ["validate"]
    assert rejects["reason"][0] == "ruling_occurrences row: source failed str_matches('^\\S+$')"
    assert '"source":"wo tc"' in rejects["content"][0]


def test_duplicate_keys_are_rejected_rows(seed_tables: dict[str, pl.DataFrame]) -> None:
    variants = seed_tables["ruling_variants"]
    doubled = pl.concat([variants, variants.head(1)])
    valid, rejects = validate_table("ruling_variants", doubled, PublishedVariant)
    assert valid.height == variants.height - 1  # both copies of the repeated id leave
    assert rejects.height == 2
    assert rejects["reason"].unique().to_list() == [
        "ruling_variants row: variant_id failed field_uniqueness"
    ]


def test_a_missing_column_stops_the_run(seed_tables: dict[str, pl.DataFrame]) -> None:
    broken = {**seed_tables, "rulings": seed_tables["rulings"].drop("language")}
    with pytest.raises(ContractError, match="table rulings breaks the contract of PublishedRuling"):
        validate_tables(broken)


def test_a_wrong_dtype_stops_the_run(seed_tables: dict[str, pl.DataFrame]) -> None:
    broken = seed_tables["card_stubs"].with_columns(pl.col("mana_value").cast(pl.String))
    with pytest.raises(ContractError, match=r"mana_value: dtype\('Float64'\) \(found String\)"):
        validate_table("card_stubs", broken, PublishedCardStub)
