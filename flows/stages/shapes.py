"""Line shapes: an entry head (`07 juin 2024 · source : wotc`), a stub's stat line,
and whether a line names a translation's language as a header does (`claims`).

A head is a date of a shape `dates.parse_date` reads (CLDR formats of every
`date_names.DATE_LOCALES`, era dates), a separator (SEPARATORS), a source word, a
colon and the source (seed line 2 of every dump); or, in any script, a short text with
a number, a separator, a source word, a colon and a known source (`14 Ιουνίου 2024 ·
πηγή: wotc`: ANY_SCRIPT_HEAD_PATTERN). Decoding, line splitting (a bullet before a
head) and parsing (`parse.classify_lines`) recognize heads with these patterns alike.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from flows.stages.claims import (
    TRANSLATION_WORDS,
    claimed_language_of,
    named_code,
    word_language,
)
from flows.stages.date_formats import (
    CHINESE_NUMERAL,
    NUMERIC_DAY_MONTH_SHAPE,
    date_pattern,
    dated_line_pattern,
    time_of_day,
)

#: The separators between date and source: `·` (seed line 2 of every dump),
#: Japanese `・` and its half-width `･` (U+FF65, written 84 times in the real
#: Japanese card texts), Taiwan's `‧` (U+2027), and the dots pasted for them:
#: bullet `•`, bullet operator `∙`, dot operator `⋅`, Greek ano teleia (U+0387),
#: and Korean's `ㆍ` (U+318D, the Hangul letter typed as a middle dot; no real
#: Korean card text writes it).
SEPARATORS = "·・･‧•∙⋅\u0387\u318d"

#: A source label: one to three words of letters and marks (`source`, `出典`,
#: Thai `แหล่งที่มา`, `πηγή δεδομένων`).
_LABEL = r"[\p{L}\p{M}]+(?:[ \-][\p{L}\p{M}]+){0,2}"
_SOURCE_LABEL = rf"(?P<source_label>{_LABEL})"

#: The date·source line's parts: the date text, a separator, a source label, a
#: colon (full-width allowed; `\s` also matches no-break and narrow no-break
#: spaces), the source. Seed line 2 of every dump.
_SOURCE_PART = rf"\s*[{SEPARATORS}]\s*{_SOURCE_LABEL}\s*[:：]\s*(?P<source>\S+)\s*$"

#: Full-width ASCII (U+FF01-FF5E) to ASCII: a source as a CJK page types it (`ｗｏｔｃ` is
#: wotc); NFKC would also turn `wotc´` into a space and an accent, `WotC™` into `wotctm`.
FULL_WIDTH = {chr(0xFF01 + i): chr(0x21 + i) for i in range(94)}

#: The sources of Scryfall's ruling objects (`"source": "wotc"` or `"scryfall"`).
KNOWN_SOURCES = ("wotc", "scryfall")

#: A date, then a head's source part and four words or more: an entry inside a line (a
#: page pasted as one line: `… June 7, 2024 · source: wotc Energy counters…`; no real
#: line of 478,859; `© 2024 Wizards · Source: WotC Gatherer database, all…` is a header).
_INNER_SOURCE = (
    rf"[{SEPARATORS}]\s*{_LABEL}\s*[:：]\s*(?i:{'|'.join(KNOWN_SOURCES)})(?:\s+\S+){{4}}"
)
INNER_HEAD_PATTERN = rf"{date_pattern()}[^{SEPARATORS}]{{0,40}}{_INNER_SOURCE}"


def holds_inner_head(line: pl.Expr) -> pl.Expr:
    """`line` matches INNER_HEAD_PATTERN (Boolean), looked for where its source part is."""
    sourced = line.str.contains(_INNER_SOURCE)  # cheap, rare: the date looked for there
    return sourced & pl.when(sourced).then(line).str.contains(INNER_HEAD_PATTERN)


#: A head in any script: a short text holding a number (a digit of any script or a
#: Chinese numeral) and no separator or colon, a separator, a source label, a colon, a
#: known source (`١٤ يونيو ٢٠٢٤ · المصدر: wotc`, `二〇二四年六月七日・来源：wotc`: its date is
#: read or rejected with its body); with a four-digit year and no CJK, any source of Latin
#: letters (`14 Ιουνίου 2024 · πηγή: gatherer`). No line of 650,531 real texts matches
#: either. (Unbounded: `{0,40}` of a Unicode class cost 0.6 s of CPU per million lines.)
_NOT_SEPARATOR = rf"[^{SEPARATORS}:：]"
#: (CJK dates are read by their CLDR shapes: `2024年版・セット：MH3` is card text.)
_NOT_SEPARATOR_OR_CJK = rf"[^{SEPARATORS}:：\p{{Han}}\p{{Hiragana}}\p{{Katakana}}\p{{Hangul}}]"
_ANY_SOURCE_PART = rf"\s*[{SEPARATORS}]\s*{_LABEL}\s*[:：]\s*"
_LATIN_SOURCE = r"[A-Za-z][A-Za-z0-9._-]{1,30}"
ANY_SCRIPT_HEAD_PATTERN = (
    rf"^\s*{_NOT_SEPARATOR}*?(?:\d|{CHINESE_NUMERAL}){_NOT_SEPARATOR}*?"
    rf"{_ANY_SOURCE_PART}(?i:{'|'.join(KNOWN_SOURCES)})\s*$"
    rf"|^\s*{_NOT_SEPARATOR_OR_CJK}*?\d{{4}}{_NOT_SEPARATOR_OR_CJK}*?"
    rf"{_ANY_SOURCE_PART}{_LATIN_SOURCE}\s*$"
)

#: `07 juin 2024 · source : wotc`: a date of a shape `dates.parse_date` reads
#: (CLDR formats of every `date_names.DATE_LOCALES`, era dates), then the source part.
DATE_SOURCE_PATTERN = rf"^\s*(?P<date_text>{date_pattern()}){_SOURCE_PART}"

#: A head with a time of day after its date (`June 7, 2024 at 2:30 PM · source: wotc`,
#: `2024-06-07T14:30:00Z · source: wotc`): the date text, the time
#: (`date_formats.time_of_day`), the source part; a head when the date text is a whole
#: date of DATE_SOURCE_PATTERN's shapes (_WHOLE_DATE). (One regex of both, the time after
#: the dates' alternation, took 9 s instead of 0.1 s for 478,859 real lines.)
_TIMED_HEAD = (
    rf"^\s*(?P<date_text>[^{SEPARATORS}]*?\d[^{SEPARATORS}]*?)(?:{time_of_day()}){_SOURCE_PART}"
)
_WHOLE_DATE = rf"^\s*(?:{date_pattern()})$"


#: The longest head with a time of day looked for: a bound keeps _TIMED_HEAD's search
#: linear (a 19,000-character line took 12 ms unbounded).
_TIMED_HEAD_MAX_CHARS = 200


def _timed_date(line: pl.Expr) -> pl.Expr:
    """The date before the time of day of a head with one (String), else null."""
    date = line.str.slice(0, _TIMED_HEAD_MAX_CHARS).str.extract(_TIMED_HEAD, 1)
    short = line.str.len_chars() <= _TIMED_HEAD_MAX_CHARS
    return pl.when(short & date.str.contains(_WHOLE_DATE)).then(date)


def date_source_text(line: pl.Expr) -> pl.Expr:
    """The date text of a date·source line whose date has a shape `dates.parse_date` reads
    (String; the time of day left out), else null: DATE_SOURCE_PATTERN or _TIMED_HEAD."""
    return pl.coalesce(line.str.extract(DATE_SOURCE_PATTERN, 1), _timed_date(line))


def is_date_head(line: pl.Expr) -> pl.Expr:
    """`line` is a date·source line whose date has a shape `dates.parse_date` reads, a
    time of day after it or not (Boolean): DATE_SOURCE_PATTERN or _TIMED_HEAD."""
    return line.str.contains(DATE_SOURCE_PATTERN) | _timed_date(line).is_not_null()


#: A line with the source part after a short date-like text (Latin or Cyrillic
#: words, digits, `年月日년월일`, brackets, quotes, `°` (`[June 7th, 2024]`, `«7» июня`), a
#: colon before a digit as a time writes it, with a
#: four-digit year; or three numbers: `7 brumaire 2024`, `07.06.24`, `le 7 juin 2024
#: à 25:00`) that is no date `dates` reads: an entry head whose date `resolve_entries`
#: rejects. Card text such as `1个由加拉克·鲁斯操控的效果：该效果结束` or
#: `2024年版のルール・変更点：なし`, and `Note: in 2024 the rule changed · see: wotc`, are
#: no head.
_DATE_LIKE = r"(?:[\p{Latin}\p{Cyrillic}\d\s.,/'\-年月日년월일\[\]«»()\"°º]|\d?:\d)"
DATE_LIKE_SOURCE_PATTERN = (
    rf"^\s*(?P<date_text>{_DATE_LIKE}{{0,40}}?\d{{4}}{_DATE_LIKE}{{0,40}}?"
    r"|\d{1,4}\s*[./-]\s*\d{1,2}\s*[./-]\s*\d{1,4}\.?)" + _SOURCE_PART
)

#: Splits a head into date text and source (the date text is all before `·`).
HEAD_PARTS = rf"^\s*(?P<date_text>[^{SEPARATORS}]*?)" + _SOURCE_PART

#: A stat line's mana value label: `CMC` (seed 004, line 30), `MV`, `VM`, `MW`, the printed
#: rules' words for it in the site languages, in any case, then `:` or `=` or nothing.
_MANA_VALUE_LABEL = (
    r"(?i:cmc|mv|vm|mw|mana\s+value|valeur\s+de\s+mana|manabetrag|manawert"
    r"|valor\s+de\s+man[aá]|valore\s+di\s+mana|マナ総量|法术力值|法術力值|마나\s*값)\s*[:：=]?"
)
#: A power or toughness as printed: `2`, `*`, `1+*`, `X`, `-1`, `½`, `2.5` (never a final `.`).
_POWER = r"[0-9Xx*+½-]+(?:\.\d+)?"
#: `CMC 2F/E 1/3`: mana value, then optionally power/toughness after its initials (`F/E`),
#: a comma, dot, dash or space (`CMC 3 2/2`), then an optional `.`. Starts a card stub.
STAT_LINE_PATTERN = (
    rf"^\s*{_MANA_VALUE_LABEL}\s*(?P<mana_value>\d+(?:\.\d+)?|[Xx])(?:(?:\s*(?:[,·—–]|-\s)?\s*"
    rf"(?P<pt_label>\p{{L}}\s*/\s*\p{{L}})\s*|\s*[,·—–]\s*|\s+-\s+|\s+)"
    rf"(?P<power>{_POWER})\s*/\s*(?P<toughness>{_POWER}))?\s*\.?\s*$"
)

#: A line that starts with a date in one of the shapes `dates` reads, its month a CLDR
#: month name; one that is not a whole date·source line is a malformed entry head.
DATED_LINE_PATTERN = dated_line_pattern()


def is_head(line: pl.Expr) -> pl.Expr:
    """`line` is a date·source line (Boolean): `is_date_head`, or it matches
    DATE_LIKE_SOURCE_PATTERN or ANY_SCRIPT_HEAD_PATTERN."""
    return (
        is_date_head(line)
        | line.str.contains(DATE_LIKE_SOURCE_PATTERN)
        | line.str.contains(ANY_SCRIPT_HEAD_PATTERN)
    )


#: Letters of the scripts no format of `date_names.DATE_LOCALES` writes
#: (Greek, Arabic, Hebrew, Thai, Devanagari…; not the Japanese `ー`, of no script).
_OTHER_LETTER = (
    r"[\p{L}--[\p{Latin}\p{Cyrillic}\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Common}]]"
)
#: A separator between date and source: one of SEPARATORS, `]`, or a dash or bar
#: between spaces.
_ANY_SEPARATOR = rf"(?:[{SEPARATORS}\]]|\s[\-–—|]\s)"
#: ... or, right after a date-like text of 30 characters or less ending with its year (and
#: a word of up to 4 letters: `г.`, `года`), a site's own separator: a run of spaces,
#: punctuation marks or symbols, no `)` (`14 Ιουνίου 2024 / πηγή: wotc`; `, `, `｜`, ` -- `,
#: ` :: ` and a tab too had made the whole page its header: r01's kind, 56 of 126 probes
#: in nine languages; `Official rulings (updated 2024) / source: wotc` is a header line).
_LOOSE_YEAR = r"\s*[^:：]{0,30}\d{4}(?:\s*\p{L}{1,4}\.?)?(?:[^\p{L}\d:：)）]|[:：]{2}){1,5}"
#: A source of one to four words, not a sentence (no final `.`, `!`, `?`, `…`).
_SOURCE_WORDS = r"(?:\S+\s+){0,3}\S*[^\s.!?…。]"
#: Lines shaped like a head that no head pattern reads (three patterns), each a malformed
#: head, rejected with its body, never glued to the entry before: with a letter of another
#: script, a four-digit year (a time allowed) then a separator, a label, a colon and a
#: source of up to four words, no sentence (`Παρασκευή, 3 Μαρτίου 2023, 15:30 · πηγή:
#: wotc`, `[14 Ιουνίου 2024] πηγή: wotc`, `… · المصدر: ويزاردز`), or a day and a word
#: first with no year (`3 Μαρτίου · πηγή: gatherer`); in any script, the source first
#: (labelled, or a known one alone), a dot and a year with up to 15 characters after it,
#: no Latin letter (`source: gatherer · June 14, 2024`, `出典：wotc · 2024年6月14日`,
#: `wotc･2024年6月14日`; `WotC · Clarifications 2024 (trad. FR)` is a header), a year and a
#: known source last (`Published June 14, 2024 - source: wotc`), a whole CJK date
#: (_CJK_DATE, in brackets or not, a weekday in parentheses after it) then a dot and any
#: source of up to four words, no translation's label (`is_malformed_head`):
#: `【2024年6月14日】・来源：gatherer` (a probe's find: 53 of 130 such heads with another
#: source than wotc or scryfall were glued into the ruling before; `2024年6月更新・出典：
#: 公式サイト`, `（2024年6月7日更新）・出典：公式サイト` and `公式ルーリング 2024年6月7日 -
#: 翻訳：日本語` are header lines), or a label and a colon before a date
#: and a one-word source, not a translation's (LABELED_DATE_PATTERN: `Updated: June 7,
#: 2024 · source: wotc`; a site's label before its date is not read). No line of 650,531 real texts
#: (card texts in ten languages, rulings, the Chinese release notes) has one of these
#: shapes, nor ordinary lines such as `10 damage - Result: you lose.`, `Selon WotC - les 2
#: capacités…` (tests/stages/test_parse.py) or `Source: Wizards 2024 · Traduction : FR`.
OTHER_SCRIPT_DATED_PATTERN = (
    rf"^(?:(?:[^:：]|\d:\d){{0,60}}\d{{4}}(?:[^:：]|\d:\d){{0,30}}{_ANY_SEPARATOR}|{_LOOSE_YEAR})"
    rf"\s*{_LABEL}"
    rf"\s*[:：]\s*{_SOURCE_WORDS}\s*$"
    rf"|^\s*(?:{_OTHER_LETTER}+[,،]?\s+){{0,2}}\d{{1,2}}\.?\s+{_OTHER_LETTER}+[^:：]{{0,30}}"
    rf"{_ANY_SEPARATOR}\s*{_LABEL}\s*[:：]\s*{_SOURCE_WORDS}\s*$"
)
#: A CJK date: a year (digits after an era's name or not, the other year in parentheses,
#: Chinese numerals), month and day (`令和6（2024）年6月7日`, `2024（令和6）年6月7日`,
#: `二〇二四年六月廿七日`), or Taiwan's numeric `113/06/14`.
_CJK_YEAR = (
    rf"(?:\p{{Han}}{{0,2}}\d{{1,4}}\s*(?:[（(]\s*\p{{Han}}{{0,2}}\d{{1,4}}\s*[)）])?"
    rf"|(?:{CHINESE_NUMERAL}|[OＯ]){{2,4}})"  # `二O二四`: a letter O typed for 〇
)
_CJK_DATE = rf"(?:{_CJK_YEAR}\s*年[^:：]{{0,6}}月[^:：]{{0,6}}日|\d{{2,3}}/\d{{1,2}}/\d{{1,2}})"
ANY_SCRIPT_DATED_PATTERN = (
    rf"^\s*(?:{_LABEL}\s*[:：]\s*{_SOURCE_WORDS}|(?i:{'|'.join(KNOWN_SOURCES)}))\s*[{SEPARATORS}]"
    rf"\s*[^:：]{{0,40}}\d{{4}}[^:：\p{{Latin}}]{{0,15}}$"
    rf"|^(?:[^:：]{{0,60}}\d{{4}}[^:：]{{0,30}}{_ANY_SEPARATOR}|{_LOOSE_YEAR})\s*{_LABEL}\s*[:：]\s*"
    rf"(?i:{'|'.join(KNOWN_SOURCES)})\s*$"
    rf"|^\s*[(（\[【「『]?\s*{_CJK_DATE}\s*(?:[（(][^)）]{{1,4}}[)）])?\s*[)）\]】」』]?\s*"
    rf"{_ANY_SEPARATOR}\s*{_LABEL}\s*[:：]\s*{_SOURCE_WORDS}\s*$"
)
#: LABELED_DATE_PATTERN's shape, cheap (that pattern runs on these lines only).
_LABEL_FIRST = rf"^\s*{_LABEL}\s*[:：].*{_ANY_SEPARATOR}\s*{_LABEL}\s*[:：]"
LABELED_DATE_PATTERN = (
    rf"^\s*{_LABEL}\s*[:：]\s*{date_pattern()}(?:[^:：]|\d:\d){{0,30}}"
    rf"{_ANY_SEPARATOR}\s*{_LABEL}\s*[:：]\s*\S+\s*$"
)


#: A translation's label after a separator (`Last updated: June 7, 2024 · Translation: FR`).
_TRANSLATION_SOURCE = rf"{_ANY_SEPARATOR}\s*(?i:{TRANSLATION_WORDS})\s*[:：]"


def is_malformed_head(line: pl.Expr, head: pl.Expr) -> pl.Expr:
    """`line` is no head (`head`: `is_head`) but starts with a date
    (DATED_LINE_PATTERN) or has the shape of a head (OTHER_SCRIPT_DATED_PATTERN
    with a letter of another script, ANY_SCRIPT_DATED_PATTERN, LABELED_DATE_PATTERN)."""
    shaped = line.str.contains(OTHER_SCRIPT_DATED_PATTERN)  # rare: the letters looked for there
    other_script = shaped & pl.when(shaped).then(line).str.contains(_OTHER_LETTER)
    labeled = line.str.contains(_LABEL_FIRST)  # rare: the dates looked for there
    labeled_line = pl.when(labeled).then(line)
    labeled_date = (
        labeled
        & labeled_line.str.contains(LABELED_DATE_PATTERN)
        & ~labeled_line.str.contains(_TRANSLATION_SOURCE)
    )
    any_script = line.str.contains(ANY_SCRIPT_DATED_PATTERN)  # rare: no translation's label
    any_script = any_script & ~pl.when(any_script).then(line).str.contains(_TRANSLATION_SOURCE)
    dated = line.str.contains(DATED_LINE_PATTERN) | other_script | any_script | labeled_date
    return dated & ~head


#: A word: a run of letters, or one Han or kana character (written without spaces).
_WORD = r"[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}--[\p{Han}\p{Hiragana}\p{Katakana}]]+"


def count_words(text: pl.Expr) -> pl.Expr:
    """The words (_WORD) of `text` (UInt32): a same-line half's (`bilingual`), a glued
    line's text before its header (`pastes.cut_glued_headers`)."""
    return text.str.count_matches(_WORD)


