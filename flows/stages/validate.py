"""Validate a table against its pandera model; failing rows become rejects."""

from __future__ import annotations

import logging

import pandera.polars as pa
import polars as pl
from pandera.errors import SchemaErrors

from flows.errors import ContractError

logger = logging.getLogger(__name__)

REJECT_SCHEMA = {
    "dump_id": pl.String,
    "line_number": pl.Int64,
    "stage": pl.String,
    "reason": pl.String,
    "content": pl.String,
}


def validate_table(
    name: str, table: pl.DataFrame, model: type[pa.DataFrameModel]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Validate `table` eagerly and lazily (all failures at once) against `model`.

    Returns:
        (valid, rejects): the rows that pass, and one reject row per failing
        row: dump_id and line_number (when the table has them), stage
        "validate", reason naming each failed column and check, content (the
        row as JSON).

    Raises:
        ContractError: the table fails as a whole (a column missing, extra or
            of the wrong dtype): nothing may be published.
    """
    try:
        return model.validate(table, lazy=True), pl.DataFrame(schema=REJECT_SCHEMA)
    except SchemaErrors as exc:
        cases = exc.failure_cases
    table_level = cases.filter(pl.col("index").is_null())
    if table_level.height:
        found = "; ".join(
            f"{c}: {k} (found {f})"
            for c, k, f in table_level.select("column", "check", "failure_case").iter_rows()
        )
        raise ContractError(f"table {name} breaks the contract of {model.__name__}: {found}")
    reasons = cases.group_by("index").agg(
        reason=pl.format("{} failed {}", "column", "check").unique().sort().str.join("; ")
    )
    rows = table.with_row_index("_row").join(
        reasons.with_columns(pl.col("index").cast(pl.UInt32)),
        left_on="_row",
        right_on="index",
        how="left",
    )
    failing = rows.filter(pl.col("reason").is_not_null())
    rejects = failing.select(
        dump_id=pl.col("dump_id") if "dump_id" in table.columns else pl.lit(None, pl.String),
        line_number=pl.col("line_number")
        if "line_number" in table.columns
        else pl.lit(None, pl.Int64),
        stage=pl.lit("validate"),
        reason=pl.format("{} row: {}", pl.lit(name), "reason"),
        content=pl.struct(table.columns).struct.json_encode(),
    )
    logger.warning("table %s: %d rows fail %s", name, rejects.height, model.__name__)
    return rows.filter(pl.col("reason").is_null()).drop("_row", "reason"), rejects
