"""Odd but real-looking dumps: short headers, translations in another language, stubs without text."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from tests.conftest import content_of, run_contents

DATE = "07 juin 2024 · source : wotc"
ENERGY = "{E} is the energy symbol. It represents one energy counter."
MANA = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."
FR_MANA = "Les marqueurs d'énergie ne sont pas du mana."
GERMAN = (
    "Energiezähler sind kein Mana. Sie verschwinden nicht, wenn Schritte, Phasen und Züge enden."
)


def _tables(*lines: str) -> dict[str, pl.DataFrame]:
    return run_contents({"t.txt": content_of(*lines)}).tables


def _dated_entries(*lines: str) -> list[tuple[dt.date, str]]:
    """(published_on, text_raw) of the dump's entries by date; the dump has no reject."""
    tables = _tables(*lines)
    assert tables["rejects"].height == 0
    occurrences = tables["ruling_occurrences"].sort("published_on", "line_number")
    return occurrences.select("published_on", "text_raw").rows()


def test_a_short_header_takes_the_language_it_claims() -> None:
    tables = _tables("Traduction FR.", DATE, ENERGY, "CMC 2F/E 1/3", ".", "Vol, vigilance")
    dump = tables["dumps"].row(0, named=True)
    assert (dump["header_language"], dump["header_language_is_inferred"]) == ("fr", True)
    stub = tables["card_stubs"].row(0, named=True)
    assert (stub["text"], stub["language"], stub["language_is_inferred"]) == (
        "Vol, vigilance",
        "fr",
        True,
    )


def test_a_translation_in_another_language_than_claimed_is_still_a_translation() -> None:
    tables = _tables(
        "Clarifications officielles. La traduction FR ci-dessous est automatique.",
        DATE,
        MANA,
        GERMAN,
    )
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA]
    translation = tables["ruling_translations"].select("line_number", "language", "text")
    assert translation.rows() == [(4, "de", GERMAN)]
    assert tables["dumps"]["has_claimed_translation"].to_list() == [False]


def test_a_stub_without_text_has_no_language() -> None:
    stub = _tables(DATE, ENERGY, "CMC 3", ".")["card_stubs"].row(0, named=True)
    assert (stub["text"], stub["language"], stub["language_is_inferred"], stub["is_truncated"]) == (
        None,
        None,
        False,
        True,
    )


def test_a_line_is_split_at_the_slash_only_into_english_and_another_language() -> None:
    """`<English> / <German>` is a ruling and its translation (case r06's kind), and so is
    `<German> / <English>` (a probe found 0 of 300 such lines split, 80 published as a
    foreign ruling); two English halves stay one line."""
    english_halves = f"{MANA} / {ENERGY}"
    german_first = f"{GERMAN} / {MANA}"
    tables = _tables(
        "Header.", DATE, f"{MANA} / {GERMAN}", DATE, english_halves, DATE, ENERGY, german_first
    )
    occurrences = tables["ruling_occurrences"]
    assert occurrences.select("line_number", "text_raw").rows() == [
        (2, MANA),
        (4, english_halves),
        (6, f"{ENERGY}\n{MANA}"),  # the English half of line 8
    ]
    translations = tables["ruling_translations"]
    assert translations.select("line_number", "language", "text").rows() == [
        (3, "de", GERMAN),
        (8, "de", GERMAN),
    ]
    rulings = occurrences["ruling_id"].to_list()
    assert translations["ruling_id"].to_list() == [rulings[0], rulings[2]]
    assert tables["dumps"]["translation_count"].to_list() == [2]


@pytest.mark.parametrize("separator", [" | ", "\t", " \t "])
def test_a_translation_after_a_bar_or_a_tab_is_split(separator: str) -> None:
    # A table's cells pasted as one line: was one fr ruling holding the English one.
    tables = _tables("Traduction FR.", DATE, f"{MANA}{separator}{FR_MANA}")
    assert tables["ruling_occurrences"].select("text_raw", "language").rows() == [(MANA, "en")]
    translations = tables["ruling_translations"].select("line_number", "language", "text")
    assert translations.rows() == [(3, "fr", FR_MANA)]


