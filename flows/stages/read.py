"""Read dumps: raw files to bytes (I/O), bytes to text, text to numbered lines.

`load_raw_dumps` is the only function here that touches the disk, so the flow
can retry it on its own; `decode_dumps` and `split_lines` are pure.
"""

from __future__ import annotations

import errno
import hashlib
import html
import logging
import os
import re
import stat
import time
from pathlib import Path
from typing import Any

import polars as pl

from flows.errors import RawDirError
from flows.stages.decode import decode_bytes, plain_texts
from flows.stages.parse import starts_with_date

logger = logging.getLogger(__name__)

#: File name endings read as dumps; anything else in the raw dir is ignored.
DUMP_SUFFIXES: tuple[str, ...] = (".txt",)

#: Files larger than this are not read (a `read` reject gives their size). A
#: real dump is a few KB; reading a file costs about 13 times its size at peak.
MAX_FILE_BYTES = 64 * 1024 * 1024

_FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def escape_path(name: str) -> str:
    """A file path as published: `os.fsdecode` text, bytes that are not UTF-8 as `\\xNN`.

    A name with bytes that are not valid UTF-8 (`caf\\xe9.txt` saved in
    Latin-1) comes from the file system with surrogate escapes; they become
    the four characters `\\xe9`. A backslash in a name is doubled, so the
    escaped form is unambiguous and `unescape_path` gives the name back.
    """
    return _SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", name.replace("\\", "\\\\"))


def unescape_path(path: str) -> str:
    """The file system name (`os.fsdecode` form) of a path `escape_path` gave."""
    return _ESCAPE.sub(
        lambda m: "\\" if m.group() == "\\\\" else chr(0xDC00 + int(m.group()[2:], 16)), path
    )


_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPE = re.compile(r"\\\\|\\x[0-9a-f]{2}")


def list_dump_paths(raw_dir: Path) -> list[str]:
    """List the dump entries below `raw_dir` as POSIX paths relative to it, sorted.

    Every entry whose name ends in one of `DUMP_SUFFIXES` and that is not a
    real folder is listed, whatever it is (a regular file, a symlink, a FIFO):
    `load_raw_dumps` decides what is read. Symlinked folders are not entered.
    Names are published by `escape_path`. The order is the same whatever
    order the file system lists them in. (os.walk and strings: pathlib costs
    seconds on 100,000 files.)

    Raises:
        RawDirError: `raw_dir` does not exist, is not a directory, or holds no
            entry ending in one of `DUMP_SUFFIXES`.
    """
    if not raw_dir.is_dir():
        raise RawDirError(
            f"raw dir {raw_dir} does not exist or is not a directory; "
            "create it and copy the dump files (*.txt) into it"
        )
    paths = []
    for folder, folders, names in os.walk(os.fspath(raw_dir)):
        relative = os.path.relpath(folder, raw_dir).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        linked = [f for f in folders if os.path.islink(os.path.join(folder, f))]
        paths += [
            escape_path(prefix + n) for n in names + linked if n.lower().endswith(DUMP_SUFFIXES)
        ]
    if not paths:
        raise RawDirError(
            f"raw dir {raw_dir} holds no dump file (expected *{', *'.join(DUMP_SUFFIXES)})"
        )
    return sorted(paths)


def load_raw_dumps(
    raw_dir: Path, paths: list[str] | None = None, max_file_bytes: int = MAX_FILE_BYTES
) -> pl.DataFrame:
    """Read dump files below `raw_dir` as bytes: all of them, or the `paths` given.

    Only regular files inside `raw_dir` are read. A symlink is followed only
    when its target is inside `raw_dir`; a symlink to a file outside it, a
    dangling symlink, a symlink loop, a FIFO, a socket, a device, and a file
    over `max_file_bytes` are not read (not even opened, for a FIFO or a
    device): their row has null `content` and a `read_reject`.

    Args:
        raw_dir: the raw folder.
        paths: escaped POSIX paths relative to `raw_dir` (a batch of `list_dump_paths`).
        max_file_bytes: the size limit (bytes); larger files are not read.

    Returns:
        One row per path, sorted by `path`:
        path (String): escaped POSIX path relative to `raw_dir`, e.g. "000_fbe1.txt".
        content (Binary): the file's bytes, unchanged; null when not read.
        read_reject (String): why the file was not read, else null.

    Raises:
        RawDirError: see `list_dump_paths`.
        OSError: a regular file could not be read (transient errors are retried by the flow).
    """
    paths = list_dump_paths(raw_dir) if paths is None else sorted(paths)
    root = os.path.realpath(raw_dir)
    folders: dict[str, str | None] = {}
    read = [_read(root, raw_dir, unescape_path(p), max_file_bytes, folders) for p in paths]
    raw_dumps = pl.DataFrame(
        {
            "path": paths,
            "content": [content for content, _ in read],
            "read_reject": [reason for _, reason in read],
        },
        schema={"path": pl.String, "content": pl.Binary, "read_reject": pl.String},
    )
    logger.debug("read %d dump files from %s", raw_dumps.height, raw_dir)
    return raw_dumps


