"""read: bytes to text to numbered lines, nothing dropped."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.disk.raw import list_dump_paths, load_raw_dumps
from flows.errors import RawDirError
from flows.stages.decode import decode_dumps, hash_dumps, split_readable_dumps
from flows.stages.encodings import (
    REPAIR_PER_LINE,
    REPAIR_REPLACED,
    DecodedDump,
    decode_bytes,
)
from flows.stages.mojibake import REPAIR_MOJIBAKE
from tests.conftest import CASES_DIR, SEED_DIR, files_of, lines_of

SEED_HEADER = (
    "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous est générée "
    "automatiquement (IA) — l'original anglais reste la source de vérité."
)
SEED_DATE = "07 juin 2024 · source : wotc"


def _lines(content: bytes) -> list[str]:
    raw = pl.DataFrame({"path": ["t.txt"], "content": [content]})
    return lines_of(raw)["line"].to_list()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (f"{SEED_HEADER}\n{SEED_DATE}\n".encode(), [SEED_HEADER, SEED_DATE]),
        (f"{SEED_HEADER}\r\n{SEED_DATE}\r\n".encode(), [SEED_HEADER, SEED_DATE]),
        (f"{SEED_HEADER}\r{SEED_DATE}".encode(), [SEED_HEADER, SEED_DATE]),
        (b"\xef\xbb\xbf" + f"{SEED_HEADER}\n{SEED_DATE}".encode(), [SEED_HEADER, SEED_DATE]),
        (f"{SEED_HEADER}\n\n\n{SEED_DATE}\n\n".encode(), [SEED_HEADER, "", "", SEED_DATE, ""]),
        (b"", []),
        (b"\n", [""]),
    ],
    ids=["lf", "crlf", "lone-cr-no-final-newline", "utf8-bom", "blank-lines", "empty", "one-blank"],
)
def test_split_lines_keeps_every_line(content: bytes, expected: list[str]) -> None:
    assert _lines(content) == expected


def test_line_numbers_are_per_dump_and_one_based() -> None:
    raw = pl.DataFrame({"path": ["a.txt", "b.txt"], "content": [b"x\ny\n", b"z\n"]})
    lines = lines_of(raw).select("line_number", "line")
    assert lines.sort("line").rows() == [(1, "x"), (2, "y"), (1, "z")]


GERMAN = "Wenn ein Spieler für die Kosten bezahlt, erhält er einen Energiezähler. Größe: 3"


JA_SITE = "ウィザーズ・オブ・ザ・コーストの公式裁定です。\n2024年6月7日・出典：wotc\n{E} is the energy symbol."
ZH_SITE = "威世智官方规则释疑。以下ZH译文为机器自动生成，以英文原文为准。\n能量指示物是玩家可具有的一种指示物。"
TW_SITE = "威世智官方規則釋疑。以下ZH譯文為機器自動生成，以英文原文為準。\n能量指示物是玩家可具有的一種指示物。"
KO_SITE = "위저드 오브 더 코스트의 공식 규칙 해설입니다. 아래 KO 번역은 자동으로 생성되었습니다.\n2024년 6월 7일 · 출처: wotc"


@pytest.mark.parametrize(
    ("text", "codec", "encoding"),
    [
        (JA_SITE, "shift_jis", "cp932"),
        (ZH_SITE, "gbk", "gb18030"),
        (TW_SITE, "big5", "big5"),
        (KO_SITE, "euc_kr", "cp949"),
        ("Правило: энергия — это счётчик игрока.", "cp1251", "cp1251"),
    ],
    ids=["shift-jis", "gbk", "big5", "euc-kr", "cp1251"],
)
def test_legacy_cjk_and_cyrillic_code_pages(text: str, codec: str, encoding: str) -> None:
    assert decode_bytes(text.encode(codec)) == DecodedDump(text, encoding, None, None)


def test_a_lone_c1_control_is_no_mojibake() -> None:
    text = "{E} is the energy symbol.\x85 It represents one energy counter."
    assert decode_bytes(text.encode()) == DecodedDump(text, "utf-8", None, None)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (SEED_HEADER.encode(), DecodedDump(SEED_HEADER, "utf-8", None, None)),
        (b"\xef\xbb\xbf" + SEED_HEADER.encode(), DecodedDump(SEED_HEADER, "utf-8-sig", None, None)),
        (SEED_HEADER.encode("utf-16"), DecodedDump(SEED_HEADER, "utf-16", None, None)),
        (SEED_HEADER.encode("cp1252"), DecodedDump(SEED_HEADER, "cp1252", None, None)),
        (GERMAN.encode("cp1252"), DecodedDump(GERMAN, "cp1252", None, None)),
        (
            SEED_HEADER.encode().decode("cp1252").encode(),
            DecodedDump(SEED_HEADER, "utf-8", REPAIR_MOJIBAKE, None),
        ),
        (
            SEED_HEADER.encode()[:-2],
            DecodedDump(SEED_HEADER[:-2] + "\ufffd", "utf-8", REPAIR_REPLACED, None),
        ),  # é cut
        (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            DecodedDump(None, None, None, "file has NUL bytes: binary, not a text dump"),
        ),
        (
            b"\x01\x02\x03 abc \x04\x05",
            DecodedDump(
                None,
                "utf-8",
                None,
                "5 of 10 characters are control characters or undecodable: not a text dump",
            ),
        ),
    ],
    ids=[
        "utf8",
        "utf8-bom",
        "utf16-bom",
        "cp1252-fr",
        "cp1252-de",
        "mojibake",
        "truncated-utf8",
        "png",
        "control-noise",
    ],
)
def test_decode_bytes(content: bytes, expected: DecodedDump) -> None:
    assert decode_bytes(content) == expected


def test_control_characters_are_removed_and_counted() -> None:
    raw = pl.DataFrame(
        {"path": ["t.txt"], "content": [f"{SEED_DATE}\x07\nA\x1bB\x00".encode()[:-1]]}
    )
    lines = lines_of(raw)
    assert lines.select("line", "control_char_count").rows() == [(SEED_DATE, 1), ("AB", 1)]


def test_unreadable_file_is_rejected_whole(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(f"{SEED_DATE}\n".encode())
    (tmp_path / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    readable, rejects = split_readable_dumps(files_of(load_raw_dumps(tmp_path)))
    assert readable["path"].to_list() == ["a.txt"]
    assert rejects.select("stage", "reason", "content").rows() == [
        ("read", "file has NUL bytes: binary, not a text dump", "image.txt")
    ]


def test_files_in_linked_folders_are_read_only_inside_raw(tmp_path: Path) -> None:
    raw, outside = tmp_path / "raw", tmp_path / "outside"
    (raw / "sub").mkdir(parents=True)
    outside.mkdir()
    (raw / "sub" / "a.txt").write_bytes(f"{SEED_DATE}\n".encode())
    (outside / "b.txt").write_bytes(b"secret\n")
    (raw / "inner").symlink_to(raw / "sub")
    (raw / "outer").symlink_to(outside)
    (raw / "sub" / "alias.txt").symlink_to("a.txt")
    paths = ["sub/a.txt", "inner/a.txt", "sub/alias.txt", "outer/b.txt", "sub/gone.txt"]
    loaded = load_raw_dumps(raw, paths, max_file_bytes=1 << 20)
    date = f"{SEED_DATE}\n".encode()
    assert loaded.rows() == [
        ("inner/a.txt", date, None),
        ("outer/b.txt", None, "symlink to a file outside the raw dir: not read"),
        ("sub/a.txt", date, None),
        ("sub/alias.txt", date, None),
        ("sub/gone.txt", None, "file removed from the raw dir while the run read it: not read"),
    ]


def test_a_file_over_the_limit_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x" * 100)
    (tmp_path / "b.txt").write_bytes(b"x" * 99)
    loaded = load_raw_dumps(tmp_path, max_file_bytes=99)
    assert loaded.rows() == [
        ("a.txt", None, "file is 100 bytes, over the 99-byte size limit: not read"),
        ("b.txt", b"x" * 99, None),
    ]


def test_byte_identical_files_are_read_once(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x\n")
    (tmp_path / "b.txt").write_bytes(b"x\n")
    (tmp_path / "c.txt").write_bytes(b"y\n")
    unique, rejects = split_readable_dumps(files_of(load_raw_dumps(tmp_path)))
    assert unique["path"].to_list() == ["a.txt", "c.txt"]
    assert_frame_equal(
        rejects.select("line_number", "stage", "reason", "content"),
        pl.DataFrame(
            {
                "line_number": pl.Series([None], dtype=pl.Int64),
                "stage": ["read"],
                "reason": ["file has the same bytes as a.txt; its lines are read once, there"],
                "content": ["b.txt"],
            }
        ),
    )


def test_list_dump_paths_sorted_recursive_and_txt_only(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("b.txt", "sub/a.txt", "a.txt", "notes.md"):
        (tmp_path / name).write_text("x")
    assert list_dump_paths(tmp_path) == [
        "a.txt",
        "b.txt",
        "sub/a.txt",
    ]


def test_list_dump_paths_errors(tmp_path: Path) -> None:
    with pytest.raises(RawDirError, match="does not exist"):
        list_dump_paths(tmp_path / "missing")
    with pytest.raises(RawDirError, match=r"holds no dump file \(expected \*\.txt\)"):
        list_dump_paths(tmp_path)


def test_windows_1251_mojibake_is_repaired() -> None:
    # Issue 10: UTF-8 Russian read as Windows-1251 (`РњР°СЂРєРµСЂС‹`) stayed unreadable.
    text = "07 июня 2024 г. · источник: wotc\nМаркеры энергии не являются маной.\n"
    mojibake = text.encode().decode("cp1251")
    assert mojibake.startswith("07 РёСЋРЅСЏ")
    assert decode_bytes(mojibake.encode()) == DecodedDump(text, "utf-8", REPAIR_MOJIBAKE, None)


def test_no_repair_is_claimed_when_mojibake_remains() -> None:
    fixable = "Les marqueurs d'énergie ne sont pas du mana.".encode().decode("cp1252")
    stuck = "d'√©nergie — 日本語"  # MacRoman mojibake ftfy cannot undo beside CJK
    decoded = decode_bytes(f"{fixable}\n{stuck}\n".encode())
    assert decoded == DecodedDump(
        f"Les marqueurs d'énergie ne sont pas du mana.\n{stuck}\n",
        "utf-8",
        "mojibake repaired (ftfy) in 1 line(s); 1 line(s) still look like mojibake, not repaired",
        None,
    )


@pytest.mark.parametrize(
    ("text", "repair"),
    [
        (
            "Les marqueurs d'Ã©nergie Ã©Ã©Ã\n",
            "1 line(s) look like mojibake; ftfy could not repair them",
        ),
        ("CéléritéÀ chaque fois qu'une autre créature meurt.\n", None),
    ],
    ids=["cp1252-pair-left", "real-card-text-ftfy-finds-bad"],
)
def test_text_ftfy_cannot_repair_is_left_as_written(text: str, repair: str | None) -> None:
    assert decode_bytes(text.encode()) == DecodedDump(text, "utf-8", repair, None)


def test_a_legacy_line_of_damaged_bytes_is_not_decoded_as_cp1252() -> None:
    # \xff\xfe would read as cp1252 `ÿþ`: not letters of the languages read, so
    # the file stays UTF-8 with damaged bytes, not a UTF-8 + cp1252 paste.
    content = f"{SEED_HEADER}\n{SEED_DATE}\n".encode() + b"Energy counters \xff\xfe a kind.\n"
    assert decode_bytes(content) == DecodedDump(
        f"{SEED_HEADER}\n{SEED_DATE}\nEnergy counters \ufffd\ufffd a kind.\n",
        "utf-8",
        REPAIR_REPLACED,
        None,
    )


def test_cp850_is_preferred_to_cp852_when_date_lines_parse_only_under_it() -> None:
    text = "7. März 2024 · Quelle: wotc\nEnergiemarken sind kein Mana, außer für die Größe des Effekts.\n"
    assert decode_bytes(text.encode("cp850")) == DecodedDump(text, "cp850", None, None)


@pytest.mark.parametrize(
    "content", [b"\n\x80", b"\x80\n", b"ab\xff"], ids=["lf-then-byte", "byte-then-lf", "odd"]
)
def test_bytes_without_a_bom_are_never_read_as_utf16(content: bytes) -> None:
    # Found by tests/test_properties.py: charset-normalizer guessed utf_16_le for
    # b"\n\x80", so 2 raw lines were published as the one character "耊".
    decoded = decode_bytes(content)
    assert decoded.encoding is not None
    assert not decoded.encoding.startswith("utf_16")
    assert decoded.text is not None
    assert len(decoded.text.splitlines()) == len(content.splitlines())


def _odd_contents() -> list[bytes]:
    """Seeds, field-fault cases, and each seed saved or damaged in the ways decoding handles."""
    seeds = [p.read_bytes() for p in sorted(SEED_DIR.glob("*.txt"))]
    cases = [p.read_bytes() for p in sorted(CASES_DIR.glob("*.txt"))] if CASES_DIR.is_dir() else []
    odd = [
        b"",
        b"\n",
        b"\x01\x02\x03\x04\x05x\n",
        "\ufffd\ufffd\ufffdab".encode(),
        "\u2018quoted\u2019 \u201cwords\u201d \u00c9t\u00e9\n".encode(),
    ]
    for seed in seeds:
        text = seed.decode("utf-8")
        odd += [
            b"\xef\xbb\xbf" + seed,  # BOM
            text.encode("utf-16"),
            seed + b"\x00",
            seed.replace(b"\xc3\xa9", b"\xe9"),  # a cp1252 paste inside UTF-8
            text.encode("utf-8").decode("cp1252", errors="replace").encode("utf-8"),  # mojibake
            text.encode("utf-8").decode("mac_roman").encode("utf-8"),
            seed + "\u0085 \ufffd \u00e9\u00a6\n".encode(),  # C1, U+FFFD, a badness pair
            seed + b"\x01\x02",
        ]
    return seeds + cases + odd


def test_decode_dumps_gives_decode_bytes_answer_for_every_file() -> None:
    contents = _odd_contents()
    hashed = hash_dumps(
        pl.DataFrame(
            {"path": [f"{i:03}.txt" for i in range(len(contents))], "content": contents},
            schema={"path": pl.String, "content": pl.Binary},
        )
    )
    firsts = hashed.unique("dump_id", keep="first").sort("dump_id")
    expected = pl.DataFrame(
        [
            (dump_id, d.encoding, d.repair, d.reject_reason, d.text)
            for dump_id, d in zip(
                firsts["dump_id"], map(decode_bytes, firsts["content"]), strict=True
            )
        ],
        schema=["dump_id", "encoding", "encoding_repair", "reject_reason", "text"],
        orient="row",
    )
    decoded = decode_dumps(hashed)
    assert_frame_equal(decoded, expected)
    assert decoded["encoding_repair"].drop_nulls().len() > 5  # the repairs were exercised
    assert decoded["encoding"].n_unique() >= 4


def test_legacy_lines_of_two_code_pages_beside_utf8_are_each_read() -> None:
    """A fuzz of the field cases' lines: a cp437/cp850 German line (`f\\x81r`: cp1252 has
    no 0x81) and a cp1252 French line beside a UTF-8 head stopped the run with
    UnicodeDecodeError while the dump's code pages were ranked."""
    german = "Energiemarken sind kein Mana, außer für die Größe des Effekts.\n"
    french = "Les marqueurs d’énergie ne sont associés à aucun permanent.\n"
    head = "07 juin 2024 · source : wotc\n"
    content = german.encode("cp850") + french.encode("cp1252") + head.encode()
    assert b"f\x81r" in content
    assert decode_bytes(content) == DecodedDump(
        german + french + head,
        "utf-8+cp850+cp1252",
        REPAIR_PER_LINE.format(code_page="cp850+cp1252"),
        None,
    )
