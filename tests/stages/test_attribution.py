"""Attribution of dumps to cards: the issue's right values on the seeds, stubs, weak evidence."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from bench.evaluate_attribution import split_catalog
from flows.disk.paths import OutputPaths
from flows.stages.attribution import CatalogIndex, attribute_dumps, index_catalog
from flows.stages.card_names import index_catalog_names, text_names
from flows.stages.cards import Catalog
from flows.stages.dumps import build_dump_results
from flows.stages.rulings_match import attribute_by_rulings, index_catalog_rulings
from tests.conftest import (
    REAL_CATALOG,
    SEED_DIR,
    Run,
    content_of,
    needs_real_catalog,
    run_contents,
    run_dumps,
    write_dumps,
)

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


SEEDS = {path.name: path.read_bytes() for path in sorted(SEED_DIR.glob("*.txt"))}


@pytest.fixture(scope="module")
def real_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output dir of `real_run`, whose catalog cache `real_catalog` fills."""
    return tmp_path_factory.mktemp("real-catalog") / "output"


@pytest.fixture(scope="module")
def real_catalog(real_catalog_cache: tuple[Catalog, Path], real_output: Path) -> Catalog:
    """The real catalog's tables, their cache copied where `real_run` reads it."""
    tables, cache = real_catalog_cache
    shutil.copytree(cache, OutputPaths(real_output).catalog_cache)
    return tables


#: Real twins of the 2022 catalog (oracle ids): partners that carry the same ten rulings ...
RENEWER = "7ccc2740-e659-452d-95e8-5dee958322fa"
CORRUPTER = "8d708573-10b8-44fb-b61b-9ad65e3eb465"
#: ... and two cards with the same printed text and mana value (6).
RECYCLE = "8cef3ce7-8fbc-4e68-93f9-d6adfc2c2cbf"
NULL_PROFUSION = "7077ee9a-59c6-4b8e-bf33-9b094412ad38"


@pytest.fixture(scope="module")
def twinless_index(real_catalog: Catalog) -> CatalogIndex:
    """The real catalog without Soulblade Renewer and Recycle (as the evaluation removes cards)."""
    return index_catalog(split_catalog(real_catalog, {RENEWER, RECYCLE}))


def catalog_rulings(catalog: Catalog, oracle_id: str) -> list[str]:
    """The card's distinct ruling texts in the real catalog, sorted."""
    rulings = catalog["rulings"].filter(pl.col("oracle_id") == oracle_id, pl.col("text") != "")
    return sorted(rulings["text"].unique())


def attributed(run: Run, *paths: str) -> pl.DataFrame:
    """The attribution columns of the run's dumps `paths` (all by default), by path."""
    dumps = run.tables["dumps"].select(*COLUMNS, "card_attribution_score").sort("path")
    return dumps.filter(pl.col("path").is_in(list(paths))) if paths else dumps


@needs_real_catalog
def test_seeds_with_the_real_catalog(real_run: Run) -> None:
    """The issue's right values: 002 by rulings; 000, 001, 003, 004 by name, not in the catalog."""
    found = attributed(real_run, *SEED_CARDS)
    assert_frame_equal(found.drop("card_attribution_score"), seed_cards(SEED_CARDS))
    assert found["card_attribution_score"].to_list() == [0.8, 0.5, 0.999, 0.833, 0.8]


def test_seeds_with_a_small_catalog(small_run: Run) -> None:
    """KLD, AER, NEO only: the same right values (NEO's reconfigure rulings do not claim 000)."""
    found = attributed(small_run, *SEED_CARDS)
    assert_frame_equal(found.drop("card_attribution_score"), seed_cards(SEED_CARDS))


def test_seeds_without_a_catalog(seed_run: Run) -> None:
    """Names only; oracle_id null everywhere, Demon of Dark Schemes too."""
    found = attributed(seed_run)
    expected = {p: (name, None, "name") for p, (name, _, _) in SEED_CARDS.items()}
    assert_frame_equal(found.drop("card_attribution_score"), seed_cards(expected))


def test_ripper_reconfigure_rulings_match_catalog_cards_but_pin_none(small_run: Run) -> None:
    """Seed 000: nine reconfigure rulings on 14 NEO cards each, the energy symbol on 70: no card."""
    tables = small_run.tables
    ripper = tables["dumps"].filter(pl.col("path").str.starts_with("000"))["dump_id"][0]
    rulings = tables["ruling_occurrences"].filter(pl.col("dump_id") == ripper)["ruling_id"]
    carried = tables["ruling_cards"].filter(pl.col("ruling_id").is_in(rulings.implode()))
    assert carried.group_by("ruling_id").len()["len"].sort().to_list() == [14] * 9 + [70]


