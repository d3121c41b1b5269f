"""Read dumps: raw files to bytes (I/O), bytes to text, text to numbered lines.

`load_raw_dumps` is the only function here that touches the disk, so the flow
can retry it on its own; `decode_dumps` and `split_lines` are pure.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import polars as pl

from flows.errors import RawDirError

logger = logging.getLogger(__name__)

#: File name endings read as dumps; anything else in the raw dir is ignored.
DUMP_SUFFIXES: tuple[str, ...] = (".txt",)

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def list_dump_files(raw_dir: Path) -> list[Path]:
    """List the dump files below `raw_dir`, sorted by their relative POSIX path.

    The order is the same whatever order the file system lists them in.

    Raises:
        RawDirError: `raw_dir` does not exist, is not a directory, or holds no
            file ending in one of `DUMP_SUFFIXES`.
    """
    if not raw_dir.is_dir():
        raise RawDirError(
            f"raw dir {raw_dir} does not exist or is not a directory; "
            "create it and copy the dump files (*.txt) into it"
        )
    files = sorted(
        (p for p in raw_dir.rglob("*") if p.is_file() and p.suffix.lower() in DUMP_SUFFIXES),
        key=lambda p: p.relative_to(raw_dir).as_posix(),
    )
    if not files:
        raise RawDirError(
            f"raw dir {raw_dir} holds no dump file (expected *{', *'.join(DUMP_SUFFIXES)})"
        )
    return files


def load_raw_dumps(raw_dir: Path) -> pl.DataFrame:
    """Read every dump file below `raw_dir` as bytes.

    Returns:
        One row per file, sorted by `path`:
        path (String): POSIX path relative to `raw_dir`, e.g. "000_fbe1.txt".
        content (Binary): the file's bytes, unchanged.

    Raises:
        RawDirError: see `list_dump_files`.
        OSError: a file could not be read (transient errors are retried by the flow).
    """
    files = list_dump_files(raw_dir)
    raw_dumps = pl.DataFrame(
        {
            "path": [p.relative_to(raw_dir).as_posix() for p in files],
            "content": [p.read_bytes() for p in files],
        },
        schema={"path": pl.String, "content": pl.Binary},
    )
    logger.info(
        "read %d dump files (%d bytes) from %s",
        raw_dumps.height,
        sum(len(b) for b in raw_dumps["content"]),
        raw_dir,
    )
    return raw_dumps


def decode_bytes(content: bytes) -> tuple[str, str]:
    """Decode one dump's bytes; return `(text, encoding)`.

    UTF-8 with a BOM is "utf-8-sig", UTF-16 with a BOM is "utf-16", valid UTF-8
    is "utf-8". Invalid UTF-8 bytes become U+FFFD and the encoding is
    "utf-8+replaced", so no line is dropped. Never raises.
    """
    if content.startswith(_UTF8_BOM):
        return content[len(_UTF8_BOM) :].decode("utf-8", errors="replace"), "utf-8-sig"
    if content.startswith(_UTF16_BOMS):
        return content.decode("utf-16", errors="replace"), "utf-16"
    try:
        return content.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return content.decode("utf-8", errors="replace"), "utf-8+replaced"


def decode_dumps(raw_dumps: pl.DataFrame) -> pl.DataFrame:
    """Hash and decode each dump file.

    Needs:
        path (String), content (Binary), one row per file.

    Returns:
        path (String), dump_id (String): sha256 hex of the bytes,
        byte_count (Int64), encoding (String), text (String); `content` is
        dropped. One row per file, sorted by path.
    """
    rows = []
    for path, content in raw_dumps.select("path", "content").iter_rows():
        text, encoding = decode_bytes(content)
        rows.append((path, hashlib.sha256(content).hexdigest(), len(content), encoding, text))
    return pl.DataFrame(
        rows,
        schema={
            "path": pl.String,
            "dump_id": pl.String,
            "byte_count": pl.Int64,
            "encoding": pl.String,
            "text": pl.String,
        },
        orient="row",
    ).sort("path")


def drop_duplicate_dumps(decoded: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Keep one file per distinct content; report the others as rejects.

    A file whose bytes equal an earlier file's (by path order) would repeat
    every entry under the same dump_id, so it is read once.

    Needs:
        path (String), dump_id (String), sorted by path.

    Returns:
        (unique_dumps, duplicate_rejects): `decoded` without the repeats, and
        rejects rows dump_id (String), line_number (Int64, null), stage ("read"),
        reason (String, names the file kept), content (String, the repeat's path).
    """
    marked = decoded.with_columns(_first_path=pl.col("path").first().over("dump_id"))
    is_repeat = pl.col("path") != pl.col("_first_path")
    duplicate_rejects = marked.filter(is_repeat).select(
        "dump_id",
        line_number=pl.lit(None, dtype=pl.Int64),
        stage=pl.lit("read"),
        reason=pl.format(
            "file has the same bytes as {}; its lines are read once, there", "_first_path"
        ),
        content=pl.col("path"),
    )
    return marked.filter(~is_repeat).drop("_first_path"), duplicate_rejects


def split_lines(decoded: pl.DataFrame) -> pl.DataFrame:
    """Split each dump's text into lines, numbered from 1; no line is dropped.

    Line ends are LF, CRLF or a lone CR. A final line end does not start a new
    line (a file of N newline-terminated lines gives N rows, as `wc -l` counts).

    Needs:
        dump_id (String), text (String).

    Returns:
        dump_id (String), line_number (Int64, 1-based), line (String, without
        its line end), sorted by dump_id order of input then line_number.
    """
    unified = pl.col("text").str.replace_all(r"\r\n?", "\n")
    return (
        decoded.select(
            "dump_id",
            line=pl.when(pl.col("text") == "")
            .then(pl.lit([], dtype=pl.List(pl.String)))
            .otherwise(unified.str.strip_suffix("\n").str.split("\n")),
        )
        .explode("line")
        .filter(pl.col("line").is_not_null())
        .with_columns(line_number=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("dump_id"))
        .select("dump_id", "line_number", "line")
    )
