"""The catalog's dated record as evidence (`record_match`), on real cards of the 2022 catalog.

Cards are removed from the catalog as the evaluation removes them: a removed
card's dump must get no card, whatever the catalog's other cards share with it.
"""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from bench.evaluate_attribution import split_catalog
from flows.stages.attribution import CatalogIndex, attribute_dumps, index_catalog
from flows.stages.cards import Catalog
from flows.stages.record_match import index_dated_rulings
from flows.stages.stub_match import find_stub_conflicts
from tests.conftest import needs_real_catalog

SAVAGE_PUNCH = "3ca58e01-21c6-4314-ab3d-280ba6f9f509"
DEMOGORGONS_CLUTCHES = "0bbab99f-2ff6-4d48-b7c1-1ab0500c9422"
LIGHTNING_SURGE = "dc55e69e-e1b8-4129-902c-c71bcb952418"
TRIANGLE_OF_WAR = "6d4daf9c-e2f4-4d0e-b2e4-ded04d644b11"
#: Removed from the catalog: each shares its rulings with a card kept.
GRIZZLY_FATE = "f3073e4f-ca7e-4fde-88a4-bd7b6ebfbc8c"  # Lightning Surge's threshold ruling
ABSOLUTE_GRACE = "41785f7b-3d02-4b7f-86ff-b381f626142e"  # Absolute Law's one ruling
CONTESTED_CLIFFS = "b891a683-2ebc-4e9c-b402-5dd9c1b42b69"  # Triangle of War's one ruling
REMOVED = {GRIZZLY_FATE, ABSOLUTE_GRACE, CONTESTED_CLIFFS}

THRESHOLD = (
    "At the time this spell is resolving, it is on the stack and not in the graveyard. This "
    "means that you should not count this card when determining whether the Threshold effect "
    "occurs."
)
SURGE = "It either deals 4 damage or 6 damage. It does not deal 10 damage."
ILLEGAL = "If either target is illegal when the ability resolves, it will do nothing."
#: Contested Cliffs' Italian text, cut as a stub (mana value 0).
CLIFFS_STUB = "{T}: Aggiungi {1} alla tua riserva di mana. {R}{G}, {T}: Scegli una Bestia"

pytestmark = needs_real_catalog


@pytest.fixture(scope="module")
def real_catalog(real_catalog_cache: tuple[Catalog, object]) -> Catalog:
    return real_catalog_cache[0]


@pytest.fixture(scope="module")
def reduced_index(real_catalog: Catalog) -> CatalogIndex:
    """The real catalog without Grizzly Fate, Absolute Grace and Contested Cliffs."""
    return index_catalog(split_catalog(real_catalog, REMOVED))


def rulings_of(catalog: Catalog, oracle_id: str) -> list[tuple[str, str]]:
    """(date, text) of the card's distinct rulings in the real catalog, sorted."""
    rulings = catalog["rulings"].filter(pl.col("oracle_id") == oracle_id, pl.col("text") != "")
    return sorted(rulings.select("date", "text").unique().iter_rows())


def occurrences(entries: list[tuple[str, str]], dump_id: str = "d") -> pl.DataFrame:
    """A dump's English entries as `attribute_dumps` reads them."""
    return pl.DataFrame(
        {
            "dump_id": [dump_id] * len(entries),
            "text_raw": [text for _, text in entries],
            "language": ["en"] * len(entries),
            "published_on": [dt.date.fromisoformat(date) for date, _ in entries],
        },
        schema={"dump_id": pl.String, "text_raw": pl.String, "language": pl.String,
                "published_on": pl.Date},
    )  # fmt: skip


NO_STUBS = pl.DataFrame(
    schema={"dump_id": pl.String, "mana_value": pl.Float64, "power": pl.String,
            "toughness": pl.String, "text": pl.String, "language": pl.String,
            "language_is_inferred": pl.Boolean},
)  # fmt: skip


