"""The CLDR date formats read, as regexes: which texts are dates, and their fields.

Every date shape read comes from the Unicode CLDR date formats that Babel
ships: for each locale of `DATE_LOCALES`, the full (with the weekday), long,
medium and short patterns (`Locale.date_formats`), with that locale's month
and weekday names (format and stand-alone, wide and abbreviated). On top of
CLDR, as sites write dates: English ordinal days (`June 7th, 2024`), Spanish
`del` before the year, Russian `года` as well as `г.`; Japanese era years
(`令和6年6月7日`, `元年` = 1) and Taiwan's (`民國113年6月7日`) from `ERAS`; a weekday in
parentheses after the date (`2024年6月14日（周五）`, as the Chinese release
notes write it) or beside one whose formats write none (`Freitag, 07.06.2024`);
names without accents and months' first three letters (`locale_names`), articles
and prepositions (`ARTICLES`), commas and dashes beside a named month, hyphens in
a numeric date, Chinese colloquial weekdays (`COLLOQUIAL_DAYS`) and `号`; a time of
day after the date (`time_of_day`), left out of it.
The same shapes give the head recognizer (`shapes`).

A date in a language none of `DATE_LOCALES` writes (Greek `14 Ιουνίου 2024`,
Arabic, Hindi…) is read with the formats of the CLDR languages whose month
names it holds (`other_formats`), looked up only when no format of
`DATE_LOCALES` reads it.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache

from babel import Locale

from flows.stages.date_names import (
    DATE_LOCALES,
    all_names,
    alternation,
    day_period_names,
    locale_names,
    other_month_languages,
    phrases,
    zone_names,
)

#: CLDR format lengths read (`Locale.date_formats`).
FORMAT_LENGTHS: tuple[str, ...] = ("full", "long", "medium", "short")

#: Eras whose years count from their first day (year 1, `元年`, is that day's
#: year): name, first day, the locale of the dates that write it (its weekday
#: names). Japan's since 1926: CLDR `supplementalData.xml` `<calendar
#: type="japanese">` (era 232 start 1926-12-25, 233 start 1989-01-08, 234 start
#: 2019-05-01) with the names of CLDR `ja.xml`. The Republic of China's,
#: Taiwan's calendar (`民國113年` is 2024): `<calendar type="roc">` era 1 start
#: 1912-01-01, named `民國` in CLDR `zh_Hant.xml` and `民国` in `zh.xml`. Babel
#: loads only the Gregorian calendar, so the table is here.
ERAS: tuple[tuple[str, dt.date, str], ...] = (
    ("昭和", dt.date(1926, 12, 25), "ja"),
    ("平成", dt.date(1989, 1, 8), "ja"),
    ("令和", dt.date(2019, 5, 1), "ja"),
    ("中華民國", dt.date(1912, 1, 1), "zh_Hant"),  # the Republic's full name
    ("中华民国", dt.date(1912, 1, 1), "zh"),
    ("民國", dt.date(1912, 1, 1), "zh_Hant"),
    ("民国", dt.date(1912, 1, 1), "zh"),
)

#: Day suffixes a language writes: English ordinals, French `1er`, `1º` and the
#: RAE's `1.º` (NFKC: `1o`, `1.o`), Latin American `1ro`, `1ero` (primero), Russian `-го`,
#: `-е`. Checked against the day in `parse_date`.
DAY_SUFFIXES = {
    "en": ("st", "nd", "rd", "th"),
    "fr": ("er",),
    "es": ("º", "ª", "°", "o", "a", ".º", ".ª", ".o", ".a", "ro", "ero"),
    "pt": ("º", "ª", "°", "o", "a", ".º", ".ª", ".o", ".a"),
    "it": ("º", "°", "o"),
    "ru": ("-го", "-е"),  # `7-го июня`, `7-е июня`: any day
}

#: CLDR literals and what is also written for them: quoted ones (optional) Spanish
#: `del`, Russian `года`; unquoted, the Chinese colloquial day `号` (`2024年6月7号`).
LITERAL_WORDS = {"de": r"del?", "г": r"(?:года|г)", "日": "[日号號]"}

#: The article or preposition written before a day or weekday (`le 7 juin 2024`,
#: `Freitag, den 7. Juni 2024`, `am 7. Juni 2024`, `el viernes 7 de junio`, `on the
#: 7th of June 2024`, `em 7 de junho`), optional; English also writes `of` after the day.
ARTICLES = {
    "fr": ("le",), "de": ("den", "dem", "am"), "en": ("the", "on", "on the"), "es": ("el",),
    "it": ("il",), "pt": ("em",),
}  # fmt: skip


#: Words written between a date and its time of day, beside CLDR's `{1}, {0}` and
#: `{1} {0}` (Babel `Locale.datetime_formats`): `7 juin 2024 à 14h30`, `June 7, 2024 at
#: 2:30 PM`, `07.06.2024 um 14:30 Uhr`, `a las`, `alle ore`, `às`, `в`, `@`.
TIME_WORDS = ("à", "a", "at", "um", "a las", "a la", "alle", "alle ore", "ore", "às", "as", "в")


@cache
def time_of_day() -> str:
    """A regex (no anchors, no groups) of a time of day written after a date, the words
    before it included: `, 14:30`, ` à 14h30`, ` at 2:30 PM`, ` um 14:30 Uhr`,
    `T14:30:00Z`, ` 오후 2:30`, ` 14時30分`, ` 14:30 (UTC+1)`, zh's ` UTC 14:30:00`, fr_CA's
    ` 14 h 30 min 05 s`. The hour is 0-23, or 0-12 beside a day period (CLDR's:
    `date_names.day_period_names`), minutes and seconds 0-59. The time is no part of a
    date read (`published_on` is the date written)."""
    period = day_period_names()

    hour, hour12, sixty = r"(?:[01]?\d|2[0-3])", r"(?:0?\d|1[0-2])", r"[0-5]\d"
    colon = rf":{sixty}(?::{sixty}(?:[.,]\d+)?)?"
    french = rf"\s*h(?:\s*{sixty}(?:\s*min(?:\s*{sixty}\s*s)?)?)?"
    cjk = r"\s*[時时點点시](?:\s*[0-5]?\d\s*[分분](?:\s*[0-5]?\d\s*[秒초])?)?"
    minutes = rf"(?:{colon}|{french}|{cjk})"
    # 0-12 beside a day period (`2:30 PM`, `午後2時`; CLDR ja's `aK:mm`: `午前0:30`), else 0-23
    clock = rf"(?:{period}\s*{hour12}{minutes}|{hour12}{minutes}\s*{period}|{hour}{minutes})"
    # a zone after the clock: CLDR's names (`UTC`, `TU`, `EST`, `MESZ`), an offset of
    # -14:59 to +14:59, or `Z`; before it, zh's `UTC 14:30:05`
    offset = r"[+-](?:0?\d|1[0-4])(?::?[0-5]\d)?"
    zone = rf"(?:Z|[+-](?:0\d|1[0-4]):?[0-5]\d|(?:{zone_names()})(?:\s*{offset})?)"
    time = (
        rf"(?:(?:UTC|GMT)\s+)?{clock}(?:\s*(?i:uhr))?"
        rf"(?:\s*(?:{zone}|\({zone}\)|\[{zone}\]))?"
    )
    return rf"(?:T|\s*,?\s+|\s*,\s*)(?:{phrases(TIME_WORDS)}\s+|@\s*)?{time}"


@dataclass(frozen=True)
class DateFormat:
    """One CLDR date format of one locale, as a regex."""

    locale: str
    length: str
    pattern: str  # the CLDR pattern, e.g. "EEEE, d. MMMM y"
    regex: re.Pattern[str]  # named groups: year, year2, month, month_number, day, suffix, weekday
    order: str  # field order, e.g. "dmy"; "" unless the month is a number
    skeleton: str  # the regex with every locale's names: for the polars recognizer
    cldr_skeleton: str  # the skeleton of CLDR's shape alone, no written variant


_TOKEN = re.compile(r"'(?:[^']|'')*'|([A-Za-z])\1*|.", re.S)


def _field(token: str, code: str, named: bool, numeric: bool, written: bool) -> tuple[str, str]:
    """(regex, order letter) of one CLDR pattern field (`written`: with its articles)."""

    def group(name: str, body: str) -> str:
        return f"(?P<{name}>{body})" if named else f"(?:{body})"

    letter, width = token[0], len(token)
    if letter in "yu":
        return (group("year2", r"\d{2}") if width == 2 else group("year", r"\d{4}")), "y"
    if letter in "ML" and width <= 2:
        return group("month_number", r"\d{1,2}"), "m"
    if letter in "ML":
        return group("month", _names(code, "months", named)), "M"
    language = Locale.parse(code).language
    article = "" if numeric or not written else _article(language if named else None)
    if letter == "d":
        suffixes = sorted({s for v in DAY_SUFFIXES.values() for s in v}, key=len, reverse=True)
        if named:
            suffixes = sorted(DAY_SUFFIXES.get(language, ()), key=len, reverse=True)
        escaped = "|".join(map(re.escape, suffixes))
        suffix = "" if numeric or not suffixes else group("suffix", escaped) + "?"
        en = language == "en" or not named
        of = r"(?:\s+(?i:of))?" if written and not numeric and en else ""
        return article + group("day", r"\d{1,2}") + suffix + of, "d"
    if letter in "Ec":
        return article + group("weekday", _names(code, "days", named)), ""
    if letter == "G":  # the era (Thai `d MMMM G y`): optional, any width
        eras = Locale.parse(code).eras
        return f"(?:{alternation({e for w in eras.values() for e in w.values()})})?", ""
    raise ValueError(
        f"CLDR date pattern field {token!r} ({code}) is not read; add it to dates._field"
    )


def _names(code: str, kind: str, named: bool) -> str:
    """The month or weekday names of a field: the locale's (`named`), or every locale's."""
    return alternation(set(locale_names(code, kind))) if named else all_names(kind)


def _article(language: str | None) -> str:
    """The optional article before a day or weekday: `language`'s, or any (None)."""
    words = [w for v in ARTICLES.values() for w in v] if language is None else []
    words = words or list(ARTICLES.get(language or "", ()))
    return rf"(?:{phrases(words)}\s+)?" if words else ""