def stub_number(ends: pl.Expr) -> pl.Expr:
    """The line_number of the stat line (STAT_LINE_PATTERN) of the card stub each line
    is in, 0 outside stubs (Int64): a stub runs from its stat line to the next line
    where `ends` holds (a head, a repeated header). Needs dump_id, line_number and
    _is_stat (Boolean: the line is a stat line)."""
    is_stat = pl.col("_is_stat")
    return (
        pl.when(is_stat).then(pl.col("line_number")).when(ends).then(0)
        .forward_fill().over("dump_id", order_by="line_number").fill_null(0)
    )  # fmt: skip


def by_distinct_text(
    lines: pl.DataFrame, text: str, add: Callable[[pl.DataFrame], pl.DataFrame]
) -> pl.DataFrame:
    """`add(lines)`, for `add` adding columns that depend on the column `text` alone: found
    once per distinct text and joined back to `lines` (in its order) when texts repeat
    (a site's header and heads repeat in each of its dumps: 968,357 lines, 53,535
    distinct texts, in the 1M-line bench corpus), else on `lines` itself (with half
    the texts distinct or more, the join would cost more than it saves)."""
    if lines.select(pl.col(text).approx_n_unique()).item() * 2 > lines.height:
        return add(lines)
    distinct = add(lines.select(pl.col(text).unique()))
    return lines.join(distinct, on=text, how="left", nulls_equal=True, maintain_order="left")


