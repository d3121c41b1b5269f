"""The nightly Prefect flow: raw dumps in, a validated snapshot out.

One of the two modules that import Prefect (with `prefect_server`, the
temporary server's start). The steps and their one sequence are `flows.run`
(also run without Prefect by `run.DirectRunner`); here each step runs as a
task (`PrefectRunner`), the ones of `flows.disk` retried on transient OS
errors, and `rulings_flow` runs the sequence with them: under the output
dir's run lock, parse, detect languages, build and validate every table
against `schemas`, publish, save the state for the next run, and apply
retention. Tasks use no Prefect cache (`NO_CACHE`): a path argument does not
change when a file's bytes do; the incremental work is done by our own
content-hash caches (`disk.state`, `stages.reuse`).

Environment (read by Prefect; the CLI sets quiet defaults for offline machines):
    PREFECT_API_URL: a Prefect server; unset runs on a temporary local server.
    PREFECT_SERVER_ANALYTICS_ENABLED, DO_NOT_TRACK: telemetry (off in the CLI).
    PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL: console level of Prefect's own logs
        (CRITICAL in the CLI; `prefect_server.py` sets the quiet defaults).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import errno
import logging
import os
import sys
from asyncio import FIRST_COMPLETED
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.deployments.runner import RunnerDeployment
from prefect.runner import Runner
from prefect.schedules import Cron
from prefect.states import State
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.utilities.annotations import quote

import flows
from flows import run as run_module
from flows.disk.paths import OutputPaths
from flows.disk.raw import MAX_FILE_BYTES
from flows.errors import RulingsError
from flows.prefect_server import heartbeats
from flows.processes.interrupt import over_prefect_sigterm, recording_stops, serve_stops
from flows.processes.runner import Pending
from flows.processes.watcher import watch_children

#: Deployment defaults: the nightly refresh at 03:00 UTC, the last 7 snapshots kept.
NIGHTLY_CRON = "0 3 * * *"
NIGHTLY_TIMEZONE = "UTC"
DEFAULT_RETENTION = 7
DEPLOYMENT_NAME = "nightly"
#: One nightly run at a time (a second one waits; the run lock would stop it anyway).
NIGHTLY_CONCURRENCY_LIMIT = 1

#: The flow's own lines; with the stages' under `flows`, shown by the CLI and sent to the API.
logger = logging.getLogger(__name__)
# The stages' INFO lines go to the Prefect API (PREFECT_LOGGING_EXTRA_LOGGERS=flows); a
# served flow run's process has no other place that sets their level.
if logging.getLogger("flows").level == logging.NOTSET:
    logging.getLogger("flows").setLevel(logging.INFO)


#: OS errors worth retrying: the same call may well succeed a moment later. A
#: permission error, a folder where a file should be or a vanished file fails at once.
TRANSIENT_ERRNOS = frozenset(
    {errno.EAGAIN, errno.EBUSY, errno.EINTR, errno.EIO, errno.ESTALE, errno.ETIMEDOUT}
)


def is_transient(exc: BaseException) -> bool:
    """True for an OSError whose errno is in `TRANSIENT_ERRNOS`."""
    return isinstance(exc, OSError) and exc.errno in TRANSIENT_ERRNOS


def _retry_transient(task: Any, task_run: Any, state: State) -> bool:
    """Prefect retry condition: retry a task only on a transient OS error."""
    try:
        state.result()
    except Exception as exc:
        return is_transient(exc)
    return False


_IO_RETRIES: dict[str, Any] = {
    "retries": 3,
    "retry_delay_seconds": [1, 4, 16],  # exponential backoff
    "retry_condition_fn": _retry_transient,
    "cache_policy": NO_CACHE,
}


def as_task(step: Callable[..., Any]) -> Any:
    """`step` as a Prefect task named after it, never cached; a step of `flows.disk` (it
    touches the disk) is retried on transient OS errors. Made once per function."""
    made = _TASKS.get(step)
    if made is None:
        io = step.__module__.startswith("flows.disk.")
        options = _IO_RETRIES if io else {"cache_policy": NO_CACHE}
        made = _TASKS[step] = task(name=step.__name__, **options)(step)
    return made


_TASKS: dict[Callable[..., Any], Any] = {}


class PrefectRunner:
    """Runs the steps as Prefect tasks (`run.Runner`); submitted ones on the flow's task runner.

    A called step's arguments are `quote()`d: Prefect would walk a manifest of
    100,000 inputs or a list of part paths item by item looking for futures
    (there are none: `run_steps` hands over results, not futures). Submitted
    steps (parse and language batches) take Series, frames, paths and the
    parse workers' executor (None on Dask), which Prefect does not walk, and
    go unquoted (the Dask runner would pass a quote on as a tuple).
    """

    def call(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a step as a task in the flow's thread and return its value."""
        quoted = {name: quote(value) for name, value in kwargs.items()}
        return as_task(step)(*(quote(a) for a in args), **quoted)

    def submit(self, step: Callable[..., Any], *args: Any) -> Pending:
        """Submit a step's task to the flow's task runner."""
        future: Pending = as_task(step).submit(*args)  # no quote(): Dask sees a tuple
        return future


