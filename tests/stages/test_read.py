"""read: bytes to text to numbered lines, nothing dropped."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.errors import RawDirError
from flows.stages.read import (
    decode_bytes,
    decode_dumps,
    drop_duplicate_dumps,
    list_dump_files,
    load_raw_dumps,
    split_lines,
)

SEED_HEADER = (
    "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous est générée "
    "automatiquement (IA) — l'original anglais reste la source de vérité."
)
SEED_DATE = "07 juin 2024 · source : wotc"


def _lines(content: bytes) -> list[str]:
    raw = pl.DataFrame({"path": ["t.txt"], "content": [content]})
    return split_lines(decode_dumps(raw))["line"].to_list()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (f"{SEED_HEADER}\n{SEED_DATE}\n".encode(), [SEED_HEADER, SEED_DATE]),
        (f"{SEED_HEADER}\r\n{SEED_DATE}\r\n".encode(), [SEED_HEADER, SEED_DATE]),
        (f"{SEED_HEADER}\r{SEED_DATE}".encode(), [SEED_HEADER, SEED_DATE]),
        (b"\xef\xbb\xbf" + f"{SEED_HEADER}\n{SEED_DATE}".encode(), [SEED_HEADER, SEED_DATE]),
        (f"{SEED_HEADER}\n\n\n{SEED_DATE}\n\n".encode(), [SEED_HEADER, "", "", SEED_DATE, ""]),
        (b"", []),
        (b"\n", [""]),
    ],
    ids=["lf", "crlf", "lone-cr-no-final-newline", "utf8-bom", "blank-lines", "empty", "one-blank"],
)
def test_split_lines_keeps_every_line(content: bytes, expected: list[str]) -> None:
    assert _lines(content) == expected


def test_line_numbers_are_per_dump_and_one_based() -> None:
    raw = pl.DataFrame({"path": ["a.txt", "b.txt"], "content": [b"x\ny\n", b"z\n"]})
    lines = split_lines(decode_dumps(raw)).select("line_number", "line")
    assert lines.sort("line").rows() == [(1, "x"), (2, "y"), (1, "z")]


@pytest.mark.parametrize(
    ("content", "encoding", "text"),
    [
        ("é".encode(), "utf-8", "é"),
        (b"\xef\xbb\xbf" + "é".encode(), "utf-8-sig", "é"),
        ("é\n".encode("utf-16"), "utf-16", "é\n"),
        (b"caf\xe9", "utf-8+replaced", "caf\ufffd"),
    ],
    ids=["utf8", "utf8-bom", "utf16-bom", "invalid-utf8"],
)
def test_decode_bytes(content: bytes, encoding: str, text: str) -> None:
    assert decode_bytes(content) == (text, encoding)


def test_byte_identical_files_are_read_once(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x\n")
    (tmp_path / "b.txt").write_bytes(b"x\n")
    (tmp_path / "c.txt").write_bytes(b"y\n")
    unique, rejects = drop_duplicate_dumps(decode_dumps(load_raw_dumps(tmp_path)))
    assert unique["path"].to_list() == ["a.txt", "c.txt"]
    assert_frame_equal(
        rejects.select("line_number", "stage", "reason", "content"),
        pl.DataFrame(
            {
                "line_number": pl.Series([None], dtype=pl.Int64),
                "stage": ["read"],
                "reason": ["file has the same bytes as a.txt; its lines are read once, there"],
                "content": ["b.txt"],
            }
        ),
    )


def test_list_dump_files_sorted_recursive_and_txt_only(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("b.txt", "sub/a.txt", "a.txt", "notes.md"):
        (tmp_path / name).write_text("x")
    assert [p.relative_to(tmp_path).as_posix() for p in list_dump_files(tmp_path)] == [
        "a.txt",
        "b.txt",
        "sub/a.txt",
    ]


def test_list_dump_files_errors(tmp_path: Path) -> None:
    with pytest.raises(RawDirError, match="does not exist"):
        list_dump_files(tmp_path / "missing")
    with pytest.raises(RawDirError, match=r"holds no dump file \(expected \*\.txt\)"):
        list_dump_files(tmp_path)
