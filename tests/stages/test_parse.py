"""parse: every line gets one kind; entries, rejected entries and headers."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.stages.dates import parse_published_dates
from flows.stages.dumps import describe_headers
from flows.stages.parse import (
    AMBIGUOUS_DATE_REASON,
    assemble_entries,
    classify_lines,
    resolve_entries,
)
from tests.conftest import TODAY, dump_of, lines_of

HEADER = "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous est générée automatiquement (IA) — l'original anglais reste la source de vérité."
DATE = "07 juin 2024 · source : wotc"
ENERGY = "{E} is the energy symbol. It represents one energy counter."
MANA = "Energy counters aren't mana."


def _resolve(raw: pl.DataFrame) -> pl.DataFrame:
    classified = classify_lines(lines_of(raw))
    return resolve_entries(classified, parse_published_dates(classified["date_text"], TODAY))


def _kinds(*lines: str) -> list[tuple[str, str | None]]:
    resolved = _resolve(dump_of(*lines))
    return list(resolved.select("kind", "reject_reason").iter_rows())


def test_seed_shaped_dump() -> None:
    assert [
        k
        for k, _ in _kinds(
            HEADER,
            DATE,
            ENERGY,
            DATE,
            MANA,
            "CMC 2F/E 1/3",
            ".",
            "Au début du combat pendant votre tour, vous pouvez payer ",
        )
    ] == ["header", "date_source", "body", "date_source", "body", "stub", "stub", "stub"]


@pytest.mark.parametrize(
    "line",
    [
        "07 juin 2024 · source : wotc",
        "1er juin 2024 · source : wotc",
        "07 juin 2024 ・ source ： wotc",
        "07 juin 2024\u00a0· source\u202f: WotC",
        "  20 septembre 2016 · source : wotc  ",
    ],
    ids=["seed", "1er", "fullwidth", "nbsp-nnbsp", "padded"],
)
def test_date_source_shapes(line: str) -> None:
    resolved = _resolve(dump_of(line, ENERGY))
    assert resolved["kind"].to_list() == ["date_source", "body"]
    assert resolved["source"][0] in {"wotc"}


def test_blank_lines_and_multi_line_body() -> None:
    resolved = _resolve(dump_of(HEADER, "", DATE, ENERGY, MANA, "   ", DATE, MANA))
    assert resolved["kind"].to_list() == [
        "header",
        "blank",
        "date_source",
        "body",
        "body",
        "blank",
        "date_source",
        "body",
    ]
    entries = assemble_entries(resolved)
    assert entries["text_raw"].to_list() == [f"{ENERGY}\n{MANA}", MANA]
    assert entries["line_number"].to_list() == [3, 7]


def test_impossible_date_rejects_its_entry_and_keeps_the_body() -> None:
    assert _kinds(DATE, ENERGY, "31 février 2024 · source : wotc", MANA, DATE, ENERGY) == [
        ("date_source", None),
        ("body", None),
        ("rejected", "impossible date '31 février 2024': day is out of range for month"),
        (
            "rejected",
            "body of the entry whose date·source line 3 was rejected: "
            "impossible date '31 février 2024': day is out of range for month",
        ),
        ("date_source", None),
        ("body", None),
    ]


def test_future_date_and_entry_without_body_are_rejected() -> None:
    kinds = _kinds("07 juin 2099 · source : wotc", ENERGY, DATE)
    assert kinds[0] == ("rejected", "date '07 juin 2099' (2099-06-07) is in the future")
    assert kinds[2] == ("rejected", "date·source line with no ruling body after it")


def test_line_over_the_limit_is_rejected() -> None:
    kinds = _kinds(DATE, ENERGY, "x" * 20_001)
    assert kinds[2] == (
        "rejected",
        "line of 20001 characters is longer than any ruling (limit 20000)",
    )


def test_dump_of_header_only_or_stub_only() -> None:
    assert [k for k, _ in _kinds(HEADER, "Plus d'infos sur notre site.")] == ["header", "header"]
    assert [k for k, _ in _kinds("CMC 3", ".", "Vol")] == ["stub", "stub", "stub"]


def test_body_that_looks_like_a_stat_line_inside_text_is_body() -> None:
    # Only a whole line of the stat shape starts a stub.
    assert [k for k, _ in _kinds(DATE, "CMC 2F/E 1/3 is printed on the card.")] == [
        "date_source",
        "body",
    ]


def test_assemble_entries_carries_dates_and_sources() -> None:
    entries = assemble_entries(
        _resolve(dump_of(HEADER, DATE, ENERGY, "08 mars 2024 · source : WOTC", MANA))
    )
    assert_frame_equal(
        entries.drop("dump_id"),
        pl.DataFrame(
            {
                "line_number": [2, 4],
                "published_on": [dt.date(2024, 6, 7), dt.date(2024, 3, 8)],
                "source": ["wotc", "wotc"],
                "text_raw": [ENERGY, MANA],
            }
        ),
    )


@pytest.mark.parametrize(
    ("header", "claimed"),
    [
        ([HEADER], "fr"),
        (["Offizielle Klarstellungen.", "Die DE-Übersetzung unten ist automatisch (KI)."], "de"),
        (["Official clarifications from Wizards of the Coast."], None),
        ([], None),
    ],
    ids=["seed-fr", "two-lines-de", "none-named", "no-header"],
)
def test_describe_headers(header: list[str], claimed: str | None) -> None:
    resolved = _resolve(dump_of(*header, DATE, ENERGY))
    described = describe_headers(resolved.select("dump_id").unique(), resolved)
    assert described.select("header_text", "claimed_translation_language").row(0) == (
        "\n".join(header),
        claimed,
    )


def test_stub_in_the_middle_ends_at_the_next_entry() -> None:
    kinds = [k for k, _ in _kinds(DATE, ENERGY, "CMC 3", ".", "Vol", DATE, MANA, DATE, ENERGY)]
    assert kinds == [
        "date_source",
        "body",
        "stub",
        "stub",
        "stub",
        "date_source",
        "body",
        "date_source",
        "body",
    ]


def test_malformed_date_line_starts_a_rejected_entry() -> None:
    assert _kinds(DATE, ENERGY, "08 mars 2024 source wotc", MANA, DATE, ENERGY) == [
        ("date_source", None),
        ("body", None),
        ("rejected", "malformed date·source line: expected '<date> · <source word> : <source>'"),
        (
            "rejected",
            "body of the entry whose date·source line 3 was rejected: "
            "malformed date·source line: expected '<date> · <source word> : <source>'",
        ),
        ("date_source", None),
        ("body", None),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "7 creatures enter the battlefield in 2024.",
        "June is when the set released.",
        "2 or more {E} can be paid.",
        "Round 3, 2024 Pro Tour rules apply.",
    ],
)
def test_body_lines_that_mention_numbers_are_not_dates(line: str) -> None:
    assert [k for k, _ in _kinds(DATE, line)] == ["date_source", "body"]


@pytest.mark.parametrize(
    "line",
    [
        "{U/R}{U/R}, マグマ・オパスを捨てる：宝物・トークン１つを生成する。",  # real Japanese card text
        "エネルギー・カウンターとは：プレイヤーが持つカウンターです。",
        "See the comprehensive rules · section: 702",
        "1个由加拉克·鲁斯操控的效果：该效果结束",  # real Chinese card text: a digit, `·`, `：`
        "2张名称为鲁斯·加拉克的牌：各自独立",
        "2024年版のルール・変更点：なし",  # a year, but Japanese words around it
    ],
)
def test_text_with_a_middle_dot_and_colon_is_no_date_source_line(line: str) -> None:
    assert [k for k, _ in _kinds(DATE, ENERGY, line)] == ["date_source", "body", "body"]


def test_header_naming_a_country_code() -> None:
    resolved = _resolve(dump_of("公式裁定。以下のJP翻訳は自動生成です。", DATE, ENERGY))
    described = describe_headers(resolved.select("dump_id").unique(), resolved)
    assert described["claimed_translation_language"].to_list() == ["ja"]


def _entries(*lines: str) -> list[tuple[int, dt.date, str]]:
    return (
        assemble_entries(_resolve(dump_of(*lines)))
        .select("line_number", "published_on", "text_raw")
        .rows()
    )


JUNE_7 = dt.date(2024, 6, 7)


def test_weekday_first_dates_are_heads_not_header() -> None:
    """Case c02: `Freitag, 7. Juni 2024` (CLDR de full) opens the first entry."""
    head = "Freitag, 7. Juni 2024 · Quelle: wotc"
    lines = ("Offizielle Erläuterungen. Die DE-Übersetzung unten.", head, ENERGY, head, MANA)
    assert [k for k, _ in _kinds(*lines)] == [
        "header",
        "date_source",
        "body",
        "date_source",
        "body",
    ]
    assert _entries(*lines) == [(2, JUNE_7, ENERGY), (4, JUNE_7, MANA)]


def test_unreadable_date_with_a_source_part_is_a_rejected_head_not_glued() -> None:
    rejected = "unknown month name 'brumaire' in date '7 brumaire 2024'"
    assert _kinds(DATE, ENERGY, "7 brumaire 2024 · source : wotc", MANA) == [
        ("date_source", None),
        ("body", None),
        ("rejected", rejected),
        ("rejected", f"body of the entry whose date·source line 3 was rejected: {rejected}"),
    ]


def test_wrong_weekday_rejects_the_entry_with_its_body() -> None:
    kinds = _kinds(DATE, ENERGY, "Donnerstag, 7. Juni 2024 · Quelle: wotc", MANA)
    assert [k for k, _ in kinds] == ["date_source", "body", "rejected", "rejected"]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Clarifications officielles. La traduction FR ci-dessous.", [(2, JUNE_7, ENERGY)]),
        ("Offizielle Erläuterungen. Die DE-Übersetzung unten.", [(2, JUNE_7, ENERGY)]),
        ("Official rulings from Wizards of the Coast, as published.", []),
        ("公式裁定。以下のJP翻訳は自動生成です。", []),
        # the header's own language, by its word for translation, not the one it claims
        ("Official rulings from Wizards of the Coast. Spanish translation (ES) below.", []),
        ("Official Wizards of the Coast rulings with PT translation.", []),
        (
            "Aclaraciones oficiales (Puerto Rico). La traducción ES se generó.",
            [(2, JUNE_7, ENERGY)],
        ),
    ],
    ids=[
        "fr fixes day first",
        "de fixes day first",
        "en does not",
        "ja does not",
        "an English header claiming es does not",
        "an English header claiming pt does not",
        "a Spanish header claiming es does",
    ],
)
def test_numeric_day_month_dates_need_a_language_that_fixes_the_order(
    header: str, expected: list[tuple[int, dt.date, str]]
) -> None:
    lines = (header, "07/06/2024 · source : wotc", ENERGY)
    assert _entries(*lines) == expected
    if not expected:
        assert _kinds(*lines)[1] == ("rejected", AMBIGUOUS_DATE_REASON)


@pytest.mark.parametrize(
    "head",
    ["07.06.2024 · Quelle: wotc", "07/06/2024 · fuente: wotc", "07/06/2024 · Источник: wotc"],
)
def test_a_heads_own_source_word_of_a_day_first_language_fixes_its_order(head: str) -> None:
    # a review's find: a German page whose second header line says `DE translation below`
    # in English had its numeric dates rejected (the header's word for translation is en)
    header = ("Offizielle Regelklarstellungen von Wizards of the Coast.",
              "DE translation below, generated automatically.")  # fmt: skip
    assert _entries(*header, head, ENERGY) == [(3, JUNE_7, ENERGY)]
    english = "Official rulings from Wizards of the Coast. Spanish translation (ES) below."
    assert _kinds(english, "07/06/2024 · source: wotc", ENERGY)[1] == (
        "rejected",
        AMBIGUOUS_DATE_REASON,
    )


EN_HEADER = "Official rulings from Wizards of the Coast, as published."
JA_HEADER = "Wizards of the Coastによる公式裁定です。以下のJA翻訳は自動生成です。"
KO_HEADER = "Wizards of the Coast 공식 판정입니다. 아래 KO 번역은 자동으로 생성되었습니다."


@pytest.mark.parametrize(
    ("header", "head"),
    [
        *[(EN_HEADER, f"06{s}07{s}2024 · source: wotc") for s in "／．－﹒﹣\u2024"],
        (JA_HEADER, "０６／０７／２０２４ · 出典：wotc"),
        (JA_HEADER, "06／07／2024 · 出典：wotc"),
        (KO_HEADER, "06．07．2024 · 출처: wotc"),
    ],
)
def test_compatibility_separators_leave_a_numeric_date_ambiguous(header: str, head: str) -> None:
    # parse_date reads the date's NFKC form (`06/07/2024`): so does the order's check. Main
    # read each as 2024-07-06 (day first) in a dump whose language does not fix the order.
    assert _kinds(header, head, ENERGY)[1] == ("rejected", AMBIGUOUS_DATE_REASON)
    french = "Clarifications officielles. La traduction FR ci-dessous."
    for fixed in ("07／06／2024 · source : wotc", "０７．０６．２０２４ · source : wotc"):
        assert _entries(french, fixed, ENERGY) == [(2, JUNE_7, ENERGY)]


@pytest.mark.parametrize(
    "head",
    [
        "(Fri) 06/07/2024 · source: wotc",
        "Freitag, den 06.07.2024 · source: wotc",
        "6ª feira, 06/07/2024 · source: wotc",
        "（金）０６／０７／２０２４ · source: wotc",
    ],
)
def test_a_weekday_read_before_a_numeric_date_leaves_it_ambiguous(head: str) -> None:
    # parse_date reads these weekdays before a date (main rejected them as unrecognized):
    # the order's check sees them too, else an English dump would read them day first.
    assert _kinds(EN_HEADER, head, ENERGY)[1] == ("rejected", AMBIGUOUS_DATE_REASON)


def test_usual_forms_cldr_does_not_write_head_their_entries() -> None:
    """Cases c01, c02, c13, c14, c15, r07: main rejected each head and its body."""
    heads = [
        ("2024年（令和6年）6月7日 · 出典：wotc", JUNE_7),
        ("令和6年（2024年）6月7日 · 出典：wotc", JUNE_7),
        ("2024年6月7日（金曜） · 出典：wotc", JUNE_7),
        ("2024年6月7日［金］ · 出典：wotc", JUNE_7),
        ("7. Feber 2024 · Quelle: wotc", dt.date(2024, 2, 7)),
        ("1ro de junio de 2024 · fuente: wotc", dt.date(2024, 6, 1)),
        ("7 июня 2024 г., пятница · источник: wotc", JUNE_7),
        ("Freitag, den 07.06.2024 · Quelle: wotc", JUNE_7),
        ("7 de junho de 2024 (6ª feira) · fonte: wotc", JUNE_7),
    ]
    lines = [line for head, _ in heads for line in (head, ENERGY)]
    expected = [(2 + 2 * i, day, ENERGY) for i, (_, day) in enumerate(heads)]
    german = "Offizielle Erläuterungen. Die DE-Übersetzung unten."  # fixes `07.06.2024`'s order
    assert _entries(german, *lines) == expected
    # both years are read: when they disagree, the entry is rejected
    assert _kinds("Official rulings.", "2023年（令和6年）6月7日 · 出典：wotc", ENERGY)[1] == (
        "rejected",
        "year 2023 is not 令和6年 in date '2023年（令和6年）6月7日'",
    )


def test_year_first_numeric_dates_need_no_language() -> None:
    lines = (
        "Official rulings.",
        "2024/06/07 · source: wotc",
        ENERGY,
        "2024. 6. 7. · 출처: wotc",
        MANA,
    )
    assert _entries(*lines) == [(2, JUNE_7, ENERGY), (4, JUNE_7, MANA)]


def test_era_date_heads_entries() -> None:
    """Case c01: `令和6年6月7日` (2024) and `令和元年` (2019) are entry heads."""
    lines = (
        "Wizards of the Coast公式裁定。JA翻訳。",
        "2024年6月7日 · 出典：wotc",
        ENERGY,
        "令和6年6月7日 · 出典：wotc",
        MANA,
        "令和元年5月1日 · 出典：wotc",
        ENERGY,
    )
    assert _entries(*lines) == [
        (2, JUNE_7, ENERGY),
        (4, JUNE_7, MANA),
        (6, dt.date(2019, 5, 1), ENERGY),
    ]


def test_bulleted_and_html_heads_are_entries_without_markup() -> None:
    """Issue 9's examples: three bulleted rulings are three entries; the first
    bulleted date line does not turn the dump into header."""
    lines = (
        "- 07 juin 2024 · source : wotc",
        ENERGY,
        "* 07 juin 2024 · source : wotc",
        MANA,
        "<p>07 juin 2024&nbsp;· source : wotc</p>",
        "<p>Tom &amp; Jerry&nbsp;can't pay.</p><br>",
        "1. 07 juin 2024 · source : wotc",
        ENERGY,
        "• 07 juin 2024 · source : wotc",
        MANA,
    )
    assert [k for k, _ in _kinds(*lines)] == ["date_source", "body"] * 5
    assert _entries(*lines) == [
        (1, JUNE_7, ENERGY),
        (3, JUNE_7, MANA),
        (5, JUNE_7, "Tom & Jerry can't pay."),
        (7, JUNE_7, ENERGY),
        (9, JUNE_7, MANA),
    ]


@pytest.mark.parametrize(
    "head",
    [
        "14 Ιουνίου 2024 · πηγή: wotc",  # Greek (case r01)
        "١٤ يونيو ٢٠٢٤ · المصدر: wotc",  # Arabic, Arabic-Indic digits
        "14 ביוני 2024 · מקור: scryfall",  # Hebrew
        "14 มิถุนายน ค.ศ. 2024 · แหล่งที่มา: wotc",  # Thai: the label has combining marks
        "14 जून 2024 · स्रोत: WOTC",  # Devanagari
        "二〇二四年六月十四日・来源：wotc",  # Chinese numerals (case r02)
        "2024年6月14日（周五）・来源：gatherer",  # a weekday in parentheses (case r07)
        "2024年6月14日･出典：wotc",  # half-width separator (case r09)
        "2024年6月14日‧來源：wotc",  # Taiwan's U+2027
        "14 juin 2024 • source : wotc",  # a bullet pasted for the middle dot
        "二○二四年六月十四日・来源：gatherer",  # the circle typed for 〇, any source
        "令和六年六月十四日・出典：mtgwiki",  # an era year in Chinese numerals
        "14 Ιουνίου 2024 · πηγή δεδομένων: wotc",  # a two-word source label
    ],
)
def test_heads_in_any_script_are_entries(head: str) -> None:
    resolved = _resolve(dump_of(HEADER, head, MANA))
    assert resolved.select("kind", "published_on").rows() == [
        ("header", None),
        ("date_source", dt.date(2024, 6, 14)),
        ("body", None),
    ]


def test_a_head_in_a_script_no_locale_reads_is_rejected_with_its_body() -> None:
    kinds = _kinds(HEADER, "14 ஜூஜூ 2024 · மூலம்: wotc", MANA, DATE, ENERGY)
    assert [kind for kind, _ in kinds] == ["header", "rejected", "rejected", "date_source", "body"]
    assert kinds[1][1] == (
        "unsupported date language: no CLDR date format read here reads '14 ஜூஜூ 2024'"
    )


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("14 Ιουνίου 2024 · πηγή: gatherer", "date_source"),  # a year, a Latin source
        # no year (only wotc or scryfall say so), a source in another script, a time,
        # a dash, two words: shaped like a head, read by none, rejected with the body
        ("14 Ιουνίου · πηγή: gatherer", "rejected"),
        ("14 Ιουνίου 2024 · πηγή: ιστότοπος", "rejected"),
        ("3 Μαρτίου 2023 15:30 · πηγή: wotc", "rejected"),
        ("7 Ιουνίου 2024 - πηγή: wotc", "rejected"),
        ("7 Ιουνίου 2024 · πηγή: Scryfall (EN)", "rejected"),
        ("٧ يونيو، ٢٠٢٤ · المصدر: ويزاردز", "rejected"),
        ("πηγή: wotc · 14 Ιουνίου 2024", "rejected"),  # the source first
        ("source: wotc · June 14, 2024", "rejected"),
        # a second review's variants: a weekday and a time, brackets, a word first,
        # a source of words in another script, the source first in any script
        ("Παρασκευή, 3 Μαρτίου 2023, 15:30 · πηγή: wotc", "rejected"),
        ("[14 Ιουνίου 2024] πηγή: wotc", "rejected"),
        ("Δημοσιεύθηκε 14 Ιουνίου 2024 - πηγή: wotc", "rejected"),
        ("יום שישי, 14 ביוני 2024 · מקור: ויזארדס", "rejected"),
        ("3 Μαρτίου · πηγή: Wizards of the Coast", "rejected"),
        ("Ιούνιος 14, 2024 — Πηγή: Wizards of the Coast", "rejected"),
        ("Source : Wizards of the Coast · 7 juin 2024", "rejected"),
        ("Published June 14, 2024 - source: wotc", "rejected"),
        ("14 Ιουνίου 2024 \u0387 πηγή: wotc", "date_source"),  # Greek ano teleia
        # a fourth probe's: the source first in CJK and Cyrillic (the year not last), and
        # unreadable dates with a source other than wotc or scryfall were glued
        ("出典：wotc · 2024年6月14日", "rejected"),
        ("wotc･2024年6月14日", "rejected"),
        ("출처: wotc · 2024. 6. 14.", "rejected"),
        ("источник: wotc · 14 июня 2024 года", "rejected"),
        ("【2024年6月14日】・来源：gatherer", "rejected"),
        ("令和6（2024）年6月7日 · 出典：mtg-jp.com", "rejected"),
        ("二〇二四年六月廿七日・来源：公式", "rejected"),
        ("113/06/14（五）・來源：公式", "rejected"),
        ("[2024. 6. 14.] · 출처: 公式", "rejected"),
        ("«7» июня 2024 г. · источник: 公式", "rejected"),
        ("[June 7th, 2024] · source: 公式", "rejected"),
        ("二O二四年六月七日・来源：gatherer", "rejected"),  # a letter O typed for 〇
        ("1.° de junio de 2024 · fuente: 公式", "rejected"),
        ("2024（令和6）年6月7日 · 出典：公式", "rejected"),
        ("2024年版のルール・変更点：なし", "body"),  # real Japanese card text
        ("1个由加拉克·鲁斯操控的效果：该效果结束", "body"),  # real Chinese card text
    ],
)
def test_a_line_in_any_script_is_a_head_by_its_year_and_source(line: str, kind: str) -> None:
    kinds = [k for k, _ in _kinds(HEADER, DATE, MANA, line, ENERGY)]
    assert kinds[3:] == ([kind, "body"] if kind == "date_source" else [kind, kind])


@pytest.mark.parametrize(
    "repeat",
    [
        HEADER,  # the same page twice (case r04)
        "Offizielle Erläuterungen von Wizards of the Coast. Die DE-Übersetzung unten.",  # another site
    ],
    ids=["same header", "another site's header"],
)
def test_a_repeated_header_ends_the_stub_and_starts_a_paste(repeat: str) -> None:
    lines = [HEADER, DATE, MANA, "CMC 3F/E 2/2", ".", "Quand la Sentinelle entre", repeat]
    kinds = _kinds(*lines, "Second line of the second header.", DATE, ENERGY)
    assert [k for k, _ in kinds] == [
        "header", "date_source", "body", "stub", "stub", "stub", "header", "header",
        "date_source", "body",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "other",
    [
        "Official rulings from Wizards of the Coast, as published.",
        "OFFICIAL RULINGS FROM WIZARDS OF THE COAST, AS PUBLISHED.",
        "Official rulings from WotC, as published.",
        "Rulings provided by scryfall.com, as published.",
        "ウィザーズ・オブ・ザ・コースト社の公式裁定。",
    ],
)
def test_another_sites_header_after_a_stub_ends_it(other: str) -> None:
    """A stub's line naming the site's source (Wizards of the Coast, Scryfall) is no card
    text: another site's header (a fresh review's `cat` of a French and an English page)."""
    lines = [HEADER, DATE, MANA, "CMC 3F/E 2/2", ".", "Quand la Sentinelle entre", other]
    kinds = _kinds(*lines, "June 7, 2024 · source: wotc", ENERGY)
    assert [k for k, _ in kinds] == [
        "header", "date_source", "body", "stub", "stub", "stub", "header", "date_source", "body",
    ]  # fmt: skip
    preview = "This card preview was provided to Scryfall courtesy of Wizards of the Coast."
    assert [k for k, _ in _kinds(HEADER, DATE, preview)] == ["header", "date_source", "body"]


def test_a_repeated_header_after_a_body_is_no_part_of_the_ruling() -> None:
    resolved = _resolve(dump_of(HEADER, DATE, MANA, "", HEADER, DATE, ENERGY))
    entries = assemble_entries(resolved)
    assert entries["text_raw"].to_list() == [MANA, ENERGY]
    assert resolved["kind"].to_list()[4] == "header"


@pytest.mark.parametrize(
    "line",
    [
        "Rulings via WotC · 2024 edition. Official.",
        "Rulings mirrored from Scryfall - 2 languages.",
        "This was confirmed by WotC - see the 2 rulings above.",
        "Selon WotC - les 2 capacités se résolvent séparément.",
        "Voir WotC – 3 juin : annonce.",
        "2 - Chapter II: Scry 2.",
        "4 Two-Headed Giant players: see below.",
        "10 damage - Result: you lose.",
        "2 Kreaturen – Beispiel: Grizzlybären",
        "1 fois par tour - Coût : {2}",
        "3 · 关键字：飞行",
        "1 ・ 追加コスト：なし",
        "1 in 1000 games will see this interaction, but it works.",
        "3 Zombies 2000 fois",
        "2024年版・セット：MH3",
        # a third review's translations and notes: a sentence after the colon
        "2 πλάσματα – Παράδειγμα: ένα Goblin και ένα Elf.",
        "Αν έχεις 1000 ή περισσότερες ζωές - αποτέλεσμα: κερδίζεις το παιχνίδι.",
        "3 ضرر - النتيجة: تخسر 3 نقاط حياة.",
        "החל מ-2024 - הערה: הכלל השתנה.",
        "Note: see the article - June 2024",
        "Hinweis: siehe Artikel – Juni 2024",
    ],
)
def test_ordinary_lines_are_no_malformed_heads(line: str) -> None:
    """Lines a second review found rejected as malformed heads: body lines, header lines."""
    assert [k for k, _ in _kinds(HEADER, DATE, MANA, line, ENERGY)][3] == "body"
    assert [k for k, _ in _kinds(line, DATE, MANA)] == ["header", "date_source", "body"]


def test_a_cards_own_text_naming_wizards_stays_in_its_stub() -> None:
    """Unhinged's real card text names Wizards of the Coast: the stub's first text line is
    the card's, not another site's header (a third review)."""
    card = "The Ultimate Nightmare of Wizards of the Coast® Customer Service deals X damage"
    kinds = [k for k, _ in _kinds(HEADER, DATE, MANA, "CMC 6R/F 6/6", card, DATE, ENERGY)]
    assert kinds == ["header", "date_source", "body", "stub", "stub", "date_source", "body"]