DATE = "20 septembre 2016 · source : wotc"
ENERGY = "{E} is the energy symbol. It represents one energy counter."


def test_stub_in_french_names_the_card(small_run: Run) -> None:
    """Only generic rulings, and Demon of Dark Schemes' French text cut after 45 characters."""
    found = attributed(small_run, "stub_fr.txt")
    assert found.drop("path", "card_attribution_score").row(0) == (
        "Demon of Dark Schemes",
        DEMON,
        "stub",
    )


def test_stub_with_other_stats_names_no_card(small_run: Run) -> None:
    assert attributed(small_run, "stub_other_stats.txt")["card_attribution"].to_list() == [None]


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


#: The dumps run with the small catalog, besides the seeds (`small_run`).
SMALL_DUMPS = {
    "stub_fr.txt": content_of(
        "Clarifications", DATE, ENERGY, "CMC 6F/E 5/5", ".",
        "Vol Quand le Démon aux noirs desseins arrive sur",
    ),
    "stub_other_stats.txt": content_of(
        "Clarifications", DATE, ENERGY, "CMC 5F/E 5/5", ".",
        "Vol Quand le Démon aux noirs desseins arrive sur",
    ),
    "gearhulk_subject.txt": content_of(
        "Clarifications",
        *(line for ruling in DEMON_RULINGS for line in (DATE, ruling)),
        DATE, GEARHULK_RULING,
        DATE, "Torrential Gearhulk's controller chooses the card.",
        DATE, "Torrential Gearhulk's ability doesn't target a creature card.",
        DATE, "Torrential Gearhulk's triggered ability resolves first.",
        DATE, "Torrential Gearhulk's ability can target any instant card.",
    ),
    "gearhulk_example.txt": content_of(
        "Clarifications", DATE,
        "If Demon of Dark Schemes dies at the same time as another creature, its second triggered ability triggers.",
        DATE, "Torrential Gearhulk's triggered ability resolves first.",
        DATE, "Torrential Gearhulk's ability can target any instant card.",
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def small_run(small_catalog_dir: Path) -> Run:
    """One run of the seeds and SMALL_DUMPS with the small catalog (each dump is attributed alone)."""
    return run_contents({**SEEDS, **SMALL_DUMPS}, catalog=small_catalog_dir)


def test_rulings_of_a_card_that_is_not_the_subject_give_no_oracle_id(small_run: Run) -> None:
    """Demon of Dark Schemes' four rulings lead, but the bodies are about Torrential Gearhulk
    (named five times to the Demon's four, one of its rulings there): the name, no oracle_id."""
    found = attributed(small_run, "gearhulk_subject.txt")
    assert found.drop("path", "card_attribution_score").row(0) == (
        "Torrential Gearhulk",
        None,
        "name",
    )


def test_a_named_catalog_card_without_its_rulings_is_an_example(small_run: Run) -> None:
    """Torrential Gearhulk named twice, but none of its catalog rulings: the Demon's ruling wins."""
    found = attributed(small_run, "gearhulk_example.txt")
    assert found.drop("path", "card_attribution_score").row(0) == (
        "Demon of Dark Schemes",
        DEMON,
        "rulings",
    )


@needs_real_catalog
def test_ruling_cards_with_the_real_catalog(real_run: Run) -> None:
    """Demon's four own rulings (2016-09-20) on one card; the energy symbol ruling on 70 (2017-02-09)."""
    tables = real_run.tables
    cards = tables["ruling_cards"].join(
        tables["rulings"].select("ruling_id", "text"), on="ruling_id"
    )
    demon = cards.filter(pl.col("oracle_id") == DEMON, pl.col("text").str.contains("Demon"))
    assert demon["catalog_date"].unique().to_list() == [dt.date(2016, 9, 20)]
    assert demon.height == 4
    energy = cards.filter(pl.col("text") == ENERGY)
    assert (energy.height, energy["catalog_date"].unique().to_list()) == (70, [dt.date(2017, 2, 9)])


def content_of_rulings(rulings: list[str], *stub: str) -> bytes:
    return content_of("Clarifications", *(line for r in rulings for line in (DATE, r)), *stub)


#: Recycle's and Null Profusion's printed text, cut as a stub (mana value 6, no P/T).
TWIN_STUB = ("CMC 6", ".", "Skip your draw step. Whenever you play a card, draw a card.")


@pytest.fixture(scope="module")
def real_run(real_catalog: Catalog, real_output: Path) -> Run:
    """One run of the seeds and of dumps of real cards' rulings with the real catalog (each
    dump is attributed alone)."""
    dumps = {
        **SEEDS,
        "renewer.txt": content_of_rulings(catalog_rulings(real_catalog, RENEWER)),
        "recycle.txt": content_of_rulings(catalog_rulings(real_catalog, RECYCLE), *TWIN_STUB),
        "null_profusion.txt": content_of_rulings(
            catalog_rulings(real_catalog, NULL_PROFUSION), *TWIN_STUB
        ),
        "twin_stub.txt": content_of_rulings([], *TWIN_STUB),
    }
    raw = write_dumps(real_output.parent / "raw", dumps)
    run = run_dumps(raw, real_output, catalog=REAL_CATALOG, keep=(index_catalog,))
    assert run.result["manifest"]["work"]["catalog_parsed"] == 0  # `real_catalog` cached it
    return run


def attributed_without(run: Run, path: str, index: CatalogIndex) -> pl.DataFrame:
    """`attribute_dumps` of the run's dump `path` (its entries and stubs as the run built
    them) with another catalog's `index`: attribution, evidence and catalog alike, is each
    dump's own."""
    [(results, _)] = run.runner.kept[build_dump_results]
    dump_id = run.tables["dumps"].filter(pl.col("path") == path)["dump_id"].item()
    mine = pl.col("dump_id") == dump_id
    found = attribute_dumps(
        results["entries"].filter(mine), results["card_stubs"].filter(mine), index
    )  # one row per attributed dump: none when no card was found
    return (
        pl.DataFrame({"dump_id": [dump_id]})
        .join(found, on="dump_id", how="left")
        .select("card_name", "oracle_id", "card_attribution")
    )


@needs_real_catalog
def test_rulings_of_a_partner_whose_partner_is_missing_pin_no_card(
    real_run: Run, twinless_index: CatalogIndex
) -> None:
    """Soulblade Renewer's rulings are Soulblade Corrupter's (subject: `Soulblade Corrupter's
    last ability`). Without Renewer in the catalog they would pin Corrupter: they pin nothing."""
    assert twinless_index["unpaired"].to_list() == [CORRUPTER]
    found = attributed_without(real_run, "renewer.txt", twinless_index)
    assert found.row(0) == ("Soulblade Corrupter", None, "name")


@needs_real_catalog
def test_partners_both_in_the_catalog_are_paired(real_run: Run) -> None:
    """All 37 `Partner with` cards of the 2022 catalog have their partner: the rulings tie."""
    [real_index] = real_run.runner.kept[index_catalog]
    assert real_index["unpaired"].to_list() == []
    assert attributed(real_run, "renewer.txt")["oracle_id"].to_list() == [None]


@needs_real_catalog
def test_stub_of_a_twin_missing_from_the_catalog_gives_no_oracle_id(
    real_run: Run, twinless_index: CatalogIndex
) -> None:
    """Recycle's stub is Null Profusion's text word for word; its rulings name Recycle and
    Spellbook, never Null Profusion: no card."""
    assert attributed_without(real_run, "recycle.txt", twinless_index)["oracle_id"].to_list() == [
        None
    ]


@needs_real_catalog
def test_stub_whose_rulings_name_its_card_keeps_it(
    real_run: Run, twinless_index: CatalogIndex
) -> None:
    """The same stub with Null Profusion's own rulings (`put Null Profusion onto the
    battlefield`): Null Profusion, by its stub."""
    found = attributed_without(real_run, "null_profusion.txt", twinless_index)
    assert found.row(0) == ("Null Profusion", NULL_PROFUSION, "stub")


@needs_real_catalog
def test_stub_shared_by_two_catalog_cards_gives_no_oracle_id(real_run: Run) -> None:
    """With both twins in the catalog the stub matches two cards: no card by stub."""
    assert attributed(real_run, "twin_stub.txt")["oracle_id"].to_list() == [None]


GARRISON = "7cb29569-48e1-4782-9906-fad155ebfafe"
TOWNSHIP = "f4905c40-003e-4992-b8d7-3f07ba09c686"


@needs_real_catalog
def test_a_short_name_inside_a_longer_card_name_does_not_name_the_card(
    real_catalog: Catalog,
) -> None:
    """Hanweir Garrison's ruling (`... after that of Hanweir Garrison.`), without Garrison,
    is carried by Hanweir, the Writhing Township alone; its short name `Hanweir` starts
    `Hanweir Garrison` but is not that name: the ruling does not name the Township."""
    reduced = split_catalog(real_catalog, {GARRISON})
    rulings = index_catalog_rulings(reduced["rulings"], reduced["cards"])
    garrison_ruling = rulings.filter(
        pl.col("oracle_id") == TOWNSHIP,
        pl.col("text").str.contains("that of Hanweir Garrison.", literal=True),
    )
    assert garrison_ruling["card_count"].to_list() == [1]
    dump = pl.DataFrame({"dump_id": ["d"], "text": garrison_ruling["text"]})
    names = index_catalog_names(reduced["cards"])
    assert attribute_by_rulings(dump, rulings, names).height == 0
    # Whole names, plurals and possessives name their card.
    texts = pl.DataFrame({
        "text": [garrison_ruling["text"][0]] * 2 + [
            "If you control two Winding Constrictors, the number of counters placed on the artifact or creature is the original number plus two.",
            "Soulblade Corrupter's last ability won't trigger if a creature attacks a planeswalker.",
            "Soulblade Corrupter's last ability won't trigger if a creature attacks a planeswalker.",
        ],
        "name": ["Hanweir", "Hanweir Garrison", "Winding Constrictor", "Soulblade Corrupter", "Soulblade"],
    })  # fmt: skip
    assert texts.select(text_names(pl.col("text"), pl.col("name")))["text"].to_list() == [
        False, True, True, True, False
    ]  # fmt: skip


#: Dumps a fresh review built: a capitalized first word of a sentence, a name
#: inside another (`il-Kor`), an example and a rules designation were published
#: as the dump's card (`Nothing`, `Discarding`, `Kor`, `Doubling Season`, `Monarch`).
ENERGY_COUNTERS = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."


@pytest.mark.parametrize(
    "body",
    [
        "You draw a card and discard a card all while Looter il-Kor’s ability is resolving. "
        "Nothing can happen in between, and no player can take actions.",
        "Discarding does trigger this.",
        "For example, if Doubling Season's effect applies, twice that many counters are put "
        "on the permanent instead.",
        "The Monarch is a designation a player can have. Monarch's ability triggers at the "
        "beginning of your end step.",
    ],
    ids=["sentence-start-nothing", "sentence-start-verb", "example", "designation"],
)
def test_weak_name_evidence_names_no_card(body: str) -> None:
    dump = content_of(
        "Official rulings from Wizards of the Coast, as published.",
        "June 1, 2024 · source: wotc",
        body,
        "June 2, 2024 · source: wotc",
        ENERGY_COUNTERS,
    )
    dumps = run_contents({"t.txt": dump}).tables["dumps"]
    assert dumps.select("card_name", "card_attribution").rows() == [(None, None)]


def test_a_name_used_mid_sentence_still_names_the_card() -> None:
    dump = content_of(
        "Official rulings from Wizards of the Coast, as published.",
        "June 1, 2024 · source: wotc",
        "Once that Satya is attacking, its ability triggers. Satya's ability copies a token.",
    )
    dumps = run_contents({"t.txt": dump}).tables["dumps"]
    assert dumps.select("card_name", "card_attribution").rows() == [("Satya", "name")]


def test_a_kind_the_schema_lacks_stops_the_run() -> None:
    """A card_attribution value missing from the schema would move every such dump to
    `rejects` at validation, silently (an earlier attempt lost 222 dumps so): it stops."""
    from flows.errors import ContractError
    from flows.stages.dump_checks import check_kinds as _check_kinds

    found = pl.DataFrame({"dump_id": ["d"], "card_attribution": ["dated_rulings"]})
    with pytest.raises(ContractError, match=r"\['dated_rulings'\] is not in schemas"):
        _check_kinds(found)
    assert_frame_equal(
        _check_kinds(found.with_columns(card_attribution=pl.lit("record"))),
        found.with_columns(card_attribution=pl.lit("record")),
    )
