"""`ruling-dumps serve` stops on SIGINT (as from a supervisor, no terminal), SIGTERM and SIGHUP.

Each test starts `serve` as the console script does (`python -m flows`), in
its own session with no terminal, against the session's Prefect server; once
it says its deployment is served, it gets one signal and must exit by itself,
printing its stop line. Every wait is generous (the machine is shared and
slow); none is a fixed sleep.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from flows.prefect_flow import _serve_until_stopped
from flows.processes.interrupt import recording_stops, serve_stops
from tests.conftest import REPO, SERVER_STARTUP_TIMEOUT, cli_run, hangup_by_default

#: Seconds `serve` may take to exit after its signal (it took 0.1-4 s; the machine is busy).
STOP_TIMEOUT = 300
SERVED = "serving ruling-dumps/nightly"


def _ignoring_sigint() -> None:
    hangup_by_default()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serve(tmp_path: Path, api: str, ignore_sigint: bool) -> tuple[subprocess.Popen[str], Path]:
    """`serve` on the seeds in a new session (no terminal), its output to a file."""
    command, env = cli_run(tmp_path, tmp_path / "out", api)
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [*command[:3], "serve", *command[4:]],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            # a background job of a script starts with SIGINT ignored
            preexec_fn=_ignoring_sigint if ignore_sigint else hangup_by_default,
        )
    return process, log


def _wait_until_served(process: subprocess.Popen[str], log: Path) -> None:
    deadline = time.monotonic() + SERVER_STARTUP_TIMEOUT
    while SERVED not in log.read_text() and process.poll() is None:
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.5)
    assert process.poll() is None, log.read_text()


def _forget_the_deployment(api: str) -> None:
    """Delete the deployment `serve` registered on the session's server: another test
    (`test_server`) waits for its own `nightly` there and must not find this one's.

    A busy server may answer 503 (its database busy): asked again, as Prefect's client does.
    """
    deadline = time.monotonic() + SERVER_STARTUP_TIMEOUT
    while True:
        found = httpx.get(f"{api}/deployments/name/ruling-dumps/nightly", timeout=60)
        if found.status_code == 200:
            found = httpx.delete(f"{api}/deployments/{found.json()['id']}", timeout=60)
        if found.status_code != 503 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert found.status_code in (200, 204, 404), found.text


@pytest.mark.flow
@pytest.mark.parametrize(
    ("signum", "ignore_sigint"),
    [
        (signal.SIGINT, False),
        (signal.SIGINT, True),
        (signal.SIGTERM, False),
        (signal.SIGHUP, False),
    ],
    ids=["sigint", "sigint-ignored-at-start", "sigterm", "sighup"],
)
def test_serve_stops_on_each_stop_signal_with_its_line(
    prefect_api: str, tmp_path: Path, signum: signal.Signals, ignore_sigint: bool
) -> None:
    process, log = _serve(tmp_path, prefect_api, ignore_sigint)
    try:
        _wait_until_served(process, log)
        process.send_signal(signum)
        returncode = process.wait(timeout=STOP_TIMEOUT)
    finally:
        if process.poll() is None:  # failed: leave no server behind
            process.kill()
            process.wait()
        _forget_the_deployment(prefect_api)
    lines = log.read_text().splitlines()
    assert returncode == 0, lines
    assert lines[-1] == (f"serve stopped ({signum.name}): no nightly run until it is served again")
    assert not [line for line in lines if "Traceback" in line or "error" in line.lower()]


class _Runner:
    """Prefect's `Runner` as `serve_nightly` drives it: `start` polls until `astop`."""

    def __init__(self) -> None:
        self.started = False
        self.stopped: asyncio.Event | None = None

    async def start(self) -> None:
        self.stopped = asyncio.Event()
        await asyncio.sleep(0.05)  # connecting to the server
        self.started = True
        await self.stopped.wait()

    async def astop(self) -> None:
        assert self.started and self.stopped is not None
        self.started = False
        self.stopped.set()


@pytest.mark.usefixtures("hangup_default")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_while_serving_stops_the_runner_and_raises_nothing(
    signum: signal.Signals,
) -> None:
    runner, announced = _Runner(), []

    def announce() -> None:  # once the runner polls: the signal as from a supervisor
        announced.append(runner.started)
        signal.raise_signal(signum)

    before, signals = signal.getsignal(signum), serve_stops()
    with recording_stops(signals) as received:
        asyncio.run(_serve_until_stopped(runner, signals, received, announce))  # type: ignore[arg-type]
    assert (announced, received, runner.started) == ([True], [signum], False)
    assert signal.getsignal(signum) is before


def test_a_stop_signal_before_the_runner_polls_stops_it_as_soon_as_it_does() -> None:
    runner, announced = _Runner(), []
    signals = serve_stops()
    with recording_stops(signals) as received:
        signal.raise_signal(signal.SIGTERM)  # recorded, nothing raised
        asyncio.run(_serve_until_stopped(runner, signals, received, lambda: announced.append(1)))  # type: ignore[arg-type]
    assert (announced, received, runner.started) == ([1], [signal.SIGTERM], False)
