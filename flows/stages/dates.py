"""Parse the localized dates of date·source lines into calendar dates.

Every date shape read comes from the Unicode CLDR date formats that Babel
ships: for each locale of `DATE_LOCALES`, the full (with the weekday), long,
medium and short patterns (`Locale.date_formats`), with that locale's month
and weekday names (format and stand-alone, wide and abbreviated). Three
additions on top of CLDR: English ordinal days (`June 7th, 2024`), Spanish
`del` before the year, Russian `года` as well as `г.`; and Japanese era
years (`令和6年6月7日`, `元年` = 1) from `JAPANESE_ERAS`. The same shapes give
the head recognizer (`shapes`), so a line is an entry head exactly when it
starts with a date this module reads. Each distinct date string is parsed once.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

import polars as pl
from babel import Locale

logger = logging.getLogger(__name__)

#: The end of a date's reject reason when it is after the day after the run date: a
#: later run may accept it (`reuse.reusable_dumps` rebuilds such a dump).
FUTURE_DATE_REASON = "is in the future"

#: Locales whose CLDR date formats are read: the ten languages and the
#: regional variants whose formats or month names differ (de_AT `Jänner`,
#: fr_CA `y-MM-dd`, zh_Hant_HK `d/M/y`, en_GB `d MMMM y`…).
DATE_LOCALES: tuple[str, ...] = (
    "fr", "fr_BE", "fr_CA", "fr_CH", "en", "en_AU", "en_CA", "en_GB", "de", "de_AT", "de_CH",
    "es", "es_MX", "it", "it_CH", "pt", "pt_BR", "pt_PT", "ja",
    "zh", "zh_Hant", "zh_Hant_HK", "zh_Hant_TW", "ko", "ru",
)  # fmt: skip

#: CLDR format lengths read (`Locale.date_formats`).
FORMAT_LENGTHS: tuple[str, ...] = ("full", "long", "medium", "short")

#: Japanese eras since 1926: name, first day. From CLDR `supplementalData.xml`
#: `<calendar type="japanese">` (era 232 start 1926-12-25, 233 start
#: 1989-01-08, 234 start 2019-05-01) with the names of CLDR `ja.xml`; Babel
#: loads only the Gregorian calendar, so the table is here.
JAPANESE_ERAS: tuple[tuple[str, dt.date], ...] = (
    ("昭和", dt.date(1926, 12, 25)),
    ("平成", dt.date(1989, 1, 8)),
    ("令和", dt.date(2019, 5, 1)),
)

#: Day suffixes a language writes: English ordinals, French `1er`, `1º`
#: (NFKC: `1o`). Checked against the day in `parse_date`.
DAY_SUFFIXES = {
    "en": ("st", "nd", "rd", "th"),
    "fr": ("er",),
    "es": ("º", "ª", "°", "o", "a"),
    "pt": ("º", "ª", "°", "o", "a"),
    "it": ("º", "°", "o"),
}

#: CLDR quoted literals and what is also written for them (optional when a whole word).
_LITERAL_WORDS = {"de": r"del?", "г": r"(?:года|г)"}


@dataclass(frozen=True)
class DateFormat:
    """One CLDR date format of one locale, as a regex."""

    locale: str
    length: str
    pattern: str  # the CLDR pattern, e.g. "EEEE, d. MMMM y"
    regex: re.Pattern[str]  # named groups: year, year2, month, month_number, day, suffix, weekday
    order: str  # field order, e.g. "dmy"; "" unless the month is a number
    skeleton: str  # the regex with every locale's names: for the polars recognizer


@cache
def _names(code: str, kind: str) -> dict[str, int]:
    """Lowercased, dot-stripped month (1-12) or weekday (0 = Monday) names of a locale's
    language: those of every `DATE_LOCALES` locale of that language, so en's `MMM d, y`
    reads en_GB's and en_AU's `Sept.` (CLDR en writes `Sep`)."""
    language = Locale.parse(code).language
    names: dict[str, int] = {}
    for other in DATE_LOCALES:
        locale = Locale.parse(other)
        if locale.language != language:
            continue
        data = getattr(locale, kind)
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in data[context][width].items():
                    key = name_key(name)
                    if names.setdefault(key, number) != number:
                        raise ValueError(f"CLDR {kind} name {name!r} ({other}) is ambiguous")
    return names


def name_key(name: str) -> str:
    """A month or weekday name as looked up: NFKC, lowercased, no final dot."""
    return unicodedata.normalize("NFKC", name).strip().lower().rstrip(".")


def _alternation(names: set[str]) -> str:
    escaped = sorted({re.escape(n) for n in names}, key=lambda n: (-len(n), n))
    return rf"(?i:{'|'.join(escaped)})\.?"


@cache
def _all_names(kind: str) -> str:
    names: set[str] = set()
    for code in DATE_LOCALES:
        names |= set(_names(code, kind))
    return _alternation(names)


_TOKEN = re.compile(r"'(?:[^']|'')*'|([A-Za-z])\1*|.", re.S)


def _field(token: str, code: str, named: bool, numeric: bool) -> tuple[str, str]:
    """(regex, order letter) of one CLDR pattern field."""

    def group(name: str, body: str) -> str:
        return f"(?P<{name}>{body})" if named else f"(?:{body})"

    letter, width = token[0], len(token)
    if letter in "yu":
        return (group("year2", r"\d{2}") if width == 2 else group("year", r"\d{4}")), "y"
    if letter in "ML" and width <= 2:
        return group("month_number", r"\d{1,2}"), "m"
    if letter in "ML":
        names = _alternation(set(_names(code, "months"))) if named else _all_names("months")
        return group("month", names), "M"
    if letter == "d":
        suffixes = sorted({s for v in DAY_SUFFIXES.values() for s in v}, key=len, reverse=True)
        if named:
            suffixes = list(DAY_SUFFIXES.get(Locale.parse(code).language, ()))
        suffix = "" if numeric or not suffixes else group("suffix", "|".join(suffixes)) + "?"
        return group("day", r"\d{1,2}") + suffix, "d"
    if letter in "Ec":
        names = _alternation(set(_names(code, "days"))) if named else _all_names("days")
        return group("weekday", names), ""
    raise ValueError(
        f"CLDR date pattern field {token!r} ({code}) is not read; add it to dates._field"
    )


def _literal(token: str, last: bool, numeric: bool) -> str:
    if token.startswith("'"):
        word = token[1:-1].replace("''", "'")
        return f"(?:{_LITERAL_WORDS.get(word, re.escape(word))})?"
    if token.isspace():
        return ""
    if token == ",":
        return ",?"
    if token == "." and (last or not numeric):
        return r"\.?"
    return re.escape(token)


def _compile(code: str, length: str, named: bool) -> tuple[str, str]:
    """(regex, numeric field order) of one locale's format."""
    pattern = Locale.parse(code).date_formats[length].pattern
    tokens = [m.group(0) for m in _TOKEN.finditer(pattern)]
    numeric = not any(t[0] in "ML" and len(t) >= 3 for t in tokens)
    pieces, order = [], ""
    for index, token in enumerate(tokens):
        if token[0].isalpha() and token[0].isascii():
            piece, letter = _field(token, code, named, numeric)
            order += letter
        else:
            piece = _literal(token, index == len(tokens) - 1, numeric)
        pieces.append(piece)
    return r"\s*".join(p for p in pieces if p), order if "m" in order else ""


