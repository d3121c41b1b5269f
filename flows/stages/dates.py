"""Read the localized dates of date·source lines as calendar dates.

A date is read with the CLDR formats of `date_formats` (those of
`DATE_LOCALES`, else those of the CLDR languages whose month names the date
holds), after its digits are made ASCII (Arabic-Indic `١٤`, Devanagari) and
Chinese numerals read (`二〇二四年六月七日`: year digit by digit, month and day
with `十`). Each distinct date string is read once (`parse_published_dates`).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import unicodedata
from functools import cache

import polars as pl

from flows.stages.date_formats import (
    ARTICLES,
    BESIDE_WEEKDAY,
    CHINESE_NUMERAL,
    DAY_SUFFIXES,
    DUAL_YEARS,
    ERA_DATE,
    ERAS,
    LITERAL_WORDS,
    PARENTHESIZED_WEEKDAY,
    TIME_WORDS,
    DateFormat,
    date_formats,
    other_formats,
    time_of_day,
)
from flows.stages.date_names import (
    DATE_LOCALES,
    day_numbers,
    day_period_names,
    known_names,
    locale_names,
    name_key,
    narrow_day_names,
    other_month_languages,
    phrases,
)

logger = logging.getLogger(__name__)

#: The longest date before a time of day looked for (`_timed`; the longest CLDR date of
#: the read locales is 37 characters, pt_PT's full): a bound keeps the search linear.
MAX_DATE_CHARS = 80

#: The end of a date's reject reason when it is after the day after the run date: a
#: later run may accept it (`reuse.reusable_dumps` rebuilds such a dump).
FUTURE_DATE_REASON = "is in the future"

#: Thai dates count years from the Buddha (2567 is 2024 CE); CLDR th's
#: Gregorian formats, read here, do not: such a year is rejected, not read
#: as a date in the future (which a later run would try again).
BUDDHIST_ERA_OFFSET = 543

#: The start of the reason for a date in a script no CLDR language read here writes.
UNSUPPORTED_LANGUAGE_REASON = "unsupported date language"

#: The scripts of `DATE_LOCALES`' dates (Unicode character name prefixes): an
#: unknown word in another script is a language no CLDR data read here writes.
READ_SCRIPTS = ("LATIN", "CYRILLIC", "CJK", "HIRAGANA", "KATAKANA", "HANGUL")

#: Chinese numerals (digits, 〇 and 零 for zero, and the circle ○ often typed for
#: 〇; 十 ten) as written in dates.
CHINESE_DIGITS = {c: n for n, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "○": 0}
#: A year, month or day in Chinese numerals (`二〇二四年`, `十二月`, `三十一日`).
_CHINESE_UNIT = re.compile(rf"({CHINESE_NUMERAL}+)([年月日号號])")


def _chinese_number(numeral: str) -> int | None:
    """`二〇二四` 2024 (digit by digit), `十二` 12, `二十七` 27, `三十一` 31, `七` 7,
    `一百一十三` 113, `一百零三` 103 and `百` 100 (Taiwan's years: `民國百年` is 2011);
    else None."""
    if "百" in numeral:
        hundreds, _, rest = numeral.partition("百")
        hundred = (
            1 if not hundreds else CHINESE_DIGITS.get(hundreds) if len(hundreds) == 1 else None
        )
        rest = rest.removeprefix("零")
        if len(rest) > 1 and "十" not in rest:  # `一百一二`: no number
            return None
        below = _chinese_number(rest) if rest else 0
        return hundred * 100 + below if hundred and below is not None and below < 100 else None
    if "十" not in numeral:
        digits = [CHINESE_DIGITS.get(c) for c in numeral]
        return None if None in digits else int("".join(str(d) for d in digits))
    tens, _, units = numeral.partition("十")
    if len(tens) > 1 or len(units) > 1:
        return None
    ten = CHINESE_DIGITS.get(tens) if tens else 1
    unit = CHINESE_DIGITS.get(units) if units else 0
    return None if not ten or unit is None else ten * 10 + unit


def _ascii_numbers(text: str) -> str:
    """`text` with every decimal digit ASCII and each year, month and day written in
    Chinese numerals in digits (`令和六年六月七日` reads `令和6年6月7日`)."""
    text = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)

    def digits(match: re.Match[str]) -> str:
        number = _chinese_number(match.group(1))
        return match.group(0) if number is None else f"{number}{match.group(2)}"

    return _CHINESE_UNIT.sub(digits, text)


def parse_date(date_text: str, today: dt.date) -> tuple[dt.date | None, str | None]:
    """Parse one localized date; return `(date, None)` or `(None, reason)`.

    The text (NFKC, spaces collapsed, digits ASCII, Chinese numerals read)
    must match a format of `date_formats` whole, a Japanese era date or ISO
    `2024-06-07`, optionally with a weekday in parentheses after it; when
    none does, a format of a CLDR language whose month names it holds
    (`date_formats.other_formats`), rejected when two of them read different
    dates. A numeric date with the day or month
    first is read day first (`parse.classify_lines` rejects it unless the
    dump's language is one of `day_first_languages`). Reasons: an unknown
    shape or month name, a date in a language no CLDR data read here writes
    (UNSUPPORTED_LANGUAGE_REASON), an impossible calendar date (`31 février
    2024`), a weekday or ordinal that does not fit the day, a two-digit year,
    an era year outside its era, or a date after the day after `today` (UTC;
    a site east of UTC may publish on UTC's tomorrow).
    """
    text = " ".join(_ascii_numbers(unicodedata.normalize("NFKC", date_text)).split())
    first_reason = None
    read: dict[dt.date, str] = {}
    months: dict[str, int] = {}  # the month names' numbers in each language that writes them
    for parts in _matches(text):
        day, reason = _to_date(parts, date_text, today)
        if day is not None and not parts.get("other"):
            return day, None
        if day is not None:
            read.setdefault(day, parts["locale"] or "")
            if not parts.get("weekday"):  # a weekday checked names the language
                months |= _month_numbers(parts.get("month"))
        first_reason = first_reason or reason
    if len(read) > 1:  # languages outside DATE_LOCALES disagree: no guess
        readings = ", ".join(f"{day.isoformat()} ({code})" for day, code in sorted(read.items()))
        return None, f"ambiguous date {date_text!r}: CLDR languages read it as {readings}"
    if len(set(months.values())) > 1:  # `11. listopada`: Croatian October, Polish November
        named = ", ".join(f"{number} in {code}" for code, number in sorted(months.items()))
        return None, f"ambiguous date {date_text!r}: its month name is month {named}"
    if read:
        return next(iter(read)), None
    return None, first_reason or _unrecognized(text, date_text)


def _month_numbers(month: str | None) -> dict[str, int]:
    """Language -> the month a name is in each CLDR language outside `DATE_LOCALES`
    that writes it (`date_names.other_month_languages`); empty for a month number."""
    key = name_key(month or "")
    found = (
        (code, locale_names(code, "months").get(key))
        for code in other_month_languages().get(key, ())
    )
    return {code: number for code, number in found if number is not None}


#: A word: letters and the combining marks of scripts that write vowels with them
#: (Thai `มิถุนายน`, Devanagari `जून`), and a final dot (`sept.`).
_WORD = re.compile(
    r"(?:[^\W\d_]|[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a"
    r"\u064b-\u065f\u0900-\u0dff\u0e31-\u0e4e\u0eb1-\u0ecd\u1000-\u109f])+\.?"
)


def _unknown_words(text: str) -> list[str]:
    """The words of `text` that are no month or weekday name of `DATE_LOCALES`."""
    known = known_names()
    return [w for w in _WORD.findall(text) if name_key(w) not in known]


#: What looks like a clock (`14:30`, `14h30`, `2 PM`, `14時`).
_CLOCK = re.compile(r"\d\s*(?::\s*\d|h\s*\d|[時时點点시])|\d\s*[AaPp]\.?\s*[Mm]\b")


def _unrecognized(text: str, date_text: str) -> str:
    """Why no format matched: a script no language read writes, a time of day or zone
    not read, an unknown month name next to a year, a day, a month name and a two-digit
    year (CLDR's month-name formats write the whole year), or the shape."""
    timed = _timed().fullmatch(text)  # the time read, or before a clock the date's words
    clock = None if timed else _CLOCK.search(text)
    part = timed["date"] if timed else text[: clock.start()] if clock else text
    words = _unknown_words(part)
    if timed or clock:
        dated = [w for w in words if not _time_word().fullmatch(w)]
        if not dated and (clock or words):  # `25:30`, `13:30 PM`, `오후 14:30`, `heure de Paris`
            return f"unrecognized date {date_text!r}: its time of day or zone is not read"
        if timed:  # the date before a time read (`07 juin 10 14:30`)
            return _unrecognized(part, date_text)
        words = dated  # `7 Jnue 2024, 14:30`
    letters = [c for word in words for c in word if c.isalpha()]
    if any(not unicodedata.name(c, "").startswith(READ_SCRIPTS) for c in letters):
        return f"{UNSUPPORTED_LANGUAGE_REASON}: no CLDR date format read here reads {date_text!r}"
    if re.search(r"\d{4}", text) and len(words) == 1 and words[0] not in LITERAL_WORDS:
        return f"unknown month name {words[0]!r} in date {date_text!r}"
    if not words and re.fullmatch(r"\D*\d{1,2}\D+\d{2}\.?", text.strip()):  # `07 juin 10`
        return f"two-digit year in date {date_text!r}: the century is not written"
    return f"unrecognized date {date_text!r}"


@cache
def _time_word() -> re.Pattern[str]:
    """A word a date with a time of day writes that is no month name: TIME_WORDS,
    ARTICLES, a day period (`date_names.day_period_names`), ISO's `T`."""
    words = [*TIME_WORDS, *(w for v in ARTICLES.values() for w in v), "T"]
    return re.compile(rf"{phrases(words)}|{day_period_names()}")


@cache
def _timed() -> re.Pattern[str]:
    return re.compile(rf"(?P<date>.{{1,{MAX_DATE_CHARS}}}?){time_of_day()}")


def _matches(text: str) -> list[dict[str, str | None]]:
    """Every reading of `text` (fields and locale), a parenthesized weekday included,
    or a weekday before or after a date no format writes with one (`Freitag,
    07.06.2024`); a time of day after the date is left out (`date_formats.time_of_day`)."""
    timed = _timed().fullmatch(text)
    text = timed["date"] if timed else text
    for shape in PARENTHESIZED_WEEKDAY:
        if weekday := shape.fullmatch(text):
            return _with_weekday(weekday, parenthesized="1")
    found = _core_matches(text)
    for shape in () if found else BESIDE_WEEKDAY:
        beside = shape.fullmatch(text)
        if beside and day_numbers(name_key(beside["weekday"])):
            return _with_weekday(beside)
    return found


def _with_weekday(match: re.Match[str], **extra: str) -> list[dict[str, str | None]]:
    """The readings of the match's date that write no weekday, with its weekday."""
    found = _core_matches(match["date"])
    weekday = {"weekday": match["weekday"], **extra}
    return [{**parts, **weekday} for parts in found if not parts.get("weekday")]


def _core_matches(text: str) -> list[dict[str, str | None]]:
    for shape in DUAL_YEARS:  # `2024年(令和6年)6月7日`: the era's date, its year checked
        if dual := shape.fullmatch(text):
            era_date = f"{dual['era']}{dual['era_year']}年{dual['rest']}"
            return [{**p, "dual_year": dual["year"]} for p in _core_matches(era_date)]
    found = []
    era = ERA_DATE.match(text)
    if era:
        code = next(code for name, _, code in ERAS if name == era["era"])
        found.append({**era.groupdict(), "locale": code})
    iso = re.fullmatch(r"(?P<year>\d{4})-(?P<month_number>\d{1,2})-(?P<day>\d{1,2})", text)
    if iso:
        found.append({**iso.groupdict(), "locale": "en"})
    found += _read_with(date_formats(), text)
    if found:
        return found
    words = _WORD.findall(text)  # a language outside DATE_LOCALES (Dutch `oktober` is German
    # `Oktober` too); a letter may be glued (`ביוני`)
    keys = dict.fromkeys(k for w in words for k in (name_key(w), name_key(w)[1:]))
    return [parts for key in keys for parts in _read_with(other_formats(key), text, other="1")]


def _read_with(
    forms: tuple[DateFormat, ...], text: str, **extra: str
) -> list[dict[str, str | None]]:
    """The fields each of `forms` reads in the whole `text` (month-first `mdy` ones
    left out: `parse.classify_lines` decides the order), with its locale and `extra`."""
    return [
        {**match.groupdict(), "locale": form.locale, **extra}
        for form in forms
        if form.order != "mdy" and (match := form.regex.fullmatch(text))
    ]


def _year(parts: dict[str, str | None], date_text: str) -> tuple[int | None, str | None]:
    if parts.get("year2"):
        return None, f"two-digit year in date {date_text!r}: the century is not written"
    if parts.get("era"):
        start = _era_start(parts["era"] or "")
        era_year = 1 if parts["era_year"] == "元" else int(parts["era_year"] or 0)
        return start.year + era_year - 1, None
    return int(parts["year"] or 0), None


def _to_date(
    parts: dict[str, str | None], date_text: str, today: dt.date
) -> tuple[dt.date | None, str | None]:
    code = parts["locale"] or ""
    if parts.get("month"):
        month = locale_names(code, "months").get(name_key(parts["month"] or ""))
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
    if parts.get("dual_year") and int(parts["dual_year"] or 0) != day.year:
        checks.append(f"year {parts['dual_year']} is not {parts['era']}{parts['era_year']}年")
    reason = next((r for r in checks if r), None)
    if reason:
        return None, f"{reason} in date {date_text!r}"
    if day > today + dt.timedelta(days=1) and (parts["locale"] or "").startswith("th"):
        year = f"year {day.year} is of the Buddhist era ({day.year - BUDDHIST_ERA_OFFSET} CE)"
        return None, f"{year}, not read, in date {date_text!r}"
    if day > today + dt.timedelta(days=1):  # a site east of UTC may already be a day ahead
        return None, f"date {date_text!r} ({day.isoformat()}) {FUTURE_DATE_REASON}"
    return day, None


def _check_suffix(day: dt.date, parts: dict[str, str | None]) -> str | None:
    suffix = (parts.get("suffix") or "").lower()
    if not suffix:
        return None
    if suffix in DAY_SUFFIXES["ru"]:  # `7-го июня`: the genitive of any day
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
    key = name_key(written)
    weekday = locale_names(code, "days").get(key)
    if weekday is None and parts.get("parenthesized"):  # `（五）`: a narrow name
        weekday = narrow_day_names(code).get(key)
    if weekday is None and len(day_numbers(key)) == 1:  # beside another language's format
        (weekday,) = day_numbers(key)  # (`Friday, 07.06.2024`)
    narrow = any(key in narrow_day_names(other) for other in DATE_LOCALES)
    if weekday is None and not day_numbers(key) and not narrow:  # `(updated)`, `(T)`
        return f"unknown weekday name {written!r}"
    return None if weekday == day.weekday() else f"weekday {written!r} is not that of {day}"


def _check_era(day: dt.date, parts: dict[str, str | None]) -> str | None:
    if not parts.get("era"):
        return None
    start = _era_start(parts["era"] or "")
    following = [s for _, s, code in ERAS if code == parts["locale"] and s > start]
    if day < start or (following and day >= following[0]):
        return f"{day.isoformat()} is outside the era {parts['era']} (from {start.isoformat()})"
    return None


def _era_start(era: str) -> dt.date:
    return next(start for name, start, _ in ERAS if name == era)


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
    if distinct:  # a warm run calls this for each step with nothing new: no line then
        logger.info("parsed %d distinct date strings", len(distinct))
    return pl.DataFrame(
        {
            "date_text": distinct,
            "published_on": [day for day, _ in parsed],
            "date_reject_reason": [reason for _, reason in parsed],
        },
        schema={"date_text": pl.String, "published_on": pl.Date, "date_reject_reason": pl.String},
    )
