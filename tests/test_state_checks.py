"""State from anywhere is checked, never trusted (issue 23): its schema, its format, its
merge rules, the output it belongs to; a foreign `latest`; retention and the previous snapshot."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from flows.disk.records import STATE_FORMAT
from flows.disk.snapshot import own_latest
from flows.errors import StateFormatError
from flows.stages.merge_rule import MERGE_RULES_VERSION
from tests.conftest import copy_seeds, run_dumps


def _state_json(output: Path) -> dict[str, Any]:
    return json.loads((output / "state" / "state.json").read_text())


def _write_state_json(output: Path, committed: dict[str, Any]) -> None:
    (output / "state" / "state.json").write_text(json.dumps(committed, indent=2))


def _replace_state_file(output: Path, kind: str, frame: pl.DataFrame) -> None:
    """Put `frame` in place of the current generation's `kind` file, its sha256 recorded:
    a file no sha256 check can tell from one the run wrote."""
    committed = _state_json(output)
    spec = committed["current"]["files"][kind]
    path = output / "state" / spec["file"]
    frame.write_parquet(path)
    spec["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    _write_state_json(output, committed)
    record = output / "state" / f"generation.{committed['current']['generation']}.json"
    record.write_text(json.dumps(committed["current"], indent=2))


def _current_file(output: Path, kind: str) -> pl.DataFrame:
    return pl.read_parquet(output / "state" / _state_json(output)["current"]["files"][kind]["file"])


def test_state_json_records_its_format_and_where_it_belongs(tmp_path: Path) -> None:
    raw = copy_seeds(tmp_path, "raw")
    run_dumps(raw, tmp_path / "out")
    committed = _state_json(tmp_path / "out")
    assert committed["format_version"] == STATE_FORMAT == 2
    assert committed["output_dir"] == os.path.realpath(tmp_path / "out")
    assert committed["raw_dir"] == os.path.realpath(raw)


def test_a_later_versions_key_in_state_json_is_left_unread(tmp_path: Path) -> None:
    """One extra key failed every run (`TypeError: 'int' object is not subscriptable`)."""
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    run_dumps(raw, output)
    committed = _state_json(output)
    _write_state_json(output, {**committed, "later_field": 3, "another": {"x": [1]}})
    manifest = run_dumps(raw, output).result["manifest"]
    assert manifest["state_recovered"] is None
    assert manifest["work"]["dumps_reused"] == 5


def test_a_state_without_format_version_is_format_1_and_read_as_it_is(tmp_path: Path) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    run_dumps(raw, output)
    committed = _state_json(output)
    _write_state_json(output, {"current": committed["current"], "previous": None})
    manifest = run_dumps(raw, output).result["manifest"]
    assert manifest["state_recovered"] is None
    assert manifest["work"]["dumps_reused"] == 5
    assert _state_json(output)["format_version"] == 2  # written in the current format


def test_a_newer_state_format_is_refused_with_one_line(tmp_path: Path) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = run_dumps(raw, output).result
    _write_state_json(output, {**_state_json(output), "format_version": 3})
    with pytest.raises(StateFormatError) as refused:
        run_dumps(raw, output)
    assert str(refused.value) == (
        f"{output}/state/state.json is state format 3, written by a newer ruling-dumps; this one "
        f"reads formats 1 to 2: upgrade it, or move {output}/state away (the next run starts "
        "cold and ruling ids become content ids)"
    )
    assert os.path.realpath(output / "latest") == os.path.realpath(first["snapshot"])


@pytest.mark.parametrize(
    ("kind", "change", "found"),
    [
        ("results_entries", lambda f: f.drop("variant_id"), "missing variant_id"),
        ("file_index", lambda f: f.with_columns(pl.col("size").cast(pl.Int32)), "size Int32 not"),
        ("languages", lambda f: f.with_columns(pl.lit(1).alias("later")), "extra later"),
        ("ruling_ids", lambda f: f.drop("ruling_id"), "missing ruling_id"),
    ],
    ids=["column-missing", "other-dtype", "extra-column", "registry-missing-column"],
)
def test_a_state_file_of_another_schema_falls_back_loudly(
    tmp_path: Path, kind: str, change: Any, found: str
) -> None:
    """A file with the right sha256 but missing columns failed every run (`schema lengths
    differ`): each state file is held to the schema this code writes, as a corrupt one."""
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = run_dumps(raw, output).result
    _replace_state_file(output, kind, change(_current_file(output, kind)))
    second = run_dumps(raw, output).result
    recovered = second["manifest"]["state_recovered"]
    assert "does not have the columns and types this code writes" in recovered
    assert found in recovered
    for name, table in first["tables"].items():
        assert second["tables"][name].equals(table), name


def test_a_registry_of_unknown_merge_rules_is_refused(tmp_path: Path) -> None:
    """An id registry whose merge rules version this code does not know was used silently."""
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    run_dumps(raw, output)
    registry = _current_file(output, "ruling_ids")
    _replace_state_file(
        output, "ruling_ids", registry.with_columns(merge_rules_version=pl.lit("9"))
    )
    manifest = run_dumps(raw, output).result["manifest"]
    known = f"it knows 1 to {MERGE_RULES_VERSION}"
    assert (
        f"written under merge rules version 9, which this code does not know ({known})"
        in (manifest["state_recovered"])
    )
    assert "ruling ids are content ids again" in manifest["state_recovered"]
    assert manifest["ruling_ids"]["gained"] == manifest["rows"]["rulings"]  # no registry used


def test_registries_of_older_merge_rules_are_used(tmp_path: Path) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    run_dumps(raw, output)
    registry = _current_file(output, "ruling_ids")
    older = registry.with_columns(
        merge_rules_version=pl.when(pl.int_range(pl.len()) % 2 == 0)
        .then(pl.lit("1"))
        .otherwise(None)
    )
    _replace_state_file(output, "ruling_ids", older)
    manifest = run_dumps(raw, output).result["manifest"]
    assert manifest["state_recovered"] is None
    assert manifest["ruling_ids"]["registry_merge_rules_version"] == "1"


def test_state_dirs_swapped_between_two_outputs_are_not_used(tmp_path: Path) -> None:
    """Swapped state dirs silently changed ruling ids in both outputs."""
    four = copy_seeds(tmp_path, "four", skip=("003_321b63c5bd17bae4.txt",))
    five = copy_seeds(tmp_path, "five")
    run_dumps(four, tmp_path / "a")  # a's registry holds the four seeds' ids...
    a_ids = run_dumps(five, tmp_path / "a").result["tables"]["rulings"]["ruling_id"]
    b_ids = run_dumps(five, tmp_path / "b").result["tables"]["rulings"]["ruling_id"]
    assert sorted(a_ids) != sorted(b_ids)  # ...kept when the fifth came: not content ids
    shutil.move(tmp_path / "a" / "state", tmp_path / "a-state")
    shutil.move(tmp_path / "b" / "state", tmp_path / "a" / "state")
    shutil.move(tmp_path / "a-state", tmp_path / "b" / "state")
    for name in ("a", "b"):
        result = run_dumps(five, tmp_path / name).result
        recovered = result["manifest"]["state_recovered"]
        assert f"{tmp_path / name}/state belongs to another output dir" in recovered
        assert "is a snapshot of" in recovered and "cold run" in recovered
        assert sorted(result["tables"]["rulings"]["ruling_id"]) == sorted(b_ids)  # content ids


def test_an_output_dir_moved_whole_keeps_its_state(tmp_path: Path) -> None:
    raw = copy_seeds(tmp_path, "raw")
    run_dumps(raw, tmp_path / "out")
    shutil.move(tmp_path / "out", tmp_path / "moved")
    manifest = run_dumps(raw, tmp_path / "moved").result["manifest"]
    assert manifest["state_recovered"] is None
    assert manifest["work"]["dumps_reused"] == 5


def test_a_state_of_another_raw_dir_is_used_without_its_file_index(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = run_dumps(raw, output).result
    other = copy_seeds(tmp_path, "other")
    with caplog.at_level(logging.WARNING, logger="flows"):
        second = run_dumps(other, output).result
    assert f"state was committed by a run reading {os.path.realpath(raw)}, this run reads" in (
        caplog.text
    )
    assert second["manifest"]["state_recovered"] is None
    assert second["manifest"]["work"]["dumps_reused"] == 5  # the caches by content are kept
    assert second["tables"]["rulings"].equals(first["tables"]["rulings"])


def test_a_latest_of_another_output_is_no_previous_snapshot(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`latest` pointing at another output's snapshot made `since_previous` compare with it."""
    raw = copy_seeds(tmp_path, "raw")
    other = run_dumps(
        copy_seeds(tmp_path, "other", skip=("000_fbe1a54fee004163.txt",)), tmp_path / "b"
    )
    run_dumps(raw, tmp_path / "a")
    latest = tmp_path / "a" / "latest"
    latest.unlink()
    latest.symlink_to(other.result["snapshot"])
    assert own_latest(tmp_path / "a") is None
    with caplog.at_level(logging.WARNING, logger="flows"):
        manifest = run_dumps(raw, tmp_path / "a").result["manifest"]
    assert "is not one of this output's snapshots: taken as no previous snapshot" in caplog.text
    assert manifest["since_previous"]["previous_run_id"] is None
    assert len(manifest["since_previous"]["added"]) == 5