def test_a_short_ruling_and_its_claimed_translation_on_one_line_are_split() -> None:
    """`X can be zero.` is too short for a reliable language, and is English by default;
    `X peut valoir zéro.` is in the language the header claims."""
    tables = _tables("Traduction FR.", DATE, "X can be zero. / X peut valoir zéro.", DATE, " / .")
    assert tables["ruling_occurrences"]["text_raw"].to_list() == ["X can be zero.", " / ."]
    translations = tables["ruling_translations"]
    assert translations.select("line_number", "language", "text").rows() == [
        (3, "fr", "X peut valoir zéro.")
    ]


@pytest.mark.parametrize(
    ("header", "head", "translation", "language"),
    [
        ("以下の日本語訳はAIによる自動生成です。", "2024年6月7日 · 出典：wotc",
         "Razorfield Ripperの能力は解決時に数える。", "ja"),
        ("아래 한국어 번역은 자동 생성되었습니다.", "2024년 6월 7일 · 출처: wotc",
         "Razorfield Ripper는 공격할 수 있습니다.", "ko"),
        ("Официальные разъяснения. Перевод RU ниже создан автоматически.",
         "7 июня 2024 г. · источник: wotc", "Бросьте d20.", "ru"),
    ],
)  # fmt: skip
def test_a_translation_keeping_an_english_name_is_a_translation(
    header: str, head: str, translation: str, language: str
) -> None:
    # Was glued into the English ruling as one en ruling (ja, ko) or published as fr (ru).
    ruling = "Razorfield Ripper's triggered ability counts the energy you have as it resolves."
    tables = _tables(header, head, ruling, translation)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [ruling]
    translations = tables["ruling_translations"].select("language", "text").rows()
    assert translations == [(language, translation)]


@pytest.mark.parametrize(
    ("header", "head", "translation", "language"),
    [
        ("以下中文译文由人工智能自动生成。", "2024年6月7日 · 来源：wotc",
         "能量指示物是一种玩家可以拥有的指示物。它们不与任何特定永久物相关联。", "zh-cn"),
        ("以下の日本語訳はAIによる自動生成です。", "2024年6月7日 · 出典：wotc",
         "エネルギー・カウンターはプレイヤーが持つカウンターです。", "ja"),
    ],
)  # fmt: skip
def test_a_chinese_or_japanese_translation_after_the_slash_is_split(
    header: str, head: str, translation: str, language: str
) -> None:
    # Case r06's kind: the halves' words were counted by spaces (a Chinese half was 2 words).
    english = "Energy counters are a kind of counter that a player may have."
    tables = _tables(header, head, f"{english} / {translation}")
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [english]
    translations = tables["ruling_translations"].select("language", "text").rows()
    assert translations == [(language, translation)]


def test_a_header_s_language_is_not_the_site_name_s() -> None:
    header = "Wizards of the Coast 공식 판정"  # was en: the site's name outweighed the Hangul
    dumps = _tables(header, "2024년 6월 7일 · 출처: wotc", MANA)["dumps"]
    assert dumps.select("header_language", "header_language_is_inferred").row(0) == ("ko", False)


def test_a_rule_number_or_a_card_name_after_the_slash_is_no_translation() -> None:
    """Each half of a split line is a sentence of 3 words or more (a fresh review split
    `See rule 702.19 / 702.19c.` into a ruling and an fr translation)."""
    lines = ["See rule 702.19 / 702.19c.", "Liliana / Liliana, dernier espoir."]
    tables = _tables("Traduction FR.", DATE, lines[0], DATE, lines[1])
    assert tables["ruling_occurrences"]["text_raw"].to_list() == lines
    assert tables["ruling_translations"].height == 0


def test_a_taiwanese_dump_dated_in_republic_years_keeps_its_entries() -> None:
    # Case c01's kind (an era's year) in Taiwan's calendar: 民國113 is 2024 (CLDR roc).
    entries = _dated_entries(
        "以下為威世智官方裁定，TW翻譯由人工智慧自動產生。",
        "民國113年6月7日 · 來源：wotc",
        MANA,
        "中華民國一一二年三月三日（五） · 來源：wotc",
        ENERGY,
    )
    assert entries == [(dt.date(2023, 3, 3), ENERGY), (dt.date(2024, 6, 7), MANA)]


