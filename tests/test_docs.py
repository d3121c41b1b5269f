"""The README and docs/: every example runs on its own, every command exists as written.

Each ```python block of README.md and docs/*.md runs in a fresh interpreter
that cannot import this project (an analyst has only polars and DuckDB), in a
folder whose `output/latest` is a real run of the seeds. Each ```sh command
runs as written when it is quick (`validate`, `--help`); otherwise its
program, subcommand and every option it names are checked by running it with
`--help` (a `make` target with `make -n`), and the tests named in the module
docstrings run it for real (`test_cli`, `test_server`, `test_dask`, `tests/bench`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from bench.__main__ import app as bench_app
from flows.cli import app as cli_app
from tests.conftest import REPO, SEED_DIR

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: The README is a user's page: what it is, two commands, the tables, reading them, links.
README_MAX_BYTES = 15_000
DEMON = "2b2f2abd-6c0f-49a5-a44b-f366614c944d"
#: Cards of the small catalog (KLD, AER, NEO) that carry "{E} is the energy symbol. …".
ENERGY_CARDS = 70
#: Run first in each example's interpreter: this project cannot be imported there.
NO_PROJECT = """
import importlib.abc, sys
class _NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("flows", "schemas", "bench"):
            raise ModuleNotFoundError(f"No module named {name!r} (not installed here)")
        return None
sys.meta_path.insert(0, _NotInstalled())
"""


def blocks(page: Path, language: str) -> list[str]:
    """The ```<language> blocks of a page, in order."""
    return re.findall(rf"```{language}\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


EXAMPLES = [(page, block) for page in PAGES for block in blocks(page, "python")]
COMMANDS = [
    line.split("  #")[0].strip()
    for page in PAGES
    for block in blocks(page, "sh")
    for line in block.splitlines()
    if line.strip()
]


def test_the_readme_is_a_users_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= README_MAX_BYTES
    headings = re.findall(r"^## (.+)$", readme, re.MULTILINE)
    assert headings == [
        "The two commands",
        "What a dump may look like",
        "What a run publishes",
        "Reading the outputs",
        "The nightly refresh",
        "More",
    ]
    linked = set(re.findall(r"\(docs/([\w-]+\.md)\)", readme))
    assert linked == {p.name for p in (REPO / "docs").glob("*.md")}


@pytest.mark.parametrize(
    ("page", "example"), EXAMPLES, ids=[f"{p.name}-{i}" for i, (p, _) in enumerate(EXAMPLES)]
)
def test_every_example_runs_alone(published: Path, page: Path, example: str) -> None:
    done = _run_alone(example, published)
    assert done.returncode == 0, done.stderr


