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
        ("CMC 2F/E 1/3.", 2.0, "1", "3"),  # the toughness was '3.'
        ("CMC 3 2/2", 3.0, "2", "2"),
        ("cmc 3f/e 2/2", 3.0, "2", "2"),
        ("CMC: 3", 3.0, None, None),
        ("CMC 3.", 3.0, None, None),
        ("CMC 3 — F/E 2/2", 3.0, "2", "2"),
        ("CMC 3, P/T 2/2", 3.0, "2", "2"),
        ("CMC 3 - 2/2", 3.0, "2", "2"),
        ("CMC 3 -1/2", 3.0, "-1", "2"),
        ("MV 3", 3.0, None, None),
        ("Mana value 3 P/T 2/2", 3.0, "2", "2"),
        ("VM 3 F/E 2/2", 3.0, "2", "2"),
        ("Manabetrag 4", 4.0, None, None),
        ("マナ総量 3", 3.0, None, None),
        ("法术力值 3", 3.0, None, None),
        ("마나 값 3", 3.0, None, None),
    ],
    ids=[
        "seed-fr", "spaced", "x-pt", "half", "star", "plus-star-de", "no-pt", "x", "final-dot",
        "no-initials", "lower-case", "colon", "no-pt-dot", "dash", "comma", "spaced-dash",
        "minus", "mv", "mana-value", "vm", "de", "ja", "zh", "ko",
    ],
)  # fmt: skip
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


@pytest.mark.parametrize("line", ["CMC 32/2", "CMC 3 is fine", "MV 3 creatures", "CMC 3-2/2"])
def test_text_after_a_mana_value_is_no_stat_line(line: str) -> None:
    assert _stubs(DATE, BODY, line, "Vol.").is_empty()


def test_a_stub_pasted_without_its_stat_line_starts_at_its_dot() -> None:
    # The ruling was `{BODY}\n.` and the cut card text a translation.
    text = "Au début du combat pendant votre tour, vous pouvez payer"
    stubs = _stubs(DATE, BODY, ".", text)
    assert stubs.rows() == [(3, None, None, None, text, True)]


def test_a_dot_inside_a_stub_or_a_second_one_starts_no_stub() -> None:
    stubs = _stubs(DATE, BODY, "CMC 2F/E 1/3", ".", "Vol.", ".", DATE, BODY, ".", "", "Vol, vi")
    assert stubs.select("line_number", "mana_value", "text").rows() == [
        (3, 2.0, "Vol."),
        (9, None, "Vol, vi"),
    ]
