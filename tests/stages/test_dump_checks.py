"""`dump_checks`: a dump against the catalog's record of its card (real rulings, 2022 catalog)."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.cards import Catalog
from flows.stages.dump_checks import DUMP_CHECK_SCHEMA, build_dump_checks, count_dump_checks
from flows.stages.record_match import index_dated_rulings
from tests.conftest import needs_real_catalog
from tests.stages.test_record_match import LIGHTNING_SURGE, SURGE, THRESHOLD

ENERGY = "{E} is the energy symbol. It represents one energy counter."
#: Lightning Surge's threshold ruling with a typo (`graveyrad`).
THRESHOLD_TYPO = THRESHOLD.replace("graveyard", "graveyrad")
D1, D2, D3 = ("1" * 64, "2" * 64, "3" * 64)


@pytest.fixture(scope="module")
def surge_record(real_catalog_cache: tuple[Catalog, object]) -> pl.DataFrame:
    rulings = real_catalog_cache[0]["rulings"]
    return index_dated_rulings(rulings.filter(pl.col("oracle_id") == LIGHTNING_SURGE))


DUMPS = pl.DataFrame(
    {
        "dump_id": [D1, D2, D3],
        "path": ["surge_typo.txt", "surge_part.txt", "unknown.txt"],
        "oracle_id": [LIGHTNING_SURGE, LIGHTNING_SURGE, None],
        "card_name": ["Lightning Surge", "Lightning Surge", "Satya"],
    }
)


def occurrences(rows: list[tuple[str, int, str, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        [(d, n, dt.date.fromisoformat(on), "r" * 63 + str(n), text, "en")
         for d, n, on, text in rows],
        schema={"dump_id": pl.String, "line_number": pl.Int64, "published_on": pl.Date,
                "ruling_id": pl.String, "text_raw": pl.String, "language": pl.String},
        orient="row",
    )  # fmt: skip


@needs_real_catalog
def test_missing_not_on_card_and_other_date(surge_record: pl.DataFrame) -> None:
    """D1: the threshold ruling with a typo (not the card's text, its official text beside
    it), the 4-or-6 ruling a day late, another card's energy ruling. D2 lacks the 4-or-6
    ruling. D3 has no oracle_id: not checked."""
    found = build_dump_checks(
        DUMPS,
        occurrences([
            (D1, 2, "2013-04-15", THRESHOLD_TYPO),
            (D1, 4, "2004-10-05", SURGE),
            (D1, 6, "2017-02-09", ENERGY),
            (D2, 2, "2013-04-15", THRESHOLD),
            (D3, 2, "2013-04-15", THRESHOLD),
        ]),
        surge_record,
    )  # fmt: skip
    surge, threshold = (dt.date(2004, 10, 4), SURGE), (dt.date(2013, 4, 15), THRESHOLD)
    rows = [
        (D1, "surge_typo.txt", "not_on_card", 2, "r" * 63 + "2", THRESHOLD_TYPO,
         dt.date(2013, 4, 15), threshold[1], threshold[0]),
        (D1, "surge_typo.txt", "not_on_card", 6, "r" * 63 + "6", ENERGY,
         dt.date(2017, 2, 9), None, None),
        (D1, "surge_typo.txt", "other_date", 4, "r" * 63 + "4", SURGE,
         dt.date(2004, 10, 5), surge[1], surge[0]),
        (D2, "surge_part.txt", "missing", None, None, None, None, surge[1], surge[0]),
    ]  # fmt: skip
    expected = pl.DataFrame(
        [(d, p, LIGHTNING_SURGE, "Lightning Surge", c, n, r, t, on, ct, cd)
         for d, p, c, n, r, t, on, ct, cd in rows],
        schema=DUMP_CHECK_SCHEMA, orient="row",
    )  # fmt: skip
    assert_frame_equal(found, expected)
    assert count_dump_checks(DUMPS, found) == {
        "checked": 2, "missing": 1, "not_on_card": 1, "other_date": 1,
    }  # fmt: skip


def test_without_a_catalog_nothing_is_checked() -> None:
    found = build_dump_checks(DUMPS, occurrences([(D1, 2, "2013-04-15", THRESHOLD)]), None)
    assert_frame_equal(found, pl.DataFrame(schema=DUMP_CHECK_SCHEMA))
    assert count_dump_checks(DUMPS.with_columns(oracle_id=pl.lit(None, pl.String)), found) == {}