@cache
def date_formats() -> tuple[DateFormat, ...]:
    """Every (locale, length) CLDR date format of `DATE_LOCALES`, in that order.

    Raises:
        ValueError: a CLDR pattern holds a field this module does not read, or a
            locale gives one month or weekday name two numbers (a CLDR change).
    """
    formats = []
    for code in DATE_LOCALES:
        for length in FORMAT_LENGTHS:
            regex, order = _compile(code, length, named=True)
            skeleton, _ = _compile(code, length, named=False)
            pattern = Locale.parse(code).date_formats[length].pattern
            formats.append(
                DateFormat(code, length, pattern, re.compile(regex, re.I), order, skeleton)
            )
    return tuple(formats)


#: `令和6年6月7日`, `平成元年1月8日`, optionally with the weekday (`金曜日`).
_ERA_SHAPE = (
    rf"(?:{'|'.join(name for name, _ in JAPANESE_ERAS)})\s*(?:\d{{1,2}}|元)\s*年"
    r"\s*\d{1,2}\s*月\s*\d{1,2}\s*日(?:\s*[日月火水木金土]曜日)?"
)
_ERA = re.compile(
    rf"^(?P<era>{'|'.join(name for name, _ in JAPANESE_ERAS)})\s*(?P<era_year>\d{{1,2}}|元)\s*年"
    r"\s*(?P<month_number>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*日\s*(?P<weekday>\S*)$"
)
_ISO_SHAPE = r"\d{4}-\d{1,2}-\d{1,2}"