def test_dates_and_separators_as_sites_write_them_keep_their_entries() -> None:
    # The kinds of cases c13, c14, r07 and r09: a Korean `ㆍ` between date and source and
    # a zero-padded month, a colloquial Chinese weekday, a German `den`, an unaccented month.
    entries = _dated_entries(
        "Wizards of the Coast 공식 판정입니다. 아래 KO 번역은 자동으로 생성되었습니다.",
        "2024년 06월 07일 ㆍ 출처: wotc",
        MANA,
        "2024年3月3日（礼拜天） · 来源：wotc",
        ENERGY,
    )
    assert entries == [(dt.date(2024, 3, 3), ENERGY), (dt.date(2024, 6, 7), MANA)]
    entries = _dated_entries(
        "Offizielle Erläuterungen von Wizards of the Coast.",
        "Freitag, den 7. Juni 2024 · Quelle: wotc",
        MANA,
        "3 mars 2023 · source : wotc",
        ENERGY,
        "7 aout 2024 · source : wotc",
        ENERGY,
    )
    assert entries == [
        (dt.date(2023, 3, 3), ENERGY), (dt.date(2024, 6, 7), MANA), (dt.date(2024, 8, 7), ENERGY),
    ]  # fmt: skip


def test_a_time_of_day_after_the_date_keeps_its_entry() -> None:
    # Dates as sites stamp them (`date_formats.time_of_day`); only the date is published.
    entries = _dated_entries(
        "Official rulings from Wizards of the Coast, as published.",
        "June 7, 2024 at 2:30 PM · source: wotc",
        MANA,
        "2024-03-03T14:30:00Z · source: wotc",
        ENERGY,
    )
    assert entries == [(dt.date(2024, 3, 3), ENERGY), (dt.date(2024, 6, 7), MANA)]
    entries = _dated_entries(  # a numeric date is read day first: the header claims German
        "Offizielle Erläuterungen von Wizards of the Coast. Die DE-Übersetzung ist automatisch.",
        "am 7. Juni 2024 um 14:30 Uhr · Quelle: wotc",
        MANA,
        "03-03-2023, 09:15 · Quelle: wotc",
        ENERGY,
    )
    assert entries == [(dt.date(2023, 3, 3), ENERGY), (dt.date(2024, 6, 7), MANA)]


@pytest.mark.parametrize(
    ("head", "reason"),
    [
        ("June 7, 2024 25:30 · source: wotc", "unrecognized date"),  # no such hour
        ("le 7 juin 2024 à 25:00 · source : wotc", "unrecognized date"),
        ("14:30, 7 juin 2024 · source : wotc", "unrecognized date"),  # time first
        ("Updated June 7, 2024 at 2:30 PM · source: wotc", "unknown month name 'Updated'"),
        ("June 7, 2024 at 2:30 PM THU · source: wotc", "unrecognized date"),  # a Friday
        ("June 7, 2024 (THU) 14:30 · source: wotc", "weekday 'THU' is not that of 2024-06-07"),
        ("07/06/2024T14:30 · source: wotc", "ambiguous numeric date"),  # an English dump
        ("07.06.2024г. · source: wotc", "ambiguous numeric date"),
        ("on June 7, 2024 at 2:30 PM IST · source: gatherer", "unrecognized date"),  # no zone
        ("le 7 juin 2024 à 25:00 · source : gatherer", "unrecognized date"),
    ],
)
def test_a_head_with_a_time_that_is_not_read_rejects_its_entry(head: str, reason: str) -> None:
    # Never glued to the entry before (e9ec8eb glued the 2nd to 4th and the last two to
    # ENERGY's entry), never read as a date its weekday or its language does not fix.
    tables = _tables("Official rulings from Wizards of the Coast, as published.",
                     "March 3, 2023 · source: wotc", ENERGY, head, MANA)  # fmt: skip
    assert tables["ruling_occurrences"].select("line_number", "text_raw").rows() == [(2, ENERGY)]
    rejects = tables["rejects"].sort("line_number")
    assert rejects["line_number"].to_list() == [4, 5]
    assert reason in rejects["reason"][0]


def test_a_colon_not_of_a_time_makes_no_head() -> None:
    # A head's date may hold a time's colon (`à 25:00`); a label's colon is no time: the
    # header line keeps its claim, and the note stays ruling text.
    tables = _tables(
        "Source: Wizards 2024 · Traduction : FR",
        "Clarifications officielles. La traduction FR ci-dessous est automatique.",
        "07/06/2024 · source : wotc",
        ENERGY,
        "Note: in 2024 the rule changed · see: wotc",
    )
    assert tables["dumps"]["claimed_translation_language"].to_list() == ["fr"]
    assert tables["rejects"].height == 0
    occurrences = tables["ruling_occurrences"].select("published_on", "text_raw").rows()
    assert occurrences == [
        (dt.date(2024, 6, 7), f"{ENERGY}\nNote: in 2024 the rule changed · see: wotc")
    ]


