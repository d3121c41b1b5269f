"""Parse dumps: classify each line, then group body lines into entries.

A dump (see the seeds in `raw/`) is a header of site disclaimer lines, then
entries, each a date·source line (`07 juin 2024 · source : wotc`) followed by
the ruling body, then sometimes a stray card stub (`CMC 2F/E 1/3`, `.`, a cut
sentence of card text). Every line gets exactly one kind.
"""

from __future__ import annotations

import logging

import polars as pl

from flows.stages.dates import (
    NUMERIC_DAY_MONTH_SHAPE,
    date_pattern,
    dated_line_pattern,
    day_first_languages,
)

logger = logging.getLogger(__name__)

#: Line kinds; every raw line gets exactly one (`manifest.json` line_accounting).
LINE_KINDS: tuple[str, ...] = (
    "header",
    "date_source",
    "body",
    "translation",
    "stub",
    "blank",
    "rejected",
)

#: The date·source line's parts: the date text, `·` or `・`, a source word, a
#: colon (full-width allowed; `\s` also matches no-break and narrow no-break
#: spaces), the source. Seed line 2 of every dump.
_SOURCE_PART = r"\s*[·・]\s*(?P<source_label>\p{L}+)\s*[:：]\s*(?P<source>\S+)\s*$"

#: `07 juin 2024 · source : wotc`: a date of a shape `dates.parse_date` reads
#: (CLDR formats of every `dates.DATE_LOCALES`, era dates), then the source part.
DATE_SOURCE_PATTERN = rf"^\s*(?P<date_text>{date_pattern()}){_SOURCE_PART}"

#: A line with the source part after a short date-like text (Latin or Cyrillic
#: words, digits, `年月日년월일`, with a four-digit year; or three numbers:
#: `7 brumaire 2024`, `07.06.24`) that is no date `dates` reads: an entry head
#: whose date `resolve_entries` rejects. Card text such as
#: `1个由加拉克·鲁斯操控的效果：该效果结束` or `2024年版のルール・変更点：なし`
#: is no head.
_DATE_LIKE_CHAR = r"[\p{Latin}\p{Cyrillic}\d\s.,/'\-年月日년월일]"
DATE_LIKE_SOURCE_PATTERN = (
    rf"^\s*(?P<date_text>{_DATE_LIKE_CHAR}{{0,40}}?\d{{4}}{_DATE_LIKE_CHAR}{{0,40}}?"
    r"|\d{1,4}\s*[./-]\s*\d{1,2}\s*[./-]\s*\d{1,4}\.?)" + _SOURCE_PART
)

#: Splits a head into date text and source (the date text is all before `·`).
_HEAD_PARTS = r"^\s*(?P<date_text>[^·・]*?)" + _SOURCE_PART

#: `CMC 2F/E 1/3`: mana value, then optionally localized power/toughness
#: initials and values (seed 004, line 30). Starts a card stub.
STAT_LINE_PATTERN = (
    r"^\s*CMC\s*(?P<mana_value>\d+(?:\.\d+)?|X)\s*"
    r"(?:(?P<pt_label>\p{L}\s*/\s*\p{L})\s*(?P<power>[0-9X*+.½-]+)\s*/\s*(?P<toughness>[0-9X*+.½-]+))?\s*$"
)

#: A line that starts with a date in one of the shapes `dates` reads, its month
#: a CLDR month name; one that is not a whole date·source line is a malformed
#: entry head.
DATED_LINE_PATTERN = dated_line_pattern()

#: Why a numeric day/month-first date is rejected in a dump whose language does not fix the order.
AMBIGUOUS_DATE_REASON = (
    "ambiguous numeric date: day/month order depends on the locale, and the header names "
    f"no language that fixes it ({', '.join(day_first_languages())})"
)

#: A line longer than this is no ruling (the longest real ruling is ~1,500 characters).
MAX_LINE_CHARS = 20_000


