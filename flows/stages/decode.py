"""Bytes to numbered lines: each file's dump id, its text, its lines.

A dump's id is the sha256 of its bytes. Each distinct content is decoded
once: most dumps are plain UTF-8, picked out over all files at once
(`plain_texts`); the others go through `encodings.decode_bytes` one file at a
time. Lines are then split and cleaned of invisible characters and markup
(`split_lines`), counting what was removed.
"""

from __future__ import annotations

import codecs
import hashlib

import polars as pl

from flows.stages import fast_badness
from flows.stages.encodings import NOISE_CLASS, UTF16_BOMS, decode_bytes
from flows.stages.markup import THEMATIC_BREAK, remove_markup
from flows.stages.mojibake import (
    BADNESS_TRIGGERS,
    LINE_SEPARATORS,
    MARK_PAIR_CLASS,
    NOT_FOR_BADNESS_CLASS,
    OTHER_LINE_ENDS,
    TRIGGER_CLASS,
)
from flows.stages.shapes import (
    KNOWN_SOURCES,
    SEPARATORS,
    by_distinct_text,
    is_date_head,
    starts_with_date,
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
    contents = hashed["content"].gather(firsts["_row"])  # the bytes of a batch's files
    plain = plain_texts(contents)  # most dumps: UTF-8 that needs no repair
    others = plain.is_null().arg_true().to_list()
    decoded = [decode_bytes(contents[i]) for i in others]
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


#: HZ-GB-2312's shift into GB2312 (a plain-looking ASCII text: `decode_bytes` reads it).
HZ_SHIFT = r"~\{"


def plain_texts(contents: pl.Series) -> pl.Series:
    """The text `decode_bytes` gives for each content left as it is, else null.

    A content is plain when it has no BOM and no NUL byte, is valid UTF-8,
    and its text holds no control character or U+FFFD (`_NOISE`: ISO-2022-JP's
    ESC too), no cp1252 mojibake pair (`_MOJIBAKE_MARK`), no HZ shift `~{`
    (HZ_SHIFT: `unmarked_cjk.decode_escaped`), and is not bad by ftfy's measure (only
    texts with one of the characters near which it can match are measured,
    see `fast_badness`): `decode_bytes` then returns it as text, encoding
    "utf-8", no repair, no reject. The checks run in polars over all
    contents at once (most dumps are plain; UTF-8 by `utf8_texts`), and so
    does the removal of the characters ftfy's measure skips
    (NOT_FOR_BADNESS); a null asks for `decode_bytes`.

    Args:
        contents: Binary Series, no null.

    Returns:
        String Series, one row per content.
    """
    marked = pl.any_horizontal(
        *(contents.bin.starts_with(bom) for bom in (codecs.BOM_UTF8, *UTF16_BOMS)),
        contents.bin.contains(b"\x00"),
    )
    unmarked = (~pl.select(marked).to_series()).arg_true()
    texts = (
        pl.repeat(None, contents.len(), dtype=pl.String, eager=True)
        .alias("")
        .scatter(unmarked, utf8_texts(contents.gather(unmarked)))
    )
    suspect = texts.str.contains(f"{NOISE_CLASS}|{MARK_PAIR_CLASS}|{HZ_SHIFT}")  # one pass
    to_measure = (~suspect & texts.str.contains(TRIGGER_CLASS)).arg_true()
    measured = texts.gather(to_measure).str.replace_all(NOT_FOR_BADNESS_CLASS, "").to_list()
    bad = [fast_badness.is_bad(text, BADNESS_TRIGGERS) for text in measured]
    return texts.scatter(
        pl.concat([suspect.arg_true(), to_measure.filter(pl.Series(bad, dtype=pl.Boolean))]), None
    )


def utf8_texts(contents: pl.Series) -> pl.Series:
    """Each content as UTF-8 text, null when `bytes.decode("utf-8")` fails on it (invalid or
    truncated sequences, overlong forms, surrogates, over U+10FFFF).

    polars' cast checks all contents at once, but fails whole when one is not
    UTF-8: the contents are then cast in halves, and a part of at most
    `PYTHON_DECODES` contents that fails is decoded one content at a time in
    Python (so a batch with one such file is scanned about twice, and one of
    many such files costs no more than decoding each).

    Args:
        contents: Binary Series, no null.

    Returns:
        String Series, one row per content.
    """
    try:
        return contents.cast(pl.String)
    except pl.exceptions.ComputeError:
        if contents.len() <= PYTHON_DECODES:
            return pl.Series([_utf8_or_none(content) for content in contents], dtype=pl.String)
        half = contents.len() // 2
        return pl.concat([utf8_texts(contents.head(half)), utf8_texts(contents.slice(half))])


#: `utf8_texts`: a part of this many contents or fewer that fails the cast is decoded in Python.
PYTHON_DECODES = 64


def _utf8_or_none(content: bytes) -> str | None:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None


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
#: invisible operators (U+2061-U+2064: function application, times, separator, plus),
#: soft hyphen (U+00AD), bidi marks and embeddings (U+200E, U+200F,
#: U+202A-U+202E, U+2066-U+2069).
FORMAT_CHARACTERS = "[\ufeff\u200b-\u200d\u2060-\u2064\u00ad\u200e\u200f\u202a-\u202e\u2066-\u2069]"

#: Either kind of character removed from lines.
_INVISIBLE = f"{CONTROL_CHARACTERS}|{FORMAT_CHARACTERS}"

#: A list bullet before an entry head (`- `, `* `, `• `, `1. `, `1) `).
BULLET = r"^\s*(?:[-*•‣◦]|\d{1,3}[.)])\s+"
#: Markdown around an entry head: a heading (`## …`), emphasis around the whole
#: line (`**June 14, 2024 · source: wotc**`, `_…_`) or around its date before the
#: separator (`**June 14, 2024** · source: wotc`): (pattern, replacement) in turn.
MARKDOWN = (
    (r"^\s*#{1,6}\s+", ""),
    (r"^\s*(?:\*\*(.+)\*\*|__(.+)__|\*([^*].*)\*|_([^_].*)_)\s*$", "${1}${2}${3}${4}"),
    (rf"^\s*(?:\*\*|__|\*|_)([^*_]+?)(?:\*\*|__|\*|_)(\s*[{SEPARATORS}])", "${1}${2}"),
)


def split_lines(decoded: pl.DataFrame) -> pl.DataFrame:
    """Split each dump's text into lines, numbered from 1; no line is dropped.

    Line ends are LF, CRLF, CR, LS and PS (LINE_SEPARATORS); in a text with no LF or
    CR but a final one, VT, FF and NEL too (OTHER_LINE_ENDS: a paste whose line breaks
    became those); elsewhere VT and FF are spaces, NEL is removed (more often
    cp1252's `…` read as Latin-1). A final line end starts no line (`wc -l`).
    Then, before any line is classified: control characters
    (CONTROL_CHARACTERS; VT and FF to a space) and invisible format characters
    (FORMAT_CHARACTERS) are removed and counted; HTML tags and comments are removed
    and entities decoded (`markup.strip_markup`: a run of block or break tags leaves
    one space, as an escaped `br` tag or line break does, an entity for an invisible
    character none, `&nbsp;` a space); a bullet
    (BULLET) is removed when what follows it starts with a date
    (`shapes.starts_with_date`) or is a head (`shapes.is_date_head`),
    and Markdown (MARKDOWN) when what is left is a head, from a line that is
    neither (`7. Juni 2024` keeps its `7.`). A line that had markup loses its
    surrounding spaces.

    Needs:
        dump_id (String), text (String): one row per dump (`decode_dumps`).

    Returns:
        dump_id (String), line_number (Int64, 1-based), line (String, without
        its line end, control, format characters and markup),
        control_char_count, format_char_count, markup_count (Int64: control
        characters, format characters, and tags + comments + entities + bullets
        removed from the line); sorted by input order, line_number.
    """
    text = pl.col("text")
    ends = rf"\r\n?|{LINE_SEPARATORS}"
    inner = text.str.strip_chars_end("\r\n").str.contains(r"[\r\n]")
    unified = pl.when(inner).then(text.str.replace_all(ends, "\n"))
    unified = unified.otherwise(text.str.replace_all(rf"{ends}|{OTHER_LINE_ENDS}", "\n"))
    split = (
        pl.when(pl.col("text") == "")
        .then(pl.lit([], dtype=pl.List(pl.String)))
        .otherwise(unified.str.strip_suffix("\n").str.split("\n"))
    )
    raw_lines = (
        decoded.select("dump_id", _raw=split)
        .with_columns(line_number=pl.int_ranges(1, pl.col("_raw").list.len() + 1, dtype=pl.Int64))
        .explode("_raw", "line_number")
        .filter(pl.col("_raw").is_not_null())
    )
    return by_distinct_text(raw_lines, "_raw", _clean_lines).drop("_raw")  # each cleaned once


def _clean_lines(raw_lines: pl.DataFrame) -> pl.DataFrame:
    """`split_lines`' cleaning of each `_raw` line (String): adds line (String),
    control_char_count, format_char_count and markup_count (Int64)."""
    # The regexes below run only on the few lines they change (null lines are skipped).
    invisible = pl.when(pl.col("_raw").str.contains(_INVISIBLE)).then(pl.col("_raw"))
    visible = raw_lines.with_columns(
        line=pl.coalesce(
            invisible.str.replace_all("[\x0b\x0c]", " ")  # a word processor's line break
            .str.replace_all(CONTROL_CHARACTERS, "")
            .str.replace_all(FORMAT_CHARACTERS, ""),
            pl.col("_raw"),
        ),
        control_char_count=_count(invisible, CONTROL_CHARACTERS),
        format_char_count=_count(invisible, FORMAT_CHARACTERS),
    )
    return _remove_markup(visible)


def _count(lines: pl.Expr, pattern: str) -> pl.Expr:
    """Matches of `pattern` in each of `lines` (Int64), 0 for a null line."""
    return lines.str.count_matches(pattern).fill_null(0).cast(pl.Int64)


def _remove_markup(lines: pl.DataFrame) -> pl.DataFrame:
    """Remove HTML tags, comments, bullets and thematic breaks (`markup.THEMATIC_BREAK`: the
    line is left empty), decode entities; add markup_count (Int64)."""
    rule = pl.col("line").str.contains(THEMATIC_BREAK)  # `---` alone: a blank line, as `<hr>`
    untagged = (
        lines.with_columns(
            remove_markup(lines["line"], _INVISIBLE).get_columns()  # tags, comments, entities
        )
        .with_columns(
            line=pl.when(rule).then(pl.lit("")).otherwise("line"),
            markup_count=pl.col("markup_count") + rule.cast(pl.Int64),
        )
        .with_row_index("_row")
    )
    # Dates are looked for only on the few lines with a bullet or Markdown: a bullet goes
    # before a date, Markdown around a head (`*June 14, 2024* is…` is ruling text).
    line, debulleted = pl.col("line"), pl.col("line").str.replace(BULLET, "")
    plain = debulleted
    for pattern, replacement in MARKDOWN:
        plain = plain.str.replace(pattern, replacement)
    cleaned = (
        pl.when(starts_with_date(debulleted) | is_date_head(debulleted))
        .then(debulleted)
        .when(is_date_head(plain))
        .then(plain)
    )
    marked = rf"{BULLET}|^\s*[*_#]"  # every MARKDOWN pattern starts the line
    read = starts_with_date(line) | is_date_head(line)
    heads = (
        untagged.filter(line.str.contains(marked))  # then only the few marked lines
        .filter(~read)
        .select("_row", _debulleted=cleaned)
        .drop_nulls("_debulleted")
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


#: An entry head whose letters were not decoded: a four-digit year in the first 40
#: characters, then up to 30 characters (the date's rest and a source label) holding two
#: words of ASCII letters or fewer (`is_undecoded_head`), then a known source (the colon
#: may be lost with them: `2024�N6��7�� �E �o�T�Fwotc`, Shift_JIS read as UTF-8) or a
#: colon and one word, no sentence's end (`7 ������� 2024 �. � ��������: wotc`, KOI8-R).
UNDECODED_HEAD = (
    r"^.{0,40}?\d{4}(?P<rest>.{0,30}?)"
    rf"(?:[:：]\s*[\p{{L}}\d](?:[\w.\-]{{0,28}}\w)?|(?i:{'|'.join(KNOWN_SOURCES)}))\s*$"
)


def is_undecoded_head(line: pl.Expr) -> pl.Expr:
    """`line` holds undecodable bytes (U+FFFD) and has the shape of an entry head
    (UNDECODED_HEAD): it is rejected with its body like a head with a damaged byte
    (`June 7, 2024\ufffd · source: wotc`), never glued to the entry before. Not a line
    with more words between its year and its source (`© 2024 Wizards of the Coast ·
    Source: wotc`). Boolean, false on a null line."""
    rest = pl.when(line.str.contains("\ufffd")).then(line).str.extract(UNDECODED_HEAD, 1)
    return rest.str.count_matches("[A-Za-z]{2,}").le(2).fill_null(False)