@pytest.mark.parametrize(
    "head",
    [
        "Updated: June 7, 2024 · source: wotc",
        "Updated: June 7, 2024 · source: gatherer",
        "Updated: June 7, 2024, 14:30 · source: wotc",
        "Aktualisiert: 7. Juni 2024 · Quelle: wotc",
        "Date : 07/06/2024 · source : wotc",
    ],
)
def test_a_head_with_a_label_before_its_date_is_rejected_not_glued(head: str) -> None:
    # A site's label before the date is not read; its entry is rejected with its body. At
    # the top it was the header (the dump's entries lost, no reject); after an entry it was
    # glued to that entry's ruling (a41eff1).
    for lines in ([head, MANA], [DATE, ENERGY, head, MANA]):
        tables = _tables("Official rulings from Wizards of the Coast, as published.", *lines)
        assert tables["ruling_occurrences"]["text_raw"].to_list() == lines[1:-2]
        rejects = tables["rejects"].sort("line_number")
        assert rejects["line_number"].to_list() == [len(lines), len(lines) + 1]
        assert rejects["reason"][0].startswith("malformed date·source line")


@pytest.mark.parametrize("head", ["07 aout 2024 source : wotc", "7 fév 2024 source : wotc"])
def test_a_malformed_head_with_a_written_month_is_rejected_not_glued(head: str) -> None:
    # A month as sites write it starts a dated line as CLDR's names do (so a ruling line
    # `7 fév 2024 : la règle…` is rejected with its reason, as `7 février 2024 : …` is).
    tables = _tables(
        "Clarifications officielles de Wizards of the Coast.", DATE, ENERGY, head, MANA
    )
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [ENERGY]
    rejects = tables["rejects"].sort("line_number")
    assert rejects["line_number"].to_list() == [4, 5]
    assert rejects["reason"][0].startswith("malformed date·source line")


def test_ruling_text_that_starts_with_a_date_as_sites_write_it_stays_ruling_text() -> None:
    # Dates as sites write them (articles, a weekday before a date) are read in heads
    # only: a body line that starts with one is no malformed head (it would take the
    # entry before it down with it). CLDR's own shapes still start a malformed head.
    bodies = ["Le 7 juin 2024, la règle a changé.", "Do 10/10/10 damage to each creature."]
    tables = _tables("Clarifications officielles.", DATE, bodies[0], DATE, bodies[1])
    occurrences = tables["ruling_occurrences"].sort("line_number")
    assert occurrences["text_raw"].to_list() == bodies
    assert tables["rejects"].height == 0


FR_HEADER = "Clarifications officielles. La traduction FR ci-dessous."


@pytest.mark.parametrize(
    "lines",
    [
        [f"(FR) {FR_MANA}", MANA],  # above its original, right after the head
        [MANA, f"(FR) {FR_MANA}"],
        [MANA, f"Traduction FR : {FR_MANA}"],
        [MANA, f"FR-Übersetzung: {FR_MANA}"],
    ],
)
def test_a_translation_labelled_with_its_code_is_no_second_page(lines: list[str]) -> None:
    # A code naming a translation's language after the first head started a second
    # page's header: the ruling and its translation were lost into header_text.
    tables = _tables(FR_HEADER, DATE, *lines)
    dump = tables["dumps"].select("header_text", "paste_count", "entry_count").row(0)
    assert dump == (FR_HEADER, 1, 1)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA]
    translation = next(line for line in lines if line != MANA).removeprefix("(FR) ")  # a label
    assert tables["ruling_translations"].select("language", "text").rows() == [("fr", translation)]


def test_a_ruling_naming_a_language_code_is_no_second_page() -> None:
    ruling = "The Italian (IT) printing is the same card."
    tables = _tables("Official rulings from Wizards of the Coast.", DATE, ruling)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [ruling]
    assert tables["dumps"]["paste_count"].to_list() == [1]


def test_a_second_page_s_header_naming_its_code_still_starts_a_page() -> None:
    second = "Règles officielles (FR), traduction automatique."
    tables = _tables(FR_HEADER, DATE, MANA, second, DATE, ENERGY)
    dump = tables["dumps"].select("header_text", "paste_count", "entry_count").row(0)
    assert dump == (f"{FR_HEADER}\n{second}", 2, 2)


