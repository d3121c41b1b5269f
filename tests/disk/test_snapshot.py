"""snapshot: complete snapshots only, `latest` switched atomically."""

from __future__ import annotations

import errno
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

from flows.disk import files
from flows.disk import snapshot as snapshot_module
from flows.disk.snapshot import (
    complete_snapshot,
    latest_target,
    resolve_latest,
    restore_latest,
    stage_snapshot,
    switch_latest,
)
from flows.disk.verify import verify_snapshot
from flows.errors import PublishError
from schemas import TABLE_MODELS


def write_snapshot(
    tables: dict[str, pl.DataFrame],
    manifest: dict[str, object],
    output: Path,
    run_id: str,
    documents: dict[str, str] | None = None,
) -> Path:
    """A snapshot staged and completed, as a run writes it."""
    stage_snapshot(tables, manifest, output, run_id, documents)
    return complete_snapshot(output, run_id)


def _publish(tables: dict[str, pl.DataFrame], output: Path, run_id: str) -> Path:
    written = write_snapshot(tables, {"run_id": run_id}, output, run_id)
    switch_latest(output, written)
    return written


def test_snapshot_layout_and_manifest_files(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    snapshot = _publish(seed_tables, tmp_path, "r1")
    assert os.readlink(tmp_path / "latest") == "snapshots/r1"
    assert sorted(p.name for p in snapshot.iterdir()) == sorted(
        [f"{n}.{e}" for n in seed_tables for e in ("parquet", "jsonl")] + ["manifest.json"]
    )
    manifest = json.loads((tmp_path / "latest" / "manifest.json").read_text())
    assert manifest["run_id"] == "r1"
    assert {f["name"] for f in manifest["files"]} == {
        f"{n}.{e}" for n in seed_tables for e in ("parquet", "jsonl")
    }
    rulings = pl.read_parquet(tmp_path / "latest" / "rulings.parquet")
    assert rulings.equals(seed_tables["rulings"])
    assert pl.read_ndjson(tmp_path / "latest" / "rulings.jsonl").height == 36


def test_a_failed_write_leaves_latest_on_the_previous_snapshot(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    _publish(seed_tables, tmp_path, "good")
    unwritable = {**seed_tables, "rulings": pl.DataFrame({"x": [object()]}, strict=False)}
    with pytest.raises(pl.exceptions.ComputeError, match="cannot write 'Object' datatype"):
        _publish(unwritable, tmp_path, "bad")
    assert os.readlink(tmp_path / "latest") == "snapshots/good"
    assert not (tmp_path / "snapshots" / "bad").exists()
    assert (tmp_path / "snapshots" / ".bad.partial").exists()  # never pointed at


def test_latest_that_is_a_real_folder_is_left_alone(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    (tmp_path / "latest").mkdir()
    with pytest.raises(PublishError, match="exists and is not a symlink"):
        _publish(seed_tables, tmp_path, "r1")


def test_a_folder_of_another_run_is_never_overwritten(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    (tmp_path / "snapshots" / "r1").mkdir(parents=True)  # not a snapshot of run r1
    with pytest.raises(PublishError, match="already exists"):
        _publish(seed_tables, tmp_path, "r1")


def test_a_retried_completion_accepts_its_own_rename(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = files.fsync_path
    calls: list[Path] = []

    def fsync_fails_once_after_the_rename(path: Path) -> None:
        calls.append(path)
        if path == tmp_path / "snapshots" and calls.count(path) == 1:
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(path)

    monkeypatch.setattr(snapshot_module, "fsync_path", fsync_fails_once_after_the_rename)
    stage_snapshot(seed_tables, {"run_id": "r1"}, tmp_path, "r1")
    with pytest.raises(OSError, match="Input/output error"):
        complete_snapshot(tmp_path, "r1")
    assert (tmp_path / "snapshots" / "r1" / "manifest.json").is_file()  # renamed, then failed
    again = complete_snapshot(tmp_path, "r1")  # the retry
    assert again == tmp_path / "snapshots" / "r1"
    assert verify_snapshot(again, TABLE_MODELS) == []


def test_restore_latest_undoes_a_switch(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    _publish(seed_tables, tmp_path, "r1")
    before = latest_target(tmp_path)
    _publish(seed_tables, tmp_path, "r2")
    restore_latest(tmp_path, before)
    assert os.readlink(tmp_path / "latest") == "snapshots/r1"
    assert resolve_latest(tmp_path) == (tmp_path / "snapshots" / "r1").resolve()
    restore_latest(tmp_path, None)
    assert not (tmp_path / "latest").is_symlink()
    with pytest.raises(PublishError, match="does not exist"):
        resolve_latest(tmp_path)


MANIFEST_LIKE = {
    "run_id": "20261130T191122105373Z",
    "inputs": [
        {"path": '002_démon «Dark» "Schemes".txt', "sha256": "ab" * 32, "bytes": 1234},
        {"path": "tab\there\\back/slash\u2028\u0007.txt", "sha256": "cd" * 32, "bytes": 0},
    ],
    "rows": {"dumps": 5, "rulings": 36},
    "since_previous": {"previous_run_id": None, "added": ["a", "b"], "changed": []},
    "work": {},
    "ruling_ids": {"kept": 0, "registry_merge_rules_version": None, "merge_rules_version": "5"},
    "state_recovered": False,
    "scores": [0.5, 1e-07, float("inf"), True, None, [], {}, [[1, ("x", 2)], {"k": [True]}]],
    "non_string_keys": {1: "one", 2.5: {"nested": True}, None: []},
}


class _Name(str):
    pass


#: What orjson writes (the manifest without its floats and other keys), and beside it
#: values it may not: ints beyond 64 bits, a str subclass, a lone surrogate, deep nesting.
ORJSON_LIKE = {k: v for k, v in MANIFEST_LIKE.items() if k not in ("scores", "non_string_keys")}
EDGES = [2**64, -(2**63) - 1, 2**63, -(2**63), _Name("subclass"), "\ud800", 0.1]


def _nested(depth: int) -> object:
    value: object = ["bottom"]
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    "value",
    [
        MANIFEST_LIKE, ORJSON_LIKE, [], {}, "plain", 3, [MANIFEST_LIKE, MANIFEST_LIKE],
        [ORJSON_LIKE, *EDGES], {"inputs": ORJSON_LIKE["inputs"], "odd": EDGES},
        ["plain", "\ud800"], [1, 2**64], _nested(260), ("a", (1, [])),
    ],
    ids=[
        "manifest", "manifest-orjson", "empty-list", "empty-dict", "string", "int", "nested",
        "edges-in-list", "edges-in-dict", "lone-surrogate", "beyond-64-bits",
        "deeper-than-orjson", "tuples",
    ],
)  # fmt: skip
def test_indented_json_is_json_dumps_indent_2(value: object) -> None:
    assert files.indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_orjson_writes_every_character_as_json_does() -> None:
    """indented_json hands orjson the strings `_orjson_exact` lets through: each one."""
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    chunks = [text[i : i + 997] for i in range(0, len(text), 997)]
    assert files._orjson_exact(chunks)
    assert files.indented_json(chunks) == json.dumps(chunks, indent=2, ensure_ascii=False)


def test_the_written_manifest_is_json_dumps_indent_2(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    snapshot = write_snapshot(seed_tables, MANIFEST_LIKE, tmp_path, MANIFEST_LIKE["run_id"])
    text = (snapshot / "manifest.json").read_text(encoding="utf-8")
    manifest = json.loads(text)
    assert text == json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def test_jobs_in_threads_raise_the_first_error_in_their_order() -> None:
    later_failed = threading.Event()

    def first() -> None:
        later_failed.wait(timeout=60)
        raise PermissionError(errno.EACCES, "Permission denied", "dumps.parquet")

    def second() -> None:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        finally:
            later_failed.set()

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(first), pool.submit(second), pool.submit(lambda: 3)]
        with pytest.raises(PermissionError, match=r"Permission denied: 'dumps\.parquet'"):
            files.results_in_order(futures)
        assert all(f.done() for f in futures)  # nothing left running behind the error
    with ThreadPoolExecutor(2) as pool:
        in_order = files.results_in_order([pool.submit(lambda n=n: n) for n in range(5)])
    assert in_order == [0, 1, 2, 3, 4]


def test_a_snapshot_written_in_threads_is_the_one_written_in_order(
    seed_tables: dict[str, pl.DataFrame], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents = {"report.md": "# ré\n" * 1000, "rulings.schema.json": "{}"}
    threaded = write_snapshot(seed_tables, MANIFEST_LIKE, tmp_path / "a", "r1", documents)
    monkeypatch.setattr(snapshot_module, "IO_THREADS", 1)
    one_by_one = write_snapshot(seed_tables, MANIFEST_LIKE, tmp_path / "b", "r1", documents)
    names = sorted(p.name for p in threaded.iterdir())
    assert names == sorted(p.name for p in one_by_one.iterdir())
    for name in names:
        assert (threaded / name).read_bytes() == (one_by_one / name).read_bytes(), name
    manifest = json.loads((threaded / "manifest.json").read_text(encoding="utf-8"))
    assert [f["name"] for f in manifest["files"]] == [
        *(f"{n}.{e}" for n in seed_tables for e in ("parquet", "jsonl")),
        *documents,
    ]
    assert verify_snapshot(threaded, TABLE_MODELS) == []
