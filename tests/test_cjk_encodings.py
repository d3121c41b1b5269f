"""CJK text in 7-bit encodings, in BOM-less UTF-16, and as Latin-1 mojibake is read whole."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from flows.stages.decode import split_lines
from flows.stages.encodings import decode_bytes
from flows.stages.mojibake import REPAIR_MOJIBAKE, repair_mojibake, split_line_ends
from tests.conftest import run_contents

JA_HEADER = (
    "Wizards of the Coastによる公式裁定です。以下のJA翻訳はAIによって自動生成されたものです。"
)
ZH_HEADER = "Wizards of the Coast 官方裁定。以下中文译文由人工智能自动生成。"
KO_HEADER = "Wizards of the Coast 공식 판정입니다. 아래 KO 번역은 자동으로 생성되었습니다."
RULING = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."
OTHER = "An Equipment creature can never become attached to itself."
#: 態 is E6 85 8B in UTF-8: its Latin-1 mojibake holds NEL (U+0085).
JA_TEXT = "あなたのライブラリーから基本土地・カードを最大３枚探し、それらをタップ状態で戦場に出す。"
ZH_TEXT = "每当你施放一个咒语时，你获得一个能量指示物。"
KO_TEXT = "에너지 카운터는 플레이어가 가질 수 있는 카운터의 일종입니다."
DATES = {
    "ja": "2024年6月7日・出典：wotc",
    "zh": "2024年6月7日・来源：wotc",
    "ko": "2024. 6. 7. · 출처: wotc",
}
PASTES = {"ja": (JA_HEADER, JA_TEXT), "zh": (ZH_HEADER, ZH_TEXT), "ko": (KO_HEADER, KO_TEXT)}


def _dump(language: str, translation: str | None = None, end: str = "\n") -> str:
    header, text = PASTES[language]
    date = DATES[language]
    lines = [header, date, RULING, translation or text, date, OTHER]
    return end.join(lines) + end


def _read(content: bytes) -> dict[str, pl.DataFrame]:
    return run_contents({"dump.txt": content}).tables


@pytest.mark.parametrize(
    ("language", "codec"),
    [("ja", "iso2022_jp"), ("zh", "hz"), ("ko", "iso2022_kr")],
    ids=["iso-2022-jp", "hz-gb-2312", "iso-2022-kr"],
)
def test_a_7bit_cjk_file_is_decoded_with_its_codec(language: str, codec: str) -> None:
    # A probe: the bytes are ASCII (escape sequences `ESC $ B`, `~{`), so the whole file was
    # read as UTF-8 and became the dump's header, its date lines unseen (4 of 4).
    tables = _read(_dump(language).encode(codec))
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"], dump["header_text"]) == (
        codec,
        None,
        PASTES[language][0],
    )
    occurrences = tables["ruling_occurrences"].sort("line_number")
    assert occurrences.select("published_on", "text_raw").rows() == [
        (dt.date(2024, 6, 7), RULING),
        (dt.date(2024, 6, 7), OTHER),
    ]
    assert tables["ruling_translations"]["text"].to_list() == [PASTES[language][1]]


@pytest.mark.parametrize(
    "content",
    [
        b"Use ~{X} as a cost ~} here.\n07 juin 2024 \xc2\xb7 source : wotc\n",
        b"\x1b[31mEnergy counters\x1b[0m aren't mana.\n07 juin 2024 \xc2\xb7 source : wotc\n",
    ],
    ids=["tilde-brace", "ansi-colour"],
)
def test_an_ascii_file_with_a_shift_by_chance_stays_utf8(content: bytes) -> None:
    assert decode_bytes(content).encoding == "utf-8"


def test_latin1_mojibake_with_a_nel_byte_is_repaired_whole() -> None:
    # A probe: `態` (E6 85 8B) read as Latin-1 holds NEL, which cut the line before its
    # repair: the rest stayed mojibake and was glued into the ruling above (24 of 24).
    mojibake = JA_TEXT.encode().decode("latin-1")
    assert "\x85" in mojibake
    tables = _read(_dump("ja", mojibake).encode())
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"]) == ("utf-8", REPAIR_MOJIBAKE)
    assert tables["ruling_translations"].select("language", "text").rows() == [("ja", JA_TEXT)]
    assert tables["ruling_occurrences"].sort("line_number")["text_raw"].to_list() == [
        RULING,
        OTHER,
    ]


def test_nel_line_ends_around_a_mojibake_line_stay_line_ends() -> None:
    # A file whose only line ends are NEL: ftfy read the NEL after a cp1252 mojibake line
    # as part of it (cp1252's `…`), gluing the next date line into the translation.
    french = "Les marqueurs d’énergie ne sont pas du mana."
    lines = [JA_HEADER, DATES["ja"], RULING, french.encode().decode("cp1252"), DATES["ja"], OTHER]
    tables = _read(("\x85".join(lines) + "\x85").encode())
    assert tables["dumps"].select("line_count", "entry_count").rows() == [(6, 2)]
    assert tables["ruling_translations"]["text"].to_list() == [french]


@pytest.mark.parametrize("codec", ["utf-8", "latin-1"])
def test_nel_line_ends_after_accented_letters_of_clean_text_stay_line_ends(codec: str) -> None:
    # a third review's find: a NEL after `é` (a letter that is also a UTF-8 lead byte read
    # as Latin-1) ended no line, and ftfy made `é\x85\x85` a CJK letter: the next entry was
    # glued and rejected (5 of 10 clean NEL-only files); no mojibake here, nothing repaired
    head = "07 juin 2024 · source : wotc"
    lines = ["Clarifications officielles de Wizards of the Coast. Traduction FR ci-dessous.",
             head, RULING, "Les marqueurs d'énergie ne sont pas du mana, c'est réglé", "",
             head, OTHER, "Une créature-équipement ne peut jamais s'attacher à elle-même, voilà"]  # fmt: skip
    tables = _read(("\x85".join(lines) + "\x85").encode(codec))
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding_repair"], dump["line_count"], dump["entry_count"]) == (None, 8, 2)
    assert tables["ruling_translations"].height == 2  # (Latin-1's code page: left as it was)
    if codec == "utf-8":
        assert tables["ruling_translations"]["text"].to_list() == [lines[3], lines[7]]


@pytest.mark.parametrize(
    "text",
    [
        "a\nå\x85µ\nb\x85c\n",  # LF line ends: NEL is no line end
        "a\x85b\x85c\x85",  # no LF or CR: NEL is
        "annulÃ©\x85b\x85",  # ... after a whole letter read as Latin-1 (é) too
        "a\x0bb\x0cc\u2028d\x0b",  # no LF or CR: VT and FF are
        "a\r\nb\rc\u2028d\u2029e",
        "a\x1cb\x1dc\x1ed\n",  # FS, GS, RS: no line ends (`str.splitlines` splits there)
        "one line",
        "",
    ],
    ids=["lf", "nel", "nel-after-letter", "vt-ff", "cr-ls-ps", "separators", "no-end", "empty"],
)
def test_mojibake_lines_are_the_lines_split_lines_makes(text: str) -> None:
    split = split_lines(pl.DataFrame({"dump_id": ["d"], "text": [text]}))
    pairs = split_line_ends(text)
    assert "".join(line + end for line, end in pairs) == text
    assert len(pairs) == split.height


@pytest.mark.parametrize("end", ["\x0b", "\x0c", "\u2028", "\u2029"])
@pytest.mark.parametrize("whole", [False, True], ids=["lines", "whole-file"])
def test_a_nel_byte_of_a_mojibake_line_is_no_line_end(end: str, whole: bool) -> None:
    # two reviews' finds: in a file whose line ends are VT, FF, LS or PS, a Latin-1 mojibake
    # line was cut at the NEL of `х` (D1 85) and left unrepaired, glued into the ruling
    # (155 of 408 such probes: ru, ko, ja, zh); in a whole file read so, its LS or PS
    # too are mojibake (`â\x80¨`), and NEL was its only line end (6 of 16)
    header = "Официальные разъяснения Wizards of the Coast."
    russian = "Когда это существо выходит на поле битвы, возьмите карту."
    lines = [header, "7 июня 2024 г. · источник: wotc", RULING, russian]
    if whole:
        text = (end.join(lines) + end).encode().decode("latin-1")
    else:
        text = end.join(line.encode().decode("latin-1") for line in lines) + end
    tables = _read(text.encode())
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding_repair"], dump["line_count"]) == (REPAIR_MOJIBAKE, 4)
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [RULING]
    assert tables["ruling_translations"].select("language", "text").rows() == [("ru", russian)]


def test_a_mojibake_line_keeps_its_line_end() -> None:
    assert repair_mojibake("Les marqueurs dâ€™Ã©nergie\x85b\x85") == (
        "Les marqueurs d’énergie\x85b\x85",
        REPAIR_MOJIBAKE,
    )


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_bomless_utf16_of_cjk_text_is_decoded(codec: str) -> None:
    # The reviewer's find: UTF-16 of CJK text has NUL bytes only for its ASCII characters,
    # here the line ends (under 1 % of its bytes): it was read as cp1252 mojibake.
    date = "２０２４年６月７日・出典：ｗｏｔｃ"
    first, second = JA_TEXT * 3, "装備品であるクリーチャーは、それ自身につけられることはない。" * 12
    text = "\n".join(
        ["公式裁定です。以下の翻訳は自動生成されたものです。", date, first, date, second]
    )
    content = (text + "\n").encode(codec)
    assert 0 < content.count(0) < 0.01 * len(content)
    tables = _read(content)
    assert tables["dumps"].select("encoding", "entry_count").rows() == [(codec, 2)]
    assert tables["ruling_occurrences"].sort("line_number")["text_raw"].to_list() == [
        first,
        second,
    ]


@pytest.mark.parametrize(
    ("content", "encoding", "reject"),
    [
        # a cp1252 file with a stray NUL: its reading as UTF-16 is rare ideographs
        ("Les marqueurs d’énergie.\n".encode("cp1252") * 4 + b"\x00x", "cp1252", None),
        # a Shift_JIS file with a stray NUL: its UTF-16 readings are no text
        (_dump("ja").encode("shift_jis").replace(b"Energy", b"\x00Energy") + b"\n", "cp932", None),
        # a real dump's ASCII date lines make more than 1 % NULs: rejected as before
        (
            _dump("ja").encode("utf-16-le"),
            None,
            "file has NUL bytes: binary, not a text dump",
        ),
    ],
    ids=["stray-nul", "shift-jis-stray-nul", "ascii-dates"],
)
def test_other_files_with_nul_bytes_are_read_as_before(
    content: bytes, encoding: str | None, reject: str | None
) -> None:
    decoded = decode_bytes(content)
    assert (decoded.encoding, decoded.reject_reason) == (encoding, reject)