@pytest.mark.parametrize(
    "line",
    [
        "<div><p>Official rulings.</p><ul><li>June 7, 2024 · source: wotc<br>"
        f"{MANA}</li><li>June 7, 2024 · source: wotc<br>{ENERGY}</li></ul></div>",
        f"Official rulings. June 7, 2024 · source: wotc {MANA}",
    ],
)
def test_a_page_pasted_as_one_line_is_rejected_not_a_header(line: str) -> None:
    # Was the dump's header: its entries lost with no reject.
    tables = _tables(line)
    assert tables["dumps"].select("line_count", "entry_count").row(0) == (1, 0)
    rejects = tables["rejects"].select("line_number", "reason").rows()
    assert rejects == [
        (1, "line holds a date·source line and more text: entries pasted on one line are not read")
    ]


HEAD = "June 14, 2024 · source: wotc"
SYMBOL = "If an effect says you get one or more {E}, you get that many energy counters."
COUNTERS = "Energy counters are a kind of counter that a player may have."


@pytest.mark.parametrize(
    ("marked", "clean"),
    [
        (SYMBOL.replace("{E}", '<abbr class="card-symbol card-symbol-E" title="one energy">{E}</abbr>'), SYMBOL),
        ("If you rev<wbr>eal a card, each player sees it.", "If you reveal a card, each player sees it."),
        ("<mark>Energy</mark> counters are a kind of counter that a <cite>player</cite> may have.", COUNTERS),
        (COUNTERS + "<!-- ad -->", COUNTERS),
        (COUNTERS.replace("Energy ", "Energy&#x2063; "), COUNTERS),
    ],
    ids=["scryfall-abbr", "wbr", "mark-cite", "comment", "invisible-separator"],
)  # fmt: skip
def test_a_ruling_with_markup_is_its_clean_twin(marked: str, clean: str) -> None:
    """Markup the remover did not know stayed in the published text and split the ruling
    from its clean twin (case r05's kind): both dumps now publish one ruling."""
    run = run_contents({"a.txt": content_of(HEAD, clean), "b.txt": content_of(HEAD, marked)})
    occurrences = run.tables["ruling_occurrences"].sort("path")
    assert occurrences.select("path", "text_raw").rows() == [("a.txt", clean), ("b.txt", clean)]
    assert occurrences["ruling_id"].n_unique() == 1
    assert run.tables["rulings"].height == 1


def test_a_line_that_is_only_a_comment_is_blank_not_ruling_text() -> None:
    """`<!-- ad slot -->` under a body was glued into its ruling; it is a blank line now,
    still counted among the lines read."""
    run = run_contents(
        {"a.txt": content_of("Rulings.", HEAD, COUNTERS, "<!-- ad slot -->", HEAD, MANA)}
    )
    occurrences = run.tables["ruling_occurrences"]
    assert occurrences.select("line_number", "text_raw").rows() == [(2, COUNTERS), (5, MANA)]
    assert run.lines.sort("line_number")["kind"].to_list() == [
        "header", "date_source", "body", "blank", "date_source", "body"
    ]  # fmt: skip
    accounting = run.result["manifest"]["line_accounting"]
    assert (accounting["blank"], accounting["lines_read"]) == (1, 6)
    assert run.tables["dumps"]["line_count"].to_list() == [6]


@pytest.mark.parametrize(
    "ruling",
    [
        "A creature with power<2 can't block, but one with power<a lot> can.",
        "Choose a number X<p and Y>q where X and Y are different.",
        "Search your library at https://example.com/?tag=rules&section=faq&amp;x for the FAQ.",
    ],
    ids=["power-a-lot", "x-p-and-y", "url-query"],
)
def test_a_less_than_sign_or_an_ampersand_in_a_ruling_eats_no_words(ruling: str) -> None:
    text = run_contents({"a.txt": content_of(HEAD, ruling)}).tables["ruling_occurrences"]
    assert text["text_raw"].to_list() == [ruling.replace("&amp;", "&")]


