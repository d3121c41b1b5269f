"""`python -m bench eval attribution` on the small real catalog (KLD, AER, NEO): targets and shape."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bench.__main__ import app
from bench.evaluate_attribution import evaluate_attribution

runner = CliRunner()


def test_eval_help_ends_with_an_example() -> None:
    result = runner.invoke(app, ["eval", "attribution", "--help"])
    assert result.exit_code == 0
    assert "python -m bench eval attribution --catalog AllPrintings.json.xz" in result.output


def test_attribution_on_a_small_catalog(small_catalog_dir: Path, tmp_path: Path) -> None:
    """60 dumps of catalog cards, 20 of removed ones, 3 twin pairs each way: no wrong
    oracle_id, most identifiable cards found, every abstention with a reason."""
    measured = evaluate_attribution(small_catalog_dir, tmp_path / "cache", 60, 20, 0, twins=3)
    inside, outside, twins = measured["in_catalog"], measured["out_of_catalog"], measured["twins"]
    assert (twins["pairs_removed_one"], twins["pairs_both_kept"]) == (3, 3)
    assert (inside["dumps"], outside["dumps"]) == (60 + 3 + 6, 20 + 3)
    assert inside["wrong"] == 0 and outside["wrong"] == 0
    assert inside["right"] == inside["given_an_oracle_id"] >= 20
    assert inside["recall_identifiable"] >= 0.5
    left = inside["identifiable"] - inside["identifiable_right"]
    assert sum(inside["abstained_identifiable_by_reason"].values()) == left
    bound = measured["structural_bound"]
    assert bound["identifiable"] == inside["identifiable"]
    assert inside["recall_identifiable"] <= bound["bound_with_stubs"] <= 1


def test_eval_command_writes_results(small_catalog_dir: Path, tmp_path: Path) -> None:
    results = tmp_path / "eval.json"
    result = runner.invoke(app, [
        "eval", "attribution", "--catalog", str(small_catalog_dir), "--cards", "20",
        "--held-out", "5", "--work", str(tmp_path / "work"), "--results", str(results),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    written = json.loads(results.read_text())
    targets = written["against_targets"]
    assert sorted(targets) == [
        "identifiable_recall_at_least_0.95", "in_catalog_wrong_is_0",
        "out_of_catalog_wrong_is_0", "twins_wrong_is_0",
    ]  # fmt: skip
    assert targets["in_catalog_wrong_is_0"] and targets["out_of_catalog_wrong_is_0"]
    assert written["catalog_load"]["cold"]["from_cache"] is False
    assert written["catalog_load"]["warm"]["from_cache"] is True
    assert written["catalog_load"]["warm"]["rows"] == written["catalog_load"]["cold"]["rows"]
