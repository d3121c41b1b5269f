"""Parse dumps: give each line its kind, then group body lines into entries.

A dump (see the seeds in `raw/`) is a header of site disclaimer lines, then
entries, each a date·source line (`07 juin 2024 · source : wotc`) followed by
the ruling body, then sometimes a stray card stub (`CMC 2F/E 1/3`, `.`, a cut
sentence of card text). Every line gets exactly one kind. `parse_files` is
the work the parse cache saves: decoding (`decode`) and classifying each
distinct dump's lines.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TypedDict

import polars as pl

from flows.stages.date_formats import day_first_languages
from flows.stages.decode import decode_dumps, is_undecoded_head, split_lines
from flows.stages.pastes import cut_glued_headers, mark_repeated_headers, paste_text_shapes
from flows.stages.shapes import (
    FULL_WIDTH,
    by_distinct_text,
    holds_inner_head,
    shape_texts,
    stub_number,
)
from flows.stages.stubs import with_dot_stubs

logger = logging.getLogger(__name__)

#: Line kinds; every raw line gets exactly one (`manifest.json` line_accounting).
LINE_KINDS: tuple[str, ...] = (
    "header", "date_source", "body", "translation", "stub", "blank", "rejected",
)  # fmt: skip

#: Why a numeric day/month-first date is rejected in a dump whose language does not fix the order.
AMBIGUOUS_DATE_REASON = (
    "ambiguous numeric date: day/month order depends on the locale, and the header is in "
    f"no language that fixes it ({', '.join(day_first_languages())})"
)

#: A line longer than this is no ruling (the longest real ruling is ~1,500 characters).
MAX_LINE_CHARS = 20_000


def _ambiguous_dates(is_head: pl.Expr, claimed: pl.Expr) -> pl.Expr:
    """True on a numeric day/month-first head of a dump whose language does not fix the order.

    The dump's language is the first a header line gives (`claimed`: `shape_texts`'
    _order_language on header lines, that of its word for translation, else null); it
    fixes the order when it is one of `dates.day_first_languages`. (`claimed` is a column
    of its own: a window over the whole `claimed_language` expression is
    evaluated dump by dump, 6 s of CPU at a million lines.)
    """
    dump_claims = claimed.drop_nulls().first().over("dump_id")
    day_first = dump_claims.is_in(list(day_first_languages())).fill_null(False)
    return is_head & pl.col("_numeric") & ~day_first


def classify_lines(lines: pl.DataFrame, max_line_chars: int = MAX_LINE_CHARS) -> pl.DataFrame:
    """Give each line its kind from its shape and its place in the dump.

    An entry starts at each date·source line (`shapes.is_head`, heads in any script
    included), and also at a line that starts with a date but lacks the `· source : x`
    part (rejected as malformed, so its body is never glued to the entry before). A
    card stub starts at each stat line and runs to the next entry, the next repeated
    header or the end of the dump. A repeated header (`pastes.mark_repeated_headers`)
    runs to the next entry or stat line; one glued to the line before is cut off it
    (`pastes.cut_glued_headers`).

    Shapes (in order): a line in a stub is `stub` (or `blank`); an empty or all-space
    line is `blank`; a line before the first entry, or in a repeated header, is
    `header`; an entry's first line is `date_source`; any other is `body`. A line longer
    than `max_line_chars`, holding U+FFFD (undecodable bytes), a malformed date·source
    line outside a stub, or a numeric date whose day/month order the dump's language
    does not fix (`_ambiguous_dates`) is `rejected`; a rejected entry head (one whose
    letters were not decoded too: `decode.is_undecoded_head`) still starts its entry,
    whose body `resolve_entries` then rejects. A stub's text lines are rejected the
    same way (its stat line cannot be). Dates are not parsed here.

    Needs:
        dump_id (String), line_number (Int64), line (String).

    Adds:
        kind (String): one of LINE_KINDS (never "translation" yet).
        reject_reason (String): why a `rejected` line was rejected, else null.
        entry_line (Int64): for entry heads and body lines, the line_number of
            the entry's head; else null.
        stub_line (Int64): for the lines of a card stub, the line_number of its
            first line (its stat line, or its `.`: `stubs.with_dot_stubs`); else null.
        date_text (String), source (String, FULL_WIDTH folded and lowercased: `ｗｏｔｃ`
            is wotc): on date·source lines.
        _shape (String): the kind by shape alone (dropped by `resolve_entries`).
    """
    first_head = pl.when(pl.col("_is_date") | pl.col("_looks_dated")).then(pl.col("line_number"))
    shape = partial(_shape_texts, max_line_chars=max_line_chars)
    dated = by_distinct_text(lines, "line", shape)  # each distinct text shaped once
    dated = cut_glued_headers(
        dated.with_columns(_first_head=first_head.min().over("dump_id")), shape
    )
    stub_line, in_repeat = _stub_and_repeat()
    shaped = (
        with_dot_stubs(mark_repeated_headers(dated))
        .with_columns(stub_line=stub_line, _in_repeat=in_repeat)  # once, used twice
        .with_columns(  # header lines only
            _claimed=pl.when(pl.col("line_number") < pl.col("_first_head")).then(
                pl.col("_order_language")
            )
        )
        .with_columns(_shape=_shape_by_place(), reject_reason=_line_reason())
    )
    return _with_entry_heads(shaped).drop(
        *dated.columns[lines.width :], "_claimed", "_repeats_header", "_in_repeat"
    )


def _shape_texts(texts: pl.DataFrame, max_line_chars: int) -> pl.DataFrame:
    """`shapes.shape_texts`, `pastes.paste_text_shapes` and _text_reason (String) of `line`;
    a head whose letters were not decoded (`decode.is_undecoded_head`) looks dated."""
    looks_dated = pl.col("_looks_dated") | ~pl.col("_is_date") & is_undecoded_head(pl.col("line"))
    return shape_texts(texts).with_columns(
        _text_reason=_text_reason(max_line_chars), _looks_dated=looks_dated, **paste_text_shapes()
    )


def _text_reason(max_line_chars: int) -> pl.Expr:
    """Why a line is rejected by its text alone (too long, undecodable bytes, an entry inside
    it: INNER_HEAD_PATTERN), else null."""
    length = pl.col("line").str.len_chars()
    return (
        pl.when(length > max_line_chars)
        .then(pl.format("line of {} characters is longer than any ruling (limit {})",
                        length, pl.lit(max_line_chars)))
        .when(pl.col("line").str.contains("\ufffd"))
        .then(pl.format("line has {} undecodable byte sequences (shown as U+FFFD)",
                        pl.col("line").str.count_matches("\ufffd")))
        .when(holds_inner_head(pl.col("line")))
        .then(pl.lit("line holds a date·source line and more text: entries pasted on one "
                     "line are not read"))
    )  # fmt: skip


_BY_LINE = {"order_by": "line_number"}


def _stub_and_repeat() -> tuple[pl.Expr, pl.Expr]:
    """(the first line_number of the card stub the line is in, else null; it is in a
    repeated header) over `_is_date`, `_looks_dated`, `_repeats_header`: a stub runs from
    its stat line, a repeated header from its first line, to the next head, stat line or
    repeated header."""
    is_head = pl.col("_is_date") | pl.col("_looks_dated")
    is_stat = pl.col("_is_stat")
    repeats = pl.col("_repeats_header")
    stub_line = stub_number(is_head | repeats).replace(0, None)
    in_repeat = (
        pl.when(repeats).then(pl.col("line_number")).when(is_head | is_stat).then(0)
        .forward_fill().over("dump_id", **_BY_LINE).fill_null(0) > 0
    )  # fmt: skip
    return stub_line, in_repeat


def _shape_by_place() -> pl.Expr:
    """The kind of a line by its shape and place (`classify_lines`), before any reject."""
    stubbed, head_at = pl.col("stub_line").is_not_null(), pl.col("_first_head")
    is_blank = pl.col("_is_blank")
    return (
        pl.when(stubbed & is_blank).then(pl.lit("blank"))
        .when(stubbed).then(pl.lit("stub"))
        .when(is_blank).then(pl.lit("blank"))
        .when(head_at.is_null() | (pl.col("line_number") < head_at) | pl.col("_in_repeat"))
        .then(pl.lit("header"))
        .when(pl.col("_is_date") | pl.col("_looks_dated")).then(pl.lit("date_source"))
        .otherwise(pl.lit("body"))
    )  # fmt: skip


def _line_reason() -> pl.Expr:
    """Why a line is rejected on its own (`classify_lines`), else null."""
    stubbed = pl.col("stub_line").is_not_null()
    return (
        pl.when(pl.col("_is_stat")).then(None)
        .when(pl.col("_text_reason").is_not_null()).then(pl.col("_text_reason"))
        .when(pl.col("_looks_dated") & ~stubbed)
        .then(pl.lit("malformed date·source line: expected '<date> · <source word> : <source>'"))
        .when(_ambiguous_dates(pl.col("_is_date") & ~stubbed, pl.col("_claimed")))
        .then(pl.lit(AMBIGUOUS_DATE_REASON))
    )  # fmt: skip


def _with_entry_heads(shaped: pl.DataFrame) -> pl.DataFrame:
    """Add kind, entry_line, date_text and source (`classify_lines`) to the shaped lines."""
    is_head_line = pl.col("_shape") == "date_source"
    parts = pl.when(is_head_line).then(pl.col("_head_parts"))
    return shaped.with_columns(
        kind=pl.when(pl.col("reject_reason").is_not_null()).then(pl.lit("rejected"))
        .otherwise(pl.col("_shape")),
        entry_line=pl.when(is_head_line).then(pl.col("line_number"))
        .forward_fill().over("dump_id", **_BY_LINE),
    ).with_columns(
        entry_line=pl.when(pl.col("_shape").is_in(["date_source", "body"])).then("entry_line"),
        date_text=parts.struct["date_text"],
        source=parts.struct["source"].str.replace_many(FULL_WIDTH).str.to_lowercase(),
    )  # fmt: skip


def resolve_entries(classified: pl.DataFrame, published_dates: pl.DataFrame) -> pl.DataFrame:
    """Reject entries whose date·source line was rejected or has no body.

    An entry is rejected when its date·source line was rejected by
    `classify_lines`, when its date is in `published_dates` with a null
    `published_on` (the date's reason), or when no body line follows it. Its
    body lines are rejected too, each naming the entry (kept in rejects,
    never lost); a line already rejected keeps its own reason.

    Needs:
        classified: the output of `classify_lines`.
        published_dates: date_text (String), published_on (Date),
            date_reject_reason (String), one row per distinct date_text.

    Adds:
        published_on (Date): on kept date_source lines.
        Updates kind and reject_reason; drops _shape.
    """
    # Windows in separate steps: a window inside a windowed expression is
    # evaluated per group (quadratic: 25 s on a million lines).
    entry = "_entry"  # (dump_id, entry_line) as one integer: windows over it cost a third
    with_dates = (
        classified.join(published_dates, on="date_text", how="left")
        .with_columns(
            _entry=pl.col("dump_id").rank("dense").cast(pl.Int64) * (1 << 32)
            + pl.col("entry_line").fill_null(-1)  # line numbers start at 1
        )
        .with_columns(
            _body_count=(pl.col("kind") == "body").sum().over(entry),
            _shaped_bodies=(pl.col("_shape") == "body").sum().over(entry),
        )
        .with_columns(_head_reason=_head_reason())
        .with_columns(_entry_reason=pl.col("_head_reason").max().over(entry))
    )
    return (
        _reject_entries(with_dates)
        .drop(
            "_entry",
            "_entry_reason",
            "_head_reason",
            "_body_count",
            "_shaped_bodies",
            "date_reject_reason",
            "_shape",
        )
        .sort("dump_id", "line_number")
    )


def _head_reason() -> pl.Expr:
    """Why an entry head rejects its entry (`resolve_entries`), else null."""
    is_head = pl.col("_shape") == "date_source"
    body_count, shaped_bodies = pl.col("_body_count"), pl.col("_shaped_bodies")
    return (
        pl.when(is_head & pl.col("reject_reason").is_not_null())
        .then(pl.col("reject_reason"))
        .when(is_head & pl.col("date_text").is_null())  # no shape gives a head without one
        .then(pl.lit("malformed date·source line: its date and source could not be told apart"))
        .when(is_head & pl.col("date_reject_reason").is_not_null())
        .then(pl.col("date_reject_reason"))
        .when(is_head & (body_count == 0) & (shaped_bodies > 0))
        .then(pl.lit("every body line of the entry was rejected (see them below)"))
        .when(is_head & (body_count == 0))
        .then(pl.lit("date·source line with no ruling body after it"))
    )


def _reject_entries(with_dates: pl.DataFrame) -> pl.DataFrame:
    """Each line of an entry with an `_entry_reason` rejected, naming the entry."""
    is_head = pl.col("_shape") == "date_source"
    entry_rejected = pl.col("_entry_reason").is_not_null() & pl.col("entry_line").is_not_null()
    return with_dates.with_columns(
        kind=pl.when(entry_rejected).then(pl.lit("rejected")).otherwise(pl.col("kind")),
        reject_reason=pl.when(entry_rejected & is_head)
        .then(pl.col("_entry_reason"))
        .when(entry_rejected & pl.col("reject_reason").is_null())
        .then(
            pl.format(
                "body of the entry whose date·source line {} was rejected: {}",
                pl.col("entry_line"),
                pl.col("_entry_reason"),
            )
        )
        .otherwise(pl.col("reject_reason")),
        published_on=pl.when(entry_rejected).then(None).otherwise(pl.col("published_on")),
    )


#: `ParsedFiles.dumps`: each distinct dump's decoding (`decode.decode_dumps` without text).
PARSED_DUMP_SCHEMA = dict.fromkeys(
    ("dump_id", "encoding", "encoding_repair", "reject_reason"), pl.String
)


class ParsedFiles(TypedDict):
    """Decoded and classified dumps, keyed by dump_id (what the parse cache keeps)."""

    dumps: pl.DataFrame  # PARSED_DUMP_SCHEMA, one row per dump_id
    lines: pl.DataFrame  # `classify_lines` output, with the counts of `decode.split_lines`


def parse_files(hashed: pl.DataFrame) -> ParsedFiles:
    """Decode and classify files (the work the parse cache saves).

    Needs:
        dump_id (String), content (Binary) (from `decode.hash_dumps`), one
        row per file whose dump_id is to be parsed.

    Returns:
        dumps: one row per distinct dump_id (PARSED_DUMP_SCHEMA); lines:
        `classify_lines` output for the readable ones.
    """
    decoded = decode_dumps(hashed)
    readable = decoded.filter(pl.col("reject_reason").is_null())
    return ParsedFiles(dumps=decoded.drop("text"), lines=classify_lines(split_lines(readable)))


def merge_parsed(*parts: ParsedFiles) -> ParsedFiles:
    """Parsed files of several parts together, each dump_id once.

    Each part holds each of its dump_ids once. A dump_id in two parts (the
    same content in two batches: a batch knows only the cache) is taken from
    the first; both parses are equal. Rows keep their parts' order (a dump's
    lines stay together, by line_number): not sorted across dumps. No part:
    no dump.
    """
    if not parts:
        return ParsedFiles(dumps=pl.DataFrame(schema=PARSED_DUMP_SCHEMA), lines=pl.DataFrame())
    # in one pass (a loop over the parts checking each against those before was quadratic
    # in the parts: 19.5 s for the 187 batches of the 10M-line bench corpus)
    dumps = pl.concat(
        [p["dumps"].with_columns(_part=pl.lit(i, pl.UInt32)) for i, p in enumerate(parts)]
    )
    first = pl.col("dump_id").is_first_distinct()
    # a content in an earlier part too (few): its lines are dropped from its later parts
    # only (a join of every line on dump_id and part cost 0.22 s of CPU at 1M lines)
    again = dumps.filter(~first).partition_by("_part", as_dict=True, include_key=False)
    with_lines = [
        _drop_dumps(p["lines"], again.get((i,))) for i, p in enumerate(parts) if p["lines"].width
    ]
    lines = pl.concat(with_lines, how="vertical_relaxed") if with_lines else pl.DataFrame()
    return ParsedFiles(dumps=dumps.filter(first).drop("_part"), lines=lines)


def _drop_dumps(lines: pl.DataFrame, dumps: pl.DataFrame | None) -> pl.DataFrame:
    """`lines` without those of the dump_ids of `dumps` (None: no dump_id)."""
    if dumps is None:
        return lines
    return lines.filter(~pl.col("dump_id").is_in(dumps["dump_id"].implode()))


#: Language columns `assemble_entries` carries from an entry's longest body line.
ENTRY_LANGUAGE_COLUMNS = ("language", "language_probability", "language_is_inferred")


def assemble_entries(resolved: pl.DataFrame) -> pl.DataFrame:
    """Join each kept entry's body lines into one ruling text.

    Needs:
        the output of `resolve_entries` (translation lines are left out);
        optionally the body lines' ENTRY_LANGUAGE_COLUMNS.

    Returns:
        One row per kept entry, sorted by dump_id, line_number:
        dump_id (String), line_number (Int64, of the date·source line),
        published_on (Date), source (String), text_raw (String: the body lines
        as written, joined by "\\n"), and the ENTRY_LANGUAGE_COLUMNS present,
        taken from the entry's longest body line.
    """
    carried = [c for c in ENTRY_LANGUAGE_COLUMNS if c in resolved.columns]
    heads = resolved.filter(pl.col("kind") == "date_source").select(
        "dump_id", pl.col("line_number"), "published_on", "source"
    )
    lines = resolved.filter(pl.col("kind") == "body").sort("dump_id", "line_number")
    entry = pl.struct("dump_id", "entry_line")
    alone = entry.ne_missing(entry.shift(1)) & entry.ne_missing(entry.shift(-1))
    lines = lines.with_columns(_alone=alone)  # an entry of one body line (nearly all of them)
    longest_first = pl.col("line").str.len_chars().arg_sort(descending=True).first()
    bodies = pl.concat([
        lines.filter(pl.col("_alone")).select(
            "dump_id", "entry_line", pl.col("line").alias("text_raw"), *carried
        ),
        lines.filter(~pl.col("_alone"))
        .group_by("dump_id", "entry_line", maintain_order=True)
        .agg(
            pl.col("line").str.join("\n").alias("text_raw"),
            *[pl.col(c).get(longest_first) for c in carried],
        ),
    ]).rename({"entry_line": "line_number"})  # fmt: skip
    return heads.join(bodies, on=["dump_id", "line_number"], how="inner").sort(
        "dump_id", "line_number"
    )