def head_shape(line: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """(`line` is a date·source line, `line` starts with a date but is none).

    A date·source line matches DATE_SOURCE_PATTERN or DATE_LIKE_SOURCE_PATTERN;
    a line matching DATED_LINE_PATTERN and neither is a malformed head.
    """
    is_date = line.str.contains(DATE_SOURCE_PATTERN) | line.str.contains(DATE_LIKE_SOURCE_PATTERN)
    return is_date, line.str.contains(DATED_LINE_PATTERN) & ~is_date


def starts_with_date(line: pl.Expr) -> pl.Expr:
    """`line` starts with a date of a shape `dates.parse_date` reads (Boolean)."""
    return line.str.contains(DATED_LINE_PATTERN)


def _ambiguous_dates(is_head: pl.Expr, claimed: pl.Expr) -> pl.Expr:
    """True on a numeric day/month-first head of a dump whose language does not fix the order.

    The dump's language is the first one a header line names (`claimed`, from
    `claimed_language` on the header lines, null on the others); it fixes the
    order when it is one of `dates.day_first_languages`. (`claimed` is a column
    of its own: a window over the whole `claimed_language` expression is
    evaluated dump by dump, 6 s of CPU at a million lines.)
    """
    dump_claims = claimed.drop_nulls().first().over("dump_id")
    day_first = dump_claims.is_in(list(day_first_languages())).fill_null(False)
    numeric = pl.col("line").str.contains(NUMERIC_DAY_MONTH_SHAPE)
    return is_head & numeric & ~day_first


def classify_lines(lines: pl.DataFrame, max_line_chars: int = MAX_LINE_CHARS) -> pl.DataFrame:
    """Give each line its kind from its shape and its place in the dump.

    An entry starts at each date·source line (`head_shape`), and also at a
    line that starts with a date but lacks the `· source : x` part (rejected
    as malformed, so its body is never glued to the entry before). A card
    stub starts at each stat line and runs to the next entry or the end of
    the dump.

    Shapes (in order): a line in a stub is `stub` (or `blank`); an empty or
    all-space line is `blank`; a line before the first entry is `header`; an
    entry's first line is `date_source`; any other is `body`. A line longer
    than `max_line_chars`, holding U+FFFD (undecodable bytes), a malformed
    date·source line outside a stub, or a numeric date whose day/month order
    the dump's language does not fix (`_ambiguous_dates`) is `rejected`; a
    rejected entry head still starts its entry, whose body `resolve_entries`
    then rejects. A stub's text lines are rejected the same way (its stat
    line cannot be: it matched). Dates are not parsed here.

    Needs:
        dump_id (String), line_number (Int64), line (String).

    Adds:
        kind (String): one of LINE_KINDS (never "translation" yet).
        reject_reason (String): why a `rejected` line was rejected, else null.
        entry_line (Int64): for entry heads and body lines, the line_number of
            the entry's head; else null.
        date_text (String), source (String, lowercased): on date·source lines.
        _shape (String): the kind by shape alone (dropped by `resolve_entries`).
    """
    by_line = {"order_by": "line_number"}
    is_date, looks_dated = pl.col("_is_date"), pl.col("_looks_dated")
    is_head = is_date | looks_dated
    is_stat = pl.col("line").str.contains(STAT_LINE_PATTERN)
    in_stub = (
        pl.when(is_stat).then(pl.col("line_number")).when(is_head).then(0)
        .forward_fill().over("dump_id", **by_line).fill_null(0) > 0
    )  # fmt: skip
    first_head = pl.when(is_head).then(pl.col("line_number")).min().over("dump_id")
    stubbed, head_at = pl.col("_in_stub"), pl.col("_first_head")  # in_stub, first_head
    is_blank = pl.col("line").str.strip_chars() == ""
    shape = (
        pl.when(stubbed & is_blank).then(pl.lit("blank"))
        .when(stubbed).then(pl.lit("stub"))
        .when(is_blank).then(pl.lit("blank"))
        .when(head_at.is_null() | (pl.col("line_number") < head_at)).then(pl.lit("header"))
        .when(is_head).then(pl.lit("date_source"))
        .otherwise(pl.lit("body"))
    )  # fmt: skip
    length = pl.col("line").str.len_chars()
    line_reason = (
        pl.when(is_stat).then(None)
        .when(length > max_line_chars)
        .then(pl.format("line of {} characters is longer than any ruling (limit {})",
                        length, pl.lit(max_line_chars)))
        .when(pl.col("line").str.contains("\ufffd"))
        .then(pl.format("line has {} undecodable byte sequences (shown as U+FFFD)",
                        pl.col("line").str.count_matches("\ufffd")))
        .when(looks_dated & ~stubbed)
        .then(pl.lit("malformed date·source line: expected '<date> · <source word> : <source>'"))
        .when(_ambiguous_dates(is_date & ~stubbed, pl.col("_claimed")))
        .then(pl.lit(AMBIGUOUS_DATE_REASON))
    )  # fmt: skip
    is_head_line = pl.col("_shape") == "date_source"
    parts = pl.when(is_head_line).then(pl.col("line")).str.extract_groups(_HEAD_PARTS)
    date_shape, dated_shape = head_shape(pl.col("line"))
    return (
        lines.with_columns(_is_date=date_shape, _looks_dated=dated_shape)
        .with_columns(_in_stub=in_stub, _first_head=first_head)  # once, used twice
        .with_columns(  # header lines only: the regexes skip null lines
            _claimed=claimed_language(
                pl.when(pl.col("line_number") < pl.col("_first_head")).then(pl.col("line"))
            )
        )
        .with_columns(_shape=shape, reject_reason=line_reason)
        .with_columns(
            kind=pl.when(pl.col("reject_reason").is_not_null())
            .then(pl.lit("rejected"))
            .otherwise(pl.col("_shape")),
            entry_line=pl.when(is_head_line)
            .then(pl.col("line_number"))
            .forward_fill()
            .over("dump_id", **by_line),
            _parts=parts,  # heads only: the regex skips null lines
        )
        .with_columns(
            entry_line=pl.when(pl.col("_shape").is_in(["date_source", "body"])).then(
                pl.col("entry_line")
            ),
            date_text=pl.col("_parts").struct["date_text"],
            source=pl.col("_parts").struct["source"].str.to_lowercase(),
        )
        .drop("_is_date", "_looks_dated", "_in_stub", "_first_head", "_claimed", "_parts")
    )


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
    is_head = pl.col("_shape") == "date_source"
    entry = "_entry"  # (dump_id, entry_line) as one integer: windows over it cost a third
    body_count, shaped_bodies = pl.col("_body_count"), pl.col("_shaped_bodies")
    head_reason = (
        pl.when(is_head & pl.col("reject_reason").is_not_null())
        .then(pl.col("reject_reason"))
        .when(is_head & pl.col("date_reject_reason").is_not_null())
        .then(pl.col("date_reject_reason"))
        .when(is_head & (body_count == 0) & (shaped_bodies > 0))
        .then(pl.lit("every body line of the entry was rejected (see them below)"))
        .when(is_head & (body_count == 0))
        .then(pl.lit("date·source line with no ruling body after it"))
    )
    # Windows in separate steps: a window inside a windowed expression is
    # evaluated per group (quadratic: 25 s on a million lines).
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
        .with_columns(_head_reason=head_reason)
        .with_columns(_entry_reason=pl.col("_head_reason").max().over(entry))
    )
    entry_rejected = pl.col("_entry_reason").is_not_null() & pl.col("entry_line").is_not_null()
    return (
        with_dates.with_columns(
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
    longest_first = pl.col("line").str.len_chars().arg_sort(descending=True).first()
    bodies = (
        resolved.filter(pl.col("kind") == "body")
        .sort("dump_id", "line_number")
        .group_by("dump_id", "entry_line", maintain_order=True)
        .agg(
            pl.col("line").str.join("\n").alias("text_raw"),
            *[pl.col(c).get(longest_first) for c in carried],
        )
        .rename({"entry_line": "line_number"})
    )
    return heads.join(bodies, on=["dump_id", "line_number"], how="inner").sort(
        "dump_id", "line_number"
    )


#: Codes a header may name as its translation's language: ISO 639-1, and the
#: country codes sites also write (JP, CN, TW, KR, BR).
_CODES = "FR|DE|ES|IT|PT|JA|ZH|KO|RU|JP|CN|TW|KR|BR"
#: Words for "translation" a code may stand beside (`traduction FR`, `DE-Übersetzung`).
_TRANSLATION_WORDS = (
    "traduction|traducción|traduccion|traduzione|tradução|traducao|translation|übersetzung"
    "|перевод|翻訳|翻译|翻譯|译文|譯文|번역"
)
#: A code is a language only in such a context, never as an ordinary word
#: (`OFICIALES DE`, `READ IT`), markup (`<BR>`) or a set code (`[CN2]`):
#: alone in parentheses (`(ES)`), or joined to a translation word (`DE-Übersetzung`,
#: `TW翻譯`, `KO 번역`) ...
CLAIMED_LANGUAGE_PATTERNS = (
    rf"\(\s*({_CODES})\s*\)",
    rf"(?:^|[^A-Za-z])({_CODES})\s*[-‐]?\s*(?i:{_TRANSLATION_WORDS})",
)
#: ... or after a translation word (`La traduction FR`, `Перевод RU`,
#: `TRADUÇÃO PT`; see CODES_THAT_ARE_WORDS for all-capitals headers).
CLAIMED_AFTER_WORD_PATTERN = rf"(?i:{_TRANSLATION_WORDS})\s+({_CODES})(?:[^A-Za-z]|$)"
#: Codes that are also words after a translation word in capitals (`TRADUCCIÓN DE`:
#: "of"; `ES` "is", `IT` "it"): in an all-capitals header they claim nothing there,
#: while `TRADUÇÃO PT ABAIXO` claims pt.
CODES_THAT_ARE_WORDS = ("DE", "ES", "IT")
#: The Japanese word for translation claims Japanese when no code is named.
JAPANESE_TRANSLATION_WORD = "翻訳"
#: Country code -> ISO 639-1 language code.
COUNTRY_LANGUAGES = {"JP": "JA", "CN": "ZH", "TW": "ZH", "KR": "KO", "BR": "PT"}


def claimed_language(header_text: pl.Expr) -> pl.Expr:
    """The lowercased ISO code a header names as its translation's language, else null."""
    has_lowercase = header_text.str.contains(r"\p{Ll}")
    after_word = header_text.str.extract(CLAIMED_AFTER_WORD_PATTERN, 1)
    code = pl.coalesce(
        *[header_text.str.extract(p, 1) for p in CLAIMED_LANGUAGE_PATTERNS],
        pl.when(has_lowercase | ~after_word.is_in(CODES_THAT_ARE_WORDS)).then(after_word),
        pl.when(header_text.str.contains(JAPANESE_TRANSLATION_WORD, literal=True)).then(
            pl.lit("JA")
        ),
    )
    return code.replace(COUNTRY_LANGUAGES).str.to_lowercase()


def describe_headers(dumps: pl.DataFrame, resolved: pl.DataFrame) -> pl.DataFrame:
    """Collect each dump's header and the translation language it claims.

    Needs:
        dumps: dump_id (String), one row per dump (an empty dump has no line).
        resolved: dump_id (String), line_number (Int64), line (String), kind (String).

    Returns:
        One row per row of `dumps`:
        dump_id (String), header_text (String: header lines joined by "\\n",
        "" when none), claimed_translation_language (String: lowercased ISO
        code the header names in a translation context, e.g. "fr" from seed
        line 1 "La traduction FR", "es" from "(ES)", "zh" from "TW翻譯";
        null when it names none: see `claimed_language`).
    """
    headers = (
        resolved.filter(pl.col("kind") == "header")
        .sort("dump_id", "line_number")
        .group_by("dump_id", maintain_order=True)
        .agg(header_text=pl.col("line").str.join("\n"))
    )
    return (
        dumps.select("dump_id")
        .join(headers, on="dump_id", how="left")
        .with_columns(pl.col("header_text").fill_null(""))
        .with_columns(
            claimed_translation_language=claimed_language(pl.col("header_text")),
        )
    )
