"""Parse stray card stubs: the truncated card at the end of some dumps.

A stub (seed 004, lines 30-32) is a stat line `CMC 2F/E 1/3` (mana value 2,
power/toughness 1/3; `F/E` is the French Force/Endurance), an optional lone
`.`, then a cut sentence of card text in the site's language. A stub pasted
without its stat line starts at its lone `.` (`with_dot_stubs`).
"""

from __future__ import annotations

import polars as pl

from flows.stages.shapes import STAT_LINE_PATTERN, stub_number

#: A complete sentence ends with one of these (after trailing spaces).
_SENTENCE_END = r"[.!?…。！？»\"”)）]$"
#: A lone dot: a stub's separator (seed 004, line 31), full-width too.
_DOT = (".", "。")


def with_dot_stubs(dated: pl.DataFrame) -> pl.DataFrame:
    """Mark (`_is_stat`) the lone `.` line that starts a card stub pasted without its stat
    line, and make blank (`_is_blank`) the other lone `.` lines after the dump's first
    head outside a stub begun by a stat line: a ruling's text never holds one
    (`X can be zero.\n.` was a ruling, the cut card text after it a translation).

    A `.` starts a stub when it comes after its page's last head (a stub ends a page,
    seed 004 and r04) but not right after it, the next line that is not blank is a text
    (no head, stat line, `.` or second page's header), and the last text before the
    next such line or `.` is cut: it ends no sentence (a `.` between a ruling and its
    translation, or its second sentence, is a separator).
    The stub then runs as a stat line's (`shapes.stub_number`).

    Needs: dump_id, line_number, line, _is_date, _looks_dated, _is_stat, _is_blank,
    _repeats_header (Boolean), _first_head (Int64). Returns `dated` with _is_stat and
    _is_blank set.
    """
    line = pl.col("line")
    dots = (  # rare, but for a stat line's (seed 004): the windows below run on their dumps
        dated.filter(line.str.len_bytes() < 16)
        .filter(line.str.strip_chars().is_in(_DOT))
        .filter(pl.col("line_number") > pl.col("_first_head"))
        .join(
            dated.filter("_is_stat").select("dump_id", pl.col("line_number") + 1),
            on=["dump_id", "line_number"],
            how="anti",
        )
    )
    if dots.is_empty():  # (with_dot_stubs's CPU at 1M lines: 0.5-0.7 s without this test)
        return dated
    is_head, by_line = pl.col("_is_date") | pl.col("_looks_dated"), {"order_by": "line_number"}
    is_dot, repeats = line.str.strip_chars().is_in(_DOT), pl.col("_repeats_header")
    boundary = is_head | pl.col("_is_stat") | repeats  # where a stub ends
    is_text, by_dump = ~(boundary | is_dot), {"partition_by": "dump_id", **by_line}
    last_text = is_text & (boundary | is_dot).shift(-1).over(**by_dump).fill_null(True)
    ends = line.str.strip_chars().str.contains(_SENTENCE_END)
    ahead = pl.when(is_head).then(pl.lit("head")).when(repeats).then(pl.lit("page"))
    rows = (  # the lines that are not blank, of the dumps with a dot
        dated.with_row_index("_row")
        .filter(pl.col("dump_id").is_in(dots["dump_id"].implode()) & ~pl.col("_is_blank"))
        .with_columns(
            _dot=is_dot
            & (pl.col("line_number") > pl.col("_first_head"))
            & (stub_number(is_head | repeats) == 0),
            _ends_page=ahead.shift(-1).backward_fill().over("dump_id", **by_line).ne("head"),
            _between=~is_head.shift(1).over("dump_id", **by_line).fill_null(True)
            & is_text.shift(-1).over("dump_id", **by_line).fill_null(False)
            & pl.when(last_text).then(~ends).backward_fill().over(**by_dump).fill_null(False),
        )
        .filter("_dot")
    )
    ok = pl.col("_ends_page").fill_null(True) & pl.col("_between")
    starts = rows.filter(ok)["_row"]
    blanks = rows.filter(~ok)["_row"]
    row = pl.int_range(pl.len())
    return dated.with_columns(
        _is_stat=pl.col("_is_stat") | row.is_in(starts.implode()),
        _is_blank=pl.col("_is_blank") | row.is_in(blanks.implode()),
    )


def parse_card_stubs(resolved: pl.DataFrame) -> pl.DataFrame:
    """Read each stub's stat line and text.

    A stub's lines are those `parse.classify_lines` gave its stub_line: its stat line
    (or its `.`: `with_dot_stubs`), lone `.` lines (separators) and its text.

    Needs:
        dump_id (String), line_number (Int64), line (String), kind (String),
        stub_line (Int64: `parse.classify_lines`).

    Returns:
        One row per stub, sorted by dump_id, line_number:
        dump_id (String), line_number (Int64, of the stat line, or of the `.`),
        mana_value (Float64: the number after CMC; null for `X` and without a stat line),
        power, toughness (String: as printed, `*` and `X` allowed; null for a
        stat line without power/toughness), text (String: text lines, each
        trimmed, joined by "\\n"; null when there is none),
        is_truncated (Boolean: the text does not end a sentence, or is absent).
    """
    stub_lines = resolved.filter(pl.col("kind") == "stub").sort("dump_id", "line_number")
    stat = pl.col("line").str.extract_groups(STAT_LINE_PATTERN)
    is_stat = pl.col("line").str.contains(STAT_LINE_PATTERN)
    is_text = ~is_stat & ~pl.col("line").str.strip_chars().is_in(_DOT)
    stubs = (
        stub_lines.with_columns(_stub_line=pl.col("stub_line"), _stat=pl.when(is_stat).then(stat))
        .group_by("dump_id", "_stub_line", maintain_order=True)
        .agg(
            pl.col("_stat").drop_nulls().first(),
            text=pl.col("line").filter(is_text).str.strip_chars().str.join("\n"),
        )
        .unnest("_stat")
    )
    text = pl.when(pl.col("text") != "").then(pl.col("text"))
    return stubs.select(
        "dump_id",
        line_number=pl.col("_stub_line"),
        mana_value=pl.col("mana_value").cast(pl.Float64, strict=False),
        power=pl.col("power"),
        toughness=pl.col("toughness"),
        text=text,
        is_truncated=text.str.contains(_SENTENCE_END).not_().fill_null(True),
    ).sort("dump_id", "line_number")
