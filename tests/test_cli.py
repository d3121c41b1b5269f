"""CLI: help with examples, one-line errors, and a real run in a subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from tests.conftest import REPO, SEED_DIR, cli_run

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
    assert result.output == f"error: output dir {tmp_path / 'file'} exists and is not a folder\n"


def test_validate_without_a_snapshot(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", "--output", str(tmp_path)])
    assert result.exit_code == 1
    assert (
        result.output
        == f"error: {tmp_path / 'latest'} does not exist; run `ruling-dumps run` first\n"
    )


@pytest.mark.flow
def test_run_then_validate_in_a_subprocess(tmp_path: Path) -> None:
    command, env = cli_run(tmp_path, tmp_path / "out")
    run = subprocess.run(
        command,
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    console = run.stdout + run.stderr
    for noise in ("Traceback", "telemetry", "Error", "WARNING"):
        assert noise not in console
    assert "clustered 37 variants into 36 rulings" in console
    assert "lines: lines_read" in console and "154" in console
    manifest = json.loads((tmp_path / "out" / "latest" / "manifest.json").read_text())
    assert manifest["line_accounting"]["lines_read"] == 154
    check = runner.invoke(app, ["validate", "--output", str(tmp_path / "out")])
    assert check.exit_code == 0
    assert "all 8 tables match the contract and the manifest" in check.output
    (tmp_path / "out" / "latest" / "rulings.jsonl").write_text("{}\n")
    tampered = runner.invoke(app, ["validate", "--output", str(tmp_path / "out")])
    assert tampered.exit_code == 1
    assert "rulings.jsonl: differs from the manifest (sha256 or size)" in tampered.output
    assert "rulings: rulings.jsonl and rulings.parquet differ in row count" in tampered.output
