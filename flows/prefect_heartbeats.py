"""A flow run's heartbeats, sent from a thread that stops as soon as the run's steps end.

Prefect's engine sends a flow run's heartbeats (`prefect.flow-run.heartbeat`
events: a server's automation can mark a run whose process died as crashed)
from a thread that sleeps in 1 s steps and is joined when the run ends: every
run ended 0 to 1 s later than its steps (0.5 s on average; 1 s for an empty
flow). Under `prompt_heartbeats` (the command line's runs against a running
server) the engine sends none and `heartbeats`, entered by the flow, sends the
same events, as often, from a thread that a stop wakes at once. Served runs
(`prefect_flow.serve_nightly`) keep the engine's.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prefect import __version__ as prefect_version
from prefect.client.schemas.objects import FlowRun
from prefect.context import FlowRunContext
from prefect.events.related import RelatedResource, tags_as_related_resources
from prefect.events.utilities import emit_event
from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
from prefect.settings.context import get_current_settings

logger = logging.getLogger(__name__)

#: Seconds between the heartbeats `heartbeats` sends; None: it sends none (the engine does).
_SECONDS: contextvars.ContextVar[int | None] = contextvars.ContextVar("beat", default=None)


@contextmanager
def prompt_heartbeats() -> Iterator[None]:
    """Flow runs started inside (in this thread) get their heartbeats from `heartbeats`, every
    PREFECT_FLOWS_HEARTBEAT_FREQUENCY seconds (none when it is unset), not from the engine."""
    token = _SECONDS.set(get_current_settings().flows.heartbeat_frequency)
    try:
        with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
            yield
    finally:
        _SECONDS.reset(token)


@contextmanager
def heartbeats() -> Iterator[None]:
    """The current flow run's heartbeats while inside, under `prompt_heartbeats` only: one
    now, then one every its seconds (as the engine of Prefect 3.9 sends them)."""
    seconds, context = _SECONDS.get(), FlowRunContext.get()
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
                logger.debug("heartbeat not sent: %s", exc)
            if stop.wait(max(seconds, 30)):
                return

    # in this thread's context: Prefect's settings (its API) are the flow run's
    thread = threading.Thread(target=contextvars.copy_context().run, args=(send,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def heartbeat_event(run: FlowRun, flow_name: str) -> dict[str, Any]:
    """`emit_event`'s arguments for a heartbeat of flow run `run` (the engine's event)."""
    related: list[RelatedResource] = []
    if run.flow_id:
        related.append(
            RelatedResource(
                {
                    "prefect.resource.id": f"prefect.flow.{run.flow_id}",
                    "prefect.resource.role": "flow",
                    "prefect.resource.name": flow_name,
                }
            )
        )
    if run.deployment_id:
        related.append(
            RelatedResource(
                {
                    "prefect.resource.id": f"prefect.deployment.{run.deployment_id}",
                    "prefect.resource.role": "deployment",
                }
            )
        )
    resource = {
        "prefect.resource.id": f"prefect.flow-run.{run.id}",
        "prefect.resource.name": run.name or "",
        "prefect.version": prefect_version,
    }
    related += tags_as_related_resources(set(run.tags or []))
    return {"event": "prefect.flow-run.heartbeat", "resource": resource, "related": related}