def card_of(entries: list[tuple[str, str]], index: CatalogIndex) -> tuple | None:
    """(card_name, oracle_id, card_attribution) of a one-dump attribution; None: no row."""
    found = attribute_dumps(occurrences(entries), NO_STUBS, index)
    return (
        found.select("card_name", "oracle_id", "card_attribution").row(0) if found.height else None
    )


def test_rulings_that_name_the_card_as_no_subject_pin_it(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """`when Savage Punch tries to resolve` is no subject mention; its five rulings, one
    card's record at its dates, pin Savage Punch (the issue: name, score 0, no card)."""
    assert card_of(rulings_of(real_catalog, SAVAGE_PUNCH), reduced_index) == (
        "Savage Punch", SAVAGE_PUNCH, "rulings",
    )  # fmt: skip


def test_one_ruling_naming_its_card_pins_it(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """`Demogorgon's Clutches requires its target to discard…`: its one ruling."""
    assert card_of(rulings_of(real_catalog, DEMOGORGONS_CLUTCHES), reduced_index) == (
        "Demogorgon's Clutches", DEMOGORGONS_CLUTCHES, "rulings",
    )  # fmt: skip


def test_two_unique_rulings_at_their_dates_pin_the_card(reduced_index: CatalogIndex) -> None:
    """Lightning Surge's two rulings never name it; without Grizzly Fate both are its alone."""
    entries = [("2004-10-04", SURGE), ("2013-04-15", THRESHOLD)]
    assert card_of(entries, reduced_index) == ("Lightning Surge", LIGHTNING_SURGE, "record")


def test_a_date_the_record_does_not_give_vetoes_the_card(reduced_index: CatalogIndex) -> None:
    assert card_of([("2004-10-05", SURGE), ("2013-04-15", THRESHOLD)], reduced_index) is None


def test_a_removed_card_whose_ruling_the_catalog_gives_one_card_gets_none(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """Grizzly Fate's one ruling is Lightning Surge's too, same date: Surge's 2004 ruling is
    missing from the dump. Absolute Grace's one ruling is Absolute Law's, same date: one
    ruling unique to a card is not enough (`MIN_UNIQUE_RULINGS`)."""
    assert rulings_of(real_catalog, GRIZZLY_FATE) == [("2013-04-15", THRESHOLD)]
    assert card_of(rulings_of(real_catalog, GRIZZLY_FATE), reduced_index) is None
    assert card_of(rulings_of(real_catalog, ABSOLUTE_GRACE), reduced_index) is None


def test_a_stub_of_another_card_conflicts(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """Contested Cliffs' Italian stub in a dump whose ruling is Triangle of War's alone
    conflicts; Triangle of War's own English text, cut, does not."""
    cards = real_catalog["cards"]
    triangle = cards.filter(pl.col("oracle_id") == TRIANGLE_OF_WAR)["text"][0][:40]
    stubs = pl.DataFrame(
        {"dump_id": ["cliffs", "triangle"], "mana_value": [0.0, 1.0],
         "text": [CLIFFS_STUB, triangle]},
    )  # fmt: skip
    candidates = pl.DataFrame(
        {"dump_id": ["cliffs", "triangle"], "oracle_id": [TRIANGLE_OF_WAR] * 2}
    )
    conflicts = find_stub_conflicts(stubs, reduced_index["texts"], candidates)
    assert conflicts.rows() == [("cliffs", TRIANGLE_OF_WAR)]


def test_the_dated_record_keeps_each_date_and_the_text_as_written(real_catalog: Catalog) -> None:
    dated = index_dated_rulings(
        real_catalog["rulings"].filter(pl.col("oracle_id") == LIGHTNING_SURGE)
    )
    expected = pl.DataFrame(
        {
            "text": [THRESHOLD, SURGE],
            "oracle_id": [LIGHTNING_SURGE] * 2,
            "date": [dt.date(2013, 4, 15), dt.date(2004, 10, 4)],
            "written": [THRESHOLD, SURGE],
        }
    )
    assert_frame_equal(dated, expected)