@pytest.mark.parametrize(
    "header",
    [
        "Official rulings · Source: WotC (Gatherer)",  # no date: no entry inside it
        "Card: Razorfield Ripper (ONE 101) · Source: Scryfall",  # no year
        "Last updated: June 7, 2024 · Translation: FR (AI)",  # a translation's label
        "Last updated: June 7, 2024 · Translation: FR",
        "© 2024 Wizards of the Coast · Source: WotC Gatherer",
        "Updated June 7, 2024 · Source: WotC (Gatherer)",
        "Page generated 2024-06-07 · source: scryfall mirror",
        "© 2024 Wizards of the Coast · Source: WotC Gatherer database, all rights reserved",
        "Rulings 2024 · source: wotc via the Gatherer site",
        # this stop's reviews: a year or a date and a label after a separator of the
        # site's own, or a translation's label after a dash
        "Clarifications officielles (mise à jour 2024), source : wotc",
        "Clarifications officielles, mise à jour 2024, source : wotc",
        "Official rulings (updated 2024) / source: wotc",
        "Règles officielles — mise à jour 2024 - Traduction : FR (IA)",
        "公式ルーリング 2024年6月7日 - 翻訳：日本語",
        "（2024年6月7日更新）・出典：公式サイト",
        "2024年6月更新・出典：公式サイト",
    ],
)
def test_a_header_line_naming_its_source_or_date_stays_the_header(header: str) -> None:
    # A review of 1dfd6c7 found each rejected, the dump's header lost.
    tables = _tables(header, "June 7, 2024 · source: wotc", MANA)
    assert tables["dumps"]["header_text"].to_list() == [header]
    assert tables["rejects"].is_empty()


@pytest.mark.parametrize(
    "line",
    [
        "Reconfigure · see: WotC article for details.",  # naming a source
        "See rule 702.19 - Source: WotC",
        "Errata: June 7, 2024 · Oracle: now reads 'Flying'",
        "レオニンの鎧守護兵 gets this bonus too.",  # quoting a CJK card name
        "Both of 강박적인 무두질꾼’s abilities can target it.",
        "The 剃刀野の切り裂き魔 token is an Equipment.",
        "In Korean, Razorfield Ripper is called 면도날들판 찢개.",
    ],
)
def test_a_ruling_s_second_line_naming_a_source_or_a_cjk_name_stays_in_it(line: str) -> None:
    tables = _tables("Official rulings.", DATE, MANA, line)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [f"{MANA}\n{line}"]
    assert tables["ruling_translations"].is_empty()


@pytest.mark.parametrize(
    "line",
    [
        "Cards named Razorfield Ripper | 剃刀野の切り裂き魔",
        "Cards named Razorfield Ripper / 剃刀野の切り裂き魔.",
        "Search for Lightning Bolt / 稲妻の一撃",
    ],
)
def test_a_card_name_after_a_separator_is_no_translation(line: str) -> None:
    tables = _tables("以下の日本語訳はAIによる自動生成です。", DATE, line)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [line]
    assert tables["ruling_translations"].is_empty()


def test_a_second_page_s_header_labelled_with_its_code_still_starts_a_page() -> None:
    second = "(FR) Clarifications officielles, traduction automatique."
    tables = _tables(FR_HEADER, DATE, MANA, second, DATE, ENERGY)
    dump = tables["dumps"].select("header_text", "paste_count", "entry_count").row(0)
    assert dump == (f"{FR_HEADER}\n{second}", 2, 2)
    assert tables["ruling_translations"].is_empty()


def test_a_stub_without_its_stat_line_is_a_stub() -> None:
    cut = "Au début du combat pendant votre tour, vous pouvez payer"
    tables = _tables(FR_HEADER, DATE, MANA, ".", cut)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA]  # was MANA + "\n."
    assert tables["ruling_translations"].is_empty()  # the cut text was an fr translation
    stub = tables["card_stubs"].select("line_number", "mana_value", "text", "language")
    assert stub.rows() == [(4, None, cut, "fr")]
    assert tables["dumps"]["stub_count"].to_list() == [1]


@pytest.mark.parametrize(
    ("lines", "rulings"),
    [
        ([DATE, ".", MANA, DATE, ENERGY], [MANA, ENERGY]),  # right after a head: its ruling follows
        ([DATE, MANA, "."], [MANA]),  # no text after it: no stub
        ([DATE, MANA, ".", DATE, ENERGY], [MANA, ENERGY]),
        ([DATE, ".", ".", MANA, DATE, ENERGY], [MANA, ENERGY]),  # the entry's first is the one
        ([DATE, MANA, ".", FR_HEADER, DATE, ENERGY], [MANA, ENERGY]),  # a second page's header
    ],
)
def test_a_lone_dot_that_starts_no_stub_is_blank(lines: list[str], rulings: list[str]) -> None:
    # The README helper's finds: the ruling after a `.` became a stub, an empty stub row.
    tables = _tables(FR_HEADER, *lines)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == rulings
    assert tables["card_stubs"].is_empty()
    assert tables["rejects"].is_empty()


