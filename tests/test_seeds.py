"""The issue's right values, asserted on the five real dumps in raw/ (copies of ../shared/seeds)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
from polars.testing import assert_frame_equal

from flows.stages.manifest import account_lines
from tests.conftest import SEED_DIR, SEED_LINE_ACCOUNTING, SEED_ROWS, Run, run_dumps, write_dumps

KEEP_TRACK = "Keep track of how many energy counters each player has."


def test_every_line_is_accounted_for(seed_run: Run) -> None:
    assert account_lines(seed_run.lines) == SEED_LINE_ACCOUNTING
    assert seed_run.result["manifest"]["line_accounting"] == SEED_LINE_ACCOUNTING


def test_table_sizes(seed_tables: dict[str, pl.DataFrame]) -> None:
    assert {name: t.height for name, t in seed_tables.items()} == SEED_ROWS


def test_dumps(seed_tables: dict[str, pl.DataFrame]) -> None:
    dumps = seed_tables["dumps"].select(
        "path",
        "encoding",
        "header_language",
        "claimed_translation_language",
        "line_count",
        "entry_count",
        "stub_count",
        "rejected_line_count",
    )
    expected = pl.DataFrame(
        {
            "path": [
                "000_fbe1a54fee004163.txt",
                "001_a1b82e86b0acb359.txt",
                "002_14b9121c30f5c5b3.txt",
                "003_321b63c5bd17bae4.txt",
                "004_304d898eb3c4b8ca.txt",
            ],
            "encoding": ["utf-8"] * 5,
            "header_language": ["fr"] * 5,
            "claimed_translation_language": ["fr"] * 5,
            "line_count": [41, 29, 27, 25, 32],
            "entry_count": [20, 14, 13, 12, 14],
            "stub_count": [0, 0, 0, 0, 1],
            "rejected_line_count": [0] * 5,
        }
    )
    assert_frame_equal(dumps, expected)
    assert (
        seed_tables["dumps"]["header_text"]
        .str.starts_with("Clarifications officielles de Wizards of the Coast. La traduction FR")
        .all()
    )
    assert seed_tables["dumps"]["dump_id"][0] == (
        "5d729f314627d0137e210e75d0d9e2235ca27ed40322e000177ed725683c5078"
    )


def test_occurrence_dates_sources_and_languages(seed_tables: dict[str, pl.DataFrame]) -> None:
    occurrences = seed_tables["ruling_occurrences"]
    by_date = dict(occurrences.group_by("published_on").len().iter_rows())
    assert by_date == {dt.date(2024, 6, 7): 57, dt.date(2024, 3, 8): 12, dt.date(2016, 9, 20): 4}
    assert occurrences["source"].unique().to_list() == ["wotc"]
    assert occurrences["language"].unique().to_list() == ["en"]


def test_first_entry_of_seed_000(seed_tables: dict[str, pl.DataFrame]) -> None:
    dump_id = seed_tables["dumps"].filter(pl.col("path").str.starts_with("000_"))["dump_id"][0]
    occurrences = seed_tables["ruling_occurrences"].filter(pl.col("dump_id") == dump_id)
    assert occurrences["line_number"].to_list() == list(range(2, 41, 2))
    first = occurrences.row(0, named=True)
    assert first["line_number"] == 2
    assert first["published_on"] == dt.date(2024, 6, 7)
    assert first["text_raw"].startswith(
        KEEP_TRACK + " Potential ways to track this include writing theme"
    )


def test_keep_track_ruling_merges_theme_and_them(seed_tables: dict[str, pl.DataFrame]) -> None:
    ruling = seed_tables["rulings"].filter(pl.col("text").str.starts_with(KEEP_TRACK))
    assert ruling.select("occurrence_count", "dump_count", "variant_count").row(0) == (5, 5, 2)
    assert "writing theme down" in ruling["text"][0]  # the most frequent variant (4 of 5)
    variants = seed_tables["ruling_variants"].filter(pl.col("ruling_id") == ruling["ruling_id"][0])
    assert sorted(variants["occurrence_count"].to_list()) == [1, 4]
    assert sorted(v.split(" down ")[0][-5:] for v in variants["text"]) == [" them", "theme"]


def test_curly_quote_variants_are_one_variant(seed_tables: dict[str, pl.DataFrame]) -> None:
    # seed 003 writes “may pay” and won’t; the other four seeds write "may pay" and won't.
    variants = seed_tables["ruling_variants"].filter(
        pl.col("text").str.starts_with('Some triggered abilities state that you "may pay"')
    )
    assert variants.select("occurrence_count").to_series().to_list() == [5]
    assert not variants["text"][0].count("’")


def test_rulings_in_all_five_dumps(seed_tables: dict[str, pl.DataFrame]) -> None:
    everywhere = seed_tables["rulings"].filter(pl.col("dump_count") == 5)
    assert everywhere.height == 9
    assert everywhere["text"].str.contains("(?i)energy|\\{E\\}").all()


def test_demon_rulings_are_distinct(seed_tables: dict[str, pl.DataFrame]) -> None:
    demon = seed_tables["rulings"].filter(pl.col("text").str.contains("Demon of Dark Schemes"))
    assert demon.height == 4
    assert demon["first_published_on"].unique().to_list() == [dt.date(2016, 9, 20)]


def test_card_stub(seed_tables: dict[str, pl.DataFrame]) -> None:
    stub = seed_tables["card_stubs"].drop("dump_id")
    expected = pl.DataFrame(
        {
            "path": ["004_304d898eb3c4b8ca.txt"],
            "line_number": [30],
            "mana_value": [2.0],
            "power": ["1"],
            "toughness": ["3"],
            "text": ["Au début du combat pendant votre tour, vous pouvez payer"],
            "language": ["fr"],
            "language_is_inferred": [False],
            "is_truncated": [True],
        }
    )
    assert_frame_equal(stub, expected)


def test_ruling_ids_are_sha256_of_content(seed_tables: dict[str, pl.DataFrame]) -> None:
    import hashlib

    from flows.stages.dedupe import normalize_text

    variants = seed_tables["ruling_variants"]
    keys = variants.select(normalize_text(pl.col("text")), "variant_id")  # ids hash the key
    assert keys["variant_id"].to_list() == [
        hashlib.sha256(key.encode()).hexdigest() for key in keys["text"]
    ]
    occurrences = seed_tables["ruling_occurrences"]
    assert occurrences["ruling_id"].is_in(seed_tables["rulings"]["ruling_id"].implode()).all()
    assert occurrences["variant_id"].is_in(variants["variant_id"].implode()).all()


def test_file_names_and_order_do_not_matter(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    seeds = sorted(SEED_DIR.glob("*.txt"))
    # new names that sort the files the other way round (a run sorts by path first)
    renamed = {f"{999 - i}_{path.name}": path.read_bytes() for i, path in enumerate(seeds)}
    assert [renamed[p] for p in sorted(renamed)] == [p.read_bytes() for p in reversed(seeds)]
    reordered = run_dumps(write_dumps(tmp_path / "raw", renamed), tmp_path / "out").tables
    by_key = {
        "dumps": ["dump_id"],
        "ruling_occurrences": ["dump_id", "line_number"],
        "card_stubs": ["dump_id", "line_number"],
        "rejects": ["dump_id", "line_number"],
    }
    for name, table in seed_tables.items():
        keys = by_key.get(name, [])
        mine, theirs = reordered[name].sort(keys), table.sort(keys)
        if "path" in table.columns:  # dumps, and the rows that carry their dump's path
            assert mine["path"].str.slice(4).to_list() == theirs["path"].to_list()
            mine, theirs = mine.drop("path"), theirs.drop("path")
        assert_frame_equal(mine, theirs)


def test_known_languages_are_never_detected_again(tmp_path: Path) -> None:
    cold = run_dumps(SEED_DIR, tmp_path / "out")
    rebuilt = run_dumps(SEED_DIR, tmp_path / "out", reuse_results=False)  # every dump built again
    assert [
        cold.result["manifest"]["work"][k] for k in ("languages_detected", "languages_reused")
    ] == [39, 0]
    assert [
        rebuilt.result["manifest"]["work"][k]
        for k in ("dumps_built", "languages_detected", "languages_reused")
    ] == [5, 0, 39]
    for name, table in cold.tables.items():
        assert_frame_equal(rebuilt.tables[name], table)
