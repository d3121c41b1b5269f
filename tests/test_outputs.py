"""Outputs any tool can open: JSON Schema per table, the data dictionary, README queries, report.html."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.report_html import build_report_html
from schemas import TABLE_MODELS
from schemas.json_schema import (
    DICTIONARY_PATH,
    json_schema_documents,
    polars_schema,
    render_data_dictionary,
)
from tests.conftest import REPO, SEED_DIR, run_dumps

DEMON = "2b2f2abd-6c0f-49a5-a44b-f366614c944d"


def test_data_dictionary_matches_the_models() -> None:
    """Fails when schemas/ changed and `python -m schemas.json_schema` was not rerun."""
    assert DICTIONARY_PATH.read_text(encoding="utf-8") == render_data_dictionary()


def test_json_schema_gives_each_table_its_dtypes(seed_tables: dict[str, pl.DataFrame]) -> None:
    documents = json_schema_documents()
    assert sorted(documents) == sorted(f"{name}.schema.json" for name in TABLE_MODELS)
    for name, table in seed_tables.items():
        schema = json.loads(documents[f"{name}.schema.json"])
        assert polars_schema(schema) == dict(table.schema), name
        assert schema["required"] == table.columns
    dumps = json.loads(documents["dumps.schema.json"])["properties"]
    assert dumps["card_attribution"]["type"] == ["string", "null"]
    assert dumps["card_attribution"]["enum"] == ["rulings", "stub", "name", None]
    assert dumps["dump_id"]["pattern"] == "^[0-9a-f]{64}$"


def test_every_published_row_is_valid_under_its_json_schema(
    seed_tables: dict[str, pl.DataFrame],
) -> None:
    # A fresh review found every unattributed dump failing the published schema
    # (`card_attribution` null was not in its enum).
    documents = json_schema_documents()
    unattributed = seed_tables["dumps"].with_columns(  # as a dump no card can be found for
        pl.lit(None, pl.String).alias(c) for c in ("card_name", "oracle_id", "card_attribution")
    )
    tables = {**seed_tables, "unattributed dumps": unattributed}
    for name, table in tables.items():
        schema_name = "dumps" if name == "unattributed dumps" else name
        validator = jsonschema.Draft202012Validator(
            json.loads(documents[f"{schema_name}.schema.json"])
        )
        rows = [json.loads(line) for line in table.write_ndjson().splitlines()]
        errors = [f"{name} row {i}: {e.message}" for i, row in enumerate(rows)
                  for e in validator.iter_errors(row)]  # fmt: skip
        assert errors == []


@pytest.fixture(scope="module")
def latest(tmp_path_factory: pytest.TempPathFactory, small_catalog_dir: Path) -> Path:
    """A folder whose `output/latest` is the product's snapshot of the seeds with the small
    catalog (KLD, AER, NEO)."""
    root = tmp_path_factory.mktemp("outputs")
    run_dumps(SEED_DIR, root / "output", catalog=small_catalog_dir)
    return root


def readme_blocks(section: str) -> list[str]:
    """The ```python blocks of README's `section` (a heading), up to the next heading of its level."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    level, _, _ = section.partition(" ")
    start = text.index(f"\n{section}\n")
    end = text.find(f"\n{level} ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start : end if end > 0 else None], re.S)


def test_empty_table_reads_typed_with_its_json_schema(
    latest: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seeds have no translation: a 0-byte .jsonl that polars and DuckDB read typed via the schema."""
    monkeypatch.chdir(latest)
    assert (latest / "output/latest/ruling_translations.jsonl").stat().st_size == 0
    namespace: dict[str, Any] = {"pl": pl}
    exec(readme_blocks("## Reading the outputs")[1], namespace)
    assert_frame_equal(namespace["translations"], pl.DataFrame(schema=polars_schema(json.loads(
        (latest / "output/latest/ruling_translations.schema.json").read_text()))))  # fmt: skip
    assert namespace["translations"].schema["line_number"] == pl.Int64
    schema = json.loads((latest / "output/latest/ruling_translations.schema.json").read_text())
    columns = {c: p["x-duckdb-type"] for c, p in schema["properties"].items()}
    typed = duckdb.read_json(
        "output/latest/ruling_translations.jsonl", columns=columns, format="newline_delimited"
    )
    assert (typed.columns, typed.fetchall()) == (list(columns), [])


def test_readme_per_card_queries_polars_and_duckdb(
    latest: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(latest)
    polars_block, duckdb_block = readme_blocks("### Per card")
    by_polars: dict[str, Any] = {}
    by_duckdb: dict[str, Any] = {}
    exec(polars_block, by_polars)
    exec(duckdb_block, by_duckdb)
    for name in ("card_rulings", "shared", "date_check"):
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


def test_report_html_charts(latest: Path) -> None:
    page = (latest / "output/latest/report.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 5  # no rejects in the seeds: that chart says so
    assert "rejects by reason: none in this run." in page
    assert "<title>2024-06-07: 57</title>" in page
    assert "<title>2016-09-20: 4</title>" in page
    assert "<title>2024-03-08: 12</title>" in page
    assert "<title>Demon of Dark Schemes: 1</title>" in page
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")


def test_report_html_escapes_text(seed_tables: dict[str, pl.DataFrame]) -> None:
    tables = dict(seed_tables)
    tables["rejects"] = pl.DataFrame(
        {"dump_id": [None], "line_number": [None], "stage": ["parse"],
         "reason": ["<script>alert(1)</script>"], "content": ["x"]},
        schema=dict(seed_tables["rejects"].schema),
    )  # fmt: skip
    page = build_report_html({"run_id": "r<1>", "rows": {}}, tables)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "run r&lt;1&gt;" in page