def _literal(token: str, last: bool, numeric: bool, written: bool) -> str:
    if token.startswith("'"):
        word = token[1:-1].replace("''", "'")
        return f"(?:{LITERAL_WORDS.get(word, re.escape(word))})?"
    if token.isspace():  # `7 juin, 2024`, `07-Jun-2024` beside `7 juin 2024`
        return "" if numeric or not written else "[,-]?"
    if written and token in LITERAL_WORDS:
        return LITERAL_WORDS[token]
    if token == ",":
        return ",?"
    if token == "." and (last or not numeric):
        return r"\.?"
    if written and numeric and token in "/.-":  # `07-06-2024` beside `07/06/2024`
        return "[./-]"
    return re.escape(token)


def _compile(code: str, length: str, named: bool, written: bool = True) -> tuple[str, str]:
    """(regex, numeric field order) of one locale's format; `written`: with the
    variants sites write beside CLDR's shape (articles, commas, dashes, `号`)."""
    pattern = Locale.parse(code).date_formats[length].pattern
    tokens = [m.group(0) for m in _TOKEN.finditer(pattern)]
    numeric = not any(t[0] in "ML" and len(t) >= 3 for t in tokens)
    pieces, order = [], ""
    for index, token in enumerate(tokens):
        if token[0].isalpha() and token[0].isascii():
            piece, letter = _field(token, code, named, numeric, written)
            order += letter
            if token[0] in "Ec" and index and written:  # `2024年6月7日，星期五`
                piece = r",?\s*" + piece
            if token[0] in "ML" and not index and written and not numeric:  # `on June 7`
                piece = _article(Locale.parse(code).language if named else None) + piece
        else:
            piece = _literal(token, index == len(tokens) - 1, numeric, written)
        pieces.append(piece)
    if written and numeric and code == "ru" and tokens[-1][0] in "yu":  # `07.06.2024 г.`
        pieces.append(rf"(?:{LITERAL_WORDS['г']}\.?)?")
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
            cldr, _ = _compile(code, length, named=False, written=False)
            pattern = Locale.parse(code).date_formats[length].pattern
            compiled = re.compile(regex, re.I)
            formats.append(DateFormat(code, length, pattern, compiled, order, skeleton, cldr))
    return tuple(formats)


