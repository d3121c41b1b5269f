"""A Prefect server: serve the nightly deployment, trigger it through the API, check the snapshot.

On the session's server (`prefect_api`: Prefect's test harness, a server
subprocess on a free loopback port with its own SQLite database), runs
`ruling-dumps serve`, then creates flow runs of the deployment through
Prefect's REST API and waits for them to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO, SEED_DIR

STARTUP_TIMEOUT = 180  # seconds: `serve` imports the pipeline and registers the deployment
RUN_TIMEOUT = 240


def _wait_for(what: str, check: Callable[[], Any], timeout: float, log: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = check()
        except httpx.HTTPError:
            found = None
        if found:
            return found
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}; log:\n{log.read_text()[-3000:]}")


def _create_flow_run(api: str, deployment_id: str, body: dict[str, Any], log: Path) -> Any:
    """Create a flow run of the deployment; a busy server may answer 503 or slowly: try again.

    The 60 s read timeout keeps a slow answer from being taken for a failure (and the
    run from being created twice).
    """
    return _wait_for(
        "the flow run to be created",
        lambda: (
            (
                r := httpx.post(
                    f"{api}/deployments/{deployment_id}/create_flow_run", json=body, timeout=60
                )
            ).status_code
            == 201
            and r.json()
        ),
        STARTUP_TIMEOUT,
        log,
    )


def _final_state(api: str, flow_run_id: str) -> dict[str, Any] | None:
    """The flow run's state once it is final (completed, failed, crashed, cancelled), else None."""
    response = httpx.get(f"{api}/flow_runs/{flow_run_id}")
    state = response.json()["state"] if response.status_code == 200 else None
    final = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}
    return state if state and state["type"] in final else None


def _log_lines(api: str, flow_run_id: str) -> set[tuple[str, int, str]]:
    """(logger name, level, message) of every log line the API holds for a flow run."""
    logs = httpx.post(
        f"{api}/logs/filter", json={"logs": {"flow_run_id": {"any_": [flow_run_id]}}}
    ).json()
    return {(entry["name"], entry["level"], entry["message"]) for entry in logs}


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


@pytest.fixture()
def prefect_server(prefect_api: str, tmp_path: Path) -> tuple[str, dict[str, str]]:
    """The session's Prefect server: (api_url, env for clients)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(
        {
            "PREFECT_HOME": str(tmp_path / "client-home"),
            "PREFECT_API_URL": prefect_api,
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
        }
    )
    return prefect_api, env


@pytest.mark.flow
def test_served_deployment_runs_through_the_api(
    prefect_server: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    api, env = prefect_server
    output = tmp_path / "out"
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        serving = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flows",
                "serve",
                "--raw",
                str(SEED_DIR),
                "--output",
                str(output),
                "--retention",
                "3",
            ],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deployment = _wait_for(
            "the deployment",
            lambda: (
                (r := httpx.get(f"{api}/deployments/name/ruling-dumps/nightly")).status_code == 200
                and r.json()
            ),
            STARTUP_TIMEOUT,
            log,
        )
        assert [s["schedule"]["cron"] for s in deployment["schedules"]] == ["0 3 * * *"]
        assert deployment["parameters"] == {
            "raw_dir": str(SEED_DIR),
            "output_dir": str(output),
            "retention": 3,
            "one_line_outcome": True,
        }
        assert deployment["global_concurrency_limit"]["limit"] == 1  # one run at a time
        flow_run = _create_flow_run(api, deployment["id"], {}, log)
        final = _wait_for(
            "the flow run to finish",
            lambda: _final_state(api, flow_run["id"]),
            RUN_TIMEOUT,
            log,
        )
        assert final["type"] == "COMPLETED", log.read_text()[-3000:]
        dedupe_line = ("flows.stages.dedupe", 20, "clustered 37 variants into 36 rulings")
        _wait_for(  # the runner sends log lines in batches: some arrive after the run ends
            "the pipeline's INFO lines in the flow run's logs",
            lambda: dedupe_line in _log_lines(api, flow_run["id"]),
            RUN_TIMEOUT,
            log,
        )
        missing = tmp_path / "no-such-raw"
        failed_run = _create_flow_run(
            api, deployment["id"], {"parameters": {"raw_dir": str(missing)}}, log
        )
        failed = _wait_for(
            "the failing flow run to finish",
            lambda: _final_state(api, failed_run["id"]),
            RUN_TIMEOUT,
            log,
        )
        assert failed["type"] == "FAILED"
        _wait_for("the error line", lambda: "error: run" in log.read_text(), RUN_TIMEOUT, log)
    finally:
        _stop(serving)
    served = log.read_text()
    assert "Traceback" not in served
    latest = (output / "latest").resolve()
    outcome = [line for line in served.splitlines() if line.startswith(("run ", "error: "))]
    assert outcome == [
        f"run {latest.name} published 36 rulings (152 rows) to {output / 'snapshots' / latest.name}",
        f"error: run {outcome[1].split()[2]} failed, nothing published: raw dir {missing} does "
        "not exist or is not a directory; create it and copy the dump files (*.txt) into it",
    ]
    manifest = json.loads((output / "latest" / "manifest.json").read_text())
    assert manifest["rows"]["rulings"] == 36
    assert manifest["line_accounting"]["lines_read"] == 154
    artifacts = httpx.post(  # the session's server holds other tests' runs: this run's only
        f"{api}/artifacts/filter",
        json={
            "artifacts": {"key": {"any_": ["ruling-dumps-report"]}},
            "flow_runs": {"id": {"any_": [flow_run["id"]]}},
        },
    ).json()
    assert [a["type"] for a in artifacts] == ["markdown"]
    assert "## Line accounting" in artifacts[0]["data"]
