"""Never a broken latest, no orphans: SIGKILL at any step leaves `latest` and the state agreeing;
Ctrl-C, SIGTERM and SIGHUP stop a run in one line and roll it back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from flows.disk.state import load_state
from flows.disk.verify import verify_snapshot
from flows.processes.hooks import PAUSE_STEPS, WORKER_STEP
from flows.processes.pools import PARALLEL_MIN_TEXTS
from flows.run import run_direct
from schemas import TABLE_MODELS
from tests.conftest import REPO, SEED_DIR, Run, cli_run, hangup_by_default

#: Publishes the tables of a snapshot (argv[2]) over and over, as fast as it can, until killed.
PUBLISH_LOOP = """
import sys
from pathlib import Path
import polars as pl
from flows.disk.snapshot import complete_snapshot, prune_snapshots, stage_snapshot, switch_latest
from schemas import TABLE_MODELS
output, published = Path(sys.argv[1]), Path(sys.argv[2])
tables = {name: pl.read_parquet(published / f"{name}.parquet") for name in TABLE_MODELS}
print("ready", flush=True)
n = int(sys.argv[3])
while True:
    n += 1
    run_id = f"run{n:06d}"
    stage_snapshot(tables, {"run_id": run_id}, output, run_id, {"report.md": "x" * 100_000})
    switch_latest(output, complete_snapshot(output, run_id))
    prune_snapshots(output, 3)