def shape_texts(texts: pl.DataFrame) -> pl.DataFrame:
    """Add what a line's text alone says of its shape, to a frame of (distinct) texts.

    `parse.classify_lines` shapes each distinct text once (`by_distinct_text`).

    Needs:
        line (String).

    Adds:
        _is_date, _looks_dated (Boolean: a head `is_head`, a malformed head
        `is_malformed_head`), _is_stat (a stub's stat line), _is_blank (empty or
        spaces), _numeric (a head's NFKC form, as `dates.parse_date` reads `06／07／2024`,
        matches `date_formats.NUMERIC_DAY_MONTH_SHAPE`, and its own source word is no
        DAY_FIRST_LABEL), _names_translation (it names a
        translation language as a header does: `named_code`); _order_language (String:
        as a header line, the language that fixes a numeric date's order: when it claims
        one (`claimed_language`), the language of its word for translation
        (`claims.word_language`: `Spanish translation (ES)` is en, `Traduction EN` fr),
        else the claimed one); _head_parts
        (Struct of date_text, source: HEAD_PARTS of a head or a malformed head,
        else null).
    """
    line = pl.col("line")
    code = pl.col("_claimed_code")  # once for both its uses
    claim = pl.col("_claim")  # once for both its uses
    head = pl.when(pl.col("_is_date")).then(line).str.normalize("NFKC")  # as parse_date reads
    return (
        texts.with_columns(
            _is_date=is_head(line),
            _is_stat=line.str.contains(STAT_LINE_PATTERN),
            _is_blank=line.str.strip_chars() == "",
            _claimed_code=named_code(line),
        )
        .with_columns(
            _looks_dated=is_malformed_head(line, pl.col("_is_date")),
            _numeric=(
                head.str.contains(NUMERIC_DAY_MONTH_SHAPE) & ~head.str.contains(DAY_FIRST_LABEL)
            ).fill_null(False),
            _names_translation=code.is_not_null(),
            _claim=claimed_language_of(code, line),
        )
        .with_columns(
            _order_language=pl.coalesce(  # the words looked for on claiming lines only
                word_language(pl.when(claim.is_not_null()).then(line)), claim
            ),
            _head_parts=pl.when(pl.col("_is_date") | pl.col("_looks_dated"))
            .then(line)
            .str.extract_groups(HEAD_PARTS),
        )
        .drop("_claimed_code", "_claim")
    )


#: A head's source word in a language all of whose CLDR numeric dates put the day first
#: (de, es, it, pt, ru: `date_formats.day_first_languages`): `07.06.2024 · Quelle: wotc`
#: fixes its own order, whatever its header (a German page whose header line says `DE
#: translation below` in English). `source` (en, fr) and the CJK words fix none.
DAY_FIRST_LABEL = rf"[{SEPARATORS}]\s*(?i:quelle|fuente|fonte|источник)\s*[:：]"


def starts_with_date(line: pl.Expr) -> pl.Expr:
    """`line` starts with a date of a shape `dates.parse_date` reads (Boolean)."""
    return line.str.contains(DATED_LINE_PATTERN)
