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
    """60 dumps of catalog cards, 20 of removed ones: no wrong oracle_id, most cards found."""
    measured = evaluate_attribution(small_catalog_dir, tmp_path / "cache", 60, 20, seed=0)
    inside, outside = measured["in_catalog"], measured["out_of_catalog"]
    assert (inside["dumps"], outside["dumps"]) == (60, 20)
    assert inside["wrong"] == 0 and outside["wrong"] == 0
    assert inside["right"] == inside["given_an_oracle_id"] >= 20


def test_eval_command_writes_results(small_catalog_dir: Path, tmp_path: Path) -> None:
    results = tmp_path / "eval.json"
    result = runner.invoke(app, [
        "eval", "attribution", "--catalog", str(small_catalog_dir), "--cards", "20",
        "--held-out", "5", "--work", str(tmp_path / "work"), "--results", str(results),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    written = json.loads(results.read_text())
    assert written["against_targets"] == {
        "in_catalog_accuracy_at_least_0.99": True,
        "out_of_catalog_wrong_is_0": True,
    }
    assert written["catalog_load"]["cold"]["from_cache"] is False
    assert written["catalog_load"]["warm"]["from_cache"] is True
    assert written["catalog_load"]["warm"]["rows"] == written["catalog_load"]["cold"]["rows"]
