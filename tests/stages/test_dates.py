"""dates: French long dates (all twelve months, `1er`) and the other locales' forms."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.dates import parse_date, parse_published_dates
from tests.conftest import TODAY

FRENCH_MONTHS = [
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
]


@pytest.mark.parametrize("month", range(1, 13), ids=FRENCH_MONTHS)
def test_french_months(month: int) -> None:
    assert parse_date(f"07 {FRENCH_MONTHS[month - 1]} 2024", TODAY) == (
        dt.date(2024, month, 7),
        None,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1er juin 2024", dt.date(2024, 6, 1)),
        ("7 juil. 2024", dt.date(2024, 7, 7)),
        ("20 septembre 2016", dt.date(2016, 9, 20)),
        ("7. März 2024", dt.date(2024, 3, 7)),
        ("7 de junio de 2024", dt.date(2024, 6, 7)),
        ("7 giugno 2024", dt.date(2024, 6, 7)),
        ("7 de junho de 2024", dt.date(2024, 6, 7)),
        ("1º de junho de 2024", dt.date(2024, 6, 1)),
        ("2024年6月7日", dt.date(2024, 6, 7)),
        ("2024 年 5 月 15 日", dt.date(2024, 5, 15)),
        ("2024년 6월 7일", dt.date(2024, 6, 7)),
        ("7 июня 2024 г.", dt.date(2024, 6, 7)),
        ("June 7, 2024", dt.date(2024, 6, 7)),
        ("2024-06-07", dt.date(2024, 6, 7)),
    ],
)
def test_other_forms(text: str, expected: dt.date) -> None:
    assert parse_date(text, TODAY) == (expected, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("31 février 2024", "impossible date '31 février 2024': day is out of range for month"),
        ("29 février 2023", "impossible date '29 février 2023': day is out of range for month"),
        ("7 juin 2027", "date '7 juin 2027' (2027-06-07) is in the future"),
        ("7 brumaire 2024", "unknown month name 'brumaire' in date '7 brumaire 2024'"),
        ("hier", "unrecognized date 'hier'"),
    ],
)
def test_rejected_dates_say_why(text: str, reason: str) -> None:
    assert parse_date(text, TODAY) == (None, reason)


def test_parse_published_dates_once_per_distinct_string() -> None:
    texts = pl.Series(["07 juin 2024", None, "08 mars 2024", "07 juin 2024", "31 février 2024"])
    assert_frame_equal(
        parse_published_dates(texts, TODAY),
        pl.DataFrame(
            {
                "date_text": ["07 juin 2024", "08 mars 2024", "31 février 2024"],
                "published_on": [dt.date(2024, 6, 7), dt.date(2024, 3, 8), None],
                "date_reject_reason": [
                    None,
                    None,
                    "impossible date '31 février 2024': day is out of range for month",
                ],
            },
            schema={
                "date_text": pl.String,
                "published_on": pl.Date,
                "date_reject_reason": pl.String,
            },
        ),
    )