def test_retention_keeps_the_snapshot_latest_named_before_the_run(tmp_path: Path) -> None:
    """With --retention 1, a reader that had resolved `latest` had its snapshot deleted."""
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    runs = [run_dumps(raw, output, retention=1).result["manifest"]["run_id"] for _ in range(3)]
    assert sorted(p.name for p in (output / "snapshots").iterdir()) == runs[1:]


def test_a_missing_generation_record_falls_back_loudly(tmp_path: Path) -> None:
    """A fresh check: deleting `generation.<id>.json` failed every later run (ENOENT)."""
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = run_dumps(raw, output).result
    generation = _state_json(output)["current"]["generation"]
    (output / "state" / f"generation.{generation}.json").unlink()
    second = run_dumps(raw, output).result
    assert second["manifest"]["state_recovered"] is None  # state.json's copy names the files
    assert second["tables"]["rulings"].equals(first["tables"]["rulings"])


def test_a_registry_with_null_ids_is_refused(tmp_path: Path) -> None:
    raw, output = copy_seeds(tmp_path, "raw"), tmp_path / "out"
    first = run_dumps(raw, output).result
    registry = _current_file(output, "ruling_ids")
    nulled = registry.with_columns(
        ruling_id=pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("ruling_id"))
    )
    _replace_state_file(output, "ruling_ids", nulled)
    second = run_dumps(raw, output).result
    assert "has rows without a variant_id or a ruling_id" in second["manifest"]["state_recovered"]
    assert second["manifest"]["rows"]["rulings"] == first["manifest"]["rows"]["rulings"] == 36


def test_state_dirs_swapped_between_copies_of_one_output_are_not_used(tmp_path: Path) -> None:
    """A fresh check: two outputs copied from one (`cp -a base P`, `cp -a base Q`) share the
    ancestor's snapshot; their swapped states were used, ruling ids exchanged."""
    base_raw = copy_seeds(tmp_path, "base-raw", skip=("000_fbe1a54fee004163.txt",))
    run_dumps(base_raw, tmp_path / "base")
    shutil.copytree(tmp_path / "base", tmp_path / "p", symlinks=True)
    shutil.copytree(tmp_path / "base", tmp_path / "q", symlinks=True)
    run_dumps(copy_seeds(tmp_path, "p-raw"), tmp_path / "p")
    run_dumps(base_raw, tmp_path / "q")
    shutil.move(tmp_path / "p" / "state", tmp_path / "p-state")
    shutil.move(tmp_path / "q" / "state", tmp_path / "p" / "state")
    shutil.move(tmp_path / "p-state", tmp_path / "q" / "state")
    recovered = run_dumps(base_raw, tmp_path / "p").result["manifest"]["state_recovered"]
    assert f"{tmp_path / 'p'}/state belongs to another output dir ({tmp_path / 'q'})" in recovered
