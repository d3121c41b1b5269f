"""Attribution of dumps to cards: the issue's right values on the seeds, stubs, weak evidence."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.pipeline import run_pipeline
from flows.stages.attribution import CatalogIndex, index_catalog
from flows.stages.catalog import load_catalog
from flows.stages.read import load_raw_dumps
from tests.conftest import REAL_CATALOG, SEED_DIR, TODAY, dump_of, needs_real_catalog

DEMON = "2b2f2abd-6c0f-49a5-a44b-f366614c944d"
#: The issue's right values with the 2022 catalog (path -> name, oracle_id, how).
SEED_CARDS = {
    "000_fbe1a54fee004163.txt": ("Razorfield Ripper", None, "name"),
    "001_a1b82e86b0acb359.txt": ("Satya", None, "name"),
    "002_14b9121c30f5c5b3.txt": ("Demon of Dark Schemes", DEMON, "rulings"),
    "003_321b63c5bd17bae4.txt": ("Sentry Bot", None, "name"),
    "004_304d898eb3c4b8ca.txt": ("Aurora Shifter", None, "name"),
}
COLUMNS = ["path", "card_name", "oracle_id", "card_attribution"]


def seed_cards(rows: dict[str, tuple[str, str | None, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        [(path, *row) for path, row in rows.items()],
        schema={c: pl.String for c in COLUMNS},
        orient="row",
    )


@pytest.fixture(scope="session")
def real_index(tmp_path_factory: pytest.TempPathFactory) -> CatalogIndex:
    if not REAL_CATALOG.is_file():
        pytest.skip(f"real catalog not found at {REAL_CATALOG}")
    catalog, _ = load_catalog(REAL_CATALOG, tmp_path_factory.mktemp("catalog-cache"))
    return index_catalog(catalog)


def attributed(raw: pl.DataFrame, index: CatalogIndex | None) -> pl.DataFrame:
    dumps = run_pipeline(raw, TODAY, index)[1]["dumps"]
    return dumps.select(*COLUMNS, "card_attribution_score").sort("path")


@needs_real_catalog
def test_seeds_with_the_real_catalog(real_index: CatalogIndex) -> None:
    """The issue's right values: 002 by rulings; 000, 001, 003, 004 by name, not in the catalog."""
    found = attributed(load_raw_dumps(SEED_DIR), real_index)
    assert_frame_equal(found.drop("card_attribution_score"), seed_cards(SEED_CARDS))
    assert found["card_attribution_score"].to_list() == [0.8, 0.5, 0.999, 0.833, 0.8]


def test_seeds_with_a_small_catalog(small_index: CatalogIndex) -> None:
    """KLD, AER, NEO only: the same right values (NEO's reconfigure rulings do not claim 000)."""
    found = attributed(load_raw_dumps(SEED_DIR), small_index)
    assert_frame_equal(found.drop("card_attribution_score"), seed_cards(SEED_CARDS))


def test_seeds_without_a_catalog() -> None:
    """Names only; oracle_id null everywhere, Demon of Dark Schemes too."""
    found = attributed(load_raw_dumps(SEED_DIR), None)
    expected = {p: (name, None, "name") for p, (name, _, _) in SEED_CARDS.items()}
    assert_frame_equal(found.drop("card_attribution_score"), seed_cards(expected))


def test_ripper_reconfigure_rulings_match_catalog_cards_but_pin_none(
    small_index: CatalogIndex,
) -> None:
    """Seed 000: nine reconfigure rulings on 14 NEO cards each, the energy symbol on 70: no card."""
    tables = run_pipeline(load_raw_dumps(SEED_DIR), TODAY, small_index)[1]
    ripper = tables["dumps"].filter(pl.col("path").str.starts_with("000"))["dump_id"][0]
    rulings = tables["ruling_occurrences"].filter(pl.col("dump_id") == ripper)["ruling_id"]
    carried = tables["ruling_cards"].filter(pl.col("ruling_id").is_in(rulings.implode()))
    assert carried.group_by("ruling_id").len()["len"].sort().to_list() == [14] * 9 + [70]


