"""Command line: `ruling-dumps run` and `ruling-dumps validate` (also `python -m flows`).

The CLI only parses arguments, sets quiet Prefect defaults for machines with
no internet, and calls the flow. Any of these may be overridden from the
environment (they are set only when unset):
    PREFECT_SERVER_ANALYTICS_ENABLED=false, DO_NOT_TRACK=1: no telemetry calls.
    PREFECT_LOGGING_LEVEL=WARNING, PREFECT_SERVER_LOGGING_LEVEL=WARNING: Prefect's
        own console lines; the pipeline's progress lines are printed by the CLI.
    DASK_LOGGING__DISTRIBUTED=warning: Dask's scheduler and worker lines (with --dask-*).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from flows.errors import RulingsError
from flows.stages.catalog import load_catalog
from flows.stages.read import list_dump_paths
from flows.stages.runlock import hold_run_lock
from flows.stages.write import check_output_dir, verify_snapshot
from schemas import TABLE_MODELS

QUIET_PREFECT_DEFAULTS: dict[str, str] = {
    "DASK_LOGGING__DISTRIBUTED": "warning",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
}

app = typer.Typer(
    epilog="Example: ruling-dumps run --raw raw --output output && ruling-dumps validate",
    add_completion=False,
    no_args_is_help=True,
    help="ruling-dumps: MTG ruling dumps to validated tables.",
)
console = Console(stderr=True)

RawOption = Annotated[Path, typer.Option("--raw", help="Folder of dump files (*.txt).")]
OutputOption = Annotated[Path, typer.Option("--output", help="Folder for snapshots/ and latest.")]


RetentionOption = Annotated[
    int, typer.Option("--retention", min=1, help="How many snapshots to keep.")
]
CatalogOption = Annotated[
    Path | None,
    typer.Option(
        "--catalog",
        help="MTGJSON AllPrintings.json (.xz, .gz) or folder of set files: attribute dumps "
        "to cards (parsed once, cached under OUTPUT/state/catalog/).",
    ),
]


@app.command()
def run(
    raw: RawOption = Path("raw"),
    output: OutputOption = Path("output"),
    retention: RetentionOption = 7,
    dask_address: Annotated[
        str | None,
        typer.Option(
            "--dask-address",
            help="Run parse and language batches on this Dask "
            "cluster (tcp://HOST:PORT); its workers must see RAW and OUTPUT.",
        ),
    ] = None,
    dask_workers: Annotated[
        int | None,
        typer.Option(
            "--dask-workers", min=1, help="Start a local Dask cluster of N worker processes."
        ),
    ] = None,
    catalog: CatalogOption = None,
) -> None:
    """Run the nightly job once: parse the dumps in RAW, publish a snapshot in OUTPUT.

    Writes OUTPUT/snapshots/<run_id>/ (Parquet, JSON Lines, manifest.json) and
    switches OUTPUT/latest to it only when it is complete.

    With --dask-workers N (a local cluster) or --dask-address tcp://HOST:PORT
    (an existing one), parsing and language detection run on the Dask workers.

    Example:

        ruling-dumps run --raw raw --output output
    """
    catalog_reused = True
    try:
        list_dump_paths(raw)
        check_output_dir(output)
        with hold_run_lock(output):  # fail at once, before Prefect starts (the flow locks again)
            if catalog:  # a bad catalog fails here; a good one is cached for the flow
                catalog_reused = load_catalog(catalog, output / "state" / "catalog")[1]
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
    from flows.rulings_flow import rulings_flow, run_on_dask

    try:
        if dask_address or dask_workers:
            result = run_on_dask(
                raw, output, retention, dask_address, dask_workers or 2, catalog=catalog
            )
        else:
            result = rulings_flow(
                raw_dir=raw, output_dir=output, retention=retention, catalog=catalog
            )
    except (RulingsError, OSError) as exc:
        _fail(exc)
    if catalog:
        result["catalog"] = "read from its cache" if catalog_reused else "parsed and cached"
    console.print(_summary(result))


@app.command()
def validate(output: OutputOption = Path("output")) -> None:
    """Check OUTPUT/latest against the contract (schemas/) and its manifest.

    Exits 1 and names each problem (a table that breaks the contract, a file
    whose sha256 differs from manifest.json, Parquet and JSON Lines that
    disagree).

    Example:

        ruling-dumps validate --output output
    """
    latest = output / "latest"
    if not latest.is_dir():
        _fail(RulingsError(f"{latest} does not exist; run `ruling-dumps run` first"))
    problems = verify_snapshot(latest, TABLE_MODELS)
    if problems:
        _fail(RulingsError(f"{latest.resolve()} is not sound: " + "; ".join(problems)))
    typer.echo(
        f"{latest.resolve()}: all {len(TABLE_MODELS)} tables match the contract and the manifest"
    )


@app.command()
def serve(
    raw: RawOption = Path("raw"),
    output: OutputOption = Path("output"),
    retention: RetentionOption = 7,
    cron: Annotated[str, typer.Option("--cron", help="When to run (cron).")] = "0 3 * * *",
    timezone: Annotated[str, typer.Option("--timezone", help="Time zone of --cron.")] = "UTC",
    catalog: CatalogOption = None,
) -> None:
    """Serve the nightly deployment: run on a schedule against a Prefect server.

    Needs PREFECT_API_URL pointing at a running server (`prefect server start`):
    schedules do not fire on the temporary local server. Runs until stopped.

    Example:

        PREFECT_API_URL=http://127.0.0.1:4200/api ruling-dumps serve --cron "0 3 * * *"
    """
    if not os.environ.get("PREFECT_API_URL"):
        _fail(RulingsError("serve needs PREFECT_API_URL (start a server: prefect server start)"))
    if catalog:
        try:
            load_catalog(catalog, output / "state" / "catalog")
        except RulingsError as exc:
            _fail(exc)
    for name, value in QUIET_PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)
    from flows.rulings_flow import nightly_deployment, serve_nightly

    serve_nightly(nightly_deployment(raw, output, retention, cron, timezone, catalog))


bench_app = typer.Typer(
    epilog="Example: ruling-dumps bench generate --lines 100000 /tmp/c100k && "
    "ruling-dumps bench run /tmp/c100k",
    add_completion=False,
    no_args_is_help=True,
    help="Benchmark: generate a corpus from real data, measure the pipeline.",
)
app.add_typer(bench_app, name="bench")
RealOption = Annotated[
    Path, typer.Option("--real", help="Real data folder (derived/, zh_release_notes/).")
]


@bench_app.command("generate")
def bench_generate(
    out: Annotated[Path, typer.Argument(help="Folder to write the dumps into (must be empty).")],
    lines: Annotated[
        int, typer.Option("--lines", min=1, help="Lines to write, at least.")
    ] = 100_000,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same files.")] = 0,
    real: RealOption = Path("../shared/data/real"),
) -> None:
    """Write a realistic corpus of dumps built from real data (deterministic for a seed).

    Example:

        ruling-dumps bench generate --lines 1000000 /tmp/corpus-1m
    """
    from flows.corpus import generate_corpus

    if out.exists() and any(out.iterdir()):
        _fail(RulingsError(f"{out} is not empty; give a new folder"))
    stats = generate_corpus(real, out, lines, seed)
    typer.echo(
        f"wrote {stats.dumps} dumps, {stats.lines} lines, {stats.bytes} bytes "
        f"({stats.cards} cards) into {out}"
    )


@bench_app.command("run")
def bench_run(
    corpus: Annotated[Path, typer.Argument(help="A corpus from `bench generate`.")],
    work: Annotated[
        Path, typer.Option("--work", help="Scratch folder (copied corpus, outputs).")
    ] = Path("/tmp/ruling-dumps-bench"),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/results.json"
    ),
) -> None:
    """Measure cold and warm runs, the floor and the naive reference; write RESULTS.

    Example:

        ruling-dumps bench run /tmp/corpus-1m --results bench/results-1m.json
    """
    import json

    from flows.bench import run_benchmark

    measured = run_benchmark(corpus, work)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(measured, indent=2) + "\n", encoding="utf-8")
    typer.echo(json.dumps(measured["against_targets"], indent=2))


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
    for what, count in result["work"].items():
        table.add_row(f"work: {what}", str(count))
    for change in ("added", "changed", "removed"):
        table.add_row(f"files {change} since previous", str(len(result["since_previous"][change])))
    table.add_row("snapshot", result["snapshot"])
    if "catalog" in result:
        table.add_row("catalog", result["catalog"])
    if "report_html" in result:
        table.add_row("report (charts)", result["report_html"])
    return table


def main() -> None:
    """Console script entry point (`ruling-dumps`)."""
    app()


from flows.cli_eval import eval_app  # noqa: E402  (registered after the other commands)

app.add_typer(eval_app, name="eval")
