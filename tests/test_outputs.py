"""Outputs any tool can open: JSON Schema per table, the data dictionary, report.html."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import polars as pl

from flows.stages.report_html import build_report_html
from schemas import TABLE_MODELS
from schemas.json_schema import (
    DICTIONARY_PATH,
    json_schema_documents,
    polars_schema,
    render_data_dictionary,
)

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
    assert dumps["card_attribution"]["enum"] == ["rulings", "record", "stub", "name", None]
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


def test_report_html_charts(published: Path) -> None:
    page = (published / "output/latest/report.html").read_text(encoding="utf-8")
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
         "reason": ["<script>alert(x)</script>"], "content": ["x"]},
        schema=dict(seed_tables["rejects"].schema),
    )  # fmt: skip
    page = build_report_html({"run_id": "r<1>", "rows": {}}, tables)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(x)&lt;/script&gt;" in page  # (a reason kind: no digits)
    assert "run r&lt;1&gt;" in page