#: Parse batches at a time (threads) on one machine: one per core. Prefect's default is
#: unbounded: 21 batches at once at a million lines multiplied the memory held and
#: aborted the run (a failed 2 MiB allocation) on a 2-core machine.
LOCAL_TASK_THREADS = os.cpu_count() or 1


class RunSummary(Mapping[str, Any]):
    """What `rulings_flow` returns: the run's manifest, plus `snapshot` and `report_html` paths.

    A read-only mapping rather than a dict because Prefect walks a flow's
    returned dict item by item looking for futures: with the manifest's one
    entry per input file, that walk cost 0.7 s per 10,000 files (7 s at a
    million lines). `dict(summary)` gives a plain dict.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"RunSummary(run_id={self._data.get('run_id')!r})"


@flow(
    name="ruling-dumps",
    log_prints=False,
    task_runner=ThreadPoolTaskRunner(max_workers=LOCAL_TASK_THREADS),
)
def rulings_flow(
    raw_dir: Path = Path("raw"),
    output_dir: Path = Path("output"),
    retention: int = DEFAULT_RETENTION,
    language_batches: int = 1,
    processes: int = 0,
    batch_files: int = run_module.BATCH_FILES,
    max_file_bytes: int = MAX_FILE_BYTES,
    one_line_outcome: bool = False,
    catalog: Path | None = None,
) -> RunSummary:
    """Turn the dumps in `raw_dir` into a validated snapshot under `output_dir`.

    `flows.run.run_steps` with each step a task, plus the report artifact and the outcome line.

    Args:
        raw_dir: folder of dump files (*.txt, searched recursively).
        output_dir: gets `snapshots/<run_id>/`, the `latest` symlink, and
            `state/` (caches and the id registry); see `flows.disk.paths`.
        retention: how many snapshots to keep (at least 1).
        language_batches: tasks the language detection is split into (1 on one machine).
        processes: langdetect processes per detection task and parse worker
            processes (0: one per core; 1 on Dask workers). batch_files: files per parse task.
        max_file_bytes: larger files are not read (a `read` reject; default 64 MiB).
        one_line_outcome: print one line on stderr when the run ends (run id,
            rows, snapshot; or `error: ...`): the served nightly runs do.
        catalog: an MTGJSON AllPrintings.json(.xz|.gz) or folder of set files:
            dumps are attributed to its cards and `ruling_cards` is filled.

    Returns:
        A read-only `RunSummary`: the run's manifest, `snapshot` and `report_html`.

    Raises:
        RunLockedError: another run is publishing into `output_dir`. RawDirError:
        no dump to read, or raw and output overlap. ContractError: a table breaks
        the contract as a whole. PublishError: see `disk.snapshot`.
    """
    if os.environ.get("PREFECT__FLOW_RUN_ID"):  # a process Prefect's runner started (served)
        watch_children()  # its children end with it, even after kill -9 of it alone
    started_at = dt.datetime.now(dt.UTC)
    run = run_module.RunSettings(
        raw_dir=raw_dir,
        output=OutputPaths(output_dir),
        run_id=run_module.new_run_id(started_at),
        started_at=started_at,
        retention=retention,
        language_batches=language_batches,
        processes=processes or os.cpu_count() or 1,
        batch_files=batch_files,
        max_file_bytes=max_file_bytes,
        catalog=catalog,
    )
    try:
        with over_prefect_sigterm(), heartbeats():  # under the CLI, SIGTERM stops as Ctrl-C
            result = run_module.run_steps(PrefectRunner(), run)
    except Exception as exc:
        if one_line_outcome:
            _say(f"error: run {run.run_id} failed, nothing published: {exc}")
        raise
    return _summarize(result, one_line_outcome)


def _summarize(result: run_module.RunResult, one_line_outcome: bool) -> RunSummary:
    """Post the report, say the outcome line when asked, and sum the run up."""
    run_id, rows = result["manifest"]["run_id"], result["manifest"]["rows"]
    charts = result["snapshot"] / "report.html"
    _post_report(f"{result['report']}\nCharts: `{charts}`\n", run_id)
    if one_line_outcome:
        _say(
            f"run {run_id} published {rows['rulings']} rulings "
            f"({sum(rows.values())} rows) to {result['snapshot']}"
        )
    return RunSummary({
        **result["manifest"],
        "snapshot": str(result["snapshot"]),
        "report_html": str(charts),
    })  # fmt: skip


def _post_report(markdown: str, run_id: str) -> None:
    """The report as a Prefect artifact (best effort: the run is already published)."""
    try:
        create_markdown_artifact(
            markdown=markdown, key="ruling-dumps-report", description=f"ruling-dumps run {run_id}"
        )
    except Exception as exc:
        logger.warning("report artifact not posted (the run is published): %s", exc)


def _say(line: str) -> None:
    """One outcome line on stderr (served runs: the operator's console)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def run_on_dask(
    raw_dir: Path,
    output_dir: Path,
    retention: int = DEFAULT_RETENTION,
    address: str | None = None,
    workers: int = 2,
    max_file_bytes: int = MAX_FILE_BYTES,
    catalog: Path | None = None,
) -> RunSummary:
    """Run `rulings_flow` with its parse and language batches on a Dask cluster.

    Args:
        address: an existing cluster's scheduler (`tcp://HOST:8786`); its
            workers must see `raw_dir` and `output_dir` at the same paths (the
            parse batches read the raw files and write Parquet parts under
            `output_dir/state/parts/`), and have this package installed.
        workers: without `address`, the size of a local cluster of worker
            processes (one thread each) started for this run.

    The global steps (dedup, ids, validation, publish) run here, on the driver.
    """
    from distributed import LocalCluster
    from prefect_dask import DaskTaskRunner

    def run(runner: DaskTaskRunner, batches: int) -> RunSummary:
        result: RunSummary = rulings_flow.with_options(task_runner=runner)(
            raw_dir=raw_dir,
            output_dir=output_dir,
            retention=retention,
            language_batches=batches,
            processes=1,
            max_file_bytes=max_file_bytes,
            catalog=catalog,
        )
        return result

    if address:
        return run(DaskTaskRunner(address=address), 4 * workers)
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    try:
        return run(DaskTaskRunner(address=cluster.scheduler_address), 4 * workers)
    finally:
        _close_cluster(cluster)