DATE = "20 septembre 2016 · source : wotc"
ENERGY = "{E} is the energy symbol. It represents one energy counter."


def test_stub_in_french_names_the_card(small_index: CatalogIndex) -> None:
    """Only generic rulings, and Demon of Dark Schemes' French text cut after 45 characters."""
    raw = dump_of("Clarifications", DATE, ENERGY, "CMC 6F/E 5/5", ".",
                  "Vol Quand le Démon aux noirs desseins arrive sur")  # fmt: skip
    found = attributed(raw, small_index)
    assert found.drop("path", "card_attribution_score").row(0) == (
        "Demon of Dark Schemes",
        DEMON,
        "stub",
    )


def test_stub_with_other_stats_names_no_card(small_index: CatalogIndex) -> None:
    raw = dump_of("Clarifications", DATE, ENERGY, "CMC 5F/E 5/5", ".",
                  "Vol Quand le Démon aux noirs desseins arrive sur")  # fmt: skip
    assert attributed(raw, small_index)["card_attribution"].to_list() == [None]


DEMON_RULINGS = [
    line
    for line in (SEED_DIR / "002_14b9121c30f5c5b3.txt").read_text().splitlines()
    if "Demon" in line
]
GEARHULK_RULING = (
    "If you cast the card, you do so as part of the resolution of Torrential Gearhulk's triggered"
    " ability. You can't wait to cast it later in the turn. Timing restrictions (such as"
    " “Cast [this card] only during combat”) still apply."
)


def test_rulings_of_a_card_that_is_not_the_subject_give_no_oracle_id(
    small_index: CatalogIndex,
) -> None:
    """Demon of Dark Schemes' four rulings lead, but the bodies are about Torrential Gearhulk
    (named five times to the Demon's four, one of its rulings there): the name, no oracle_id."""
    raw = dump_of(
        "Clarifications",
        *(line for ruling in DEMON_RULINGS for line in (DATE, ruling)),
        DATE, GEARHULK_RULING,
        DATE, "Torrential Gearhulk's controller chooses the card.",
        DATE, "Torrential Gearhulk's ability doesn't target a creature card.",
        DATE, "Torrential Gearhulk's triggered ability resolves first.",
        DATE, "Torrential Gearhulk's ability can target any instant card.",
    )  # fmt: skip
    assert attributed(raw, small_index).drop("path", "card_attribution_score").row(0) == (
        "Torrential Gearhulk",
        None,
        "name",
    )


def test_a_named_catalog_card_without_its_rulings_is_an_example(small_index: CatalogIndex) -> None:
    """Torrential Gearhulk named twice, but none of its catalog rulings: the Demon's ruling wins."""
    raw = dump_of(
        "Clarifications", DATE,
        "If Demon of Dark Schemes dies at the same time as another creature, its second triggered ability triggers.",
        DATE, "Torrential Gearhulk's triggered ability resolves first.",
        DATE, "Torrential Gearhulk's ability can target any instant card.",
    )  # fmt: skip
    assert attributed(raw, small_index).drop("path", "card_attribution_score").row(0) == (
        "Demon of Dark Schemes",
        DEMON,
        "rulings",
    )


@needs_real_catalog
def test_ruling_cards_with_the_real_catalog(real_index: CatalogIndex) -> None:
    """Demon's four own rulings (2016-09-20) on one card; the energy symbol ruling on 70 (2017-02-09)."""
    tables = run_pipeline(load_raw_dumps(SEED_DIR), TODAY, real_index)[1]
    cards = tables["ruling_cards"].join(
        tables["rulings"].select("ruling_id", "text"), on="ruling_id"
    )
    demon = cards.filter(pl.col("oracle_id") == DEMON, pl.col("text").str.contains("Demon"))
    assert demon["catalog_date"].unique().to_list() == [dt.date(2016, 9, 20)]
    assert demon.height == 4
    energy = cards.filter(pl.col("text") == ENERGY)
    assert (energy.height, energy["catalog_date"].unique().to_list()) == (70, [dt.date(2017, 2, 9)])