def test_a_full_width_dot_starts_a_stub_too() -> None:
    cut = "このクリーチャーが戦場に出たとき、あなたは"
    tables = _tables("Official rulings.", DATE, MANA, "。", cut)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA]
    assert tables["card_stubs"].select("text", "language").rows() == [(cut, "ja")]


@pytest.mark.parametrize(
    ("translation", "language"),
    [
        ("Razorfield Ripper和Leonin Shikari都会受到影响。", "zh-cn"),  # names are no English words
        ("如果Aurora Shifter复制了Razorfield Ripper，它就具有Reconfigure。", "zh-cn"),
        ("이 능력은 Razorfield Ripper와 Leonin Shikari에 적용", "ko"),
        ("詳しくは次のカードを参照：Razorfield Ripper", "ja"),
    ],
)
def test_a_cjk_translation_naming_english_cards_is_a_translation(
    translation: str, language: str
) -> None:
    tables = _tables("Official rulings.", DATE, MANA, translation)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA]
    assert tables["ruling_translations"].select("language", "text").rows() == [
        (language, translation)
    ]


@pytest.mark.parametrize(
    ("line", "english", "french"),
    [
        ("X can be zero | X peut valoir zéro.", "X can be zero", "X peut valoir zéro."),
        (f"{MANA[:-1]} / {FR_MANA[:-1]}", MANA[:-1], FR_MANA[:-1]),  # no period at all
    ],
)
def test_a_same_line_translation_after_a_half_without_its_period_is_split(
    line: str, english: str, french: str
) -> None:
    tables = _tables("Traduction FR.", DATE, line)
    assert tables["ruling_occurrences"].select("text_raw", "language").rows() == [(english, "en")]
    assert tables["ruling_translations"]["text"].to_list() == [french]


def test_a_comment_between_words_leaves_one_space() -> None:
    ruling = "Energy counters aren't mana. <!-- ad --> They don't go away."
    tables = _tables("Official rulings.", DATE, ruling)
    expected = "Energy counters aren't mana. They don't go away."
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [expected]


def test_a_dot_before_a_stat_line_starts_no_empty_stub() -> None:
    cut = "Au début du combat pendant votre tour, vous pouvez payer"
    tables = _tables(FR_HEADER, DATE, MANA, ".", "CMC 2F/E 1/3", ".", cut)
    stubs = tables["card_stubs"].select("line_number", "mana_value", "text")
    assert stubs.rows() == [(5, 2.0, cut)]
    assert tables["dumps"]["stub_count"].to_list() == [1]


def test_a_dot_between_each_ruling_and_its_translation_starts_no_stub() -> None:
    # Found by a review of 3df860e: every translation was a card stub.
    tables = _tables(FR_HEADER, DATE, MANA, ".", FR_MANA, DATE, ENERGY, ".", GERMAN)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA, ENERGY]
    assert tables["ruling_translations"]["text"].to_list() == [FR_MANA, GERMAN]
    assert tables["card_stubs"].is_empty()


def test_a_dot_before_another_entry_starts_no_stub() -> None:
    # A stub ends its page: a ruling's second sentence after a `.` stays in the ruling.
    second = "If X is 0, the spell still resolves, but no lands are destroyed."
    tables = _tables(FR_HEADER, DATE, MANA, ".", second, DATE, ENERGY)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [f"{MANA}\n{second}", ENERGY]
    assert tables["card_stubs"].is_empty()


