"""CLI: help with examples, one-line errors, and a real run in a subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from bench.__main__ import app as bench_app
from flows import cli, prefect_server
from flows.cli import app
from flows.disk.snapshot import complete_snapshot, stage_snapshot, switch_latest
from flows.processes import interrupt
from tests.conftest import REPO, SEED_DIR, SEED_LINE_ACCOUNTING, SEED_ROWS, cli_run, run_cli

runner = CliRunner()


@pytest.mark.parametrize(
    ("command", "example"),
    [
        ("run", "ruling-dumps run --raw raw --output output"),
        ("validate", "ruling-dumps validate --output output"),
    ],
)
def test_help_ends_with_an_example(command: str, example: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output
    assert example in result.output


def test_missing_raw_dir_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--raw", str(tmp_path / "nope"), "--output", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (
        f"error: raw dir {tmp_path / 'nope'} does not exist or is not a directory; "
        "create it and copy the dump files (*.txt) into it\n"
    )


def test_unpublishable_output_is_one_line_and_exit_1(tmp_path: Path) -> None:
    (tmp_path / "latest").mkdir()
    result = runner.invoke(app, ["run", "--raw", str(SEED_DIR), "--output", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (
        f"error: {tmp_path / 'latest'} exists and is not a symlink; move it away and rerun\n"
    )
    (tmp_path / "file").write_text("x")
    result = runner.invoke(app, ["run", "--raw", str(SEED_DIR), "--output", str(tmp_path / "file")])
    assert result.exit_code == 1
    assert result.output == f"error: output dir {tmp_path / 'file'} exists and is not a folder\n"


def test_validate_without_a_snapshot(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", "--output", str(tmp_path)])
    assert result.exit_code == 1
    assert (
        result.output
        == f"error: {tmp_path / 'latest'} does not exist; run `ruling-dumps run` first\n"
    )


def test_validate_names_a_truncated_file_and_each_failed_check(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    # it printed `ComputeError: … must end with PAR1`, without the file's name, and not the
    # sha256 mismatch it had found first
    stage_snapshot(seed_tables, {"run_id": "r1"}, tmp_path, "r1")
    switch_latest(tmp_path, complete_snapshot(tmp_path, "r1"))
    parquet = tmp_path / "snapshots" / "r1" / "rulings.parquet"
    whole = parquet.read_bytes()
    parquet.write_bytes(whole[: len(whole) // 2])
    result = runner.invoke(app, ["validate", "--output", str(tmp_path)])
    assert (result.exit_code, result.output) == (
        1,
        f"error: {parquet.parent} is not sound: rulings.parquet: size and sha256 differ from "
        f"manifest.json ({len(whole) // 2} bytes, the manifest says {len(whole)}); "
        "rulings.parquet: not readable Parquet (parquet: File out of specification: The file "
        "must end with PAR1 or PARE)\n",
    )


def _error_lines(stderr: str) -> list[str]:
    # the word, not a path's part (a checkout in `wt-errors/`)
    return [line for line in stderr.splitlines() if re.search(r"(?i:\berror\b)|Trace", line)]


@pytest.mark.flow
def test_run_then_validate_in_a_subprocess(prefect_api: str, tmp_path: Path) -> None:
    run = run_cli(tmp_path, tmp_path / "out")  # as a user's first run: the temporary server
    assert run.returncode == 0, run.stderr
    console = run.stdout + run.stderr
    for noise in ("Traceback", "telemetry", "Error", "WARNING"):
        assert noise not in console
    assert "starting Prefect's temporary server (up to 600 s)..." in run.stderr
    assert "clustered 37 variants into 36 rulings" in console
    manifest = json.loads((tmp_path / "out" / "latest" / "manifest.json").read_text())
    snapshot = (tmp_path / "out" / "latest").resolve()
    summary = run.stderr[run.stderr.index("run: ") :]  # stderr is no terminal: key: value lines
    [server_start] = re.findall(
        r"Prefect's temporary server is up \(([0-9]+\.[0-9]) s\)\n", run.stderr
    )
    [pipeline] = re.findall(r"^time: pipeline: ([0-9]+\.[0-9]) s$", summary, re.MULTILINE)
    assert summary.splitlines() == [
        f"run: {manifest['run_id']}",
        "dump files: 5",
        *(f"lines: {kind}: {n}" for kind, n in SEED_LINE_ACCOUNTING.items()),
        *(f"table {name}: {n}" for name, n in SEED_ROWS.items()),
        "work: dumps_parsed: 5",
        "work: dumps_reused: 0",
        "work: dumps_built: 5",
        "work: languages_detected: 39",
        "work: languages_reused: 0",
        "files added since previous: 5",
        "files changed since previous: 0",
        "files removed since previous: 0",
        f"snapshot: {tmp_path / 'out' / 'snapshots' / snapshot.name}",
        f"report (charts): {tmp_path / 'out' / 'snapshots' / snapshot.name / 'report.html'}",
        f"time: prefect server start: {server_start} s",  # as the progress line said
        f"time: pipeline: {pipeline} s",
    ]
    assert manifest["line_accounting"] == SEED_LINE_ACCOUNTING
    assert manifest["state_recovered"] is None
    check = runner.invoke(app, ["validate", "--output", str(tmp_path / "out")])
    assert check.exit_code == 0
    assert check.output == f"{snapshot}: all 9 tables match the contract and the manifest\n"
    (tmp_path / "out" / "latest" / "rulings.jsonl").write_text("{}\n")
    tampered = runner.invoke(app, ["validate", "--output", str(tmp_path / "out")])
    assert tampered.exit_code == 1
    assert tampered.output.count("\n") == 1 and tampered.output.startswith(f"error: {snapshot}")
    assert "rulings.jsonl: size and sha256 differ from manifest.json (3 bytes, " in tampered.output
    assert "rulings.jsonl: 1 rows, rulings.parquet 36 (they differ in row count)" in tampered.output
    # state/ a file where the state folder should be: the run fails at once, publishes nothing
    shutil.rmtree(tmp_path / "out" / "state")
    (tmp_path / "out" / "state").write_text("not a folder")
    blocked = run_cli(tmp_path, tmp_path / "out", api=prefect_api)
    assert blocked.returncode == 1
    [error] = _error_lines(blocked.stderr)
    assert error == (
        f"error: {tmp_path / 'out' / 'state'} is not a folder; a run makes its own there: "
        "move it away"
    )
    assert (tmp_path / "out" / "latest").resolve() == snapshot
    assert [p.name for p in (tmp_path / "out" / "snapshots").iterdir()] == [snapshot.name]


@pytest.mark.flow
def test_a_server_that_does_not_start_in_time_is_one_error_line(tmp_path: Path) -> None:
    run = run_cli(tmp_path, tmp_path / "out", PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="1")
    assert run.returncode == 1
    assert run.stderr.splitlines()[-2:] == [
        run.stderr.splitlines()[-2][:9] + "starting Prefect's temporary server (up to 1 s)...",
        "error: Prefect's temporary server did not start within 1 s; set PREFECT_API_URL to a "
        "running server (prefect server start), or allow longer with "
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS",
    ]
    assert len(_error_lines(run.stderr)) == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".lock"]  # nothing published


def test_serve_without_a_server_is_one_error_line(tmp_path: Path) -> None:
    command, env = cli_run(tmp_path, tmp_path / "out")
    closed_port = "http://127.0.0.1:9/api"  # discard: nothing listens there

    def serve(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command[:3], *options, "serve", *command[4:]],
            cwd=REPO,
            env={**env, "PREFECT_API_URL": closed_port},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    plain, debug = serve(), serve("--debug")
    assert plain.returncode == 1
    assert plain.stderr == (
        f"error: cannot reach the Prefect server at {closed_port} (All connection attempts "
        "failed); start it (prefect server start) or fix PREFECT_API_URL\n"
    )
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.endswith(plain.stderr)


def test_a_generous_server_startup_timeout_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in prefect_server.QUIET_PREFECT_DEFAULTS:  # restored after the test
        monkeypatch.delenv(name, raising=False)
    prefect_server.set_quiet_defaults()
    assert os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] == "180"
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "30")
    prefect_server.set_quiet_defaults()
    assert os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] == "30"


def test_any_failure_is_one_error_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(output_dir: Path) -> Path:
        raise KeyError("manifest")

    monkeypatch.setattr(cli, "resolve_latest", broken)
    result = runner.invoke(app, ["validate", "--output", str(tmp_path)])
    assert (result.exit_code, result.output) == (
        1,
        "error: KeyError: 'manifest' (rerun with --debug for the traceback)\n",
    )


def test_the_server_start_and_the_pipeline_are_timed_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "PREFECT_API_URL", "http://127.0.0.1:9/api"
    )  # a running server: none started
    clock = prefect_server.start_prefect()
    assert clock.server_start_s is None
    clock.pipeline_s = 1.94
    assert cli._time_rows(clock) == [("time: pipeline", "1.9 s")]
    clock.server_start_s = 9.84  # as on the temporary server
    assert cli._time_rows(clock) == [
        ("time: prefect server start", "9.8 s"),
        ("time: pipeline", "1.9 s"),
    ]


def test_a_failed_measured_run_is_one_error_line_naming_why(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        bench_app,
        [
            *("seeds", "--raw", str(tmp_path / "none"), "--runs", "1"),
            *("--work", str(tmp_path / "work"), "--results", str(tmp_path / "results.json")),
        ],
    )
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert result.output.startswith("error: measured run failed (exit 1): ")
    assert result.output.endswith(
        f"error: raw dir {tmp_path / 'none'} does not exist or is not "
        "a directory; create it and copy the dump files (*.txt) into it\n"
    )
    assert not (tmp_path / "results.json").exists()


def test_the_command_line_loads_no_language_model_before_the_server_starts() -> None:
    # Prefect's temporary server starts after the command line's own imports and checks
    # (`prefect_server.start_prefect`): langdetect's profiles, wordfreq and Prefect itself
    # load while it starts, not before (Prefect reads its quiet defaults when imported)
    code = (
        "import sys, flows.cli, flows.prefect_server; "
        "print([m for m in ('langdetect', 'wordfreq', 'prefect') if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


def test_the_first_ctrl_c_stops_the_run_and_a_second_ends_it_at_once() -> None:
    interrupt.interrupted.clear()
    with pytest.raises(KeyboardInterrupt):  # as Python's own handler: the run rolls back
        interrupt.on_stop_signal(2, None)
    assert interrupt.interrupted.is_set()  # the run's flag, which detection reads: it stops too
    interrupt.interrupted.clear()
    # a second Ctrl-C while the first one's rollback runs: out at once, one line
    code = (
        "from flows.processes import interrupt; interrupt.interrupted.set(); "
        "interrupt.on_stop_signal(2, None)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (1, "error: interrupted again: stopped at once\n")


def test_a_ctrl_c_while_the_command_line_loads_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from flows import console

    real_import = __import__

    def interrupted(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "flows.cli":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr("builtins.__import__", interrupted)
    with pytest.raises(SystemExit) as stopped:
        console.main()
    assert stopped.value.code == 1
    assert capsys.readouterr().err == "error: interrupted: nothing was published\n"


def test_terminal_summary_shows_long_paths_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """An 80-column terminal folds the snapshot's path instead of cutting it to `…/repo…`."""
    from rich.console import Console

    terminal = Console(width=80, force_terminal=True, record=True)
    monkeypatch.setattr(cli, "console", terminal)
    snapshot = "/home/operator/nightly/ruling-dumps/output/snapshots/20261201T034230764087Z"
    result = {
        "run_id": "20261201T034230764087Z",
        "inputs": [{}, {}],
        "line_accounting": {"ruling": 7},
        "rows": {"rulings": 2},
        "work": {"dumps_parsed": 2},
        "since_previous": {"added": [], "changed": [], "removed": []},
        "snapshot": snapshot,
        "report_html": f"{snapshot}/report.html",
    }
    cli._print_summary(
        result, prefect_server.RunClock(server_start_s=7.1, pipeline_from=0.0, pipeline_s=1.0)
    )
    rows: list[list[str]] = []
    for line in terminal.export_text().splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if len(cells) == 2:
            if cells[0]:
                rows.append(cells)
            else:  # a folded value goes on below its row
                rows[-1][1] += cells[1]
    values = dict(rows)
    assert values["snapshot"] == snapshot
    assert values["report (charts)"] == f"{snapshot}/report.html"
    assert values["time: prefect server start"] == "7.1 s"
    narrow = Console(width=30, force_terminal=True, record=True)  # labels fold there too
    monkeypatch.setattr(cli, "console", narrow)
    cli._print_summary(
        result, prefect_server.RunClock(server_start_s=7.1, pipeline_from=0.0, pipeline_s=1.0)
    )
    assert "…" not in narrow.export_text()
