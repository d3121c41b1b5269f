"""Parse stray card stubs: the truncated card at the end of some dumps.

A stub (seed 004, lines 30-32) is a stat line `CMC 2F/E 1/3` (mana value 2,
power/toughness 1/3; `F/E` is the French Force/Endurance), an optional lone
`.`, then a cut sentence of card text in the site's language.
"""

from __future__ import annotations

import polars as pl

from flows.stages.shapes import STAT_LINE_PATTERN

#: A complete sentence ends with one of these (after trailing spaces).
_SENTENCE_END = r"[.!?…。！？»\"”)）]$"


def parse_card_stubs(resolved: pl.DataFrame) -> pl.DataFrame:
    """Read each stub's stat line and text.

    Each stat line starts a stub that runs to the next stat line or the end
    of the dump; lone `.` lines are separators, other lines are its text.

    Needs:
        dump_id (String), line_number (Int64), line (String), kind (String).

    Returns:
        One row per stub, sorted by dump_id, line_number:
        dump_id (String), line_number (Int64, of the stat line),
        mana_value (Float64: the number after CMC; null for `X`),
        power, toughness (String: as printed, `*` and `X` allowed; null for a
        stat line without power/toughness), text (String: text lines, each
        trimmed, joined by "\\n"; null when there is none),
        is_truncated (Boolean: the text does not end a sentence, or is absent).
    """
    stub_lines = resolved.filter(pl.col("kind") == "stub").sort("dump_id", "line_number")
    stat = pl.col("line").str.extract_groups(STAT_LINE_PATTERN)
    is_stat = pl.col("line").str.contains(STAT_LINE_PATTERN)
    is_text = ~is_stat & (pl.col("line").str.strip_chars() != ".")
    stubs = (
        stub_lines.with_columns(
            _stub_line=pl.when(is_stat).then(pl.col("line_number")).forward_fill().over("dump_id"),
            _stat=pl.when(is_stat).then(stat),
        )
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
