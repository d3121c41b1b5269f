"""verify: each problem of a published snapshot is one line naming the file and the failed check."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from flows.disk.snapshot import complete_snapshot, stage_snapshot
from flows.disk.verify import verify_snapshot
from schemas import TABLE_MODELS


@pytest.fixture
def snapshot(seed_tables: dict[str, pl.DataFrame], tmp_path: Path) -> Path:
    """The seeds' tables written as a run writes its snapshot."""
    stage_snapshot(seed_tables, {"run_id": "r1"}, tmp_path, "r1", {"report.md": "# r1\n"})
    return complete_snapshot(tmp_path, "r1")


def _cut(path: Path, keep: float = 0.5) -> int:
    """Truncate `path` to `keep` of its bytes (a copy cut short); its size before."""
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return len(data)


def test_a_sound_snapshot_has_no_problem(snapshot: Path) -> None:
    assert verify_snapshot(snapshot, TABLE_MODELS) == []


def test_a_truncated_parquet_file_is_named_for_its_size_and_its_bytes(snapshot: Path) -> None:
    # the issue: `ComputeError: … must end with PAR1`, without the file's name, and the
    # sha256 mismatch found first dropped
    size = _cut(snapshot / "rulings.parquet")
    assert verify_snapshot(snapshot, TABLE_MODELS) == [
        f"rulings.parquet: size and sha256 differ from manifest.json ({size // 2} bytes, "
        f"the manifest says {size})",
        "rulings.parquet: not readable Parquet (parquet: File out of specification: "
        "The file must end with PAR1 or PARE)",
    ]


def test_a_truncated_manifest_leaves_every_table_checked(snapshot: Path) -> None:
    _cut(snapshot / "manifest.json")
    _cut(snapshot / "rulings.jsonl")
    problems = verify_snapshot(snapshot, TABLE_MODELS)
    assert [p.split(" (")[0] for p in problems] == [
        "manifest.json: not JSON",
        "rulings.jsonl: not readable JSON Lines",
    ]
    assert problems[0].startswith("manifest.json: not JSON (") and ": line " in problems[0]


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        (None, "manifest.json: missing"),
        (b"\xff\xfe", "manifest.json: not JSON ("),
        (b"[]", "manifest.json: lists no files (no `files` list: not a snapshot's manifest)"),
        (b'{"files": {}}', "manifest.json: lists no files"),
        (
            b'{"files": [{"name": "../../etc/passwd", "bytes": 1, "sha256": "x"}, 7]}',
            "manifest.json: files[0] is not a file of the snapshot with its bytes and sha256",
        ),
    ],
    ids=["missing", "not-utf8", "a-list", "files-not-a-list", "entries-not-files"],
)
def test_a_manifest_that_lists_nothing_to_check_says_why(
    snapshot: Path, manifest: bytes | None, problem: str
) -> None:
    if manifest is None:
        (snapshot / "manifest.json").unlink()
    else:
        (snapshot / "manifest.json").write_bytes(manifest)
    problems = verify_snapshot(snapshot, TABLE_MODELS)
    assert problems[0].startswith(problem)
    assert len(problems) == (2 if b"passwd" in (manifest or b"") else 1)  # tables all sound


def test_each_listed_file_is_checked_by_size_then_sha256(snapshot: Path) -> None:
    (snapshot / "report.md").unlink()
    altered = bytearray((snapshot / "rulings.jsonl").read_bytes())
    altered[-2] = ord("]") if altered[-2] != ord("]") else ord("}")  # same size, one byte
    (snapshot / "rulings.jsonl").write_bytes(bytes(altered))
    problems = verify_snapshot(snapshot, TABLE_MODELS)
    assert problems[:2] == [
        "rulings.jsonl: sha256 differs from manifest.json (same size: bytes altered)",
        "report.md: missing (manifest.json lists it)",
    ]
    assert [p.split(" (")[0] for p in problems[2:]] == ["rulings.jsonl: not readable JSON Lines"]


def test_table_files_missing_or_disagreeing(
    snapshot: Path, seed_tables: dict[str, pl.DataFrame]
) -> None:
    (snapshot / "dumps.jsonl").unlink()
    (snapshot / "card_stubs.parquet").unlink()
    fewer = seed_tables["rulings"].head(2)
    fewer.write_ndjson(snapshot / "rulings.jsonl")
    other = seed_tables["ruling_variants"].with_columns(text=pl.col("text").str.to_uppercase())
    other.write_ndjson(snapshot / "ruling_variants.jsonl")
    extra = seed_tables["rejects"].with_columns(extra=pl.lit(1))
    extra.write_parquet(snapshot / "rejects.parquet")
    problems = [p for p in verify_snapshot(snapshot, TABLE_MODELS) if "manifest.json" not in p]
    assert [p.split(" (")[0] for p in problems] == [
        "dumps.jsonl: missing",
        "rulings.jsonl: 2 rows, rulings.parquet 36",
        "ruling_variants.jsonl: rows differ from ruling_variants.parquet's",
        "card_stubs.parquet: missing",
        "rejects.parquet: breaks the contract",
    ]


def test_rows_that_break_the_contract_are_counted(
    snapshot: Path, seed_tables: dict[str, pl.DataFrame]
) -> None:
    broken = seed_tables["rulings"].with_columns(
        language_probability=pl.when(pl.int_range(pl.len()) < 3)
        .then(7.0)
        .otherwise(pl.col("language_probability"))
    )
    broken.write_parquet(snapshot / "rulings.parquet")
    broken.write_ndjson(snapshot / "rulings.jsonl")
    problems = [p for p in verify_snapshot(snapshot, TABLE_MODELS) if "manifest.json" not in p]
    assert len(problems) == 1
    assert problems[0].startswith("rulings.parquet: 3 rows break the contract, e.g. ")


def test_a_published_run_with_a_catalog_is_sound(published: Path) -> None:
    snapshot = (published / "output" / "latest").resolve()
    assert json.loads((snapshot / "manifest.json").read_text())["rows"]["ruling_cards"] > 0
    assert verify_snapshot(snapshot, TABLE_MODELS) == []
