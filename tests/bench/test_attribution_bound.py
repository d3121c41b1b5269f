"""The structural bound of attribution by rulings (`bench.attribution_bound`) on the 2022 catalog."""

from __future__ import annotations

from typing import Any

import polars as pl
from polars.testing import assert_frame_equal

from bench.attribution_bound import confusable_cards, dated_records
from tests.conftest import needs_real_catalog
from tests.stages.test_record_match import (
    ABSOLUTE_GRACE,
    CONTESTED_CLIFFS,
    GRIZZLY_FATE,
    KILLING_WAVE,
    OPALESCENCE,
    TRIANGLE_OF_WAR,
)

ABSOLUTE_LAW = "f4aa8391-34d5-4ad2-a981-9aa08f8229db"
SCENT_OF_CINDER = "ff50d002-834e-4b5e-8db0-b0c8b4efb21f"
SCENT_OF_IVY = "b6db81e5-b7ca-45dc-a72d-1ff12935a3e4"


@needs_real_catalog
def test_twins_ruled_the_same_day_are_confusable(real_catalog_cache: tuple[Any, Any]) -> None:
    """Absolute Grace removed: its one ruling (`This affects all creatures, not just your
    own.`, 2004-10-04) is Absolute Law's, same day, and Law has no other. Contested Cliffs'
    one ruling is Triangle of War's. Grizzly Fate (a ruling of its own besides Lightning
    Surge's), Opalescence (rulings of its own besides Humility's) and Killing Wave (four of
    its own) are not confusable with any card kept."""
    catalog, _ = real_catalog_cache
    removed = [GRIZZLY_FATE, ABSOLUTE_GRACE, CONTESTED_CLIFFS, OPALESCENCE, KILLING_WAVE]
    expected = pl.DataFrame(
        {
            "removed_id": [ABSOLUTE_GRACE, CONTESTED_CLIFFS],
            "kept_id": [ABSOLUTE_LAW, TRIANGLE_OF_WAR],
        }
    ).sort("removed_id", "kept_id")
    assert_frame_equal(confusable_cards(dated_records(catalog), removed), expected)


@needs_real_catalog
def test_both_twins_removed_leaves_nothing_to_confuse(real_catalog_cache: tuple[Any, Any]) -> None:
    """Scent of Cinder and Scent of Ivy share their one ruling; with both removed no kept
    card carries it, so neither dump looks like a kept card's."""
    catalog, _ = real_catalog_cache
    found = confusable_cards(dated_records(catalog), [SCENT_OF_CINDER, SCENT_OF_IVY])
    assert found.height == 0