_ERA_NAMES = "|".join(name for name, _, _ in ERAS)
_ERA_YEAR = rf"(?:{_ERA_NAMES})\s*(?:\d{{1,3}}|元)\s*年"
#: `令和6年6月7日`, `平成元年1月8日`, `民國113年6月7日`, `中華民國113年6月7日`,
#: optionally with the weekday (`金曜日`, `金曜`, `星期五`).
_ERA_SHAPE = (
    rf"{_ERA_YEAR}\s*\d{{1,2}}\s*月"
    r"\s*\d{1,2}\s*[日号號](?:\s*(?:[日月火水木金土]曜日?|星期[一二三四五六日天]))?"
)
ERA_DATE = re.compile(
    rf"^(?P<era>{_ERA_NAMES})\s*(?P<era_year>\d{{1,3}}|元)\s*年"
    r"\s*(?P<month_number>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号號]\s*(?P<weekday>\S*)$"
)
#: A year written both ways, the other in parentheses (`2024年（令和6年）6月7日`,
#: `令和6年（2024年）6月7日`, as Japanese official documents write it); NFKC. Read as the
#: era's date with `year` (`dates.parse_date` rejects two years that disagree).
_ERA_AND_YEAR = rf"(?P<era>{_ERA_NAMES})\s*(?P<era_year>\d{{1,3}}|元)\s*年"
DUAL_YEARS = tuple(
    re.compile(rf"{first}\s*\(\s*{second}\s*\)\s*(?P<rest>.+)")
    for first, second in [
        (r"(?P<year>\d{4})\s*年", _ERA_AND_YEAR),
        (_ERA_AND_YEAR, r"(?P<year>\d{4})\s*年"),
    ]
)
_DUAL_YEAR_SHAPE = (
    rf"(?:\d{{4}}\s*年\s*[(（]\s*{_ERA_YEAR}\s*[)）]|{_ERA_YEAR}\s*[(（]\s*\d{{4}}\s*年\s*[)）])"
    r"\s*\d{1,2}\s*月\s*\d{1,2}\s*[日号號]"
)
_ISO_SHAPE = r"\d{4}-\d{1,2}-\d{1,2}"
#: A Chinese numeral as dates write it: the digits, 〇 and 零 for zero (and the
#: circle ○ often typed for 〇), 十 ten, 百 hundred (`民國一百一十三年`).
CHINESE_NUMERAL = "[〇○零一二三四五六七八九十百]"
#: `二〇二四年六月七日`, `令和六年六月七日`: year, month and day in Chinese numerals.
_CHINESE_NUMERAL_SHAPE = (
    rf"(?:(?:{_ERA_NAMES})\s*(?:{CHINESE_NUMERAL}{{1,5}}|元)"
    rf"|{CHINESE_NUMERAL}{{4}})\s*年\s*{CHINESE_NUMERAL}{{1,3}}\s*月\s*{CHINESE_NUMERAL}{{1,3}}\s*[日号號]"
)


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


