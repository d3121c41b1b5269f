"""Command line: `ruling-dumps run`, `validate`, `serve`, `bench` (also `python -m flows`).

The CLI only parses arguments, sets quiet Prefect defaults for machines with
no internet, and calls the flow; `run` imports the pipeline while Prefect's
temporary server starts and ends its summary with the server's start and the
pipeline's own time, each on its own line. Every failure ends as one `error:`
line on stderr and exit code 1; `--debug` (or RULING_DUMPS_DEBUG=1) adds the traceback.
Any of these may be overridden from the environment (they are set only when unset):
    PREFECT_SERVER_ANALYTICS_ENABLED=false, DO_NOT_TRACK=1: no telemetry calls.
    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=180: how long the temporary
        local server may take to start (Prefect's default, 20 s, is too short
        on a busy machine, and a fresh PREFECT_HOME migrates its database first).
    PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL=CRITICAL: Prefect's console lines
        (its tracebacks included); the pipeline's progress lines and errors are
        printed by the CLI.
    PREFECT_LOGGING_EXTRA_LOGGERS=flows: the pipeline's INFO lines go to the
        Prefect API (the UI shows them with the flow run's own lines).
    PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW=ignore: lines logged outside a
        flow run (the CLI's own) stay local without a warning.
    PREFECT_SERVER_LOGGING_LEVEL=WARNING: the temporary server's own lines.
    DASK_LOGGING__DISTRIBUTED=warning: Dask's scheduler and worker lines (with --dask-*).
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from flows.errors import INTERRUPTED_UNPUBLISHED, RulingsError, ServerStartError
from flows.paths import OutputPaths
from flows.stages import pools
from flows.stages.catalog import checked_catalog, load_catalog
from flows.stages.read import MAX_FILE_BYTES, list_dump_paths
from flows.stages.runlock import hold_run_lock
from flows.stages.write import (
    check_output_dir,
    check_raw_output_overlap,
    latest_target,
    resolve_latest,
    verify_snapshot,
)
from schemas import TABLE_MODELS

#: Seconds the temporary Prefect server may take to start, unless set.
SERVER_STARTUP_TIMEOUT = 180

QUIET_PREFECT_DEFAULTS: dict[str, str] = {
    "DASK_LOGGING__DISTRIBUTED": "warning",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": str(SERVER_STARTUP_TIMEOUT),
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "CRITICAL",
    "PREFECT_LOGGING_EXTRA_LOGGERS": "flows",
    "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
}

#: Set by `main` (the console script): only a real command line, which ends with its run,
#: guards its children and freezes its heap (`gc.freeze`).
_CONSOLE_SCRIPT = False

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
    with _one_line_errors():
        _guard_children()
        list_dump_paths(raw)
        check_raw_output_overlap(raw, output)
        check_output_dir(output)
        with hold_run_lock(output), _ctrl_c(output), ExitStack() as held:  # the lock: to the end
            if catalog:  # a bad catalog fails here, before Prefect starts; the run takes its parse
                held.enter_context(checked_catalog(catalog, OutputPaths(output).catalog_cache))
            _set_quiet_defaults()
            _show_progress()
            logging.getLogger("flows.cli").info(
                "run %s -> %s (Prefect API: %s)",
                raw,
                output,
                os.environ.get("PREFECT_API_URL") or "temporary local server",
            )
            # the pipeline's imports and (unless Dask detects) the word lists load while the
            # server starts
            clock = _start_prefect(load_word_lists=not (dask_address or dask_workers))
            from flows.rulings_flow import rulings_flow, run_on_dask, without_heartbeats

            with without_heartbeats() if clock.server_start_s is not None else nullcontext():
                if dask_address or dask_workers:
                    result = run_on_dask(
                        raw,
                        output,
                        retention,
                        dask_address,
                        dask_workers or 2,
                        max_file_mb * 2**20,
                        catalog=catalog,
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
        _print_summary(result, clock)


@app.command()
def validate(output: OutputOption = Path("output")) -> None:
    """Check OUTPUT/latest against the contract (schemas/) and its manifest.

    Exits 1 and names each problem (a table that breaks the contract, a file
    whose sha256 differs from manifest.json, Parquet and JSON Lines that
    disagree).

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
    with _one_line_errors():
        if not os.environ.get("PREFECT_API_URL"):
            raise RulingsError("serve needs PREFECT_API_URL (start a server: prefect server start)")
        if catalog:  # a bad catalog fails here, before anything is served
            load_catalog(catalog, OutputPaths(output).catalog_cache)
        _guard_children()
        _set_quiet_defaults()
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


def _record(measured: dict[str, Any], results: Path) -> None:
    """Write a benchmark's results as JSON to `results`; print its figures against the targets."""
    import json

    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(measured, indent=2) + "\n", encoding="utf-8")
    typer.echo(json.dumps(measured["against_targets"], indent=2))


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
    try:
        from flows.bench import run_benchmark
    except ImportError as exc:  # psutil, httpx: the `bench` extra
        _fail(RulingsError(f"{exc}; install the bench extra: pip install -e '.[bench]'"))
    with _one_line_errors():
        _record(run_benchmark(corpus, work), results)