@cache
def numeric_orders() -> dict[str, set[str]]:
    """Language -> field orders of its CLDR formats that write the month as a
    number and do not start with the year (e.g. en: {"mdy", "dmy"} from en
    `M/d/yy` and en_GB `dd/MM/y`)."""
    orders: dict[str, set[str]] = {}
    for form in date_formats():
        if form.order and not form.order.startswith("y"):
            orders.setdefault(Locale.parse(form.locale).language, set()).add(form.order)
    return orders


def day_first_languages() -> tuple[str, ...]:
    """Languages all of whose CLDR numeric formats put the day first, year last.

    A numeric date such as `07/06/2024` is read (day first) only in a dump of
    one of these languages: fr, de, es, it, pt, ru, zh (zh_Hant_HK `d/M/y`).
    English is not one (en `M/d/yy`, en_GB `dd/MM/y`).
    """
    return tuple(sorted(lang for lang, found in numeric_orders().items() if found == {"dmy"}))


#: A date whose order depends on the locale: day or month first, month a number.
NUMERIC_DAY_MONTH_SHAPE = r"^\s*\d{1,2}\s*[./-]\s*\d{1,2}\s*[./-]\s*\d{2,4}\b"


@cache
def date_pattern() -> str:
    """A polars regex (no anchors, no groups) for every date `parse_date` reads.

    Built from the same CLDR formats, with every locale's month and weekday
    names (case-insensitive), plus the Japanese era and ISO shapes.
    """
    skeletons = dict.fromkeys(form.skeleton for form in date_formats())
    return "(?:" + "|".join([*skeletons, _ERA_SHAPE, _ISO_SHAPE]) + ")"


def dated_line_pattern() -> str:
    """A polars regex for a line that starts with a date of a shape `parse_date` reads.

    The date ends the line or is followed by no digit and no `.` and digit
    (`1. 01.01.2000`, a bulleted date, does not start with `1. 01.01`).
    """
    return rf"^\s*{date_pattern()}(?:$|[^\d.]|\.(?:\D|$))"


def parse_date(date_text: str, today: dt.date) -> tuple[dt.date | None, str | None]:
    """Parse one localized date; return `(date, None)` or `(None, reason)`.

    The text (NFKC, spaces collapsed) must match a format of `date_formats`
    whole, a Japanese era date or ISO `2024-06-07`. A numeric date with the
    day or month first is read day first (`parse.classify_lines` rejects it
    unless the dump's language is one of `day_first_languages`). Reasons: an
    unknown shape, an impossible calendar date (`31 février 2024`), a weekday
    or ordinal that does not fit the day, a two-digit year, an era year
    outside its era, or a date after the day after `today` (UTC; a site east
    of UTC may publish on UTC's tomorrow).
    """
    text = " ".join(unicodedata.normalize("NFKC", date_text).split())
    first_reason = None
    for parts in _matches(text):
        day, reason = _to_date(parts, date_text, today)
        if day is not None:
            return day, None
        first_reason = first_reason or reason
    return None, first_reason or _unrecognized(text, date_text)


