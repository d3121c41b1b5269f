"""Line shapes: an entry head (`07 juin 2024 · source : wotc`), a stub's stat line,
and the translation language a header line claims.

A head is a date of a shape `dates.parse_date` reads (CLDR formats of every
`dates.DATE_LOCALES`, era dates), `·` or `・`, a source word, a colon and the
source (seed line 2 of every dump). Decoding (which code page reads the most
heads), line splitting (a bullet before a head) and parsing (`parse.classify_lines`)
recognize heads with these patterns, so a line is a head to all of them alike.
A header claims its translation's language with a code in a translation context
(`La traduction FR`, `(ES)`, `TW翻譯`: `claimed_language`).
"""

from __future__ import annotations

import polars as pl

from flows.stages.dates import date_pattern, dated_line_pattern

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
HEAD_PARTS = r"^\s*(?P<date_text>[^·・]*?)" + _SOURCE_PART

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