@bench_app.command("seeds")
def bench_seeds(
    raw: RawOption = Path("raw"),
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs to time (median).")] = 3,
    work: Annotated[
        Path, typer.Option("--work", help="Scratch folder (outputs, Prefect's home).")
    ] = Path("/tmp/ruling-dumps-bench-seeds"),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/results-seeds.json"
    ),
) -> None:
    """Time `make run` on the seeds: Prefect's server start, and the pipeline's work after it.

    Example:

        ruling-dumps bench seeds --runs 3 --results bench/results-seeds.json
    """
    try:
        from flows.bench import run_seed_benchmark
    except ImportError as exc:  # psutil, httpx: the `bench` extra
        _fail(RulingsError(f"{exc}; install the bench extra: pip install -e '.[bench]'"))
    with _one_line_errors():
        _record(run_seed_benchmark(raw, work, runs), results)


#: What a Ctrl-C says once the run has returned and the process is ending (`_ctrl_c`).
_ending_line: str | None = None


@contextmanager
def _ctrl_c(output: Path) -> Iterator[None]:
    """Ctrl-C during a run: one line saying whether it was published; a second one ends it at once.

    The first SIGINT raises KeyboardInterrupt as Python's own handler does: the
    run rolls back unless its state was committed. Whatever then comes out
    (Prefect may turn the interrupt into its own error, or a best-effort step
    swallow it), the run ends with RulingsError `interrupted: nothing was
    published`, or `interrupted after the run was published (latest ->
    snapshots/<run_id>)`, by whether `latest` moved. A second SIGINT ends the
    process at once (`os._exit(1)`, one line, no traceback); the orphan
    watcher then ends its children. In the console script the handler stays
    to the end: a Ctrl-C while the summary prints or Prefect's exit handlers
    run ends the process with the published line, not their tracebacks.

    Only in the main thread (signal handlers live there), and not when SIGINT
    was ignored from the start (a background job); elsewhere (tests) the
    previous handler is put back after the run.
    """
    global _ending_line
    before = latest_target(output)
    previous = signal.getsignal(signal.SIGINT)
    handled = threading.current_thread() is threading.main_thread() and (
        previous is not signal.SIG_IGN
    )
    if handled:
        signal.signal(signal.SIGINT, _on_ctrl_c)
    pools.interrupted.clear()  # set by the run's first Ctrl-C (`_on_ctrl_c`)
    _ending_line = None
    try:
        try:
            yield
        except BaseException as exc:
            if not (pools.interrupted.is_set() or isinstance(exc, KeyboardInterrupt)):
                raise
            raise RulingsError(_interrupted_line(output, before)) from exc
        if pools.interrupted.is_set():  # swallowed on its way (a best-effort step): the run went on
            raise RulingsError(_interrupted_line(output, before))
        _ending_line = f"error: {_interrupted_line(output, before)}"
    finally:
        if handled and not _CONSOLE_SCRIPT:
            signal.signal(signal.SIGINT, previous)
            _ending_line = None


def _interrupted_line(output: Path, before: str | None) -> str:
    after = latest_target(output)
    if after != before:
        return f"interrupted after the run was published (latest -> {after})"
    return INTERRUPTED_UNPUBLISHED


def _on_ctrl_c(signum: int, frame: Any) -> None:
    if _ending_line is not None:  # the run has returned: the process is ending
        _exit_at_once(_ending_line)
    if pools.interrupted.is_set():  # the second Ctrl-C: the first one's rollback is cut short
        _exit_at_once("error: interrupted again: stopped at once")
    pools.interrupted.set()  # the run's flag: language detection stops at its next chunk
    raise KeyboardInterrupt


def _exit_at_once(line: str) -> None:
    os.write(2, f"{line}\n".encode())
    os._exit(1)


def _fail(exc: Exception) -> None:
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


def describe_error(exc: BaseException) -> str:
    """One line saying what failed: our errors as they are, others with their type."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    if isinstance(exc, RulingsError | OSError):
        text = str(exc)
    elif type(exc).__name__ in {"ConnectError", "ConnectTimeout"}:  # httpx, from Prefect
        url = os.environ.get("PREFECT_API_URL", "the Prefect API")
        text = (
            f"cannot reach the Prefect server at {url} ({exc}); start it "
            "(prefect server start) or fix PREFECT_API_URL"
        )
    else:
        text = f"{type(exc).__name__}: {exc} (rerun with --debug for the traceback)"
    line = " ".join(text.split())
    return line if len(line) <= 600 else line[:597] + "..."


def _set_quiet_defaults() -> None:
    for name, value in QUIET_PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)


def _guard_children() -> None:
    """On the command line, start the watcher that ends this run's children with it."""
    if _CONSOLE_SCRIPT:
        from flows.orphans import watch_children

        watch_children()