def _run_alone(code: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter in `folder`, as an analyst's: no PYTHONPATH, no project."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-c", NO_PROJECT + code],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _run_here(example: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.chdir(folder)
    namespace: dict[str, Any] = {}
    exec(example, namespace)
    return namespace


def test_the_readme_examples_give_the_seeds_answers(
    published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_polars, by_duckdb, typed = (
        _run_here(example, published, monkeypatch) for example in blocks(PAGES[0], "python")
    )
    top = by_polars["most_repeated"]
    assert top.head(9)["dump_count"].to_list() == [5] * 9  # the energy rulings: every seed
    assert top.rows() == by_duckdb["most_repeated"]
    assert top.filter(pl.col("text").str.starts_with("{E} is the energy symbol")).row(0) == (
        "{E} is the energy symbol. It represents one energy counter.",
        "catalog",  # the small catalog (KLD, AER, NEO) words it so
        5,
        1,
    )
    places = by_polars["places"]
    assert places.height == 73 and places["path"].n_unique() == 5
    assert by_polars["card_checks"].rows() == [
        ("Demon of Dark Schemes", DEMON, "missing", 1),
        ("Demon of Dark Schemes", DEMON, "not_on_card", 8),
        ("Demon of Dark Schemes", DEMON, "other_date", 5),
    ]
    assert sorted(places["path"].unique()) == sorted(p.name for p in SEED_DIR.glob("*.txt"))
    on_most_cards = by_polars["on_most_cards"]
    assert on_most_cards.row(0) == (
        "{E} is the energy symbol. It represents one energy counter.",
        ENERGY_CARDS,  # cards, not dumps: the catalog's KLD and AER cards that use energy
        5,
    )
    translations = typed["translations"]  # the seeds have none: a 0-byte file, typed
    assert (published / "output/latest/ruling_translations.jsonl").stat().st_size == 0
    schema = json.loads((published / "output/latest/ruling_translations.schema.json").read_text())
    assert list(translations.schema) == list(schema["properties"])
    assert translations.schema["line_number"] == pl.Int64 and translations.height == 0
    assert_frame_equal(typed["same"], translations)


def test_an_examples_interpreter_cannot_import_the_project(published: Path) -> None:
    """The examples' interpreter is an analyst's: polars and DuckDB, nothing of ours."""
    tries = "\n".join(
        f"try:\n    import {name}\nexcept ModuleNotFoundError:\n    print({name!r})"
        for name in ("flows", "schemas", "bench", "polars", "duckdb")
    )
    done = _run_alone(tries, published)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["flows", "schemas", "bench"]


def test_the_per_card_queries_agree_and_give_the_seeds_answers(
    published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    polars_block, duckdb_block = blocks(REPO / "docs" / "attribution.md", "python")
    by_polars = _run_here(polars_block, published, monkeypatch)
    by_duckdb = _run_here(duckdb_block, published, monkeypatch)
    for name in ("card_rulings", "shared", "date_check", "checks"):
        relation = by_duckdb[name]
        answer = pl.DataFrame(relation.fetchall(), schema=relation.columns, orient="row")
        assert_frame_equal(by_polars[name], answer, check_dtypes=False)
    card_rulings = by_polars["card_rulings"]
    assert card_rulings.height == 13  # seed 002's thirteen entries
    assert card_rulings["card_name"].unique().to_list() == ["Demon of Dark Schemes"]
    shared = by_polars["shared"]
    assert DEMON in shared["oracle_id"].to_list()
    assert shared["catalog_date"].unique().to_list() == [dt.date(2017, 2, 9)]
    dates = by_polars["date_check"]
    official = dates.filter(pl.col("is_official_date"))
    assert (official.height, official["published_on"].unique().to_list()) == (
        4,
        [dt.date(2016, 9, 20)],
    )
    assert dates.filter(~pl.col("is_official_date"))["published_on"].unique().to_list() == [
        dt.date(2024, 6, 7)
    ]  # the site re-dated the energy rulings (catalog: 2017-02-09)
    checks = by_polars["checks"]  # seed 002 against Demon of Dark Schemes' record
    assert checks.group_by("check").len().sort("check").rows() == [
        ("missing", 1), ("not_on_card", 8), ("other_date", 5),
    ]  # fmt: skip
    assert checks.filter(pl.col("check") == "missing")["catalog_text"].to_list() == [
        "You can't pay more energy counters than you have."
    ]  # the dump has an outdated wording of two others: not_on_card, the official beside it
    assert checks.filter(pl.col("check") == "not_on_card")["catalog_text"].count() == 4
    manifest = json.loads((published / "output/latest/manifest.json").read_text())
    assert manifest["dump_checks"] == {
        "checked": 1, "missing": 1, "not_on_card": 1, "other_date": 1,
    }  # fmt: skip
    report = (published / "output/latest/report.html").read_text()
    assert '<td>other_date</td><td class="n" data-count="dump_checks.other_date">1</td>' in report


def _argv(command: str) -> tuple[dict[str, str], list[str]]:
    """(the environment it sets, its arguments with `...` and the `.venv/bin/` prefix dropped)."""
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    words = [w.removeprefix(".venv/bin/") for w in words if w != "..."]
    return env, words


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_exists_as_written(
    command: str, published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULING_DUMPS_DEBUG", "0")  # `--debug` sets it: unset again after
    env, argv = _argv(command)
    if argv[0] == "make":
        done = subprocess.run(["make", "-n", *argv[1:]], cwd=REPO, capture_output=True, check=False)
        assert done.returncode == 0, done.stderr
        return
    if argv[:3] == ["python", "-m", "bench"]:
        app, args = bench_app, argv[3:]
    elif argv[0] == "ruling-dumps":
        app, args = cli_app, argv[1:]
    else:  # another program (Prefect's own command line)
        program = Path(sys.executable).with_name(argv[0])
        done = subprocess.run(
            [str(program), *argv[1:], "--help"], env={**os.environ, **env}, capture_output=True
        )
        assert done.returncode == 0, done.stderr
        return
    quick = args[:1] == ["validate"] or args == ["--help"]
    os.chdir(published if quick else REPO)
    try:
        result = CliRunner().invoke(app, args if quick else [*args, "--help"])
    finally:
        os.chdir(REPO)
    assert result.exit_code == 0, result.output
