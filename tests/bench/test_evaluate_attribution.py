"""`python -m bench eval attribution` on the small real catalog (KLD, AER, NEO): targets and shape."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from bench.__main__ import app
from bench.evaluate_attribution import evaluate_attribution, first_printed, newest_split
from flows.disk.catalog import read_catalog
from flows.errors import RulingsError
from flows.stages.cards import Catalog

runner = CliRunner()


def test_eval_help_ends_with_an_example() -> None:
    result = runner.invoke(app, ["eval", "attribution", "--help"])
    assert result.exit_code == 0
    assert "python -m bench eval attribution --catalog AllPrintings.json.xz" in result.output


def test_attribution_on_a_small_catalog(small_catalog_dir: Path, tmp_path: Path) -> None:
    """60 dumps of catalog cards, 20 of removed ones, 3 twin pairs each way: no wrong
    oracle_id, most identifiable cards found, every abstention with a reason."""
    measured = evaluate_attribution(small_catalog_dir, tmp_path / "cache", 60, 20, 0, twins=3)
    inside, outside, twins = measured["in_catalog"], measured["out_of_catalog"], measured["twins"]
    assert (twins["pairs_removed_one"], twins["pairs_both_kept"]) == (3, 3)
    assert (inside["dumps"], outside["dumps"]) == (60 + 3 + 6, 20 + 3)
    assert inside["wrong"] == 0 and outside["wrong"] == 0
    assert inside["right"] == inside["given_an_oracle_id"] >= 20
    assert inside["recall_identifiable"] >= 0.5
    left = inside["identifiable"] - inside["identifiable_right"]
    assert sum(inside["abstained_identifiable_by_reason"].values()) == left
    bound = measured["structural_bound"]
    assert bound["identifiable"] == inside["identifiable"]
    assert inside["recall_identifiable"] <= bound["bound_with_stubs"] <= 1


def test_eval_command_writes_results(small_catalog_dir: Path, tmp_path: Path) -> None:
    results = tmp_path / "eval.json"
    result = runner.invoke(app, [
        "eval", "attribution", "--catalog", str(small_catalog_dir), "--cards", "20",
        "--held-out", "5", "--work", str(tmp_path / "work"), "--results", str(results),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    written = json.loads(results.read_text())
    targets = written["against_targets"]
    assert sorted(targets) == [
        "identifiable_recall_at_least_0.95", "in_catalog_wrong_is_0",
        "out_of_catalog_wrong_is_0", "twins_wrong_is_0",
    ]  # fmt: skip
    assert targets["in_catalog_wrong_is_0"] and targets["out_of_catalog_wrong_is_0"]
    assert written["catalog_load"]["cold"]["from_cache"] is False
    assert written["catalog_load"]["warm"]["from_cache"] is True
    assert written["catalog_load"]["warm"]["rows"] == written["catalog_load"]["cold"]["rows"]


def _catalog(printings: list[tuple[str, ...]]) -> Catalog:
    """A catalog of printings (uuid, oracle_id, set_code, set_release_date[, release_date]:
    the set's when not given), a ruling each."""
    rows = [(*p, p[3]) if len(p) == 4 else p for p in printings]
    cards = pl.DataFrame(
        rows,
        orient="row",
        schema=["uuid", "oracle_id", "set_code", "set_release_date", "release_date"],
    )
    rulings = cards.select("uuid", "oracle_id", date="set_release_date", text=pl.lit("A ruling."))
    foreign = cards.select("uuid", "oracle_id", language=pl.lit("de"), name="uuid", text="uuid")
    return Catalog(cards=cards, rulings=rulings, foreign=foreign)


def test_newest_split_removes_whole_sets() -> None:
    """The cutoff leaves at least `held_out` cards newer; a reprint's new printing goes
    with its set, the card stays (its first printing is older)."""
    catalog = _catalog([
        ("u1", "old", "OLD", "2020-01-01"), ("u2", "mid", "MID", "2021-01-01"),
        ("u3", "old", "NEW", "2022-01-01"), ("u4", "new", "NEW", "2022-01-01"),
        ("u5", "newer", "NWR", "2022-06-01"), ("u6", "mid2", "MID", "2021-01-01"),
    ])  # fmt: skip
    everyone = ["mid", "mid2", "new", "newer", "old"]
    cutoff, reduced = newest_split(catalog, everyone, 2)
    assert cutoff == "2021-01-01"
    assert sorted(reduced["cards"]["uuid"]) == ["u1", "u2", "u6"]
    assert sorted(reduced["rulings"]["uuid"]) == sorted(reduced["foreign"]["uuid"]) == [
        "u1", "u2", "u6"
    ]  # fmt: skip
    assert newest_split(catalog, everyone, 1)[0] == "2022-01-01"
    assert newest_split(catalog, everyone, 3)[0] == "2020-01-01"
    with pytest.raises(RulingsError):
        newest_split(catalog, everyone, 5)


def test_newest_split_dates_a_promo_by_its_own_release() -> None:
    """A promo added to a set released long before (MTGJSON's `originalReleaseDate`: Saw
    It Coming's Pro Tour promo, in PPRO of 2007, is of 2021-10-01) does not keep its card
    in a catalog taken before the card's own set."""
    catalog = _catalog([
        ("u1", "old", "OLD", "2020-01-01"), ("u2", "new", "NEW", "2021-02-05"),
        ("u3", "new", "PRO", "2007-02-09", "2021-10-01"), ("u4", "new2", "NEW", "2021-02-05"),
    ])  # fmt: skip
    assert dict(first_printed(catalog).iter_rows())["new"] == "2021-02-05"
    cutoff, reduced = newest_split(catalog, ["old", "new", "new2"], 2)
    assert cutoff == "2020-01-01"
    assert sorted(reduced["cards"]["uuid"]) == ["u1"]


def test_attribution_with_the_newest_removed(small_catalog_dir: Path, tmp_path: Path) -> None:
    """--removed newest on KLD, AER, NEO: NEO goes whole; every removed card was first
    printed after every kept one; none named; twins not drawn."""
    work = tmp_path / "work"
    measured = evaluate_attribution(small_catalog_dir, work / "cache", 40, 20, 1, 3, "newest")
    removal = measured["removal"]
    assert (removal["cutoff"], removal["sets_removed"]) == ("2017-01-20", ["NEO"])
    assert measured["twins"]["pairs_removed_one"] == measured["twins"]["pairs_both_kept"] == 0
    assert measured["in_catalog"]["dumps"] == 40 and measured["out_of_catalog"]["dumps"] == 20
    assert measured["out_of_catalog"]["wrong"] == 0 and measured["in_catalog"]["wrong"] == 0
    assert sorted(p.name for p in (work / "eval-catalog").iterdir()) == [
        "AER.json.gz", "KLD.json.gz"
    ]  # fmt: skip
    catalog = read_catalog(small_catalog_dir)
    firsts = dict(first_printed(catalog).iter_rows())
    expected = pl.read_parquet(work / "eval-expected.parquet")
    side = pl.col("path").str.starts_with("out_")
    removed = [firsts[o] for o in expected.filter(side)["expected_oracle_id"]]
    kept = [firsts[o] for o in expected.filter(~side)["expected_oracle_id"]]
    assert min(removed) > removal["cutoff"] >= max(kept)
    neo = catalog["cards"].filter(pl.col("set_code") == "NEO")["oracle_id"].unique()
    older = catalog["cards"].filter(pl.col("set_code") != "NEO")["oracle_id"].unique()
    assert removal["cards_removed"] == len(set(neo) - set(older))
