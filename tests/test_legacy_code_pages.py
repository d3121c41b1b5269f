"""Dumps saved in a legacy code page read as their text, however short.

The field cases (`../shared/cases`) saved in every legacy code page that can
write them: 15 of 145 such files were read in another code page before
(`encodings._pick_code_page`), some losing every entry (a MacRoman `·` read as
cp1257's `į`: no date line parsed), others publishing a wrong value that looks
right (`20˝` for `20½`, `ESPAŃOL`, `ŕ aucun`).
"""

from __future__ import annotations

import datetime as dt

import pytest

from flows.stages.encodings import decode_bytes
from flows.stages.legacy_text import CJK_TEXT_MIN, cjk_score, word_evidence
from tests.conftest import CASES_DIR, ROUND3_DIR, needs_cases, needs_round3, run_contents

#: Windows, ISO, DOS and Mac code pages of the cases' languages, and East Asian ones.
CODE_PAGES = (
    "cp1252", "latin_1", "iso8859_15", "cp850", "cp437", "mac_roman", "cp1250", "cp1251",
    "koi8_r", "iso8859_5", "cp1253", "iso8859_7", "shift_jis", "euc_jp", "gbk", "gb18030",
    "big5", "euc_kr",
)  # fmt: skip
#: The cases whose text is not read as it is: c18 in cp850 (a right value of its own),
#: c03 with a BOM inside, c17's mojibake (repaired), r03 with one cp1252 line.
NOT_PLAIN = ("c03", "c17", "c18", "r03")


def _saved_cases() -> list[tuple[str, str]]:
    """(case file name, code page) for each case and page that writes it in non-ASCII bytes."""
    saved = []
    for folder in (CASES_DIR, ROUND3_DIR):
        for case in sorted(folder.glob("*.txt")) if folder.is_dir() else []:
            if case.name.startswith(NOT_PLAIN):
                continue
            text = case.read_text("utf-8")
            for page in CODE_PAGES:
                try:
                    content = text.encode(page)
                except UnicodeEncodeError:
                    continue
                if not content.isascii():
                    saved.append((case.name, page))
    return saved


def _case_text(name: str) -> str:
    folder = CASES_DIR if name.startswith("c") else ROUND3_DIR
    return (folder / name).read_text("utf-8")


@needs_cases
@needs_round3
@pytest.mark.parametrize(("name", "page"), _saved_cases())
def test_a_case_saved_in_a_legacy_code_page_reads_as_its_text(name: str, page: str) -> None:
    text = _case_text(name)
    assert decode_bytes(text.encode(page)).text == text


@needs_cases
def test_c12_in_mac_roman_keeps_both_entries() -> None:
    # Read as cp1257 before: `·` was `į`, no date line parsed, every line rejected.
    tables = run_contents({"c12.txt": _case_text("c12_ordinal_en.txt").encode("mac_roman")}).tables
    assert tables["dumps"]["encoding"].to_list() == ["mac_roman"]
    assert tables["ruling_occurrences"]["published_on"].to_list() == [
        dt.date(2024, 6, 7),
        dt.date(2024, 3, 2),
    ]


@needs_cases
def test_c20_in_cp1252_keeps_its_half() -> None:
    # Read as cp1250 before: `20½` was published as `20˝`.
    tables = run_contents({"c20.txt": _case_text("c20_display_text.txt").encode("cp1252")}).tables
    [text] = tables["rulings"]["text"].to_list()
    assert text.endswith("rounded down it is 20½.")


@pytest.mark.parametrize(
    ("text", "page"),
    [
        ("Les règles générées", "latin_1"),  # cp1250's `rčgles` before
        ("Café crème", "latin_1"),  # cp1006's before
        ("Règles officielles de Wizards of the Coast. Traduction générée.", "latin_1"),
        ("Официальные разъяснения", "koi8_r"),
        ("Официальные разъяснения", "cp866"),  # cp1251 reads `ЋдЁжЁ`: real one-letter words
        # Greek (case r01's site) read as cp1251 `ЙпхнЯпх` while Greek was no word language
        (
            "14 Ιουνίου 2024 · πηγή: wotc\nAn Equipment creature can never become attached.\n",
            "cp1253",
        ),
        (
            "14 Ιουνίου 2024 · πηγή: wotc\nAn Equipment creature can never become attached.\n",
            "iso8859_7",
        ),
        # a Greek site's header alone: charset-normalizer did not guess cp1253
        ("Επίσημες διευκρινίσεις της Wizards of the Coast. Η μετάφραση παρακάτω.\n", "cp1253"),
        # DOS Greek and DOS Portuguese: read as cp850 (`traduçäo`, `·` as `ê`) before
        (
            "June 7, 2024 · source: wotc\nYou can’t pay a cost that includes the payment of "
            "any amount of life other than 0 life.\n",
            "cp869",
        ),
        ("Esclarecimentos oficiais. A tradução abaixo foi gerada automaticamente.\n", "cp860"),
    ],
)
def test_a_short_legacy_text_reads_as_its_words(text: str, page: str) -> None:
    assert decode_bytes(text.encode(page)).text == text


def test_single_letters_are_no_evidence_of_a_code_page() -> None:
    # HP Roman-8 reads latin-1's `è` as `Ò`: a word of some language, as `è` is.
    assert word_evidence("qui sotto è generata l'énergie") == (1, 0)
    assert word_evidence("qui sotto Ò generata l'énergie") == (1, 0)