#: A word that may be a weekday beside a date (`Fr.`, `sexta-feira`, NFKC `6a feira`):
#: BESIDE_WEEKDAY.
_WEEKDAY_WORD = r"(?:\d\.?a[ -]?feira|[^\W\d_]+(?:-[^\W\d_]+)?\.?)"

#: A date whose order depends on the locale (NFKC): day or month first, month a number,
#: up to two words before it, in parentheses or not (`Friday, 07/06/2024`, `Freitag,
#: den 07.06.2024`, `(Fri) 07/06/2024`), anything but a digit after it
#: (`07/06/2024T14:30`, `07.06.2024г.`).
NUMERIC_DAY_MONTH_SHAPE = (
    rf"^\s*(?:\(?\s*{_WEEKDAY_WORD}\s*\)?\s*,?\s*){{0,2}}"
    r"\d{1,2}\s*[./-]\s*\d{1,2}\s*[./-]\s*\d{2,4}(?:\D|$)"
)


@cache
def date_pattern(written: bool = True) -> str:
    """A polars regex (no anchors, no groups) for every date `parse_date` reads.

    Built from the same CLDR formats, with every locale's month and weekday
    names (case-insensitive), plus the Japanese era, ISO and Chinese-numeral
    (`二〇二四年六月七日`) shapes, and a weekday in parentheses after any of them
    (`2024年6月14日（周五）`, `(金)`). `written`: with the variants sites write
    (articles, commas, dashes, `号`, a year written both ways `2024年（令和6年）`, a
    weekday before or after the date, in parentheses or brackets `［金］`, `〔金〕`,
    `【金】`); else CLDR's shapes alone. A time of day after the date is `time_of_day`.
    """
    forms = date_formats()
    skeletons = dict.fromkeys(f.skeleton if written else f.cldr_skeleton for f in forms)
    shapes = [*skeletons, _ERA_SHAPE, _ISO_SHAPE, _CHINESE_NUMERAL_SHAPE]
    dates = "(?:" + "|".join(shapes + [_DUAL_YEAR_SHAPE] * written) + ")"
    days = all_names("days")
    if not written:
        return rf"{dates}(?:\s*[(（]\s*{days}\s*[)）])?"
    after = rf"\s*[(（\[［〔【]\s*{days}\s*[)）\]］〕】]|\s*,?\s*{days}"
    return rf"(?:[(（]?\s*{days}\s*[)）]?\s*,?\s*)?{dates}(?:{after})?"


