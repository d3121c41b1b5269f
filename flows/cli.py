"""Command line: `ruling-dumps run`, `validate`, `serve` (also `python -m flows`).

The CLI parses arguments and calls: the checks that fail before anything
runs (`disk`), Prefect's temporary server (`prefect_server`), the flow
(`prefect_flow`), then prints one summary. Every failure ends as one `error:`
line on stderr and exit code 1; `--debug` (or RULING_DUMPS_DEBUG=1) adds the
traceback. The benchmark and evaluation commands are tooling: `python -m bench`.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from flows.console import describe_error
from flows.disk.cache_keys import cache_keys
from flows.disk.catalog import checked_catalog, load_catalog
from flows.disk.lock import hold_run_lock
from flows.disk.paths import OutputPaths, check_raw_output_overlap
from flows.disk.raw import MAX_FILE_BYTES, dump_bytes, list_dump_paths
from flows.disk.snapshot import (
    check_output_dir,
    latest_target,
    resolve_latest,
)
from flows.disk.verify import verify_snapshot
from flows.errors import RulingsError
from flows.processes.interrupt import ctrl_c
from flows.processes.memory import address_space_limit, check_address_space
from schemas import TABLE_MODELS

if TYPE_CHECKING:
    from flows.prefect_server import RunClock

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
MaxFileMbOption = Annotated[
    int,
    typer.Option(
        "--max-file-mb", min=1, help="Files larger than this (MiB) are not read (a read reject)."
    ),
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
    ctx: typer.Context,
    raw: RawOption = Path("raw"),
    output: OutputOption = Path("output"),
    retention: RetentionOption = 7,
    max_file_mb: MaxFileMbOption = MAX_FILE_BYTES // 2**20,
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
    ends_with_run = _ends_with_run(ctx)
    dask = (dask_address, dask_workers or 2) if dask_address or dask_workers else None
    with _one_line_errors():
        if ends_with_run:  # this run's children end with it, however it ends
            from flows.processes.watcher import watch_children

            watch_children()
        paths = list_dump_paths(raw)  # the checks that need no Prefect fail first
        check_raw_output_overlap(raw, output)
        check_output_dir(output)
        if (limit := address_space_limit()) is not None:  # ulimit -v: a run over it aborts
            check_address_space(dump_bytes(raw, paths, max_file_mb * 2**20), limit)
        with (
            hold_run_lock(output),  # held to the end
            ctrl_c(lambda: latest_target(output), ends_with_run),
            ExitStack() as held,  # the catalog's parse, until the run takes it
        ):
            check = _catalog_check(held, catalog, output)
            result, clock = _run_flow(
                raw, output, retention, max_file_mb, catalog, dask, ends_with_run, check
            )
        _print_summary(result, clock)


def _catalog_check(held: ExitStack, catalog: Path | None, output: Path) -> Callable[[], None]:
    """The catalog's check and parse (`checked_catalog`: a bad catalog fails before the flow
    runs; the run takes its parse), held in `held`.

    Returned to run while Prefect's temporary server starts (the parse took
    2 min 45 s on a busy machine: `start_prefect`'s `meanwhile`); done at
    once when no server starts (PREFECT_API_URL), returning a no-op. Either
    way the parse prints its progress lines.
    """

    def check() -> None:
        if catalog is not None:
            held.enter_context(checked_catalog(catalog, OutputPaths(output).catalog_cache))

    if os.environ.get("PREFECT_API_URL"):
        _show_progress()
        check()
        return lambda: None
    return check


def _cached_word_list(cache_dir: Path, lang: str) -> Any:
    """`disk.word_lists.cached_word_list`, imported on its first call (it imports wordfreq,
    which loads once Prefect's server is starting: `prefect_server.DEFERRED_IMPORTS`)."""
    from flows.disk.word_lists import cached_word_list

    return cached_word_list(cache_dir, lang)


def _run_flow(
    raw: Path,
    output: Path,
    retention: int,
    max_file_mb: int,
    catalog: Path | None,
    dask: tuple[str | None, int] | None,
    ends_with_run: bool,
    check_catalog: Callable[[], None],
) -> tuple[Mapping[str, Any], RunClock]:
    """Start Prefect (importing the pipeline and checking the catalog meanwhile) and run the
    flow, or on Dask; time it."""
    from flows import prefect_server

    prefect_server.set_quiet_defaults()
    _show_progress()
    api = os.environ.get("PREFECT_API_URL") or "temporary local server"
    logging.getLogger("flows.cli").info("run %s -> %s (Prefect API: %s)", raw, output, api)
    # the word lists load while the server starts, unless Dask's workers detect
    lists = partial(_cached_word_list, OutputPaths(output).word_lists) if dask is None else None
    if lists and os.environ.get("PREFECT_API_URL") and not OutputPaths(output).state.exists():
        from flows.disk.word_lists import word_list_cache  # wordfreq: no server start to wait for
        from flows.processes.pools import preload_word_lists

        preload_word_lists(word_list_cache(OutputPaths(output).word_lists))  # a first run's
    clock = prefect_server.start_prefect(
        word_lists=lists, freeze=ends_with_run, meanwhile=(cache_keys, check_catalog)
    )
    from flows.prefect_flow import rulings_flow, run_on_dask

    temporary = clock.server_start_s is not None
    beats = prefect_server.without_heartbeats if temporary else prefect_server.prompt_heartbeats
    with beats():
        if dask is not None:
            result = run_on_dask(
                raw, output, retention, dask[0], dask[1], max_file_mb * 2**20, catalog=catalog
            )
        else:
            result = rulings_flow(
                raw_dir=raw,
                output_dir=output,
                retention=retention,
                max_file_bytes=max_file_mb * 2**20,
                catalog=catalog,
            )
    clock.pipeline_s = time.monotonic() - clock.pipeline_from
    return result, clock


@app.command()
def validate(output: OutputOption = Path("output")) -> None:
    """Check OUTPUT/latest against the contract (schemas/) and its manifest.

    Exits 1 and names each problem with its file (a file missing, unreadable or
    whose sha256 differs from manifest.json, a table that breaks the contract,
    Parquet and JSON Lines that disagree).

    Example:

        ruling-dumps validate --output output
    """
    with _one_line_errors():
        snapshot = resolve_latest(output)  # once: a switch meanwhile must not mix two runs
        problems = verify_snapshot(snapshot, TABLE_MODELS)
        if problems:
            raise RulingsError(f"{snapshot} is not sound: " + "; ".join(problems))
    typer.echo(f"{snapshot}: all {len(TABLE_MODELS)} tables match the contract and the manifest")


@app.command()
def serve(
    ctx: typer.Context,
    raw: RawOption = Path("raw"),
    output: OutputOption = Path("output"),
    retention: RetentionOption = 7,
    cron: Annotated[str, typer.Option("--cron", help="When to run (cron).")] = "0 3 * * *",
    timezone: Annotated[str, typer.Option("--timezone", help="Time zone of --cron.")] = "UTC",
    catalog: CatalogOption = None,
) -> None:
    """Serve the nightly deployment: run on a schedule against a Prefect server.

    Needs PREFECT_API_URL pointing at a running server (`prefect server start`):
    schedules do not fire on the temporary local server. Runs until stopped by
    Ctrl-C, SIGINT, SIGTERM or SIGHUP (a run in progress is cancelled), then
    prints `serve stopped (<signal>)`.

    Example:

        PREFECT_API_URL=http://127.0.0.1:4200/api ruling-dumps serve --cron "0 3 * * *"
    """
    with _one_line_errors():
        if not os.environ.get("PREFECT_API_URL"):
            raise RulingsError("serve needs PREFECT_API_URL (start a server: prefect server start)")
        if catalog:  # a bad catalog fails here, before anything is served
            _show_progress()  # the parse's progress lines
            load_catalog(catalog, OutputPaths(output).catalog_cache)
        if _ends_with_run(ctx):
            from flows.processes.watcher import watch_children

            watch_children()
        from flows import prefect_server

        prefect_server.set_quiet_defaults()
        from flows.prefect_flow import nightly_deployment, serve_nightly

        deployment = nightly_deployment(raw, output, retention, cron, timezone, catalog)
        stopped_by = signal.Signals(serve_nightly(deployment, partial(_served, cron, timezone)))
    said = f"serve stopped ({stopped_by.name}): no nightly run until it is served again"
    typer.echo(said, err=True)


def _served(cron: str, timezone: str) -> None:
    """`serve`'s line once its runner polls the server for runs."""
    typer.echo(
        f"serving ruling-dumps/nightly ({cron!r}, {timezone}) from {os.environ['PREFECT_API_URL']}"
        f"; a run now: prefect deployment run ruling-dumps/nightly; stop: kill {os.getpid()}",
        err=True,
    )


def _fail(exc: Exception) -> None:
    with suppress(OSError):  # no terminal left to say it on (a hang-up)
        typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(1)


@app.callback()
def _options(
    debug: Annotated[
        bool, typer.Option("--debug", help="On a failure, print the traceback too.")
    ] = False,
) -> None:
    if debug:
        os.environ["RULING_DUMPS_DEBUG"] = "1"


@contextmanager
def _one_line_errors() -> Iterator[None]:
    """Turn any exception into one `error:` line and exit code 1 (traceback with --debug)."""
    try:
        yield
    except typer.Exit:
        raise
    except (Exception, KeyboardInterrupt) as exc:
        if os.environ.get("RULING_DUMPS_DEBUG") == "1":
            typer.echo("".join(traceback.format_exception(exc)), err=True, nl=False)
        _fail(RulingsError(describe_error(exc)))


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Progress lines to the current `sys.stderr` (which tests and runners may swap)."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def _show_progress() -> None:
    stages = logging.getLogger("flows")
    stages.setLevel(logging.INFO)
    stages.propagate = False
    if not any(isinstance(h, _StderrHandler) for h in stages.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
        stages.addHandler(handler)


def _summary_rows(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows = [("run", result["run_id"]), ("dump files", str(len(result["inputs"])))]  # read or not
    rows += [(f"lines: {kind}", str(n)) for kind, n in result["line_accounting"].items()]
    rows += [(f"table {name}", str(n)) for name, n in result["rows"].items()]
    rows += [(f"work: {what}", str(n)) for what, n in result["work"].items()]
    rows += [
        (f"files {change} since previous", str(len(result["since_previous"][change])))
        for change in ("added", "changed", "removed")
    ]
    if result.get("state_recovered"):
        rows.append(("state recovered", result["state_recovered"]))
    rows.append(("snapshot", result["snapshot"]))
    if "catalog_parsed" in result["work"]:  # a run with --catalog
        parsed = result["work"]["catalog_parsed"]
        rows.append(("catalog", "parsed and cached" if parsed else "read from its cache"))
    if "report_html" in result:
        rows.append(("report (charts)", result["report_html"]))
    return rows


def _time_rows(clock: RunClock) -> list[tuple[str, str]]:
    """The server's start and the pipeline's own work, each on its own line."""
    rows = []
    if clock.server_start_s is not None:
        rows.append(("time: prefect server start", f"{clock.server_start_s:.1f} s"))
    return [*rows, ("time: pipeline", f"{clock.pipeline_s:.1f} s")]


def _print_summary(result: Mapping[str, Any], clock: RunClock) -> None:
    """The run's counts and times: a table on a terminal, plain `key: value` lines otherwise."""
    rows = _summary_rows(result) + _time_rows(clock)
    if not console.is_terminal:
        typer.echo("".join(f"{what}: {value}\n" for what, value in rows), err=True, nl=False)
        return
    table = Table(title=f"run {result['run_id']}", show_header=False)
    table.add_column("what", overflow="fold")  # labels and paths whole, never cut with "…"
    table.add_column("count", justify="right", overflow="fold")
    for what, value in rows[1:]:
        table.add_row(what, value)
    console.print(table)


def _ends_with_run(ctx: typer.Context) -> bool:
    """True in the console script (`main`): the process ends with its command."""
    return bool((ctx.obj or {}).get("ends_with_run"))


def main() -> None:
    """The command line of the console script (`ruling-dumps`, `python -m flows`), which
    `flows.console.main` calls once this module is loaded.

    The process ends with its command: a run's children are watched
    (`processes.watcher`), its heap frozen after the imports, and its Ctrl-C
    handler kept to the very end (`processes.interrupt.ctrl_c`).
    """
    try:
        app(obj={"ends_with_run": True})
    finally:
        # The process ends now: spare the interpreter's final garbage collections the ~470k
        # objects a run leaves alive (langdetect's profiles, wordfreq's word lists), which
        # took 4 s after the summary of a run on the seeds.
        gc.freeze()
