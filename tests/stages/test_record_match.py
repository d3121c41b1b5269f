"""The catalog's dated record as evidence (`record_match`), on real cards of the 2022 catalog.

Cards are removed from the catalog as the evaluation removes them: a removed
card's dump gets no card, whatever the catalog's other cards share with it,
except a same-day twin's page (the one limit, at a score under RECORD_SCORE).
"""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from bench.evaluate_attribution import split_catalog
from flows.stages.attribution import CatalogIndex, attribute_dumps, index_catalog
from flows.stages.cards import Catalog, count_listed_sets
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
OPALESCENCE = "59489b46-9d02-4f3c-bcd0-884e7605e9a5"  # two rulings naming Humility
SPIKETAIL_DRAKE = "6568859d-b96d-4015-84da-1a8960752737"  # Spiketail Hatchling's one ruling
REMOVED = {GRIZZLY_FATE, ABSOLUTE_GRACE, CONTESTED_CLIFFS, OPALESCENCE, SPIKETAIL_DRAKE}
SPIKETAIL_HATCHLING = "8109aeff-1ba7-46c2-89ab-450d6ff99c28"
KILLING_WAVE = "69d6b906-5461-4eba-8667-dbb8c0ce3fcb"  # four rulings its own, none naming it
YURIKO = "a7043fbd-1dfd-42cf-be4b-cc343d0949e5"  # `Activating Yuriko’s commander ninjutsu…`
JOURNEYMAGE = "b400700c-1d82-4721-a166-56f88ba6ad19"  # `…more than one Wizard, Academy…`
WOLF_PACK = "ec58a82f-8c78-4f88-90d5-e32d83be7a48"  # Tornado Elemental's rulings, same dates

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
    """The real catalog without Grizzly Fate, Absolute Grace, Contested Cliffs, Opalescence,
    Spiketail Drake."""
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


def scored(entries: list[tuple[str, str]], index: CatalogIndex, stubs: pl.DataFrame | None = None
           ) -> tuple | None:  # fmt: skip
    """(card_name, card_attribution, card_attribution_score) of a one-dump attribution."""
    found = attribute_dumps(occurrences(entries), NO_STUBS if stubs is None else stubs, index)
    columns = ("card_name", "card_attribution", "card_attribution_score")
    return found.select(columns).row(0) if found.height else None


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


@pytest.mark.parametrize(
    ("oracle_id", "name"),
    [(YURIKO, "Yuriko, the Tiger's Shadow"), (JOURNEYMAGE, "Academy Journeymage")],
)
def test_a_subject_name_holding_the_cards_name_is_no_other_card(
    real_catalog: Catalog, reduced_index: CatalogIndex, oracle_id: str, name: str
) -> None:
    """A sentence's word glued to the subject name (`Activating Yuriko’s…`, `If you control
    more than one Wizard, Academy Journeymage’s cost…`) names no card the catalog knows;
    it holds the card's (short) name, so it does not veto the card (before: name only)."""
    assert card_of(rulings_of(real_catalog, oracle_id), reduced_index) == (
        name, oracle_id, "rulings",
    )  # fmt: skip


