"""Command line: `ruling-dumps run` and `ruling-dumps validate` (also `python -m flows`).

The CLI only parses arguments, sets quiet Prefect defaults for machines with
no internet, and calls the flow. Any of these may be overridden from the
environment (they are set only when unset):
    PREFECT_SERVER_ANALYTICS_ENABLED=false, DO_NOT_TRACK=1: no telemetry calls.
    PREFECT_LOGGING_LEVEL=WARNING, PREFECT_SERVER_LOGGING_LEVEL=WARNING: Prefect's
        own console lines; the pipeline's progress lines are printed by the CLI.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer
from rich.console import Console
from rich.table import Table

from flows.errors import RulingsError
from flows.stages.read import list_dump_files
from flows.stages.validate import validate_table
from schemas import TABLE_MODELS

QUIET_PREFECT_DEFAULTS: dict[str, str] = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
}

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="ruling-dumps: MTG ruling dumps to validated tables.",
)
console = Console(stderr=True)

RawOption = Annotated[Path, typer.Option("--raw", help="Folder of dump files (*.txt).")]
OutputOption = Annotated[Path, typer.Option("--output", help="Folder for snapshots/ and latest.")]


@app.command()
def run(raw: RawOption = Path("raw"), output: OutputOption = Path("output")) -> None:
    """Run the nightly job once: parse the dumps in RAW, publish a snapshot in OUTPUT.

    Writes OUTPUT/snapshots/<run_id>/ (Parquet, JSON Lines, manifest.json) and
    switches OUTPUT/latest to it only when it is complete.

    Example:

        ruling-dumps run --raw raw --output output
    """
    try:
        list_dump_files(raw)
    except RulingsError as exc:
        _fail(exc)
    for name, value in QUIET_PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)
    _show_progress()
    logging.getLogger("flows.cli").info(
        "run %s -> %s (Prefect API: %s)",
        raw,
        output,
        os.environ.get("PREFECT_API_URL") or "temporary local server",
    )
    from flows.rulings_flow import rulings_flow

    try:
        result = rulings_flow(raw_dir=raw, output_dir=output)
    except RulingsError as exc:
        _fail(exc)
    console.print(_summary(result))


@app.command()
def validate(output: OutputOption = Path("output")) -> None:
    """Check the tables of OUTPUT/latest against the data contract (schemas/).

    Exits 1 and names each failing table when any table breaks the contract.

    Example:

        ruling-dumps validate --output output
    """
    latest = output / "latest"
    if not latest.is_dir():
        _fail(RulingsError(f"{latest} does not exist; run `ruling-dumps run` first"))
    failed = []
    for name, model in TABLE_MODELS.items():
        try:
            _, rejects = validate_table(name, pl.read_parquet(latest / f"{name}.parquet"), model)
        except (RulingsError, OSError) as exc:
            failed.append(f"{name}: {exc}")
            continue
        if rejects.height:
            failed.append(f"{name}: {rejects.height} rows fail, e.g. {rejects['reason'][0]}")
    if failed:
        _fail(RulingsError("; ".join(failed)))
    typer.echo(f"{latest.resolve()}: all {len(TABLE_MODELS)} tables match the contract")


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(1)


def _show_progress() -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    stages = logging.getLogger("flows")
    stages.setLevel(logging.INFO)
    stages.addHandler(handler)
    stages.propagate = False


def _summary(result: dict[str, Any]) -> Table:
    accounting = result["line_accounting"]
    table = Table(title=f"run {result['run_id']}", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("dumps read", str(len(result["inputs"])))
    for kind, count in accounting.items():
        table.add_row(f"lines: {kind}", str(count))
    for name, rows in result["rows"].items():
        table.add_row(f"table {name}", str(rows))
    table.add_row("snapshot", result["snapshot"])
    return table


def main() -> None:
    """Console script entry point (`ruling-dumps`)."""
    app()
