"""stubs: stat lines with and without power/toughness, truncation."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.dates import parse_published_dates
from flows.stages.parse import classify_lines, resolve_entries
from flows.stages.stubs import parse_card_stubs
from tests.conftest import TODAY, dump_of, lines_of

DATE = "07 juin 2024 · source : wotc"
BODY = "{E} is the energy symbol. It represents one energy counter."


def _stubs(*lines: str) -> pl.DataFrame:
    classified = classify_lines(lines_of(dump_of(*lines)))
    resolved = resolve_entries(classified, parse_published_dates(classified["date_text"], TODAY))
    return parse_card_stubs(resolved).drop("dump_id")


def test_seed_004_stub() -> None:
    stubs = _stubs(
        DATE, BODY, "CMC 2F/E 1/3", ".", "Au début du combat pendant votre tour, vous pouvez payer "
    )
    assert_frame_equal(
        stubs,
        pl.DataFrame(
            {
                "line_number": [3],
                "mana_value": [2.0],
                "power": ["1"],
                "toughness": ["3"],
                "text": ["Au début du combat pendant votre tour, vous pouvez payer"],
                "is_truncated": [True],
            }
        ),
    )


@pytest.mark.parametrize(
    ("stat", "mana_value", "power", "toughness"),
    [
        ("CMC 2F/E 1/3", 2.0, "1", "3"),
        ("CMC 2 F/E 1/3", 2.0, "1", "3"),
        ("CMC 5P/R X/X", 5.0, "X", "X"),
        ("CMC 0.5F/C 1/1", 0.5, "1", "1"),
        ("CMC 4 P/T */*", 4.0, "*", "*"),
        ("CMC 3S/W 1+*/4", 3.0, "1+*", "4"),
        ("CMC 10", 10.0, None, None),
        ("CMC X", None, None, None),
    ],
    ids=["seed-fr", "spaced", "x-pt", "half", "star", "plus-star-de", "no-pt", "x"],
)
def test_stat_lines(
    stat: str, mana_value: float | None, power: str | None, toughness: str | None
) -> None:
    stub = _stubs(DATE, BODY, stat, ".", "Vol.").row(0, named=True)
    assert (stub["mana_value"], stub["power"], stub["toughness"]) == (mana_value, power, toughness)


def test_stub_without_dot_line_and_complete_sentence() -> None:
    stub = _stubs(DATE, BODY, "CMC 1", "Vol.").row(0, named=True)
    assert (stub["text"], stub["is_truncated"]) == ("Vol.", False)


def test_stub_without_text_is_truncated() -> None:
    stub = _stubs(DATE, BODY, "CMC 1", ".").row(0, named=True)
    assert (stub["text"], stub["is_truncated"]) == (None, True)