def test_four_unique_rulings_at_their_date_pin_the_card(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """Killing Wave's four rulings (2012-05-01) are its alone and never name it:
    RECORD_SCORE."""
    entries = rulings_of(real_catalog, KILLING_WAVE)
    assert card_of(entries, reduced_index) == ("Killing Wave", KILLING_WAVE, "record")
    assert scored(entries, reduced_index) == ("Killing Wave", "record", 0.9)


def test_a_date_the_record_does_not_give_vetoes_the_card(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    entries = rulings_of(real_catalog, KILLING_WAVE)
    assert card_of([("2012-05-02", entries[0][1]), *entries[1:]], reduced_index) is None


def test_a_missing_ruling_of_the_card_vetoes_it(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """Three of Killing Wave's four rulings: not its page."""
    assert card_of(rulings_of(real_catalog, KILLING_WAVE)[1:], reduced_index) is None


def test_fewer_unique_rulings_pin_the_card_at_a_lower_score(reduced_index: CatalogIndex) -> None:
    """Lightning Surge's two rulings, its alone without Grizzly Fate: two short of
    FULL_SCORE_RULINGS, 0.2 under RECORD_SCORE."""
    entries = [("2004-10-04", SURGE), ("2013-04-15", THRESHOLD)]
    assert card_of(entries, reduced_index) == ("Lightning Surge", LIGHTNING_SURGE, "record")
    assert scored(entries, reduced_index) == ("Lightning Surge", "record", 0.7)


def test_rulings_naming_a_card_whose_own_rulings_are_missing_pin_nothing(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """Opalescence's rulings (two of them name Humility, the subject) without Humility's own
    two: no card (Humility, by rulings, before)."""
    found = card_of(rulings_of(real_catalog, OPALESCENCE), reduced_index)
    assert found is None or found[1] is None


def test_a_removed_card_whose_ruling_the_catalog_gives_one_card_gets_none(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """Grizzly Fate's one ruling is Lightning Surge's too, same date: Surge's 2004 ruling is
    missing from the dump."""
    assert rulings_of(real_catalog, GRIZZLY_FATE) == [("2013-04-15", THRESHOLD)]
    assert card_of(rulings_of(real_catalog, GRIZZLY_FATE), reduced_index) is None


def test_a_removed_twins_page_is_the_twin_kept_at_the_lowest_score(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """The limit (`docs/attribution.md`): Absolute Grace's one ruling is Absolute Law's,
    same date; with Grace removed, Grace's page is Law's, ruling and date, and is named
    Law at one unique ruling's score."""
    grace = rulings_of(real_catalog, ABSOLUTE_GRACE)
    assert grace == [("2004-10-04", "This affects all creatures, not just your own.")]
    assert scored(grace, reduced_index) == ("Absolute Law", "record", 0.6)


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


def stub_of(text: str, mana_value: float, power: str, toughness: str) -> pl.DataFrame:
    """One English stub of dump `d`, as `card_stubs` has it."""
    return pl.DataFrame(
        {"dump_id": ["d"], "mana_value": [mana_value], "power": [power],
         "toughness": [toughness], "text": [text], "language": ["en"],
         "language_is_inferred": [False]},
    )  # fmt: skip


def test_one_unique_ruling_and_a_stub_of_the_card_pin_it(
    real_catalog: Catalog, reduced_index: CatalogIndex
) -> None:
    """Spiketail Hatchling's one ruling (2004-10-04) is Spiketail Drake's too, same day;
    Drake removed, the catalog gives it to Hatchling alone. The ruling alone pins it at
    the lowest record score (Drake's page would be named Hatchling too); beside a stub cut
    from Hatchling's text (mana value 2, 1/1) at RECORD_SCORE; beside Drake's stub (5, 3/3)
    nothing."""
    entries = rulings_of(real_catalog, SPIKETAIL_HATCHLING)
    assert entries == rulings_of(real_catalog, SPIKETAIL_DRAKE)
    assert scored(entries, reduced_index) == ("Spiketail Hatchling", "record", 0.6)
    hatchling = stub_of(
        "Flying (This creature can't be blocked except by creatures with flying or reach.)\n"
        "Sacrifice Spiketail", 2.0, "1", "1",
    )  # fmt: skip
    found = attribute_dumps(occurrences(entries), hatchling, reduced_index)
    assert found.select("card_name", "oracle_id", "card_attribution").rows() == [
        ("Spiketail Hatchling", SPIKETAIL_HATCHLING, "record")
    ]
    # RECORD_SCORE beside the stub's own score (0.95: its 100 characters), 1 - 0.1 × 0.05.
    assert scored(entries, reduced_index, hatchling) == ("Spiketail Hatchling", "record", 0.995)
    drake = stub_of("Flying\nSacrifice Spiketail Drake: Counter target", 5.0, "3", "3")
    assert attribute_dumps(occurrences(entries), drake, reduced_index)["oracle_id"].to_list() in (
        [], [None],
    )  # fmt: skip


def sets_of(catalog: Catalog, set_codes: set[str]) -> Catalog:
    """The catalog's printings in `set_codes` alone, as a folder of those set files holds."""
    keep = pl.col("uuid").is_in(
        catalog["cards"].filter(pl.col("set_code").is_in(set_codes))["uuid"].implode()
    )
    return Catalog(cards=catalog["cards"].filter(keep), rulings=catalog["rulings"].filter(keep),
                   foreign=catalog["foreign"].filter(keep))  # fmt: skip


def test_a_few_set_files_pin_no_card_by_its_record(real_catalog: Catalog) -> None:
    """HOP, SLD and KLD hold 3 of the 407 sets their cards list: Wolf Pack's page (Portal
    Three Kingdoms, not in them) carries Tornado Elemental's rulings, which only Tornado
    Elemental carries there (0.8 before). AllPrintings holds 549 of 577: whole."""
    assert count_listed_sets(real_catalog["cards"]) == (549, 577)
    few = sets_of(real_catalog, {"HOP", "SLD", "KLD"})
    assert count_listed_sets(few["cards"]) == (3, 407)
    index = index_catalog(few)
    assert not index["whole"] and index_catalog(real_catalog)["whole"]
    assert card_of(rulings_of(real_catalog, WOLF_PACK), index) is None
    # Set files whose cards list no `printings` cannot be told whole (a fresh-clone check:
    # the guard was off, Tornado Elemental again).
    unlisted = Catalog(cards=few["cards"].with_columns(printings=pl.lit([], pl.List(pl.String))),
                       rulings=few["rulings"], foreign=few["foreign"])  # fmt: skip
    assert count_listed_sets(unlisted["cards"]) == (0, 0)
    assert card_of(rulings_of(real_catalog, WOLF_PACK), index_catalog(unlisted)) is None
