"""`python -m bench eval languages` on a small seeded sample of the real data."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bench.__main__ import app
from bench.evaluate_languages import evaluate_languages, results_markdown
from tests.conftest import REAL_DATA, needs_real_data

LANGUAGES = ["de", "es", "fr", "it", "ja", "ko", "pt", "ru", "zh-cn", "zh-tw"]


@needs_real_data
def test_small_evaluation_counts_every_language_and_keeps_english(tmp_path: Path) -> None:
    results = evaluate_languages(
        REAL_DATA, per_language=4, english_sample=60, seed=3, processes=1, work=tmp_path / "a"
    )
    assert results["english"]["rulings"] == 60
    assert results["english"]["share_en"] == 1.0
    assert results["english"]["moved_to_translations"] == 0
    for measure in ("claimed", "unclaimed", "stubs"):
        scores = results[measure]["languages"]
        assert sorted(scores) == LANGUAGES
        assert all(s["n"] == 4 for s in scores.values())
        assert sum(s["right"] for s in scores.values()) >= 36  # at most 4 misses in 40
    report = results_markdown(results)
    assert "| 1. English rulings published en | 100.00 % of 60 | 100 % |" in report
    again = evaluate_languages(REAL_DATA, 4, 60, seed=3, processes=1, work=tmp_path / "b")
    assert again["stubs"] == results["stubs"]


def test_eval_languages_help_ends_with_an_example() -> None:
    result = CliRunner().invoke(app, ["eval", "languages", "--help"])
    assert result.exit_code == 0
    assert "python -m bench eval languages --per-language 1000" in " ".join(result.output.split())
