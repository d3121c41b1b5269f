"""What the tables carry for readers: a ruling's official wording (`text_source`), each row's path."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.for_readers import add_paths, choose_ruling_texts
from tests.conftest import Run, content_of, run_contents

#: Two real rulings of the 2022 catalog (Demon of Dark Schemes, KLD; Airdrop Aeronauts, AER),
#: as the catalog words them (its curly apostrophes) ...
DEMON_RULING = (
    "Demon of Dark Schemes's second triggered ability triggers whenever another creature "
    "dies for any reason, not just due to the first triggered ability."
)
REVOLT_RULING = "Energy counters aren’t permanents. Paying {E} won’t satisfy a revolt ability."
#: ... and with a typo ("deis", "permanants"), as most dumps carry them (a typo that makes
#: a real word of like frequency, died for dies, is another ruling: merge rules v5); the
#: one right copy writes straight apostrophes (the same variant as the catalog's).
DEMON_TYPO = DEMON_RULING.replace("creature dies", "creature deis")
REVOLT_TYPO = "Energy counters aren't permanants. Paying {E} won't satisfy a revolt ability."
REVOLT_RIGHT = "Energy counters aren't permanents. Paying {E} won't satisfy a revolt ability."
#: Not in the catalog: published as its dumps write it most.
OWN_RULING = "This site's own note is not a catalog ruling at all, it stays as written."


def _dump(day: int, *bodies: str) -> bytes:
    date = f"{day} septembre 2016 · source : wotc"
    return content_of("Clarifications", *(line for body in bodies for line in (date, body)))


TYPO_DUMPS = {
    "a.txt": _dump(20, DEMON_TYPO, REVOLT_TYPO, OWN_RULING),
    "b.txt": _dump(21, DEMON_TYPO, REVOLT_TYPO, OWN_RULING),
    "c.txt": _dump(22, DEMON_TYPO, REVOLT_TYPO),
    "d.txt": _dump(23, DEMON_RULING, REVOLT_RIGHT),
}


@pytest.fixture(scope="module")
def typo_runs(small_catalog_dir: Path) -> tuple[Run, Run]:
    """TYPO_DUMPS run without a catalog, then with the small real one (KLD, AER, NEO)."""
    return run_contents(TYPO_DUMPS), run_contents(TYPO_DUMPS, catalog=small_catalog_dir)


def _texts(run: Run) -> list[tuple[str, str, int, int]]:
    return (
        run.tables["rulings"]
        .sort("text")
        .select("text", "text_source", "occurrence_count", "variant_count")
        .rows()
    )


def test_the_catalogs_wording_wins_over_the_majoritys_typo(typo_runs: tuple[Run, Run]) -> None:
    without, with_catalog = typo_runs
    assert _texts(without) == [
        (DEMON_TYPO, "most_frequent", 4, 2),
        (REVOLT_TYPO, "most_frequent", 4, 2),
        (OWN_RULING, "most_frequent", 2, 1),
    ]
    assert _texts(with_catalog) == [
        (DEMON_RULING, "catalog", 4, 2),
        (REVOLT_RULING, "catalog", 4, 2),  # the catalog's apostrophes, not the dump's
        (OWN_RULING, "most_frequent", 2, 1),
    ]
    # the ids follow the variants, not the published text
    ids = [run.tables["rulings"].sort("ruling_id")["ruling_id"] for run in typo_runs]
    assert_frame_equal(ids[0].to_frame(), ids[1].to_frame())
    variants = with_catalog.tables["ruling_variants"]
    assert sorted(variants["text"].to_list()) == sorted(  # variants stay as the dumps wrote them
        [DEMON_RULING, DEMON_TYPO, REVOLT_RIGHT, REVOLT_TYPO, OWN_RULING]
    )


RULINGS = pl.DataFrame(
    {
        "ruling_id": ["r1", "r2"],
        "text": [DEMON_TYPO, OWN_RULING],
        "language": ["en", "en"],
        "occurrence_count": [4, 2],
    }
)
VARIANTS = pl.DataFrame(
    {
        "ruling_id": ["r1", "r1", "r2"],
        "text": [DEMON_TYPO, DEMON_RULING, OWN_RULING],
        "occurrence_count": [3, 1, 2],
    }
)


@pytest.mark.parametrize(
    ("catalog", "texts", "sources"),
    [
        (None, [DEMON_TYPO, OWN_RULING], ["most_frequent", "most_frequent"]),
        (
            pl.DataFrame({"text": [DEMON_RULING] * 2, "written": [DEMON_RULING, "variant"]}),
            [DEMON_RULING, OWN_RULING],
            ["catalog", "most_frequent"],
        ),
        (
            pl.DataFrame({"text": ["another ruling"], "written": ["Another ruling"]}),
            [DEMON_TYPO, OWN_RULING],
            ["most_frequent", "most_frequent"],
        ),
    ],
    ids=["no-catalog", "a-variant-is-the-catalogs", "no-variant-is"],
)
def test_choose_ruling_texts(
    catalog: pl.DataFrame | None, texts: list[str], sources: list[str]
) -> None:
    expected = pl.DataFrame(
        {
            "ruling_id": ["r1", "r2"],
            "text": texts,
            "text_source": sources,
            "language": ["en", "en"],
            "occurrence_count": [4, 2],
        }
    )
    assert_frame_equal(choose_ruling_texts(RULINGS, VARIANTS, catalog), expected)


def test_add_paths_puts_the_path_after_the_dump_id() -> None:
    table = pl.DataFrame({"dump_id": ["d2", "d1", "d2"], "line_number": [4, 2, 2]})
    dumps = pl.DataFrame({"dump_id": ["d1", "d2"], "path": ["a.txt", "sub/b.txt"]})
    expected = pl.DataFrame(
        {
            "dump_id": ["d2", "d1", "d2"],
            "path": ["sub/b.txt", "a.txt", "sub/b.txt"],
            "line_number": [4, 2, 2],
        }
    )
    assert_frame_equal(add_paths(table, dumps), expected)


def test_published_rows_carry_their_files_path(typo_runs: tuple[Run, Run]) -> None:
    tables = typo_runs[1].tables
    occurrences = tables["ruling_occurrences"]
    assert occurrences.columns[:3] == ["dump_id", "path", "line_number"]
    joined = occurrences.join(tables["dumps"], on="dump_id", suffix="_of_dump")
    assert joined["path"].to_list() == joined["path_of_dump"].to_list()
    assert occurrences.group_by("path").len().sort("path").rows() == [
        ("a.txt", 3),
        ("b.txt", 3),
        ("c.txt", 2),
        ("d.txt", 2),
    ]