def _read(
    root: str, raw_dir: Path, name: str, max_file_bytes: int, folders: dict[str, str | None]
) -> tuple[bytes | None, str | None]:
    """(content, None) for a readable file, else (None, why it is not read).

    A regular file (not a symlink) in a folder whose real path is inside
    `root` is its own real path: it is opened without resolving the whole
    path again (`folders` keeps each folder's real path, None when it is not a
    folder inside `root`). Any other entry goes through `_resolve`.
    """
    folder, base = os.path.split(name)
    if folder not in folders:
        folders[folder] = _real_folder(root, os.path.join(raw_dir, folder))
    real_folder = folders[folder]
    if real_folder is not None and base not in ("", ".", ".."):
        target = os.path.join(real_folder, base)
        try:
            plain = stat.S_ISREG(os.lstat(target).st_mode)
        except OSError:
            plain = False
        if plain:
            return _read_regular(target, max_file_bytes)
    return _resolve(root, os.path.join(raw_dir, name), max_file_bytes)


def _real_folder(root: str, folder: str) -> str | None:
    """`folder`'s real path when it exists and is inside `root`, else None."""
    try:
        real = os.path.realpath(folder, strict=True)
    except OSError:
        return None
    return real if os.path.commonpath([root, real]) == root else None


def _resolve(root: str, path: str, max_file_bytes: int) -> tuple[bytes | None, str | None]:
    """`_read` of any entry: follows a symlink whose target is inside `root`, else says why not."""
    try:
        target = os.path.realpath(path, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "symlink loop: not read"
        if os.path.islink(path):
            return None, "dangling symlink (its target does not exist): not read"
        if exc.errno == errno.ENOENT:
            return None, "file removed from the raw dir while the run read it: not read"
        raise
    if os.path.commonpath([root, target]) != root:
        return None, "symlink to a file outside the raw dir: not read"
    kind = os.stat(target).st_mode
    for is_kind, name in _FILE_KINDS:
        if is_kind(kind):
            return None, f"not a regular file but {name}: not read"
    return _read_regular(target, max_file_bytes)


def _read_regular(target: str, max_file_bytes: int) -> tuple[bytes | None, str | None]:
    """Read `target` (a real path, opened without following a symlink) up to the size limit.

    Reads with `os.read` until the end of the file or `max_file_bytes` + 1
    bytes (a buffered `read(n)` sets aside n bytes first: 64 MiB per file).
    """
    fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        opened = os.fstat(fd)  # what was opened, should the entry have changed
        if not stat.S_ISREG(opened.st_mode):
            return None, "not a regular file: not read"
        size = opened.st_size
        content = _read_up_to(fd, max_file_bytes + 1, size + 1) if size <= max_file_bytes else b""
    finally:
        os.close(fd)
    if size > max_file_bytes or len(content) > max_file_bytes:
        return None, (
            f"file is {max(size, len(content)):,} bytes, over the {max_file_bytes:,}-byte "
            "size limit: not read"
        )
    return content, None


def _read_up_to(fd: int, limit: int, first: int) -> bytes:
    """Bytes from `fd` until its end or `limit` bytes, in reads of at least `first` bytes."""
    chunks, left = [], limit
    while left > 0:
        chunk = os.read(fd, min(left, max(first, 65_536)))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


#: The file metadata a file index compares, as git's index does: a file whose
#: size, mtime, ctime, inode and device all match the last run's is not read again.
STAT_SCHEMA = {
    "path": pl.String,
    "size": pl.Int64,
    "mtime_ns": pl.Int64,
    "ctime_ns": pl.Int64,
    "ino": pl.UInt64,
    "dev": pl.UInt64,
}

#: A file modified less than this before its metadata was taken is not indexed
#: (read again next run): a later write within the file system's timestamp
#: granularity could leave its metadata unchanged (git's "racily clean" files).
RACY_WINDOW_NS = 2_000_000_000


def stat_dumps(raw_dir: Path, paths: list[str]) -> pl.DataFrame:
    """Each path's metadata (`os.lstat`), null for anything but a regular file.

    A symlink, a FIFO, a missing file or one modified within `RACY_WINDOW_NS`
    of now gets nulls, so it is always read (and judged by `load_raw_dumps`).

    Returns:
        STAT_SCHEMA columns, one row per path in the order given.
    """
    racy_after = time.time_ns() - RACY_WINDOW_NS
    base = os.path.join(os.fspath(raw_dir), "")  # strings, not pathlib: 100,000 files
    infos: list[os.stat_result | None] = []
    for path in paths:
        try:
            info = os.lstat(base + (unescape_path(path) if "\\" in path else path))
        except OSError:
            info = None
        indexed = info is not None and stat.S_ISREG(info.st_mode) and info.st_mtime_ns < racy_after
        infos.append(info if indexed else None)
    columns: dict[str, list[Any]] = {"path": paths}
    for column in list(STAT_SCHEMA)[1:]:
        attribute = _STAT_ATTRIBUTES[column]
        columns[column] = [None if i is None else getattr(i, attribute) for i in infos]
    return pl.DataFrame(columns, schema=STAT_SCHEMA)


_STAT_ATTRIBUTES = {
    "size": "st_size",
    "mtime_ns": "st_mtime_ns",
    "ctime_ns": "st_ctime_ns",
    "ino": "st_ino",
    "dev": "st_dev",
}


def unchanged_dumps(
    stats: pl.DataFrame, index: pl.DataFrame, known_ids: pl.Series, max_file_bytes: int
) -> pl.DataFrame:
    """The files whose metadata matches the last run's index: their dump_id without reading.

    Needs:
        stats: `stat_dumps` output. index: STAT_SCHEMA plus dump_id (String),
        the last run's files. known_ids: dump_ids whose parse is cached (String).

    Returns:
        path, dump_id (String), byte_count (Int64) of the files whose every
        metadata column equals the index's, whose dump_id is cached and whose
        size is within `max_file_bytes`; a file not listed here must be read.
    """
    keys = list(STAT_SCHEMA)
    return (
        stats.drop_nulls()
        .join(index.select(*keys, "dump_id").drop_nulls(), on=keys, how="inner")
        .filter(pl.col("dump_id").is_in(known_ids.implode()) & (pl.col("size") <= max_file_bytes))
        .select("path", "dump_id", byte_count="size")
    )


def hash_dumps(raw_dumps: pl.DataFrame) -> pl.DataFrame:
    """Give each file its dump id.

    Needs:
        path (String), content (Binary, null for a file not read), one row
        per file; read_reject (String) is kept when present.

    Returns:
        `raw_dumps` sorted by path, plus dump_id (String: sha256 hex of the
        bytes) and byte_count (Int64), both null for a file not read, and
        read_reject (String, null when the file was read).
    """
    ordered = raw_dumps if raw_dumps["path"].is_sorted() else raw_dumps.sort("path")
    if "read_reject" not in ordered.columns:
        ordered = ordered.with_columns(read_reject=pl.lit(None, dtype=pl.String))
    return ordered.with_columns(
        dump_id=pl.Series(
            [
                None if content is None else hashlib.sha256(content).hexdigest()
                for content in ordered["content"]
            ],
            dtype=pl.String,
        ),
        byte_count=pl.col("content").bin.size().cast(pl.Int64),
    )


def decode_dumps(hashed: pl.DataFrame) -> pl.DataFrame:
    """Decode each distinct file content once (see `decode.decode_bytes`).

    Needs:
        dump_id (String), content (Binary; rows with null content, files not
        read, are skipped).

    Returns:
        One row per distinct dump_id, sorted by dump_id: dump_id (String),
        encoding (String), encoding_repair (String, null when none),
        reject_reason (String: why the whole file is no dump, else null),
        text (String, null for a rejected file).
    """
    firsts = (  # row numbers only: filtering or sorting `content` would copy every byte
        hashed.select("dump_id", _read=pl.col("content").is_not_null())
        .with_row_index("_row")
        .filter("_read")
        .unique("dump_id", keep="first")
        .sort("dump_id")
    )
    contents = hashed["content"]
    firsts_contents = [contents[row] for row in firsts["_row"]]
    plain = plain_texts(firsts_contents)  # most dumps: UTF-8 that needs no repair
    others = plain.is_null().arg_true().to_list()
    decoded = [decode_bytes(firsts_contents[i]) for i in others]
    fields = {
        "encoding": ("utf-8", [d.encoding for d in decoded]),
        "encoding_repair": (None, [d.repair for d in decoded]),
        "reject_reason": (None, [d.reject_reason for d in decoded]),
    }
    return pl.DataFrame(
        {
            "dump_id": firsts["dump_id"],
            **{
                name: _scatter(
                    pl.repeat(plain_value, plain.len(), dtype=pl.String, eager=True), others, values
                )
                for name, (plain_value, values) in fields.items()
            },
            "text": _scatter(plain, others, [d.text for d in decoded]),
        }
    )


def _scatter(column: pl.Series, rows: list[int], values: list[str | None]) -> pl.Series:
    """`column` with `values` at `rows` (String)."""
    return column.scatter(rows, pl.Series(values, dtype=pl.String)) if rows else column


def split_readable_dumps(decoded: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Keep one readable file per distinct content; report the others as rejects.

    A file that was not read (`read_reject` set: a symlink out of the raw
    dir, a FIFO, a file over the size limit…) is rejected with that reason; a
    file whose bytes equal an earlier file's (by path order) would repeat
    every entry under the same dump_id, so it is read once; a file that is
    no text (`reject_reason` set) is rejected whole, and the run goes on.

    Needs:
        path (String), dump_id (String, null for a file not read),
        reject_reason (String), read_reject (String, optional), sorted by path.

    Returns:
        (readable, file_rejects): the input without those files, and rejects
        rows dump_id (String, null for a file not read), line_number (Int64,
        null), stage ("read"), reason (String), content (String: the file's path).
    """
    if "read_reject" not in decoded.columns:
        decoded = decoded.with_columns(read_reject=pl.lit(None, dtype=pl.String))
    first_path = pl.col("path").first().over("dump_id")
    marked = decoded.with_columns(
        _reason=pl.when(pl.col("read_reject").is_not_null())
        .then(pl.col("read_reject"))
        .when(pl.col("path") != first_path)
        .then(
            pl.format("file has the same bytes as {}; its lines are read once, there", first_path)
        )
        .otherwise(pl.col("reject_reason"))
    )
    file_rejects = marked.filter(pl.col("_reason").is_not_null()).select(
        "dump_id",
        line_number=pl.lit(None, dtype=pl.Int64),
        stage=pl.lit("read"),
        reason="_reason",
        content=pl.col("path"),
    )
    return marked.filter(pl.col("_reason").is_null()).drop("_reason"), file_rejects


#: Control characters removed from lines (C0 but tab, DEL, C1); line ends split lines.
CONTROL_CHARACTERS = r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"

#: Invisible format characters removed from lines: BOM (U+FEFF, anywhere),
#: zero-width space, non-joiner, joiner (U+200B-U+200D), word joiner (U+2060),
#: soft hyphen (U+00AD), bidi marks and embeddings (U+200E, U+200F,
#: U+202A-U+202E, U+2066-U+2069).
FORMAT_CHARACTERS = "[\ufeff\u200b-\u200d\u2060\u00ad\u200e\u200f\u202a-\u202e\u2066-\u2069]"

#: Either kind of character removed from lines.
_INVISIBLE = f"{CONTROL_CHARACTERS}|{FORMAT_CHARACTERS}"

#: HTML tags pasted around or inside lines (`<p>`, `<br>`, `<li>`…): removed.
HTML_TAG = (
    r"(?i)</?(?:p|br|div|span|li|ul|ol|b|i|u|em|strong|a|font|small|big|h[1-6]|blockquote"
    r"|code|pre|sup|sub|td|tr|th|table|tbody|thead|hr)(?:\s[^<>]*)?/?>"
)

#: HTML entities (`&nbsp;`, `&amp;`, `&#183;`): decoded with `html.unescape`.
HTML_ENTITY = r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});"

#: `&nbsp;` is markup for a space: decoded to U+0020 (a written U+00A0 is kept).
NO_BREAK_SPACE_ENTITY = r"&(?:nbsp|#160|#[xX]0*[aA]0);"

#: A list bullet before an entry head (`- `, `* `, `• `, `1. `, `1) `).
BULLET = r"^\s*(?:[-*•‣◦]|\d{1,3}[.)])\s+"


def split_lines(decoded: pl.DataFrame) -> pl.DataFrame:
    """Split each dump's text into lines, numbered from 1; no line is dropped.

    Line ends are LF, CRLF or a lone CR. A final line end does not start a new
    line (a file of N newline-terminated lines gives N rows, as `wc -l` counts).
    Then, before any line is classified: control characters
    (CONTROL_CHARACTERS) and invisible format characters (FORMAT_CHARACTERS)
    are removed and counted; HTML tags (HTML_TAG) are removed and entities
    (HTML_ENTITY) decoded (`html.unescape`; `&nbsp;` to a space); a bullet
    (BULLET) is removed when what follows it starts with a date
    (`parse.starts_with_date`) and the line with it does not (`7. Juni 2024`
    keeps its `7.`). A line that had markup loses its surrounding spaces.

    Needs:
        dump_id (String), text (String).

    Returns:
        dump_id (String), line_number (Int64, 1-based), line (String, without
        its line end, control, format characters and markup),
        control_char_count, format_char_count, markup_count (Int64: control
        characters, format characters, and tags + entities + bullets removed
        from the line); sorted by input order, line_number.
    """
    unified = pl.col("text").str.replace_all(r"\r\n?", "\n")
    # The regexes below run only on the few lines they change (null lines are skipped).
    invisible = pl.when(pl.col("line").str.contains(_INVISIBLE)).then(pl.col("line"))
    raw_lines = (
        decoded.select(
            "dump_id",
            line=pl.when(pl.col("text") == "")
            .then(pl.lit([], dtype=pl.List(pl.String)))
            .otherwise(unified.str.strip_suffix("\n").str.split("\n")),
        )
        .explode("line")
        .filter(pl.col("line").is_not_null())
        .select(
            "dump_id",
            line_number=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("dump_id"),
            line=pl.coalesce(
                invisible.str.replace_all(CONTROL_CHARACTERS, "").str.replace_all(
                    FORMAT_CHARACTERS, ""
                ),
                pl.col("line"),
            ),
            control_char_count=_count(invisible, CONTROL_CHARACTERS),
            format_char_count=_count(invisible, FORMAT_CHARACTERS),
        )
    )
    return _remove_markup(raw_lines)


def _count(lines: pl.Expr, pattern: str) -> pl.Expr:
    """Matches of `pattern` in each of `lines` (Int64), 0 for a null line."""
    return lines.str.count_matches(pattern).fill_null(0).cast(pl.Int64)


def _remove_markup(lines: pl.DataFrame) -> pl.DataFrame:
    """Remove HTML tags and bullets, decode entities; add markup_count (Int64)."""
    # A tag starts with `<`, an entity with `&`: the regexes run only on such lines.
    tagged = pl.when(pl.col("line").str.contains("<", literal=True)).then(pl.col("line"))
    with_ampersand = pl.when(pl.col("line").str.contains("&", literal=True)).then(pl.col("line"))
    untagged = lines.with_columns(
        markup_count=_count(tagged, HTML_TAG) + _count(with_ampersand, HTML_ENTITY),
        line=pl.coalesce(tagged.str.replace_all(HTML_TAG, ""), pl.col("line")).map_batches(
            _unescape, pl.String
        ),
    ).with_row_index("_row")
    # Dates are looked for only on the few lines with a bullet.
    debulleted = pl.col("line").str.replace(BULLET, "")
    heads = (
        untagged.filter(pl.col("line").str.contains(BULLET))
        .filter(starts_with_date(debulleted) & ~starts_with_date(pl.col("line")))
        .select("_row", _debulleted=debulleted)
    )
    return (
        untagged.join(heads, on="_row", how="left", maintain_order="left")
        .with_columns(
            line=pl.coalesce("_debulleted", "line"),
            markup_count=pl.col("markup_count") + pl.col("_debulleted").is_not_null(),
        )
        .with_columns(
            line=pl.coalesce(
                pl.when(pl.col("markup_count") > 0).then(pl.col("line")).str.strip_chars(),
                pl.col("line"),
            )
        )
        .drop("_row", "_debulleted")
    )


def _unescape(lines: pl.Series) -> pl.Series:
    """`html.unescape` on the lines holding an HTML entity (String in, String out)."""
    with_ampersand = lines.str.contains("&", literal=True).fill_null(False).arg_true()
    indices = with_ampersand.filter(lines.gather(with_ampersand).str.contains(HTML_ENTITY))
    if indices.is_empty():
        return lines
    texts = lines.gather(indices).str.replace_all(NO_BREAK_SPACE_ENTITY, " ").to_list()
    return lines.scatter(indices, [html.unescape(t) for t in texts])
