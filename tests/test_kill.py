"""Never a broken latest: SIGKILL at any point leaves `latest` on a complete snapshot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.stages.write import verify_snapshot
from schemas import TABLE_MODELS
from tests.conftest import REPO, SEED_DIR, cli_run

#: Publishes the seed tables over and over, as fast as it can, until killed.
PUBLISH_LOOP = """
import sys
from pathlib import Path
from flows.pipeline import run_pipeline
from flows.stages.read import load_raw_dumps
from flows.stages.write import prune_snapshots, switch_latest, write_snapshot
import datetime as dt
output = Path(sys.argv[1])
_, tables = run_pipeline(load_raw_dumps(Path(sys.argv[2])), dt.date(2026, 11, 30))
print("ready", flush=True)
n = int(sys.argv[3])
while True:
    n += 1
    run_id = f"run{n:06d}"
    snapshot = write_snapshot(tables, {"run_id": run_id}, output, run_id, {"report.md": "x" * 100_000})
    switch_latest(output, snapshot)
    prune_snapshots(output, 3)
"""


def _assert_latest_is_complete(output: Path) -> None:
    latest = output / "latest"
    if latest.is_symlink() or latest.exists():
        assert verify_snapshot(latest, TABLE_MODELS) == [], os.readlink(latest)


@pytest.mark.parametrize("delay", [0.0, 0.02, 0.07, 0.15, 0.29, 0.53])
def test_sigkill_while_publishing(delay: float, tmp_path: Path) -> None:
    output = tmp_path / "out"
    for attempt in range(2):  # kill, restart on the same output, kill again
        loop = subprocess.Popen(
            [sys.executable, "-c", PUBLISH_LOOP, str(output), str(SEED_DIR), str(attempt * 1000)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert loop.stdout is not None and loop.stdout.readline().strip() == "ready"
        time.sleep(delay + attempt * 0.013)
        loop.send_signal(signal.SIGKILL)
        loop.wait(timeout=30)
        _assert_latest_is_complete(output)


@pytest.mark.flow
def test_sigkill_of_whole_runs_then_a_clean_run(tmp_path: Path) -> None:
    output = tmp_path / "out"
    command, env = cli_run(tmp_path, output)

    def run(kill_after: float | None) -> int:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        if kill_after is not None:
            time.sleep(kill_after)
            # the whole process group, as systemd or `timeout` do: Prefect's temporary server too
            os.killpg(process.pid, signal.SIGKILL)
        return process.wait(timeout=300)

    assert run(None) == 0
    published = os.readlink(output / "latest")
    for kill_after in (1.0, 6.0, 9.0, 10.5, 12.0):
        run(kill_after)
        _assert_latest_is_complete(output)
    assert run(None) == 0  # no stale lock, no leftover in the way
    assert os.readlink(output / "latest") != published
    assert not list((output / "snapshots").glob(".*.partial"))