@pytest.mark.parametrize(
    ("header", "line", "english", "translation", "language"),
    [
        ("Traduction FR.", "This ability can target Aurora Shifter / Cette capacité peut "
         "cibler le Métamorphe aurore.", "This ability can target Aurora Shifter",
         "Cette capacité peut cibler le Métamorphe aurore.", "fr"),
        ("Traduction FR.", "The spell's cost is X / Le coût du sort est X.",
         "The spell's cost is X", "Le coût du sort est X.", "fr"),
        ("아래 한국어 번역은 자동 생성되었습니다.", "This ability can target Aurora Shifter / 이 능력은 "
         "오로라 변신체를 목표로 할 수 있다.", "This ability can target Aurora Shifter",
         "이 능력은 오로라 변신체를 목표로 할 수 있다.", "ko"),
    ],
)  # fmt: skip
def test_a_ruling_ending_with_a_name_and_its_translation_are_split(
    header: str, line: str, english: str, translation: str, language: str
) -> None:
    tables = _tables(header, DATE, line)
    assert tables["ruling_occurrences"].select("text_raw", "language").rows() == [(english, "en")]
    translations = tables["ruling_translations"].select("language", "text").rows()
    assert translations == [(language, translation)]


def test_an_english_line_of_names_and_one_word_in_a_japanese_dump_is_english() -> None:
    line = "Cards named Razorfield Ripper / 剃刀野の切り裂き魔."
    tables = _tables("以下の日本語訳はAIによる自動生成です。", DATE, line)
    assert tables["ruling_occurrences"].select("text_raw", "language").rows() == [(line, "en")]


def test_a_chinese_translation_starting_with_an_english_name_is_a_translation() -> None:
    translation = "Aegis of the Legion/教团之盾贴附到该异能的来源生物上。"  # half its letters CJK
    tables = _tables("以下中文译文由人工智能自动生成。", DATE, MANA, translation)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA]
    assert tables["ruling_translations"]["language"].to_list() == ["zh-cn"]


SECOND = "If an effect tries to do this, nothing happens."
CUT = "Au début du combat, vous pouvez payer"


@pytest.mark.parametrize(
    ("after", "rulings", "translations", "stubs"),
    [
        ([MANA, ".", SECOND], [ENERGY, f"{MANA}\n{SECOND}"], [], []),  # its second sentence
        ([MANA, ".", FR_MANA], [ENERGY, MANA], [FR_MANA], []),  # its translation
        ([MANA, ".", FR_MANA, "CMC 2F/E 1/3", ".", CUT], [ENERGY, MANA], [FR_MANA], [(2.0, CUT)]),
    ],
)
def test_a_dot_before_a_whole_sentence_in_the_last_entry_starts_no_stub(
    after: list[str], rulings: list[str], translations: list[str], stubs: list[tuple]
) -> None:
    # A fourth review: the sentence after a `.` in the last entry was a stub.
    tables = _tables(FR_HEADER, DATE, ENERGY, DATE, *after)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == rulings
    assert tables["ruling_translations"]["text"].to_list() == translations
    assert tables["card_stubs"].select("mana_value", "text").rows() == stubs


def test_a_cyrillic_line_quoting_a_cjk_name_is_russian() -> None:
    translation = (
        "Если 剃刀野の切り裂き魔 умирает, вы получаете 2 жизни."  # lowercase Cyrillic words
    )
    tables = _tables("Перевод RU ниже создан автоматически.", DATE, MANA, translation)
    assert tables["ruling_translations"].select("language", "text").rows() == [("ru", translation)]


def test_a_cjk_sentence_after_a_ruling_ending_with_a_name_is_split() -> None:
    line = "This ability can target Aurora Shifter / 此异能可以指定极光变形兽为目标。"
    tables = _tables("以下中文译文由人工智能自动生成。", DATE, line)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [
        "This ability can target Aurora Shifter"
    ]
    assert tables["ruling_translations"]["language"].to_list() == ["zh-cn"]


def test_a_dot_stub_of_several_lines_ending_cut_is_a_stub() -> None:
    # A fifth review: `Vol.` first (a whole sentence) made the stub two translations.
    cut = "Au début du combat pendant votre tour, vous pouvez payer"
    tables = _tables(FR_HEADER, DATE, MANA, DATE, ENERGY, ".", "Vol.", cut)
    assert tables["card_stubs"].select("line_number", "text").rows() == [(6, f"Vol.\n{cut}")]
    assert tables["ruling_translations"].is_empty()


def test_dots_between_rulings_and_translations_before_a_dot_stub() -> None:
    cut = "Au début du combat pendant votre tour, vous pouvez payer"
    lines = [DATE, MANA, ".", FR_MANA, DATE, ENERGY, ".", GERMAN, ".", cut]
    tables = _tables(FR_HEADER, *lines)
    assert tables["ruling_translations"]["text"].to_list() == [FR_MANA, GERMAN]
    assert tables["card_stubs"]["text"].to_list() == [cut]
