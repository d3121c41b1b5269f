"""Month and weekday names as dates write them: CLDR's, and the spellings beside them.

The names of a locale's language are those of every `DATE_LOCALES` locale of
that language, in CLDR's format and stand-alone, wide and abbreviated forms
(Babel), as `name_key`s; beside them the spellings sites write (`spellings`:
no accents, umlauts as `ae`, zero-padded Korean months) and the colloquial
Chinese weekdays (`COLLOQUIAL_DAYS`). `date_formats` builds its regexes from
them; `dates` looks the names of a reading up.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache

from babel import Locale, localedata

#: Locales whose CLDR date formats are read: the ten languages and the
#: regional variants whose formats or month names differ (de_AT `Jänner`,
#: fr_CA `y-MM-dd`, zh_Hant_HK `d/M/y`, en_GB `d MMMM y`, es_PE and es_UY
#: `setiembre`, `set.`, the RAE's accepted spelling…).
DATE_LOCALES: tuple[str, ...] = (
    "fr", "fr_BE", "fr_CA", "fr_CH", "en", "en_AU", "en_CA", "en_GB", "de", "de_AT", "de_CH",
    "es", "es_MX", "es_PE", "es_UY", "it", "it_CH", "pt", "pt_BR", "pt_PT", "ja",
    "zh", "zh_Hant", "zh_Hant_HK", "zh_Hant_TW", "ko", "ru",
)  # fmt: skip

#: Weekday names written beside CLDR's (0 = Monday): Chinese `礼拜五` / `禮拜五`
#: and `星期天`, `礼拜天` for Sunday, the colloquial names of the Xiandai Hanyu
#: Cidian (CLDR zh writes `星期五`, `周五`, `星期日`), and Taiwan's `拜五` (Monday to
#: Saturday: the MOE's Dictionary of Frequently-Used Taiwanese, `拜五 pài-gōo`);
#: Japanese `金曜`, the usual short form (CLDR ja writes `金`, `金曜日`); Brazilian
#: `6ª feira` (Monday to Friday: `2ª-feira` is `segunda-feira`; NFKC `6a feira`).
COLLOQUIAL_DAYS = {
    "zh": {
        f"{week}{day}": n
        for week in ("礼拜", "禮拜", "星期")
        for n, day in enumerate("一二三四五六日")
    }
    | {f"{week}天": 6 for week in ("礼拜", "禮拜", "星期")}
    | {f"拜{day}": n for n, day in enumerate("一二三四五六")},
    "ja": {f"{day}曜": n for n, day in enumerate("月火水木金土日")},
    "pt": {
        f"{n + 2}{mark}{joint}feira": n
        for n in range(5)
        for mark in ("ª", "a", ".ª", ".a")
        for joint in (" ", "-")
    },
}
#: Month names written beside CLDR's: Austrian `Feber` beside `Jänner` (CLDR de_AT),
#: Duden's "österreichisch" February.
COLLOQUIAL_MONTHS = {"de": {"feber": 2}}

#: German umlauts as written without them (`Maerz`).
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})


@cache
def locale_names(code: str, kind: str) -> dict[str, int]:
    """`cldr_names` of a locale, and their `spellings` (`aout` for `août`) and the first
    three letters of its month names (`aoû`, `fév`) that no two of its names share
    (`jui` is none: `juin`, `juillet`)."""
    names = cldr_names(code, kind)
    spelled: dict[str, set[int]] = {}
    for key, number in names.items():
        written = spellings(key)
        if kind == "months":  # `aoû`, `fév`: the first three letters, accents or not
            written |= {w[:3] for w in {key, _bare(key)} if len(w) > 3 and w.isalpha()}
        for spelling in written - {key}:
            spelled.setdefault(spelling, set()).add(number)
    unique = {key: numbers.pop() for key, numbers in spelled.items() if len(numbers) == 1}
    return unique | names


@cache
def cldr_names(code: str, kind: str) -> dict[str, int]:
    """Lowercased, dot-stripped month (1-12) or weekday (0 = Monday) names of a locale's
    language: those of every `DATE_LOCALES` locale of that language, so en's `MMM d, y`
    reads en_GB's and en_AU's `Sept.` (CLDR en writes `Sep`); a locale of another
    language (`other_formats`) has its own names; `COLLOQUIAL_DAYS` and `COLLOQUIAL_MONTHS` too.

    Raises:
        ValueError: CLDR gives one name two numbers in the language.
    """
    language = Locale.parse(code).language
    same = [other for other in DATE_LOCALES if Locale.parse(other).language == language]
    names: dict[str, int] = {}
    for other in same or [code]:
        data = getattr(Locale.parse(other), kind)
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in data[context][width].items():
                    key = name_key(name)
                    if names.setdefault(key, number) != number:
                        raise ValueError(f"CLDR {kind} name {name!r} ({other}) is ambiguous")
    colloquial = COLLOQUIAL_DAYS if kind == "days" else COLLOQUIAL_MONTHS
    return colloquial.get(language, {}) | names


def spellings(key: str) -> set[str]:
    """The spellings written for a name key beside it: without accents (`aout`,
    `fevrier`, `sabado`, Greek capitals `ΙΟΥΝΙΟΥ`), German umlauts as `ae`, `oe`,
    `ue` (`maerz`), a month number with a leading zero (Korean `06월`). One that two
    names of a language share is read as neither (`locale_names`). (Korean `6 월`, a
    space before the unit, is not one: its spellings in every pattern's month field made
    polars' regex engine 40 times slower on every line.)"""
    found = {_bare(key), key.translate(_UMLAUTS)}
    if re.fullmatch(r"\d\D+", key):
        found.add(f"0{key}")
    return found - {key}


def _bare(key: str) -> str:
    """`key` without its accents (NFKD, combining marks removed, NFC)."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", key) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare)


@cache
def day_numbers(key: str) -> frozenset[int]:
    """The weekdays (0 = Monday) a name key names in the languages of `DATE_LOCALES`
    (`locale_names`): one for `freitag`, `sexta-feira`; none for `mai` (a month)."""
    days = (locale_names(code, "days") for code in DATE_LOCALES)
    return frozenset(names[key] for names in days if key in names)


@cache
def narrow_day_names(code: str) -> dict[str, int]:
    """A locale's narrow weekday names (format and stand-alone, `name_key`) -> weekday
    (0 = Monday), those that name one day only: Taiwan's `（五）` after a date;
    English `T` (Tuesday, Thursday) is none."""
    found: dict[str, set[int]] = {}
    for context in ("format", "stand-alone"):
        for number, name in Locale.parse(code).days[context]["narrow"].items():
            found.setdefault(name_key(name), set()).add(number)
    return {name: days.pop() for name, days in found.items() if len(days) == 1}


def name_key(name: str) -> str:
    """A month or weekday name as looked up: NFKC, lowercased, no final dot."""
    return unicodedata.normalize("NFKC", name).strip().lower().rstrip(".")


def phrases(words: Iterable[str], space: str = r"\s+") -> str:
    """A case-insensitive regex of `words`, escaped, longest first; a space in one matches
    `space` (`a las`, `on the`, `p. m.`)."""
    escaped = {re.escape(w).replace(r"\ ", space) for w in words}
    return rf"(?i:{'|'.join(sorted(escaped, key=lambda w: (-len(w), w)))})"


def alternation(names: set[str]) -> str:
    """`phrases` of month or weekday `names`, with an optional final dot; COLLOQUIAL_DAYS
    among them as their short shapes (COLLOQUIAL_DAY_SHAPES)."""
    shapes = [shape for shape, days in COLLOQUIAL_DAY_SHAPES.items() if days <= names]
    rest = names.difference(*(COLLOQUIAL_DAY_SHAPES[shape] for shape in shapes))
    return rf"(?:{'|'.join([phrases(rest), *shapes])})\.?" if shapes else rf"{phrases(names)}\.?"


#: COLLOQUIAL_DAYS of each language as one short regex (each weekday field of the date
#: patterns holds the names of every locale: their 77 names, 117 with their spellings,
#: enumerated made the patterns 5,500 characters longer and slower on every line).
COLLOQUIAL_DAY_SHAPES = {
    r"(?:礼拜|禮拜|星期)[一二三四五六日天]|拜[一二三四五六]": frozenset(COLLOQUIAL_DAYS["zh"]),
    "[月火水木金土日]曜": frozenset(COLLOQUIAL_DAYS["ja"]),
    r"(?i:0?[2-6]\.?[ªa][ -]feira)": frozenset(COLLOQUIAL_DAYS["pt"]),
}
COLLOQUIAL_DAY_SHAPES = {  # with their `spellings` (`06a feira`)
    shape: days.union(*map(spellings, days)) for shape, days in COLLOQUIAL_DAY_SHAPES.items()
}


@cache
def all_names(kind: str) -> str:
    """`alternation` of the month or weekday names of every locale of `DATE_LOCALES`
    (`locale_names`: their spellings and months' first three letters too)."""
    names: set[str] = set()
    for code in DATE_LOCALES:
        names |= set(locale_names(code, kind))
    return alternation(names)


@cache
def other_month_languages() -> dict[str, tuple[str, ...]]:
    """Month name key -> the CLDR languages (Babel's locales without a region) that
    write it, for every language none of `DATE_LOCALES` is in (about 300; a second
    to load, once per process, only when a date is in none of them); a name's
    `spellings` too, unless a language writes that spelling as a name (Turkish
    `Ara`, not Masai's `Ará`)."""
    read = {Locale.parse(code).language for code in DATE_LOCALES}
    months: dict[str, dict[str, None]] = {}  # name -> languages, in order, once each
    spelled: dict[str, dict[str, None]] = {}  # a spelling no language writes as a name
    for code in sorted(localedata.locale_identifiers()):
        if "_" in code or code == "root" or code in read:
            continue
        data = Locale.parse(code).months
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for key in map(name_key, data[context][width].values()):
                    months.setdefault(key, {})[code] = None
                    for spelling in spellings(key):
                        spelled.setdefault(spelling, {})[code] = None
    return {name: tuple(codes) for name, codes in (spelled | months).items()}


@cache
def day_period_names() -> str:
    """A regex of the day periods CLDR writes beside a time of day in the locales
    of `DATE_LOCALES` (`PM`, `p. m.`, `午後`, `오후`, `下午`, `del pomeriggio`: Babel
    `Locale.day_periods`, format and stand-alone, abbreviated and wide; not the narrow
    `a`, `p`), NFKC: `phrases`, a space in one matching any spaces or none."""
    names = {
        unicodedata.normalize("NFKC", name)
        for code in DATE_LOCALES
        for context in Locale.parse(code).day_periods.values()
        for width in ("abbreviated", "wide")
        for name in context.get(width, {}).values()
        if len(name) > 1
    }
    return phrases(names, space=r"\s*")


@cache
def zone_names() -> str:
    """A regex of the time zone names written after a time of day: `UTC`, `GMT` (CLDR's
    `gmtFormat`) and the short names of the locales of `DATE_LOCALES` (Babel
    `Locale.time_zones`, `Locale.meta_zones`: `TU`, `EST`, `CEST`, `MESZ`, `JST`…),
    longest first; no weekday abbreviation (`THU`) is one."""
    names = {"UTC", "GMT"}
    for code in DATE_LOCALES:
        locale = Locale.parse(code)
        for zones in (locale.time_zones, locale.meta_zones):
            for zone in zones.values():
                names |= {n for n in zone.get("short", {}).values() if n.isalpha()}
    return "|".join(sorted(names, key=lambda n: (-len(n), n)))


@cache
def known_names() -> frozenset[str]:
    """Every month and weekday name key of `DATE_LOCALES` as CLDR writes it (`cldr_names`;
    not their spellings): the words a rejected date's reason does not call unknown."""
    return frozenset(
        k for code in DATE_LOCALES for kind in ("months", "days") for k in cldr_names(code, kind)
    )
