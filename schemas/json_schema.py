"""JSON Schema and a data dictionary generated from the pandera models (`schemas.models`).

Every snapshot carries `<table>.schema.json` beside `<table>.jsonl` (one JSON
Schema, draft 2020-12, for one row), so typed readers work even on an empty
table: each property also names its polars and DuckDB type
(`x-polars-type`, `x-duckdb-type`). `docs/data-dictionary.md` is
`render_data_dictionary()`; `python -m schemas.json_schema` rewrites it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandera.polars as pa
import polars as pl

from schemas.models import SCHEMA_VERSION, TABLE_MODELS, TEXT_IS_NOT_HTML

#: pandera/polars dtype name -> (JSON type, JSON format, polars dtype, DuckDB type).
_TYPES: dict[str, tuple[str, str | None, pl.DataType, str]] = {
    "String": ("string", None, pl.String(), "VARCHAR"),
    "Int64": ("integer", None, pl.Int64(), "BIGINT"),
    "Float64": ("number", None, pl.Float64(), "DOUBLE"),
    "Boolean": ("boolean", None, pl.Boolean(), "BOOLEAN"),
    "Date": ("string", "date", pl.Date(), "DATE"),
}
_CHECKS = {
    "str_matches": lambda s: {"pattern": s["pattern"]},
    "isin": lambda s: {"enum": list(s["allowed_values"])},
    "greater_than_or_equal_to": lambda s: {"minimum": s["min_value"]},
    "less_than_or_equal_to": lambda s: {"maximum": s["max_value"]},
    "str_length": lambda s: {"minLength": s["min_value"]} if s.get("min_value") else {},
}


def table_json_schema(name: str, model: type[pa.DataFrameModel]) -> dict[str, Any]:
    """The JSON Schema of one row of table `name` (a JSON Lines line).

    Raises:
        KeyError: a column's dtype has no JSON mapping in `_TYPES`.
    """
    schema = model.to_schema()
    properties = {}
    for column_name, column in schema.columns.items():
        json_type, json_format, polars_type, duckdb_type = _TYPES[str(column.dtype)]
        prop: dict[str, Any] = {
            "type": [json_type, "null"] if column.nullable else json_type,
            "description": column.description,
            "x-polars-type": str(polars_type),
            "x-duckdb-type": duckdb_type,
        }
        if json_format:
            prop["format"] = json_format
        for check in column.checks:
            prop.update(_CHECKS.get(check.name, lambda s: {})(check.statistics))
        if column.nullable and "enum" in prop:  # a null value passes pandera's isin too
            prop["enum"] = [*prop["enum"], None]
        if column.unique:
            prop["x-unique"] = True
        properties[column_name] = prop
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"ruling-dumps/{SCHEMA_VERSION}/{name}.schema.json",
        "title": name,
        "description": (model.__doc__ or "").strip(),
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
        "x-schema-version": SCHEMA_VERSION,
        "x-unique-together": list(schema.unique or []),
    }


def json_schema_documents() -> dict[str, str]:
    """`<table>.schema.json` -> its text, for every published table (snapshot documents)."""
    return {
        f"{name}.schema.json": json.dumps(table_json_schema(name, model), indent=2) + "\n"
        for name, model in TABLE_MODELS.items()
    }


def polars_schema(json_schema: dict[str, Any]) -> dict[str, pl.DataType]:
    """The polars schema a `<table>.schema.json` describes (for `pl.read_ndjson(schema=...)`)."""
    by_name = {str(t[2]): t[2] for t in _TYPES.values()}
    return {c: by_name[p["x-polars-type"]] for c, p in json_schema["properties"].items()}


def render_data_dictionary() -> str:
    """The data dictionary (markdown): every table, column, type, nullability, rule, meaning."""
    lines = [
        "# Data dictionary",
        "",
        f"Schema version {SCHEMA_VERSION}. Generated from `schemas/models.py` by",
        "`python -m schemas.json_schema`; a test fails when it drifts from the models.",
        "Each snapshot has the same as JSON Schema in `<table>.schema.json`.",
        "",
        TEXT_IS_NOT_HTML,
    ]
    for name, model in TABLE_MODELS.items():
        schema = table_json_schema(name, model)
        lines += ["", f"## `{name}`", "", schema["description"], ""]
        if schema["x-unique-together"]:
            lines += [f"Unique together: {', '.join(schema['x-unique-together'])}.", ""]
        lines += ["| column | type | null | rule | meaning |", "|---|---|---|---|---|"]
        for column, prop in schema["properties"].items():
            nullable = "yes" if isinstance(prop["type"], list) else "no"
            lines.append(
                f"| {column} | {prop['x-polars-type']} | {nullable} | {_rule(prop)} "
                f"| {prop['description']} |"
            )
    return "\n".join(lines) + "\n"


def _rule(prop: dict[str, Any]) -> str:
    rules = []
    if "pattern" in prop:
        rules.append(f"matches `{prop['pattern']}`")
    if "enum" in prop:
        rules.append("one of " + ", ".join(f"`{v}`" for v in prop["enum"]))
    if "minimum" in prop:
        rules.append(f"≥ {prop['minimum']}")
    if "maximum" in prop:
        rules.append(f"≤ {prop['maximum']}")
    if "minLength" in prop:
        rules.append(f"at least {prop['minLength']} character")
    if prop.get("x-unique"):
        rules.append("unique")
    return "; ".join(rules).replace("|", "\\|")


DICTIONARY_PATH = Path(__file__).resolve().parents[1] / "docs" / "data-dictionary.md"

if __name__ == "__main__":
    DICTIONARY_PATH.write_text(render_data_dictionary(), encoding="utf-8")
