"""raw/ is read-only input: only raw/ is read, any file name, bounded size, never pruned."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.disk.paths import check_raw_output_overlap, escape_path, unescape_path
from flows.disk.raw import list_dump_paths, load_raw_dumps
from flows.disk.snapshot import prune_snapshots
from flows.errors import RawDirError
from tests.conftest import SEED_DIR, run_raw

SEED = SEED_DIR / "004_304d898eb3c4b8ca.txt"


def _raw_with_seed(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(SEED, raw / "good.txt")
    return raw


def _read_rejects(raw: Path, max_file_bytes: int = 64 * 2**20) -> list[tuple[object, ...]]:
    tables = run_raw(raw, max_file_bytes=max_file_bytes).tables
    return (
        tables["rejects"]
        .filter(pl.col("stage") == "read")
        .select("dump_id", "line_number", "reason", "content")
        .rows()
    )


# ---- Only raw/ is read ----------------------------------------------------------------


def test_symlink_to_a_file_outside_raw_is_not_read(tmp_path: Path) -> None:
    raw = _raw_with_seed(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text("07 juin 2024 · source : wotc\nTOP SECRET password=hunter2\n")
    os.symlink(secret, raw / "secret.txt")
    os.symlink("/etc/hostname", raw / "hostname.txt")
    os.symlink("/proc/self/status", raw / "status.txt")
    tables = run_raw(raw).tables
    assert tables["dumps"]["path"].to_list() == ["good.txt"]
    reason = "symlink to a file outside the raw dir: not read"
    assert _read_rejects(raw) == [
        (None, None, reason, "hostname.txt"),
        (None, None, reason, "secret.txt"),
        (None, None, reason, "status.txt"),
    ]
    published = pl.concat([t.select(pl.all().cast(pl.String)).unpivot() for t in tables.values()])[
        "value"
    ]
    assert not published.str.contains("hunter2").any()


def test_symlink_inside_raw_is_read_once(tmp_path: Path) -> None:
    raw = _raw_with_seed(tmp_path)
    os.symlink("good.txt", raw / "alias.txt")
    assert _read_rejects(raw) == [
        (
            "414a2086f89b7668a249eac5d8dafb314abc991fa622d021ef9ab0b86b436fa4",
            None,
            "file has the same bytes as alias.txt; its lines are read once, there",
            "good.txt",
        )
    ]


def test_dangling_links_loops_and_fifos_are_rejects(tmp_path: Path) -> None:
    raw = _raw_with_seed(tmp_path)
    os.symlink(raw / "missing", raw / "dangling.txt")
    os.symlink("loop_b.txt", raw / "loop_a.txt")
    os.symlink("loop_a.txt", raw / "loop_b.txt")
    os.mkfifo(raw / "pipe.txt")  # reading it would block the run forever
    (raw / "folder").mkdir()
    os.symlink(raw / "folder", raw / "folder_link.txt")
    assert _read_rejects(raw) == [
        (None, None, "dangling symlink (its target does not exist): not read", "dangling.txt"),
        (None, None, "not a regular file but a FIFO (named pipe): not read", "pipe.txt"),
        (None, None, "not a regular file but a directory: not read", "folder_link.txt"),
        (None, None, "symlink loop: not read", "loop_a.txt"),
        (None, None, "symlink loop: not read", "loop_b.txt"),
    ]


def test_a_file_removed_after_listing_is_a_reject(tmp_path: Path) -> None:
    raw = _raw_with_seed(tmp_path)
    loaded = load_raw_dumps(raw, ["gone.txt", "good.txt"])
    assert loaded.select("path", "read_reject").rows() == [
        ("gone.txt", "file removed from the raw dir while the run read it: not read"),
        ("good.txt", None),
    ]


# ---- Any file name ----------------------------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_read_and_published_escaped(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    fd = os.open(os.fsencode(raw) + b"/caf\xe9.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, SEED.read_bytes())
    os.close(fd)
    (raw / "back\\slash.txt").write_bytes(b"x\n")
    assert list_dump_paths(raw) == ["back\\\\slash.txt", "caf\\xe9.txt"]
    tables = run_raw(raw).tables
    assert tables["dumps"].select("path", "entry_count").rows() == [
        ("back\\\\slash.txt", 0),
        ("caf\\xe9.txt", 14),
    ]


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        ("caf\udce9.txt", "caf\\xe9.txt"),
        ("back\\slash.txt", "back\\\\slash.txt"),
        ("lit\\xe9.txt", "lit\\\\xe9.txt"),
        ("café.txt", "café.txt"),
    ],
    ids=["latin1-byte", "backslash", "literal-escape", "utf8"],
)
def test_escaped_paths_are_unambiguous(name: str, escaped: str) -> None:
    assert escape_path(name) == escaped
    assert unescape_path(escaped) == name


# ---- Bounded memory ---------------------------------------------------------------------


def test_a_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    raw = _raw_with_seed(tmp_path)
    (raw / "big.txt").write_bytes(b"07 juin 2024 \xc2\xb7 source : wotc\n" * 200)  # 6,000 bytes
    assert SEED.stat().st_size == 3700
    assert _read_rejects(raw, max_file_bytes=5999) == [
        (None, None, "file is 6,000 bytes, over the 5,999-byte size limit: not read", "big.txt")
    ]
    assert _read_rejects(raw, max_file_bytes=6000) == []


# ---- Raw input is never deleted ---------------------------------------------------------


def test_retention_deletes_only_this_products_snapshots(tmp_path: Path) -> None:
    output = tmp_path / "out"
    snapshots = output / "snapshots"
    runs = ["20240101T030000000000Z", "20240102T030000000000Z", "20240103T030000000000Z"]
    for name in [*runs, "2023_archive", ".20240104T030000000000Z.partial", ".notes.partial"]:
        (snapshots / name).mkdir(parents=True)
    (snapshots / "2023_archive" / "dump.txt").write_bytes(SEED.read_bytes())
    os.symlink(f"snapshots/{runs[-1]}", output / "latest")
    deleted = prune_snapshots(output, 1)
    assert deleted == [".20240104T030000000000Z.partial", runs[0], runs[1]]
    assert sorted(p.name for p in snapshots.iterdir()) == [
        ".notes.partial",
        "2023_archive",
        "20240103T030000000000Z",
    ]
    assert (snapshots / "2023_archive" / "dump.txt").read_bytes() == SEED.read_bytes()


@pytest.mark.parametrize(
    ("raw", "output", "work"),
    [
        ("d", "d", "snapshots"),
        ("d/snapshots/2023_archive", "d", "snapshots"),
        ("d/state", "d", "state"),
        ("d", "d/out", "snapshots"),
    ],
    ids=["same-dir", "raw-inside-snapshots", "raw-is-state", "output-inside-raw"],
)
def test_overlapping_raw_and_output_are_refused(
    tmp_path: Path, raw: str, output: str, work: str
) -> None:
    with pytest.raises(RawDirError) as refused:
        check_raw_output_overlap(tmp_path / raw, tmp_path / output)
    assert str(refused.value) == (
        f"raw dir {tmp_path / raw} and output folder {tmp_path / output / work} overlap: "
        "a run writes and prunes that folder and would delete or read raw dumps; "
        "keep raw and output in separate folders"
    )


def test_raw_beside_or_inside_output_elsewhere_is_allowed(tmp_path: Path) -> None:
    check_raw_output_overlap(tmp_path / "raw", tmp_path / "output")
    check_raw_output_overlap(tmp_path / "output" / "raw", tmp_path / "output")


def test_cli_refuses_raw_equal_to_output_before_anything_runs(tmp_path: Path) -> None:
    archive = tmp_path / "d" / "snapshots" / "2023_archive"
    archive.mkdir(parents=True)
    shutil.copy(SEED, archive / "dump.txt")
    d = tmp_path / "d"
    result = CliRunner().invoke(app, ["run", "--raw", str(d), "--output", str(d)])
    assert result.exit_code == 1
    assert result.output == (
        f"error: raw dir {d} and output folder {d / 'snapshots'} overlap: a run writes and "
        "prunes that folder and would delete or read raw dumps; keep raw and output in "
        "separate folders\n"
    )
    assert sorted(p.name for p in (d / "snapshots").iterdir()) == ["2023_archive"]
    assert not (d / "state").exists() and not (d / ".lock").exists()


# ---- The whole flow: a hostile raw dir ---------------------------------------------------


@pytest.mark.flow
def test_flow_on_a_hostile_raw_dir(prefect_harness: None, tmp_path: Path) -> None:
    from flows.prefect_flow import rulings_flow

    raw = _raw_with_seed(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text("TOP SECRET password=hunter2\n")
    os.symlink(secret, raw / "secret.txt")
    attack = "![x](https://attacker.example/t.png)[Re-login](https://phish.example)"
    fd = os.open(os.fsencode(raw) + b"/caf\xe9 <img src=x>.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, f"07 juin 2024 · source : wotc\n{attack}\n".encode())
    os.close(fd)
    (raw / "big.txt").write_bytes(SEED.read_bytes() + b"\n" * 1000)  # 4,700 bytes
    result = rulings_flow(raw_dir=raw, output_dir=tmp_path / "out", max_file_bytes=4000)
    latest = tmp_path / "out" / "latest"
    assert pl.read_parquet(latest / "dumps.parquet")["path"].to_list() == [
        "caf\\xe9 <img src=x>.txt",
        "good.txt",
    ]
    assert pl.read_parquet(latest / "rejects.parquet").select("reason", "content").rows() == [
        ("file is 4,700 bytes, over the 4,000-byte size limit: not read", "big.txt"),
        ("symlink to a file outside the raw dir: not read", "secret.txt"),
    ]
    assert [(i["path"], i["bytes"]) for i in result["inputs"]] == [
        ("big.txt", None),
        ("caf\\xe9 <img src=x>.txt", 100),
        ("good.txt", 3700),
        ("secret.txt", None),
    ]
    report = (latest / "report.md").read_text(encoding="utf-8")
    assert "hunter2" not in report and f"`{attack}`" in report
    assert "![x](" not in report.replace(f"`{attack}`", "")


def test_cli_has_the_size_limit_option() -> None:
    result = CliRunner().invoke(app, ["run", "--help"])
    assert result.exit_code == 0
    assert "--max-file-mb" in result.output
