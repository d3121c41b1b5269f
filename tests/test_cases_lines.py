"""The real-world cases about dates and invisible characters (../shared/cases/realworld):
each right value of CASES.md is asserted here."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from tests.conftest import CASES_DIR as CASES
from tests.conftest import needs_cases, run_contents

pytestmark = needs_cases
R1 = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."
R2 = (
    "An Equipment creature can never become attached to itself. "
    "If an effect tries to do this, nothing happens."
)
JUNE_7 = dt.date(2024, 6, 7)


def _tables(name: str) -> dict[str, pl.DataFrame]:
    return run_contents({name: (CASES / name).read_bytes()}).tables


def _entries(tables: dict[str, pl.DataFrame]) -> list[tuple[dt.date, str]]:
    return tables["ruling_occurrences"].select("published_on", "text_raw").rows()


def test_c01_era_date_two_entries_no_translation() -> None:
    tables = _tables("c01_era_date.txt")
    assert _entries(tables) == [(JUNE_7, R1), (JUNE_7, R2)]
    assert tables["ruling_translations"].height == 0
    assert tables["rejects"].height == 0


def test_c02_weekday_first_header_is_line_one() -> None:
    tables = _tables("c02_weekday_de_first.txt")
    assert _entries(tables) == [(JUNE_7, R1), (JUNE_7, R2)]
    header = (CASES / "c02_weekday_de_first.txt").read_text("utf-8").splitlines()[0]
    assert tables["dumps"]["header_text"].to_list() == [header]
    assert tables["rejects"].height == 0


def test_c03_bom_mid_file_starts_an_entry() -> None:
    tables = _tables("c03_bom_mid_file.txt")
    assert _entries(tables) == [(JUNE_7, R1), (JUNE_7, R2)]
    assert tables["dumps"]["format_char_count"].to_list() == [1]


@pytest.mark.parametrize(
    ("name", "dates"),
    [
        ("c12_ordinal_en.txt", [JUNE_7, dt.date(2024, 3, 2)]),
        ("c13_ko_medium.txt", [JUNE_7]),
        ("c14_es_del.txt", [JUNE_7]),
        ("c15_de_at_month.txt", [dt.date(2024, 1, 7)]),
        ("c16_ru_goda.txt", [JUNE_7]),
    ],
    ids=["c12 en ordinals", "c13 ko medium", "c14 es del", "c15 de_AT Jänner", "c16 ru года"],
)
def test_dates_of_every_form_are_entry_dates(name: str, dates: list[dt.date]) -> None:
    tables = _tables(name)
    assert tables["ruling_occurrences"]["published_on"].to_list() == dates
    assert tables["rejects"].height == 0


def test_c19_soft_hyphen_is_one_ruling_two_occurrences() -> None:
    tables = _tables("c19_soft_hyphen.txt")
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [R2, R2]
    assert tables["rulings"].select("text", "occurrence_count").rows() == [(R2, 2)]
    assert tables["dumps"]["format_char_count"].to_list() == [1]
