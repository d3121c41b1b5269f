"""The nightly refresh: stable ids, incremental reruns, retention, the lock, the deployment."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml

from flows.errors import RunLockedError
from flows.rulings_flow import DEPLOYMENT_NAME, nightly_deployment, rulings_flow
from flows.stages.runlock import hold_run_lock
from tests.conftest import REPO, SEED_DIR

THEM_SEED = "003_321b63c5bd17bae4.txt"  # the only seed with "writing them down"


def _raw(tmp_path: Path, name: str, skip: tuple[str, ...] = ()) -> Path:
    raw = tmp_path / name
    raw.mkdir()
    for seed in sorted(SEED_DIR.glob("*.txt")):
        if seed.name not in skip:
            shutil.copy(seed, raw / seed.name)
    return raw


def _run(raw: Path, output: Path, retention: int = 7) -> dict[str, Any]:
    return rulings_flow(raw_dir=raw, output_dir=output, retention=retention)


def _ids(output: Path) -> dict[str, str]:
    rulings = pl.read_parquet(output / "latest" / "rulings.parquet")
    return dict(rulings.select("text", "ruling_id").iter_rows())


@pytest.mark.flow
def test_ruling_ids_never_move(prefect_harness: None, tmp_path: Path) -> None:
    output = tmp_path / "out"
    _run(_raw(tmp_path, "four", skip=(THEM_SEED,)), output)
    first = _ids(output)
    five = _run(_raw(tmp_path, "five"), output)  # adds the "them" variant and Sentry Bot rulings
    second = _ids(output)
    assert {k: five["ruling_ids"][k] for k in ("kept", "merged", "split", "gained")} == {
        "kept": 33, "merged": 0, "split": 0, "gained": 3,
    }  # fmt: skip
    assert len(first) == 33 and len(second) == 36  # seed 003 adds three Sentry Bot rulings
    assert {text: second[text] for text in first} == first
    keep_track = pl.read_parquet(output / "latest" / "ruling_variants.parquet").filter(
        pl.col("text").str.starts_with("Keep track")
    )
    assert keep_track["ruling_id"].n_unique() == 1 and keep_track.height == 2
    assert keep_track["ruling_id"][0] == next(
        v for t, v in first.items() if t.startswith("Keep track")
    )


@pytest.mark.flow
def test_rerun_does_no_work_and_one_change_parses_one_dump(
    prefect_harness: None, tmp_path: Path
) -> None:
    raw, output = _raw(tmp_path, "raw"), tmp_path / "out"
    cold = _run(raw, output)
    warm = _run(raw, output)
    assert cold["work"] == {
        "dumps_parsed": 5,
        "dumps_reused": 0,
        "languages_detected": 39,
        "languages_reused": 0,
    }
    assert warm["work"] == {
        "dumps_parsed": 0,
        "dumps_reused": 5,
        "languages_detected": 0,
        "languages_reused": 39,
    }
    for name in ("rulings.parquet", "ruling_occurrences.parquet", "dumps.jsonl"):
        assert (Path(cold["snapshot"]) / name).read_bytes() == (
            Path(warm["snapshot"]) / name
        ).read_bytes()
    seed = raw / "001_a1b82e86b0acb359.txt"
    seed.write_text(
        seed.read_text()
        + "08 mars 2024 · source : wotc\nA new ruling about energy counters in this dump.\n"
    )
    (raw / "004_304d898eb3c4b8ca.txt").rename(raw / "renamed.txt")
    (raw / "002_14b9121c30f5c5b3.txt").unlink()
    changed = _run(raw, output)
    assert changed["work"] == {
        "dumps_parsed": 1,
        "dumps_reused": 3,
        "languages_detected": 1,
        "languages_reused": 35,
    }  # 39 less the 4 Demon rulings of 002
    assert {k: changed["since_previous"][k] for k in ("added", "changed", "removed")} == {
        "added": ["renamed.txt"],
        "changed": ["001_a1b82e86b0acb359.txt"],
        "removed": ["002_14b9121c30f5c5b3.txt", "004_304d898eb3c4b8ca.txt"],
    }
    assert changed["since_previous"]["previous_run_id"] == warm["run_id"]
    paths = pl.read_parquet(output / "latest" / "dumps.parquet")["path"].to_list()
    assert "002_14b9121c30f5c5b3.txt" not in paths and "renamed.txt" in paths


@pytest.mark.flow
def test_retention_keeps_the_newest_snapshots(prefect_harness: None, tmp_path: Path) -> None:
    raw, output = _raw(tmp_path, "raw"), tmp_path / "out"
    runs = [_run(raw, output, retention=2)["run_id"] for _ in range(3)]
    assert sorted(p.name for p in (output / "snapshots").iterdir()) == runs[1:]
    assert os.readlink(output / "latest") == f"snapshots/{runs[2]}"
    assert "## Rows per table" in (output / "latest" / "report.md").read_text()


@pytest.mark.flow
def test_a_second_run_at_once_stops_with_a_clear_message(
    prefect_harness: None, tmp_path: Path
) -> None:
    raw, output = _raw(tmp_path, "raw"), tmp_path / "out"
    with (
        hold_run_lock(output),
        pytest.raises(RunLockedError, match=r"another run holds .*\.lock \(pid \d+"),
    ):
        _run(raw, output)
    assert not (output / "latest").exists()
    assert _run(raw, output)["rows"]["rulings"] == 36  # the lock is free again


def test_the_lock_is_exclusive(tmp_path: Path) -> None:
    with (
        hold_run_lock(tmp_path),
        pytest.raises(RunLockedError, match="try again later"),
        hold_run_lock(tmp_path),
    ):
        pass
    with hold_run_lock(tmp_path):
        pass


def test_deployment_carries_the_cron_schedule_and_parameters(tmp_path: Path) -> None:
    deployment = nightly_deployment(tmp_path / "raw", tmp_path / "out", retention=5)
    assert deployment.name == DEPLOYMENT_NAME == "nightly"
    assert [(s.schedule.cron, s.schedule.timezone) for s in deployment.schedules] == [
        ("0 3 * * *", "UTC")
    ]
    assert deployment.parameters == {
        "raw_dir": str(tmp_path / "raw"),
        "output_dir": str(tmp_path / "out"),
        "retention": 5,
    }
    custom = nightly_deployment(tmp_path, tmp_path, cron="30 1 * * *", timezone="Europe/Paris")
    assert [(s.schedule.cron, s.schedule.timezone) for s in custom.schedules] == [
        ("30 1 * * *", "Europe/Paris")
    ]


def test_prefect_yaml_declares_the_same_nightly_deployment() -> None:
    declared = yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"][0]
    assert declared["name"] == DEPLOYMENT_NAME
    assert declared["entrypoint"] == "flows/rulings_flow.py:rulings_flow"
    assert declared["schedules"] == [{"cron": "0 3 * * *", "timezone": "UTC"}]
    assert declared["parameters"] == {"raw_dir": "raw", "output_dir": "output", "retention": 7}


@pytest.mark.flow
def test_small_batches_with_repeated_files_give_the_same_tables(
    prefect_harness: None, tmp_path: Path
) -> None:
    raw = _raw(tmp_path, "raw")
    shutil.copy(
        raw / "000_fbe1a54fee004163.txt", raw / "zzz_copy_of_000.txt"
    )  # lands in another batch
    one = rulings_flow(raw_dir=raw, output_dir=tmp_path / "one")
    many = rulings_flow(raw_dir=raw, output_dir=tmp_path / "many", batch_files=2)
    assert many["line_accounting"] == one["line_accounting"]
    assert many["line_accounting"]["lines_read"] == 154
    for name in (
        "rulings.parquet",
        "ruling_occurrences.parquet",
        "dumps.parquet",
        "rejects.parquet",
    ):
        assert (Path(many["snapshot"]) / name).read_bytes() == (
            Path(one["snapshot"]) / name
        ).read_bytes()
    rejects = pl.read_parquet(Path(many["snapshot"]) / "rejects.parquet")
    assert rejects.select("stage", "content").rows() == [("read", "zzz_copy_of_000.txt")]
