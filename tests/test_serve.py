"""`ruling-dumps serve` stops on SIGINT (as from a supervisor, no terminal), SIGTERM and SIGHUP.

Each test starts `serve` as the console script does (`python -m flows`), in
its own session with no terminal, against the session's Prefect server; once
it says its deployment is served, it gets one signal and must exit by itself,
printing its stop line. Every wait is generous (the machine is shared and
slow); none is a fixed sleep.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO, SERVER_STARTUP_TIMEOUT, cli_run

#: Seconds `serve` may take to exit after its signal (it took 0.1-4 s; the machine is busy).
STOP_TIMEOUT = 300
SERVED = "Your deployments are being served"


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
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            if ignore_sigint
            else None,
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
    (`test_server`) waits for its own `nightly` there and must not find this one's."""
    found = httpx.get(f"{api}/deployments/name/ruling-dumps/nightly", timeout=60)
    if found.status_code == 200:
        httpx.delete(f"{api}/deployments/{found.json()['id']}", timeout=60).raise_for_status()


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