#: A Korean site's dump (case c13's shapes: its header, `2024. 6. 7. · 출처: wotc`).
KO_HEADER = "Wizards of the Coast의 공식 판정입니다. 아래 번역은 자동으로 생성되었습니다.\n"
KO_DUMP = KO_HEADER + "2024. 6. 7. · 출처: wotc\nYou can’t pay a kicker cost more than once.\n"
KO_TRANSLATED = (
    KO_HEADER + "2024. 6. 7. · 출처: wotc\nThe effect is cumulative.\n"
    "정수의 벽이 전투피해를 입을 때마다, 당신은 그만큼의 생명점을 얻는다.\n"
)
JA_HEADER = "Wizards of the Coastによる公式裁定です。以下の翻訳は自動生成されたものです。\n"


@pytest.mark.parametrize("page", ["euc_kr", "cp949"])
@pytest.mark.parametrize(
    "text",
    [
        KO_DUMP,  # charset-normalizer guessed ISO Cyrillic only: `РЧ АјНФ`, the entry lost
        KO_TRANSLATED,  # charset-normalizer guessed nothing: rejected as no text dump
        KO_HEADER,  # no date line to tell: ISO Cyrillic's reading was the only plausible one
    ],
)
def test_a_korean_dump_in_euc_kr_reads_as_its_text(text: str, page: str) -> None:
    decoded = decode_bytes(text.encode(page))
    assert (decoded.text, decoded.encoding) == (text, "cp949")


def test_a_japanese_header_in_euc_jp_reads_as_japanese() -> None:
    # Read as cp949's `ㅛㅸㅻ못섟붜쾨ㅗㅉ` before: no date line, no plausible reading, the first.
    assert decode_bytes(JA_HEADER.encode("euc_jp")).text == JA_HEADER


def test_a_korean_dump_in_euc_kr_keeps_its_entry() -> None:
    tables = run_contents({"ko.txt": KO_TRANSLATED.encode("euc_kr")}).tables
    assert tables["dumps"]["encoding"].to_list() == ["cp949"]
    assert tables["ruling_occurrences"]["published_on"].to_list() == [dt.date(2024, 6, 7)]
    assert tables["ruling_translations"]["language"].to_list() == ["ko"]


@pytest.mark.parametrize(
    ("text", "page"),
    [  # reviews' breaks of the first versions (read so then), each read right before them
        ("Äthertunnel\nOfficial rulings from Wizards of the Coast.\n", "cp1252"),  # `礫hertunnel`
        ("Refuge félidar\n", "mac_roman"),  # `f四idar`: one CJK letter is no CJK text
        ("Озолит\n", "cp1251"),  # `午铍栩`: one unknown word is a name, not garbage
        ("Abatidor loxodón\nAclaraciones oficiales\n", "cp850"),  # ISO Greek's `loxod’n`
        ("九命护身\n", "gbk"),  # ISO Greek's `ΎΕΓό»€Ιν`: one real word, one unknown
        ("月索原型\n", "big5"),  # GB18030's `る\ue1f6\ue165\ue069`: private-use characters
        ("集群毆鬥\n", "big5"),  # GB18030's `栋竤嫁矮`: Traditional weighed as Simplified
        ("飄萍\n", "big5"),  # cp949's `컷둡`: charset-normalizer's first, within ten times
        # a Russian line beside CJK is no evidence against the CJK page (Big5's `夥源笛隅﹝`…)
        ("Wizards of the Coast 官方裁定。\nОзолит\n", "gbk"),
        ("Wizards of the Coast 공식 판정입니다.\nОфициальные разъяснения.\n", "cp949"),
        # a script no site writes: charset-normalizer's first, not a GB18030 reading
        ("คำชี้แจงอย่างเป็นทางการจาก Wizards of the Coast\n", "cp874"),
    ],
)
def test_a_short_text_keeps_its_page_against_weak_evidence(text: str, page: str) -> None:
    assert decode_bytes(text.encode(page)).text == text


def test_a_portuguese_paste_saved_with_a_question_mark_stays_western() -> None:
    # `tradução` saved in latin-1 as `traduç?o` (ã cannot be written): read as johab's
    # `tradu膜o` by the first version (one CJK letter).
    content = "Esclarecimentos oficiais. A traduç?o PT abaixo foi gerada automaticamente.\n"
    assert decode_bytes(content.encode("latin_1")).text == content


def test_a_western_reading_with_unknown_words_is_no_cjk_text() -> None:
    # Names (`Tóptero`, `tópteros`) outnumber real words: the CJK readings are still no text
    # (cp1250's `ESPAŃOL` won when Latin letters of wordfreq's CJK lists counted).
    text = (
        "La traducción al ESPAÑOL fue generada automáticamente.\n"
        "7 de junio de 2024 · fuente: wotc\nSi no controlas un Tóptero, regresa el Montaje de "
        "tópteros y pon cinco fichas Tóptero. Tópteros.\n"
    )
    assert word_evidence(text)[1] > word_evidence(text)[0]
    assert decode_bytes(text.encode("cp1252")).text == text
    assert cjk_score("ESPAŃOL") is cjk_score("Éďőíßďő") is cjk_score("f四idar") is None
    assert cjk_score("る空\ue1f6\ue165\ue069") < CJK_TEXT_MIN < cjk_score("る空")  # private use
    assert cjk_score(KO_HEADER) > CJK_TEXT_MIN  # `공식 판정입니다`
    assert cjk_score(KO_HEADER.encode("cp949").decode("iso8859_5")) is None  # `РЧ АјНФ`
