"""Prefect's temporary local server: quiet settings, its start, the pipeline imported meanwhile;
the heartbeats of the command line's flow runs.

One of the two modules that import Prefect (with `prefect_flow`). `ruling-dumps
run` needs no Prefect server: unless PREFECT_API_URL names one, it starts
Prefect's temporary local server (`start_prefect`) and imports the pipeline
while the server boots. Any of these may be overridden from the environment
(`set_quiet_defaults` sets them only when unset):
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

import contextvars
import gc
import importlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flows.errors import ServerStartError

if TYPE_CHECKING:  # imported with the pipeline, once the server is starting
    from prefect.client.schemas.objects import FlowRun

    from flows.stages.word_frequency import WordListSource

# Prefect is imported where used: it reads QUIET_PREFECT_DEFAULTS from the environment,
# and importing it (about a second) would delay the temporary server's start.

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


def set_quiet_defaults() -> None:
    """Set each of QUIET_PREFECT_DEFAULTS that is unset (Prefect reads them at import)."""
    for name, value in QUIET_PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)


@contextmanager
def without_heartbeats() -> Iterator[None]:
    """Flow runs started inside send no heartbeat events (for runs on the temporary server).

    Heartbeats let a server's automation mark a run whose process died as
    crashed. Prefect's temporary server ends with the CLI's run, so nothing
    could read them there; and the engine's heartbeat thread sleeps in 1 s
    steps, so joining it delays the end of every flow run by up to 1 s.
    Served runs (`prefect_flow.serve_nightly`) keep them.
    """
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


#: Seconds between the heartbeats `heartbeats` sends; None: it sends none (the engine does).
_BEAT_SECONDS: contextvars.ContextVar[int | None] = contextvars.ContextVar("beat", default=None)


@contextmanager
def prompt_heartbeats() -> Iterator[None]:
    """Flow runs started inside (in this thread) get their heartbeats from `heartbeats`, every
    PREFECT_FLOWS_HEARTBEAT_FREQUENCY seconds (none when unset), not from Prefect's engine.

    For the command line's runs against a running server. The engine sends a
    flow run's heartbeats (events by which a server's automation can mark a run
    whose process died as crashed) from a thread that sleeps in 1 s steps and
    is joined when the run ends: 0 to 1 s added to every run (0.54-0.98 s
    measured at 1M lines; 1 s of an empty flow's 2.4 s). `heartbeats` sends the
    same events, as often, from a thread a stop wakes at once. Served runs
    (`prefect_flow.serve_nightly`) keep the engine's.
    """
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    from prefect.settings.context import get_current_settings

    token = _BEAT_SECONDS.set(get_current_settings().flows.heartbeat_frequency)
    try:
        with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
            yield
    finally:
        _BEAT_SECONDS.reset(token)


@contextmanager
def heartbeats() -> Iterator[None]:
    """The current flow run's heartbeats while inside, under `prompt_heartbeats` only: one
    now, then one every PREFECT_FLOWS_HEARTBEAT_FREQUENCY seconds (at least 30, as Prefect
    3.9's engine sends them)."""
    from prefect.context import FlowRunContext
    from prefect.events.utilities import emit_event

    seconds, context = _BEAT_SECONDS.get(), FlowRunContext.get()
    if seconds is None or context is None or context.flow_run is None:
        yield
        return
    flow_name = context.flow.name if context.flow else ""
    event, stop = heartbeat_event(context.flow_run, flow_name), threading.Event()

    def send() -> None:
        while True:
            try:
                emit_event(**event)
            except Exception as exc:  # as the engine's: a lost heartbeat fails no run
                logging.getLogger(__name__).debug("heartbeat not sent: %s", exc)
            if stop.wait(max(seconds, 30)):
                return

    # in this thread's context: Prefect's settings (its API) are the flow run's
    thread = threading.Thread(target=contextvars.copy_context().run, args=(send,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=2)  # as the engine: a heartbeat stuck in sending holds no run


def heartbeat_event(run: FlowRun, flow_name: str) -> dict[str, Any]:
    """`emit_event`'s arguments for a heartbeat of flow run `run` (the engine's event)."""
    from prefect import __version__ as prefect_version
    from prefect.events.related import RelatedResource, tags_as_related_resources

    related = []
    if run.flow_id:
        flow = {"id": f"prefect.flow.{run.flow_id}", "role": "flow", "name": flow_name}
        related.append(RelatedResource({f"prefect.resource.{k}": v for k, v in flow.items()}))
    if run.deployment_id:
        deployment = {"id": f"prefect.deployment.{run.deployment_id}", "role": "deployment"}
        related.append(RelatedResource({f"prefect.resource.{k}": v for k, v in deployment.items()}))
    resource = {
        "prefect.resource.id": f"prefect.flow-run.{run.id}",
        "prefect.resource.name": run.name or "",
        "prefect.version": prefect_version,
    }
    related += tags_as_related_resources(set(run.tags or []))
    return {"event": "prefect.flow-run.heartbeat", "resource": resource, "related": related}


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
#: engine and its visualization hook, FastAPI's encoder that the flow run's parameters go
#: through: 0.16 s): imported while the server starts instead.
DEFERRED_IMPORTS = (
    "flows.prefect_flow",
    "prefect.task_engine",
    "prefect.utilities.visualization",
    "fastapi.encoders",
    "pandera.backends.polars.builtin_checks",
)


def _import_pipeline(freeze: bool) -> None:
    """Import the flow, its stages and the modules they load lazily (`DEFERRED_IMPORTS`).

    With `freeze` (the console script, which ends with its run), the objects
    made so far (~270k: modules, langdetect's profiles) then leave the garbage
    collector's view (`gc.freeze`): they live until the process ends, and each
    full collection during the run would otherwise walk them all again (0.3 s
    each on the shared 2-core machine).
    """
    for name in DEFERRED_IMPORTS:
        importlib.import_module(name)
    if freeze:
        gc.freeze()


def start_prefect(
    word_lists: WordListSource | None = None,
    freeze: bool = False,
    meanwhile: tuple[Callable[[], object], ...] = (),
) -> RunClock:
    """Start Prefect's temporary server (unless PREFECT_API_URL is set), importing the pipeline
    meanwhile; say when it is up.

    The server boots in a subprocess for seconds while this process would wait:
    the imports (polars, pandera, langdetect's profiles, wordfreq: ~1.5 s) run
    in that time instead of after it, and with `word_lists` (their source)
    wordfreq's common lists too (`detector.load_word_lists`), which this
    process reads whenever a run has new texts (`detector.decide_languages`), and
    the merge rule's English frequencies (`merge_rule.load_word_frequencies`). Only for
    a temporary server: with PREFECT_API_URL set nothing waits, so they load
    on first use. `freeze`: see `_import_pipeline`. `meanwhile`: more of the
    run's own work done while the server starts (the command line's: the cache
    keys, `disk.cache_keys`, ~0.25 s of CPU; with --catalog, the catalog's
    check and parse, 8.5 s to 2 min 45 s), also only for a temporary server.

    Raises:
        ServerStartError: it did not answer within the startup timeout.
    """
    if os.environ.get("PREFECT_API_URL"):
        started = time.monotonic()
        _import_pipeline(freeze)
        return RunClock(server_start_s=None, pipeline_from=started)
    server = _TemporaryServer()
    _import_pipeline(freeze)
    if word_lists is not None:
        from flows.stages.detector import load_word_lists

        load_word_lists(word_lists)
    from flows.stages.merge_rule import load_word_frequencies

    load_word_frequencies()  # the merge rule's, read at the end of a run otherwise
    for work in meanwhile:
        work()
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
