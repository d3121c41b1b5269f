"""The heartbeats of the command line's flow runs: the engine's event, sent in its place."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from prefect import flow
from prefect.client.schemas.objects import FlowRun
from prefect.flow_engine import FlowRunEngine
from prefect.settings import get_current_settings

from flows.prefect_server import heartbeat_event, heartbeats, prompt_heartbeats


@flow(name="beating")
def _beating() -> None:
    with heartbeats():
        pass


@pytest.mark.parametrize(
    ("deployment", "tags"), [(False, []), (True, ["nightly", "a"])], ids=["plain", "deployed"]
)
def test_the_event_is_the_engines(deployment: bool, tags: list[str]) -> None:
    run = FlowRun(
        id=uuid.uuid4(),
        name="tidy-otter",
        flow_id=uuid.uuid4(),
        deployment_id=uuid.uuid4() if deployment else None,
        tags=tags,
    )
    engine = FlowRunEngine(flow=_beating, flow_run=run)
    resource, related = engine._build_heartbeat_event_template()
    assert heartbeat_event(run, "beating") == {
        "event": "prefect.flow-run.heartbeat",
        "resource": resource,
        "related": related,
    }


def test_the_engine_sends_none_inside_and_its_setting_comes_back() -> None:
    default = get_current_settings().flows.heartbeat_frequency
    with prompt_heartbeats():
        assert get_current_settings().flows.heartbeat_frequency is None
    assert get_current_settings().flows.heartbeat_frequency == default


def test_a_flow_run_inside_sends_one_heartbeat_now(
    prefect_harness: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr("prefect.events.utilities.emit_event", lambda **event: sent.append(event))
    with prompt_heartbeats():
        _beating()
    assert [event["event"] for event in sent] == ["prefect.flow-run.heartbeat"]
    assert sent[0]["resource"]["prefect.resource.id"].startswith("prefect.flow-run.")


def test_a_flow_run_outside_leaves_them_to_the_engine(
    prefect_harness: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr("prefect.events.utilities.emit_event", lambda **event: sent.append(event))
    _beating()
    assert sent == []