#: Seconds a local Dask worker process gets to exit before its nanny kills it. Dask's
#: default (4 s) is short on a busy machine: "Worker process still alive after 4.0
#: seconds, killing" on the operator's console.
WORKER_CLOSE_TIMEOUT = 60


def _close_cluster(cluster: Any) -> None:
    """Stop a local cluster's workers (each has WORKER_CLOSE_TIMEOUT to exit), then the cluster."""

    async def close_workers() -> None:
        nannies = list(cluster.workers.values())
        await asyncio.gather(*(n.close(timeout=WORKER_CLOSE_TIMEOUT) for n in nannies))

    cluster.sync(close_workers)
    cluster.close(timeout=WORKER_CLOSE_TIMEOUT)


def nightly_deployment(
    raw_dir: Path,
    output_dir: Path,
    retention: int = DEFAULT_RETENTION,
    cron: str = NIGHTLY_CRON,
    timezone: str = NIGHTLY_TIMEZONE,
    catalog: Path | None = None,
) -> RunnerDeployment:
    """The `nightly` deployment of `rulings_flow`: on `cron` in `timezone`, these parameters,
    one run at a time, each printing one line when it ends."""
    return rulings_flow.to_deployment(
        name=DEPLOYMENT_NAME,
        schedules=[Cron(cron, timezone=timezone)],
        parameters={
            "raw_dir": str(raw_dir.resolve()),
            "output_dir": str(output_dir.resolve()),
            "retention": retention,
            "one_line_outcome": True,
            **({"catalog": str(catalog.resolve())} if catalog else {}),
        },
        description="Nightly refresh of the ruling tables under output/latest.",
        version=flows.__version__,
        concurrency_limit=NIGHTLY_CONCURRENCY_LIMIT,
    )


def serve_nightly(deployment: RunnerDeployment, announce: Callable[[], None]) -> int:
    """Serve `deployment` until a stop signal (`interrupt.serve_stops`); its scheduled and
    triggered runs run here. Returns the signal that stopped it (a run in progress is
    cancelled first).

    Needs a Prefect server (PREFECT_API_URL): schedules do not fire on the
    temporary in-process server. `announce` is called once the runner polls.
    The signals are the event loop's (`loop.add_signal_handler`), recorded
    before and after it (`interrupt.recording_stops`): none raises in the middle
    of Prefect's start or stop (with Prefect's `serve`, an early one could).

    Raises:
        RulingsError: the runner stopped without a stop signal; or its start's error.
    """
    signals = serve_stops()  # before any handler of ours (SIGHUP ignored under nohup)
    with recording_stops(signals) as received:
        runner = Runner(pause_on_shutdown=False)
        runner.add_deployment(deployment)
        asyncio.run(_serve_until_stopped(runner, signals, received, announce))
    if not received:
        raise RulingsError("serve's runner stopped by itself, without a stop signal")
    return received[0]


async def _serve_until_stopped(
    runner: Runner, signals: list[int], received: list[int], announce: Callable[[], None]
) -> None:
    stop = asyncio.Event()
    starting = asyncio.create_task(runner.start())
    await asyncio.sleep(0)  # the runner's start has put in its SIGTERM handler (its first lines)
    loop = asyncio.get_running_loop()
    for signum in signals:  # in place of Prefect's SIGTERM handler too
        loop.add_signal_handler(signum, lambda s=signum: (received.append(s), stop.set()))
    stopping = asyncio.create_task(stop.wait())
    if received:  # a signal before the loop took them over
        stop.set()
    while not (starting.done() or runner.started):  # connecting to the server
        await asyncio.wait({starting}, timeout=0.1)
    if runner.started:
        announce()
    await asyncio.wait({starting, stopping}, return_when=FIRST_COMPLETED)
    if not starting.done():
        await runner.astop()  # cancels a run in progress, then the polling
    stopping.cancel()
    await starting