def dated_line_pattern() -> str:
    """A polars regex for a line that starts with a date of one of CLDR's shapes
    (`date_pattern(written=False)`: `Le 7 juin 2024, la règle a changé.` and
    `Do 10/10/10 damage…` are ruling text, not malformed heads).

    The date ends the line or is followed by no digit and no `.` and digit
    (`1. 01.01.2000`, a bulleted date, does not start with `1. 01.01`).
    """
    return rf"^\s*{date_pattern(written=False)}(?:$|[^\d.]|\.(?:\D|$))"


#: A weekday in parentheses or brackets after a date (`2024年6月14日 (周五)`, `［金］`,
#: `〔金〕`, `【金】`, NFKC), or in parentheses before it (`(Fri) June 7, 2024`): date, weekday.
PARENTHESIZED_WEEKDAY = (
    re.compile(r"(?P<date>.+?)\s*[(\[〔【]\s*(?P<weekday>[^()\[\]〔〕【】]+?)\s*[)\]〕】]"),
    re.compile(r"\(\s*(?P<weekday>[^()]+?)\s*\)\s*,?\s*(?P<date>.+)"),
)
#: A word before a date that starts with a digit (`Freitag, 07.06.2024`, `sexta-feira,
#: 07/06/2024`, an article between: `Freitag, den 07.06.2024`), after one that ends with
#: a digit (`2024. 6. 7. 금요일`) or after a comma (`7 июня 2024 г., пятница`): date,
#: weekday. Read when no format reads the whole text and the word is a weekday name.
_ARTICLE = phrases([word for words in ARTICLES.values() for word in words])
BESIDE_WEEKDAY = (
    re.compile(rf"(?P<weekday>{_WEEKDAY_WORD})\s*,?\s*(?:{_ARTICLE}\s+)?(?P<date>\d.*)"),
    re.compile(rf"(?P<date>.*\d\.?)\s*,?\s*(?P<weekday>{_WEEKDAY_WORD})"),
    re.compile(rf"(?P<date>.*\S)\s*,\s*(?P<weekday>{_WEEKDAY_WORD})"),
)


@cache
def other_formats(word: str) -> tuple[DateFormat, ...]:
    """The CLDR date formats of the languages outside `DATE_LOCALES` that write the
    month name `word` (a `name_key`), each with its own month and weekday names.

    A format holding a field no rule reads, or a language giving one name two
    numbers, is left out. Empty when no CLDR language writes `word`.
    """
    formats = []
    for code in other_month_languages().get(word, ()):
        for length in FORMAT_LENGTHS:
            try:
                regex, order = _compile(code, length, named=True)
            except ValueError:
                continue
            pattern = Locale.parse(code).date_formats[length].pattern
            compiled = re.compile(regex, re.I)
            formats.append(DateFormat(code, length, pattern, compiled, order, "", ""))
    return tuple(formats)
