"""Parse the localized dates of date·source lines into calendar dates.

Month names come from Babel's copy of the Unicode CLDR data (format and
stand-alone, wide and abbreviated forms; Russian format months are genitive:
`июня`), never from hand-typed tables. Each distinct date string is parsed once.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import unicodedata
from functools import cache

import polars as pl
from babel import Locale

logger = logging.getLogger(__name__)

#: Locales whose month names are recognized (CLDR via Babel).
DATE_LOCALES: tuple[str, ...] = ("fr", "en", "de", "es", "it", "pt", "ru")

_DAY = r"(?P<day>\d{1,2})(?:er|\.|º|°|o)?"  # NFKC turns the Portuguese 1º into 1o
_YEAR = r"(?P<year>\d{4})"
_MONTH = r"(?P<month>[^\W\d_]+\.?)"
_DATE_SHAPES = (
    # 2024-06-07
    re.compile(r"^(?P<year>\d{4})-(?P<month_number>\d{1,2})-(?P<day>\d{1,2})$"),
    # 2024年6月7日, 2024년 6월 7일
    re.compile(
        r"^(?P<year>\d{4})\s*[年년]\s*(?P<month_number>\d{1,2})\s*[月월]\s*(?P<day>\d{1,2})\s*[日일]$"
    ),
    # 07 juin 2024, 1er juin 2024, 7. Juni 2024, 7 de junio de 2024, 7 июня 2024 г.
    re.compile(rf"^{_DAY}\s+(?:de\s+)?{_MONTH}\s+(?:de\s+)?{_YEAR}(?:\s*г\.?)?$"),
    # June 7, 2024
    re.compile(rf"^{_MONTH}\s+{_DAY},?\s+{_YEAR}$"),
)


@cache
def month_numbers() -> dict[str, int]:
    """Map every CLDR month name of `DATE_LOCALES` (lowercased, no final dot) to 1-12.

    Raises:
        ValueError: two locales give one name two different months (a CLDR
            change that would make dates ambiguous).
    """
    names: dict[str, int] = {}
    for code in DATE_LOCALES:
        months = Locale.parse(code).months
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in months[context][width].items():
                    key = _month_key(name)
                    if names.setdefault(key, number) != number:
                        raise ValueError(f"CLDR month name {name!r} ({code}) is ambiguous")
    return names


def dated_line_pattern() -> str:
    """A polars regex for a line that starts with a date of a shape `parse_date` reads.

    Month names are those of `month_numbers` (case-insensitive), so
    "Round 3, 2024" is no date and "08 mars 2024 source wotc" is.
    """
    months = "|".join(sorted((re.escape(m) for m in month_numbers()), key=len, reverse=True))
    month = rf"(?i:{months})\.?"
    return (
        rf"^\s*(?:\d{{1,2}}(?:er|\.|º|°|o)?\s+(?:de\s+)?{month}\s+(?:de\s+)?\d{{4}}"
        rf"|{month}\s+\d{{1,2}},?\s+\d{{4}}"
        r"|\d{4}\s*[年년]\s*\d{1,2}\s*[月월]|\d{4}-\d{1,2}-\d{1,2})"
    )


def _month_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).strip().lower().rstrip(".")


def parse_date(date_text: str, today: dt.date) -> tuple[dt.date | None, str | None]:
    """Parse one localized date; return `(date, None)` or `(None, reason)`.

    Reasons: an unknown shape or month name, an impossible calendar date
    (`31 février 2024`), or a date after the day after `today` (UTC; a site
    east of UTC may publish on UTC's tomorrow).
    """
    text = " ".join(unicodedata.normalize("NFKC", date_text).split())
    for shape in _DATE_SHAPES:
        match = shape.match(text)
        if match:
            return _to_date(match.groupdict(), date_text, today)
    return None, f"unrecognized date {date_text!r}"


def _to_date(
    parts: dict[str, str | None], date_text: str, today: dt.date
) -> tuple[dt.date | None, str | None]:
    if parts.get("month_number"):
        month = int(parts["month_number"] or 0)
    else:
        found = month_numbers().get(_month_key(parts["month"] or ""))
        if found is None:
            return None, f"unknown month name {parts['month']!r} in date {date_text!r}"
        month = found
    try:
        day = dt.date(int(parts["year"] or 0), month, int(parts["day"] or 0))
    except ValueError as exc:
        return None, f"impossible date {date_text!r}: {exc}"
    if day > today + dt.timedelta(days=1):  # a site east of UTC may already be a day ahead
        return None, f"date {date_text!r} ({day.isoformat()}) is in the future"
    return day, None


def parse_published_dates(date_texts: pl.Series, today: dt.date) -> pl.DataFrame:
    """Parse each distinct date string once.

    Args:
        date_texts: String series, repeats and nulls allowed.
        today: the run's UTC date; dates after the next day are rejected.

    Returns:
        One row per distinct non-null string, sorted:
        date_text (String), published_on (Date, null when rejected),
        date_reject_reason (String, null when parsed).
    """
    distinct = date_texts.drop_nulls().unique().sort().to_list()
    parsed = [parse_date(text, today) for text in distinct]
    logger.info("parsed %d distinct date strings", len(distinct))
    return pl.DataFrame(
        {
            "date_text": distinct,
            "published_on": [day for day, _ in parsed],
            "date_reject_reason": [reason for _, reason in parsed],
        },
        schema={"date_text": pl.String, "published_on": pl.Date, "date_reject_reason": pl.String},
    )
