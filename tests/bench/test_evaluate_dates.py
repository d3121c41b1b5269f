"""bench eval dates: the real rulings' dates as CLDR and sites write them, read back."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from typer.testing import CliRunner

from bench.__main__ import app
from bench.evaluate_dates import _written
from tests.conftest import REAL_DATA, needs_real_data

FRIDAY = dt.date(2024, 6, 7)


def test_written_forms_are_the_sites_ways() -> None:
    assert list(_written("fr", FRIDAY)) == [
        ("article", "le 7 juin 2024"),
        ("comma before the year", "7 juin, 2024"),
        ("dashes", "7-juin-2024"),
        ("weekday before", "vendredi, 07/06/2024"),
        ("hyphens", "07-06-2024"),
        ("time of day", "7 juin 2024, 14:30:05 TU"),  # CLDR fr long: `HH:mm:ss z`
        ("time of day", "7 juin 2024, 14:30:05"),
    ]
    assert ("first three letters", "7 aoû 2024") in _written("fr", dt.date(2024, 8, 7))
    assert ("article", "am 7. Juni 2024") in _written("de", FRIDAY)
    assert dict(_written("pt", FRIDAY))["weekday before"] == "sexta-feira, 07/06/2024"
    assert dict(_written("ko", FRIDAY))["zero-padded month"] == "2024년 06월 07일"
    assert dict(_written("zh_Hant", FRIDAY))["colloquial weekday"] == "2024年6月7日（禮拜五）"
    assert dict(_written("de", dt.date(2024, 3, 7)))["without accents"] == "7. Marz 2024"


@needs_real_data
def test_every_date_is_read_as_its_date_or_rejected(tmp_path: Path) -> None:
    results = tmp_path / "eval-dates.json"
    outcome = CliRunner().invoke(
        app, ["eval", "dates", "--real", str(REAL_DATA), "--results", str(results)]
    )
    assert outcome.exit_code == 0, outcome.output
    measured = json.loads(results.read_text(encoding="utf-8"))
    assert measured["dates"] == 119  # 2004-10-04 to 2022-02-18
    ways = measured["ways"]
    assert all("wrong" not in counts for counts in ways.values())  # no date read as another
    assert ways["cldr"]["right"] + ways["cldr"]["rejected by design"] == ways["cldr"]["texts"]
    assert ways["written"]["right"] == ways["written"]["texts"] > 6_000
    assert ways["other"]["right"] >= 0.9 * ways["other"]["texts"]
    assert measured["real_lines"]["lines"] > 400_000
    assert measured["real_lines"]["heads"] == []


def test_missing_real_data_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "dates", "--real", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (
        f"error: {tmp_path / 'derived' / 'mtgjson_v5_rulings.jsonl'} not found; "
        "pass --real with the real data folder\n"
    )