@dataclass
class RunClock:
    """Where a run's wall time went (seconds, `time.monotonic`).

    server_start_s: from starting Prefect's temporary server until it answered
        its first API call (None: PREFECT_API_URL names a running server).
    pipeline_from: when the pipeline's own work began (the server up, or
        the CLI's checks done when no server was started).
    pipeline_s: from `pipeline_from` until the flow returned.
    """

    server_start_s: float | None
    pipeline_from: float
    pipeline_s: float = 0.0


#: Modules the run would import on first use (pandera's polars checks, Prefect's task
#: engine and its visualization hook): imported while the server starts instead.
DEFERRED_IMPORTS = (
    "flows.rulings_flow",
    "prefect.task_engine",
    "prefect.utilities.visualization",
    "pandera.backends.polars.builtin_checks",
)


def _import_pipeline() -> None:
    """Import the flow, its stages and the modules they load lazily (`DEFERRED_IMPORTS`).

    In the console script, the objects made so far (~270k: modules, langdetect's
    profiles) then leave the garbage collector's view (`gc.freeze`): they live
    until the process ends, and each full collection during the run would
    otherwise walk them all again (0.3 s each on the shared 2-core machine).
    """
    for name in DEFERRED_IMPORTS:
        importlib.import_module(name)
    if _CONSOLE_SCRIPT:
        gc.freeze()


def _start_prefect(load_word_lists: bool = False) -> RunClock:
    """Start Prefect's temporary server (unless PREFECT_API_URL is set), importing the pipeline
    meanwhile; say when it is up.

    The server boots in a subprocess for seconds while this process would wait:
    the imports (polars, pandera, langdetect's profiles, wordfreq: ~1.5 s) run
    in that time instead of after it, and with `load_word_lists` wordfreq's
    common lists too (`language.load_word_lists`, ~1.4 s), which this process
    reads whenever a run has new texts (`language.decide_language`). Only for
    a temporary server: with PREFECT_API_URL set nothing waits, so they load
    on first use.

    Raises:
        ServerStartError: it did not answer within the startup timeout.
    """
    if os.environ.get("PREFECT_API_URL"):
        started = time.monotonic()
        _import_pipeline()
        return RunClock(server_start_s=None, pipeline_from=started)
    server = _TemporaryServer()
    _import_pipeline()
    if load_word_lists:
        from flows.stages.language import load_word_lists as load

        load()
    up_at = server.wait()
    return RunClock(server_start_s=up_at - server.started_at, pipeline_from=up_at)


class _TemporaryServer:
    """Prefect's temporary local server, started in a thread (the flow then reuses it)."""

    def __init__(self) -> None:
        self.timeout = int(os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"])
        self.log = logging.getLogger("flows.cli")
        self.log.info("starting Prefect's temporary server (up to %d s)...", self.timeout)
        self.started_at = time.monotonic()
        self.up_at: float | None = None
        self.error: BaseException | None = None
        # imported here, not in the thread: no module is imported by two threads at once
        from prefect.server.api.server import SubprocessASGIServer

        self.server = SubprocessASGIServer()
        self.thread = threading.Thread(target=self._start, name="prefect-server-start", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        import httpx

        # The server process inherits this thread's signal mask: a Ctrl-C at the terminal
        # (SIGINT to the whole process group) then stops the run but not the server, which
        # Prefect still needs to record the crash; it stops at exit (SIGTERM, Prefect's
        # atexit). Reached dead, Prefect retried its reports for minutes.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.server.start(timeout=self.timeout)
            # A fresh server answers /health at once but builds its database engine on the
            # first API call (~0.8 s): that is part of its start, not of the run's work.
            api = f"{self.server.api_url}/admin/version"
            httpx.get(api, timeout=self.timeout).raise_for_status()
            self.up_at = time.monotonic()
            self.log.info("Prefect's temporary server is up (%.1f s)", self.up_at - self.started_at)
        except BaseException as exc:  # raised by `wait`, in the main thread
            self.error = exc

    def wait(self) -> float:
        """Wait until the server is up; return that moment (`time.monotonic`).

        Raises:
            ServerStartError: it did not start within the startup timeout.
        """
        self.thread.join()
        if isinstance(self.error, RuntimeError):
            raise ServerStartError(
                f"Prefect's temporary server did not start within {self.timeout} s; set "
                "PREFECT_API_URL to a running server (prefect server start), or allow longer "
                "with PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"
            ) from self.error
        if self.error is not None:
            raise self.error
        assert self.up_at is not None  # set whenever there was no error
        return self.up_at


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


def main() -> None:
    """Console script entry point (`ruling-dumps`, `python -m flows`)."""
    global _CONSOLE_SCRIPT
    _CONSOLE_SCRIPT = True
    try:
        app()
    finally:
        # The process ends now: spare the interpreter's final garbage collections the ~470k
        # objects a run leaves alive (langdetect's profiles, wordfreq's word lists), which
        # took 4 s after the summary of a run on the seeds.
        gc.freeze()


from flows.cli_eval import eval_app  # noqa: E402  (registered after the other commands)

app.add_typer(eval_app, name="eval")