"""


def _assert_latest_is_complete(output: Path) -> None:
    latest = output / "latest"
    if latest.is_symlink() or latest.exists():
        assert verify_snapshot(latest, TABLE_MODELS) == [], os.readlink(latest)


@pytest.mark.parametrize("delay", [0.0, 0.02, 0.07, 0.15, 0.29, 0.53])
def test_sigkill_while_publishing(delay: float, seed_run: Run, tmp_path: Path) -> None:
    output, seeds = tmp_path / "out", seed_run.result["snapshot"]
    for attempt in range(2):  # kill, restart on the same output, kill again
        loop = subprocess.Popen(
            [sys.executable, "-c", PUBLISH_LOOP, str(output), str(seeds), str(attempt * 1000)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert loop.stdout is not None and loop.stdout.readline().strip() == "ready"
        time.sleep(delay + attempt * 0.013)
        loop.send_signal(signal.SIGKILL)
        loop.wait(timeout=30)
        _assert_latest_is_complete(output)


def _descendants(root: int) -> set[int]:
    """Every live process below `root` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_bytes()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit():
            children.setdefault(int(stat.rsplit(b")", 1)[1].split()[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z":
            alive.add(pid)
    return alive


def _wait_until(what: str, check: Callable[[], bool], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _latest_and_state(output: Path) -> tuple[str, str | None]:
    """The run `latest` points at (whole), and the state generation the next run reads."""
    _assert_latest_is_complete(output)
    latest_run = os.readlink(output / "latest").removeprefix("snapshots/")
    loaded = load_state(output / "state", published=latest_run)
    assert loaded["recovered"] is None
    return latest_run, loaded["generation"]


def _kill_the_main_pid_at(
    step: str, command: list[str], env: dict[str, str], marker: Path
) -> set[int]:
    """Start a run that pauses at `step`; SIGKILL its main pid only; wait for its children
    (returned) to end."""
    process = subprocess.Popen(
        command,
        cwd=REPO,
        env={**env, "RULING_DUMPS_PAUSE_AT": step, "RULING_DUMPS_PAUSE_FILE": str(marker)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_until(
        f"the run to pause at {step}", lambda: marker.exists() or process.poll() is not None
    )
    assert marker.read_text() == f"{step} {process.pid}\n"
    children = _descendants(process.pid)
    os.kill(process.pid, signal.SIGKILL)  # the main pid only, as an OOM killer does
    process.wait(timeout=60)
    _wait_until("the run's children to end", lambda: not _alive(children), timeout=120)
    return children


#: The product's run without Prefect (`run.run_direct`) of argv[1] into argv[2].
DIRECT_RUN = (
    "import sys; from pathlib import Path; from flows.run import run_direct; "
    "run_direct(Path(sys.argv[1]), Path(sys.argv[2]))"
)


@pytest.mark.flow
def test_sigkill_of_the_main_pid_at_each_publish_step(tmp_path: Path) -> None:
    output = tmp_path / "out"
    run_direct(SEED_DIR, output)  # the published run the kills start from
    published, _ = _latest_and_state(output)
    direct = [sys.executable, "-c", DIRECT_RUN, str(SEED_DIR), str(output)], dict(os.environ)
    for step in PAUSE_STEPS:
        # the first on the command line, whose child Prefect's temporary server must not
        # outlive it; the others run the same steps without Prefect (no server start each)
        command, env = cli_run(tmp_path, output) if step == PAUSE_STEPS[0] else direct
        children = _kill_the_main_pid_at(step, command, env, tmp_path / f"paused-at-{step}")
        assert children or step != PAUSE_STEPS[0]  # Prefect's temporary server at least
        latest_run, generation = _latest_and_state(output)
        assert generation == latest_run  # the state always matches latest
        switched = PAUSE_STEPS.index(step) >= PAUSE_STEPS.index("latest_switched")
        assert (latest_run != published) == switched, step
        published = latest_run
    run = subprocess.run(direct[0], cwd=REPO, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr  # no stale lock, no leftover in the way
    latest_run, generation = _latest_and_state(output)
    assert latest_run != published and generation == latest_run
    assert not list((output / "snapshots").glob(".*.partial"))
    assert not list((output / "state").glob("*.tmp"))


@pytest.mark.flow
def test_ctrl_c_stops_the_run_in_one_line_and_publishes_nothing(tmp_path: Path) -> None:
    # Ctrl-C at a terminal sends SIGINT to the whole process group, Prefect's temporary
    # server included: the server must outlive it, or Prefect retries its crash reports
    # for minutes and a second Ctrl-C prints tracebacks
    output = tmp_path / "out"
    run_direct(SEED_DIR, output)  # the published run the interrupted one must leave as it is
    command, env = cli_run(tmp_path, output)
    published, _ = _latest_and_state(output)
    state_files = _state_files(output)
    marker = tmp_path / "paused"
    with (tmp_path / "stderr.txt").open("w") as log:  # a file: a full pipe could stall the run
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env={
                **env,
                "RULING_DUMPS_PAUSE_AT": "snapshot_written",
                "RULING_DUMPS_PAUSE_FILE": str(marker),
            },
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
    _wait_until("the run to pause", lambda: marker.exists() or process.poll() is not None)
    children = _descendants(process.pid)
    assert children  # Prefect's temporary server at least
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=300)  # about a second when sound
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    stderr = (tmp_path / "stderr.txt").read_text()
    assert process.returncode == 1
    assert stderr.rstrip().splitlines()[-1] == "error: interrupted: nothing was published", stderr
    assert "Traceback" not in stderr and "cannot reach" not in stderr, stderr
    # the written snapshot and the staged state are rolled back: latest and state as before
    assert _latest_and_state(output)[0] == published
    assert [p.name for p in (output / "snapshots").iterdir()] == [published]
    assert _state_files(output) == state_files
    _wait_until("the run's children to end", lambda: not _alive(children), timeout=120)


def _many_new_texts(raw: Path, texts: int = PARALLEL_MIN_TEXTS + 200) -> Path:
    """Dumps of `texts` distinct English rulings: enough (PARALLEL_MIN_TEXTS) for the language
    detection to run in worker processes."""
    raw.mkdir()
    body = "If the {n}th creature you control attacks, you may pay {{E}} to draw a card."
    for first in range(0, texts, 10):
        lines = ["Official rulings.", *[
            line
            for n in range(first, first + 10)
            for line in ("07 juin 2024 · source : wotc", body.format(n=n + 1))
        ]]  # fmt: skip
        (raw / f"{first:05d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return raw


#: (the signal, the step the run is paused at when the signal reaches its main pid alone,
#: whether the run is published by then); the first case on Prefect's temporary server.
STOPS = [
    (signal.SIGTERM, WORKER_STEP, False),
    (signal.SIGHUP, WORKER_STEP, False),
    (signal.SIGTERM, "snapshot_staged", False),
    (signal.SIGHUP, "snapshot_written", False),  # a whole snapshot once stayed, unpublished
    (signal.SIGTERM, "latest_switched", False),  # latest is switched back
    (signal.SIGHUP, "state_committed", True),
]


@pytest.mark.flow
@pytest.mark.parametrize(
    ("stop", "step", "published"),
    STOPS,
    ids=[f"{signal.Signals(stop).name}-at-{step}" for stop, step, _ in STOPS],
)
def test_sigterm_and_sighup_stop_the_run_in_one_line_and_roll_it_back(
    prefect_api: str,
    tmp_path: Path,
    stop: signal.Signals,
    step: str,
    published: bool,
) -> None:
    # they exited 143 and 129 with no line, SIGTERM during language detection after 74 s,
    # and SIGHUP at snapshot_written left the whole snapshot under snapshots/
    output = tmp_path / "out"
    run_direct(SEED_DIR, output)  # the published run the stopped one must leave as it is
    before, _ = _latest_and_state(output)
    state_files = _state_files(output)
    in_workers = step == WORKER_STEP
    if in_workers and (os.cpu_count() or 1) < 2:
        pytest.skip("one core: the languages are detected without worker processes")
    temporary = (stop, step) == STOPS[0][:2]  # its Prefect server must end with it too
    command, env = cli_run(tmp_path, output, api=None if temporary else prefect_api)
    if in_workers:
        command[command.index("--raw") + 1] = str(_many_new_texts(tmp_path / "many"))
    marker = tmp_path / "paused"
    with (tmp_path / "stderr.txt").open("w") as log:  # a file: a full pipe could stall the run
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env={**env, "RULING_DUMPS_PAUSE_AT": step, "RULING_DUMPS_PAUSE_FILE": str(marker)},
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,  # its own process group: no terminal signal reaches it
            preexec_fn=hangup_by_default,
        )
    try:
        _wait_until(
            f"the run to pause at {step}", lambda: marker.exists() or process.poll() is not None
        )
        assert process.poll() is None, (tmp_path / "stderr.txt").read_text()
        children = _descendants(process.pid)
        assert children  # the watcher at least (and the paused workers)
        os.kill(process.pid, stop)  # the main pid only, as `kill` or a scheduler does
        process.wait(timeout=600)  # a few seconds when sound; the limit is a safety net
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    stderr = (tmp_path / "stderr.txt").read_text()
    latest, generation = _latest_and_state(output)
    words = f"terminated ({signal.Signals(stop).name})"
    expected = (
        f"error: {words} after the run was published (latest -> snapshots/{latest})"
        if published
        else f"error: {words}: nothing was published"
    )
    assert (process.returncode, stderr.rstrip().splitlines()[-1]) == (1, expected), stderr
    assert "Traceback" not in stderr and "cannot reach" not in stderr, stderr
    assert generation == latest and (latest != before) == published
    assert sorted(p.name for p in (output / "snapshots").iterdir()) == sorted({before, latest})
    if not published:  # rolled back: no snapshot, staged state or parse part left
        assert _state_files(output) == state_files
    _wait_until("the run's children to end", lambda: not _alive(children), timeout=300)


def _state_files(output: Path) -> list[str]:
    """The state's files and folders, but the word lists' cache (`disk.word_lists`): a cache
    kept by code version, not by generation, which a run may add before it is stopped."""
    return sorted(p.name for p in (output / "state").iterdir() if p.name != "word_lists")