def _unrecognized(text: str, date_text: str) -> str:
    """Why no format matched: an unknown month name next to a year, or the shape."""
    known = {k for code in DATE_LOCALES for kind in ("months", "days") for k in _names(code, kind)}
    words = [w for w in re.findall(r"[^\W\d_]+\.?", text) if name_key(w) not in known]
    if re.search(r"\d{4}", text) and len(words) == 1 and words[0] not in _LITERAL_WORDS:
        return f"unknown month name {words[0]!r} in date {date_text!r}"
    return f"unrecognized date {date_text!r}"


def _matches(text: str) -> list[dict[str, str | None]]:
    found = []
    era = _ERA.match(text)
    if era:
        found.append({**era.groupdict(), "locale": "ja"})
    iso = re.fullmatch(r"(?P<year>\d{4})-(?P<month_number>\d{1,2})-(?P<day>\d{1,2})", text)
    if iso:
        found.append({**iso.groupdict(), "locale": "en"})
    for form in date_formats():
        match = None if form.order == "mdy" else form.regex.fullmatch(text)
        if match:
            found.append({**match.groupdict(), "locale": form.locale})
    return found


def _year(parts: dict[str, str | None], date_text: str) -> tuple[int | None, str | None]:
    if parts.get("year2"):
        return None, f"two-digit year in date {date_text!r}: the century is not written"
    if parts.get("era"):
        start = dict(JAPANESE_ERAS)[parts["era"] or ""]
        era_year = 1 if parts["era_year"] == "元" else int(parts["era_year"] or 0)
        return start.year + era_year - 1, None
    return int(parts["year"] or 0), None


def _to_date(
    parts: dict[str, str | None], date_text: str, today: dt.date
) -> tuple[dt.date | None, str | None]:
    code = parts["locale"] or ""
    if parts.get("month"):
        month = _names(code, "months").get(name_key(parts["month"] or ""))
        if month is None:
            return None, f"unknown month name {parts['month']!r} in date {date_text!r}"
    else:
        month = int(parts["month_number"] or 0)
    year, reason = _year(parts, date_text)
    if year is None:
        return None, reason
    try:
        day = dt.date(year, month, int(parts["day"] or 0))
    except ValueError as exc:
        return None, f"impossible date {date_text!r}: {exc}"
    return _check(day, parts, date_text, today)


def _check(
    day: dt.date, parts: dict[str, str | None], date_text: str, today: dt.date
) -> tuple[dt.date | None, str | None]:
    checks = [_check_suffix(day, parts), _check_weekday(day, parts), _check_era(day, parts)]
    reason = next((r for r in checks if r), None)
    if reason:
        return None, f"{reason} in date {date_text!r}"
    if day > today + dt.timedelta(days=1):  # a site east of UTC may already be a day ahead
        return None, f"date {date_text!r} ({day.isoformat()}) {FUTURE_DATE_REASON}"
    return day, None


def _check_suffix(day: dt.date, parts: dict[str, str | None]) -> str | None:
    suffix = (parts.get("suffix") or "").lower()
    if not suffix:
        return None
    if suffix in DAY_SUFFIXES["en"]:
        expected = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
        expected = "th" if 11 <= day.day <= 13 else expected
        return None if suffix == expected else f"ordinal {day.day}{suffix} is wrong"
    return None if day.day == 1 else f"ordinal day {day.day}{suffix} (only the 1st takes it)"


def _check_weekday(day: dt.date, parts: dict[str, str | None]) -> str | None:
    written = parts.get("weekday")
    if not written:
        return None
    code = parts["locale"] or ""
    weekday = _names(code, "days").get(name_key(written))
    if weekday == day.weekday():
        return None
    return f"weekday {written!r} is not that of {day.isoformat()}"


def _check_era(day: dt.date, parts: dict[str, str | None]) -> str | None:
    if not parts.get("era"):
        return None
    starts = [start for _, start in JAPANESE_ERAS]
    start = dict(JAPANESE_ERAS)[parts["era"] or ""]
    following = [s for s in starts if s > start]
    if day < start or (following and day >= following[0]):
        return f"{day.isoformat()} is outside the era {parts['era']} (from {start.isoformat()})"
    return None


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
