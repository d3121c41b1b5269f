"""The Prefect flow end to end on the real seeds: snapshot, manifest, determinism."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from prefect.settings import get_current_settings

from flows.prefect_flow import rulings_flow
from flows.prefect_server import without_heartbeats
from schemas import TABLE_MODELS
from tests.conftest import SEED_DIR, SEED_LINE_ACCOUNTING, SEED_ROWS

TABLE_FILES = [f"{t}.{e}" for t in TABLE_MODELS for e in ("parquet", "jsonl")]


@pytest.fixture(scope="session")
def two_runs(
    prefect_harness: None, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[dict[str, Any]]]:
    output = tmp_path_factory.mktemp("output")
    return output, [rulings_flow(raw_dir=SEED_DIR, output_dir=output) for _ in range(2)]


@pytest.mark.flow
def test_manifest_accounts_for_every_line(two_runs: tuple[Path, list[dict[str, Any]]]) -> None:
    output, (_, second) = two_runs
    manifest = json.loads((output / "latest" / "manifest.json").read_text())
    assert manifest["run_id"] == second["run_id"]
    assert manifest["line_accounting"] == SEED_LINE_ACCOUNTING
    assert manifest["rows"] == SEED_ROWS
    assert [(i["path"], i["bytes"]) for i in manifest["inputs"]] == [
        ("000_fbe1a54fee004163.txt", 5005),
        ("001_a1b82e86b0acb359.txt", 3554),
        ("002_14b9121c30f5c5b3.txt", 3315),
        ("003_321b63c5bd17bae4.txt", 3077),
        ("004_304d898eb3c4b8ca.txt", 3700),
    ]
    assert manifest["schema_version"] == "1.6.0"
    assert manifest["started_at"] < manifest["finished_at"]


@pytest.mark.flow
def test_second_run_writes_byte_identical_tables(
    two_runs: tuple[Path, list[dict[str, Any]]],
) -> None:
    output, (first, second) = two_runs
    assert first["run_id"] != second["run_id"]
    assert os.readlink(output / "latest") == f"snapshots/{second['run_id']}"
    for name in TABLE_FILES:
        a = (Path(first["snapshot"]) / name).read_bytes()
        b = (Path(second["snapshot"]) / name).read_bytes()
        assert a == b, name
    assert sorted(p.name for p in (output / "snapshots").iterdir()) == sorted(
        [first["run_id"], second["run_id"]]
    )


def test_runs_on_the_temporary_server_send_no_heartbeats() -> None:
    default = get_current_settings().flows.heartbeat_frequency
    with without_heartbeats():
        assert get_current_settings().flows.heartbeat_frequency is None  # the engine sends none
    assert get_current_settings().flows.heartbeat_frequency == default
