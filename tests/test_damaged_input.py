"""Damaged input keeps its good lines: control characters, cut UTF-8, unknown sources."""

from __future__ import annotations

import codecs
import datetime as dt

import charset_normalizer
import polars as pl
import pytest

from flows.stages.encodings import REPAIR_REPLACED
from flows.stages.mojibake import REPAIR_MOJIBAKE
from tests.conftest import (
    CASES_DIR,
    ROUND3_DIR,
    SEED_DIR,
    content_of,
    needs_cases,
    needs_round3,
    run_contents,
)

SEED = (SEED_DIR / "004_304d898eb3c4b8ca.txt").read_bytes()


def _run(*contents: bytes) -> dict[str, pl.DataFrame]:
    return run_contents({f"{i}.txt": content for i, content in enumerate(contents)}).tables


def test_cut_utf8_keeps_the_good_lines() -> None:
    # Seed 004 cut inside the "é" of its last line's "début": that line alone is rejected.
    cut = SEED[: SEED.rindex("é".encode()) + 1]
    tables = _run(cut)
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"]) == (
        "utf-8",
        "invalid UTF-8 bytes replaced by U+FFFD",
    )
    assert (dump["line_count"], dump["entry_count"], dump["rejected_line_count"]) == (32, 14, 1)
    assert tables["rejects"].select("line_number", "reason", "content").rows() == [
        (32, "line has 1 undecodable byte sequences (shown as U+FFFD)", "Au d\ufffd")
    ]
    stub = tables["card_stubs"].row(0, named=True)
    assert (stub["mana_value"], stub["text"], stub["language"]) == (2.0, None, None)


def test_damaged_body_line_is_rejected_with_its_entry() -> None:
    damaged = SEED.replace(b"Energy counters are a kind", b"Energy counters \xff\xfe a kind")
    tables = _run(damaged)
    # Line 9 is the only body of the entry of line 8: the entry goes to rejects whole.
    assert tables["rejects"].select("line_number", "reason").rows() == [
        (8, "every body line of the entry was rejected (see them below)"),
        (9, "line has 2 undecodable byte sequences (shown as U+FFFD)"),
    ]
    assert tables["dumps"]["rejected_line_count"].to_list() == [2]
    assert tables["ruling_occurrences"].height == 13


def test_control_characters_are_counted_in_the_dump_row() -> None:
    content = content_of("07 juin 2024 · source : wotc", "{E} is the energy\x07 symbol.\x1b")
    tables = _run(content)
    assert tables["dumps"]["control_char_count"].to_list() == [2]
    assert tables["ruling_occurrences"]["text_raw"].to_list() == ["{E} is the energy symbol."]


def test_unknown_source_is_kept_lowercased() -> None:
    content = content_of("07 juin 2024 · source : Scryfall", "{E} is the energy symbol.")
    assert _run(content)["ruling_occurrences"]["source"].to_list() == ["scryfall"]


# ---- Damaged and mixed encodings are never published as mojibake -----------------------

SEED_003 = (SEED_DIR / "003_321b63c5bd17bae4.txt").read_bytes()


def test_utf8_with_many_invalid_bytes_stays_utf8() -> None:
    # Issue 9: with 4 invalid bytes the whole file was re-read as ISO-8859-10
    # (`GÃĐnÃĐrÃĐe`, a ruling `Energy ĸĸĸĸ counters…`, 0 rejects, "mojibake repaired").
    damaged = SEED.replace(
        b"Energy counters are a kind", b"Energy \xa2\xa2\xa2\xa2 counters are a kind"
    )
    tables = _run(damaged)
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"]) == ("utf-8", REPAIR_REPLACED)
    assert "est générée automatiquement" in dump["header_text"]
    assert tables["rejects"].select("line_number", "reason").rows() == [
        (8, "every body line of the entry was rejected (see them below)"),
        (9, "line has 4 undecodable byte sequences (shown as U+FFFD)"),
    ]
    assert tables["ruling_occurrences"].height == 13


def test_part_utf8_part_cp1252_is_decoded_line_by_line() -> None:
    # Issue 9: two pastes joined (seed 004 as UTF-8, seed 003 as cp1252) were
    # decoded whole as ISO-8859-10 (`męme ā l'étape`, `trčs`).
    joined = SEED + SEED_003.decode("utf-8").encode("cp1252")
    tables = _run(joined)
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"]) == (
        "utf-8+cp1252",
        "decoded line by line: UTF-8 lines as utf-8, the others as cp1252",
    )
    apart = pl.concat([_run(SEED)["ruling_occurrences"], _run(SEED_003)["ruling_occurrences"]])
    assert sorted(tables["ruling_occurrences"]["text_raw"]) == sorted(apart["text_raw"])
    assert tables["rejects"].height == 0


def test_replaced_bytes_and_a_mojibake_repair_are_both_recorded() -> None:
    mojibake = "Les marqueurs d'énergie ne sont pas du mana.".encode().decode("cp1252")
    content = (
        "07 juin 2024 · source : wotc\nEnergy counters aren't mana.\n".encode()
        + mojibake.encode()
        + "\n07 juin 2024 · source : wotc\nEnergy counters \xa2 a kind.\n".encode()
        + b"Energy counters \xff\xfe a kind.\n"
    )
    tables = _run(content)
    assert tables["dumps"]["encoding_repair"].to_list() == [f"{REPAIR_REPLACED}; {REPAIR_MOJIBAKE}"]
    assert tables["ruling_translations"]["text"].to_list() == [
        "Les marqueurs d'énergie ne sont pas du mana."
    ]


@needs_cases
def test_c17_macroman_mojibake_is_repaired() -> None:
    tables = _run((CASES_DIR / "c17_macroman_mojibake.txt").read_bytes())
    assert tables["dumps"].select("encoding", "encoding_repair").rows() == [
        ("utf-8", REPAIR_MOJIBAKE)
    ]
    assert tables["ruling_translations"]["text"].to_list() == [
        "Les marqueurs d'énergie ne sont pas du mana. Ils ne disparaissent pas à la fin des étapes."
    ]


@pytest.mark.parametrize(
    ("header", "date_line", "translation", "via"),
    [
        # real card texts (MTGJSON) whose one mojibake pair ftfy's measure passes
        ("Aclaraciones oficiales.", "7 jun 2024 · fuente: wotc",
         "Esa habilidad se dispara una vez más.", "mac_roman"),
        ("Esclarecimentos oficiais.", "7 de jun. de 2024 · fonte: wotc",
         "Esta mágica custa {1} a menos se um oponente não controla um terreno básico.",
         "mac_roman"),
        ("Offizielle Erläuterungen.", "7. Juni 2024 · Quelle: wotc",
         "Übergehe Dein Ziehsegment. Zahle 1 Lebenspunkt: Ziehe eine Karte.", "mac_roman"),
        ("Offizielle Erläuterungen.", "7. Juni 2024 · Quelle: wotc",
         "Bestimme einen Kreaturentyp. Ziehe für jede bleibende Karte eine Karte.", "cp1251"),
        ("Chiarimenti ufficiali.", "7 giugno 2024 · fonte: wotc",
         "Puoi giocare questa carta a faccia in giù come una creatura 2/2.", "mac_roman"),
        ("Официальные разъяснения.", "7 июн. 2024 г. · источник: wotc",
         "Полет. Каждый раз, когда другой Дух выходит на поле битвы, вы получаете 2 жизни.",
         "mac_roman"),
    ],
    ids=["es", "pt", "de", "de-cp1251", "it", "ru"],
)  # fmt: skip
def test_mojibake_of_each_site_language_is_repaired(
    header: str, date_line: str, translation: str, via: str
) -> None:
    # The kind of case c17 (fr) in the other languages: `m√°s`, `n√£o`, `√úbergehe` and
    # `gi√π` were published as they were (ftfy's measure finds one pair no mojibake),
    # Russian `–ü–æ–ª–µ—Ç` was left with "look like mojibake"; Windows-1251's `fГјr` too.
    mojibake = translation.encode().decode(via)
    content = f"{header}\n{date_line}\nEnergy counters aren't mana.\n{mojibake}\n".encode()
    tables = _run(content)
    assert tables["dumps"]["encoding_repair"].to_list() == [REPAIR_MOJIBAKE]
    assert tables["ruling_translations"]["text"].to_list() == [translation]


@needs_cases
def test_c18_cp850_german_is_read_as_cp850() -> None:
    tables = _run((CASES_DIR / "c18_cp850_german.txt").read_bytes())
    assert tables["dumps"].select("encoding", "encoding_repair", "rejected_line_count").rows() == [
        ("cp850", None, 0)
    ]
    assert tables["ruling_occurrences"].select("published_on", "text_raw").rows() == [
        (
            dt.date(2024, 3, 7),
            "Energy counters aren't mana. They don't go away as steps, phases, and turns end.",
        )
    ]
    assert tables["ruling_translations"].select("language", "text").rows() == [
        ("de", "Energiemarken sind kein Mana, außer für die Größe des Effekts.")
    ]


#: A French dump (UTF-8) as a fresh review built it: three valid é and two ·.
REVIEW_HEAD = (
    "Clarifications officielles. La traduction est générée automatiquement.\n"
    "07 juin 2024 · source : wotc\nEnergy counters are not mana.\n"
    "07 juin 2024 · source : wotc\n"
).encode()
#: Its first line: a French header.
REVIEW_HEADER = REVIEW_HEAD.split(b"\n")[0] + b"\n"


@pytest.mark.parametrize(
    "junk", [bytes(range(0xFF, 0xF9, -1)), bytes(range(0xFF, 0xF6, -1))], ids=["six", "nine"]
)
def test_a_run_of_damaged_bytes_is_one_damaged_spot(junk: bytes) -> None:
    # Six bytes outvoted the five valid sequences: the file was read as iso8859_2
    # ("gĂŠnĂŠrĂŠe", "mojibake repaired"), nine as utf-8+cp1251 ("яюэьыъщшч" published).
    tables = _run(REVIEW_HEAD + b"Energy " + junk + b" counters are fine.\n")
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"]) == ("utf-8", REPAIR_REPLACED)
    assert dump["header_text"].endswith("est générée automatiquement.")
    assert tables["ruling_occurrences"]["text_raw"].to_list() == ["Energy counters are not mana."]
    assert tables["rejects"].filter(pl.col("stage") == "parse").height == 2  # head + damaged body


def test_french_cp1252_lines_after_utf8_ones_are_decoded_line_by_line() -> None:
    # charset-normalizer guessed mac_latin2 for the cp1252 lines, and all of them were rejected.
    entries = [
        "Même à l'étape de début, c'est très évident pour le joueur.",
        "Le jeton créé entre sur le champ de bataille engagé et attaquant.",
    ]
    utf8 = "".join(f"07 juin 2024 · source : wotc\n{e}\n" for e in entries)
    header = REVIEW_HEADER
    tables = _run(header + utf8.encode() + utf8.encode("cp1252"))
    dump = tables["dumps"].row(0, named=True)
    assert dump["encoding"] == "utf-8+cp1252"
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [*entries, *entries]
    assert tables["rejects"].height == 0


@pytest.mark.parametrize(
    ("code_page", "line"),
    [
        ("cp1252", "Les marqueurs d’énergie ne sont associés à aucun permanent."),
        ("cp850", "Os marcadores de energia não estão associados a nenhuma permanente."),
        ("cp850", "I segnalini energia può avere; non sono associati a nessun permanente."),
        ("cp1252", "Energiezähler gehören zu keiner bleibenden Karte."),
    ],
    ids=["fr cp1252 (case r03)", "pt cp850", "it cp850", "de cp1252"],
)
def test_a_legacy_line_is_read_in_the_code_page_of_real_words(code_page: str, line: str) -> None:
    # cp850 read as hp_roman8 published `nóo estóo`; cp1252 read as cp850 `dÆÚnergie`.
    head = "07 juin 2024 · source : wotc\nEnergy counters aren't mana.\n".encode()
    tables = _run(REVIEW_HEADER + head + line.encode(code_page) + b"\n")
    assert tables["dumps"]["encoding"].to_list() == [f"utf-8+{code_page}"]
    assert tables["ruling_translations"]["text"].to_list() == [line]


def test_a_legacy_line_that_reads_as_no_words_is_rejected() -> None:
    head = "07 juin 2024 · source : wotc\nEnergy counters aren't mana.\n".encode()
    good = "Les marqueurs d’énergie ne sont associés à aucun permanent.\n".encode("cp1252")
    junk = "Xqéàv ñôwü ÆÆkÆ.\n".encode("cp1252")  # no word of any language read
    tables = _run(REVIEW_HEADER + head + good + junk)
    assert tables["dumps"]["encoding"].to_list() == ["utf-8+cp1252"]
    rejects = tables["rejects"].filter(pl.col("stage") == "parse")
    assert rejects["line_number"].to_list() == [5]
    assert "undecodable" in rejects["reason"].item()


SPANISH = "Los contadores de energía son un tipo de contador; así, un jugador puede tenerlos."
SPANISH_2 = "Un jugador no puede pagar más energía de la que tiene; así lo dicen las reglas."
FRENCH = "Les marqueurs d'énergie ne sont associés à aucun permanent, même après."


@pytest.mark.parametrize(
    ("first", "second", "encoding"),
    [
        ((SPANISH, "cp850"), (FRENCH, "cp1252"), "utf-8+cp850+cp1252"),
        ((SPANISH, "cp1252"), (FRENCH, "cp850"), "utf-8+cp1252+cp850"),
        ((SPANISH, "cp1252"), (SPANISH_2, "cp850"), "utf-8+cp1252+cp850"),
    ],
)
def test_legacy_lines_of_two_editors_each_take_their_code_page(
    first: tuple[str, str], second: tuple[str, str], encoding: str
) -> None:
    # Reviews: one code page for both (the Spanish cp850 line published as
    # `energ¡a … as¡`), then mac_roman for both when neither page read both lines.
    head = "Aclaraciones oficiales. La traducción ES.\n7 de junio de 2024 · fuente: wotc\n"
    content = (head + "Energy counters aren't mana.\n").encode()
    legacy = b"".join(text.encode(page) + b"\n" for text, page in (first, second))
    tables = _run(content + legacy)
    assert tables["dumps"]["encoding"].to_list() == [encoding]
    assert tables["ruling_translations"]["text"].to_list() == [first[0], second[0]]


def test_a_mac_roman_line_whose_bytes_are_utf8_by_chance_is_read() -> None:
    # Case r03's kind with a MacRoman line: `’é` is D5 8E, valid UTF-8 (Armenian `Վ`), and
    # the line was read as damaged UTF-8 and rejected. Case r03's FR_A, typographic quotes.
    fr_a = (
        "Les marqueurs d’énergie sont un type de marqueur qu’un joueur peut avoir. "
        "Ils ne sont associés à aucun permanent."
    )
    head = (
        "Clarifications officielles. La traduction FR ci-dessous.\n07 juin 2024 · source : wotc\n"
    )
    content = (head + "Energy counters aren't mana.\n").encode() + fr_a.encode("mac_roman")
    tables = _run(content + b"\n")
    assert tables["dumps"]["encoding"].to_list() == ["utf-8+mac_roman"]
    assert tables["ruling_translations"].select("language", "text").rows() == [("fr", fr_a)]
    assert tables["rejects"].height == 0


def test_a_legacy_line_is_not_read_in_a_script_the_dump_does_not_write() -> None:
    # A fresh review: these bytes were read as cp1251 `дц ск гщ зл оы` (three Russian
    # words) and published as a ruling in an English dump.
    head = (
        "Official rulings from Wizards of the Coast, as published.\n07 June 2024 · source: wotc\n"
    )
    content = head.encode() + bytes.fromhex("e4f620f1ea20e3f920e7eb20eefb") + b"\n"
    tables = _run("Énergie first. ".encode() + content)
    assert tables["ruling_occurrences"].height == 0
    assert tables["rejects"].filter(pl.col("stage") == "parse")["line_number"].to_list() == [2, 3]


def test_one_good_line_against_one_damaged_line_stays_utf8() -> None:
    # A fresh review: the tie went to mac_roman and `If a spell ˇ˛˝¸˚˙ has targets, pay.`
    # was published as an English ruling with no reject.
    content = "07 juin 2024 · source : wotc\n".encode() + (
        b"If a spell \xff\xfe\xfd\xfc\xfb\xfa has targets, pay.\n"
    )
    tables = _run(content)
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"]) == ("utf-8", REPAIR_REPLACED)
    assert tables["ruling_occurrences"].height == 0
    assert tables["rejects"].filter(pl.col("stage") == "parse").height == 2


def test_ascii_is_never_read_as_ebcdic() -> None:
    # CI's property test found it: after UTF-16 (read only with a BOM), charset-normalizer's
    # next guess for these two bytes is cp037 (EBCDIC), under which `%` is a line break:
    # one line of bytes was read as two.
    content = b"%\x80"
    assert [m.encoding for m in charset_normalizer.from_bytes(content)][:2] == [
        "utf_16_le",
        "cp037",
    ]
    dump = _run(content)["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["line_count"], dump["header_text"]) == ("cp1252", 1, "%€")


@pytest.mark.parametrize(
    "escaped",
    ["&lt;br&gt;", "&lt;br /&gt;", "&#60;br&#62;", "\\n", "\\r\\n"],
    ids=["br", "br /", "br by number", "\\n", "\\r\\n"],
)
def test_an_escaped_line_break_keeps_the_ruling_of_its_clean_twin(escaped: str) -> None:
    # A probe (case r05's kind): `may have.&lt;br&gt;They're` and a JSON paste's `\n` were
    # published as written, a ruling of their own beside the clean text's.
    clean = (
        "Energy counters are a kind of counter that a player may have. "
        "They're not associated with any specific permanents."
    )
    head = "June 7, 2024 · source: wotc"
    twin = clean.replace(" They're", f"{escaped}They're")
    tables = _run(content_of(head, clean), content_of(head, twin))
    occurrences = tables["ruling_occurrences"]
    assert occurrences["text_raw"].to_list() == [clean, clean]
    assert occurrences["ruling_id"].n_unique() == 1
    assert tables["rulings"]["text"].to_list() == [clean]


@pytest.mark.parametrize("byte_order", ["little", "big"])
def test_utf32_with_a_bom_is_read(byte_order: str) -> None:
    # A probe: UTF-32 with its BOM was rejected ("file has NUL bytes"); its little-endian
    # BOM starts with UTF-16's, which read it as `0\x00…`.
    text = "07 juin 2024 · source : wotc\nEnergy counters aren't mana.\n"
    codec, bom = {
        "little": ("utf-32-le", b"\xff\xfe\x00\x00"),
        "big": ("utf-32-be", b"\x00\x00\xfe\xff"),
    }[byte_order]
    tables = _run(bom + text.encode(codec))
    assert tables["dumps"].select("encoding", "encoding_repair").rows() == [("utf-32", None)]
    assert tables["ruling_occurrences"]["text_raw"].to_list() == ["Energy counters aren't mana."]


def test_a_stray_nul_byte_is_a_control_character() -> None:
    # A probe: one NUL byte in seed 004 rejected the whole file ("file has NUL bytes:
    # binary, not a text dump"), its 14 entries lost; it is removed from its line now
    stray = SEED.replace(b"Energy counters are a kind", b"Energy counters are\x00 a kind", 1)
    tables = _run(SEED, stray)
    assert tables["rejects"].height == 0
    dumps = tables["dumps"].sort("path")
    assert dumps.select("encoding", "entry_count", "control_char_count").rows() == [
        ("utf-8", 14, 0),
        ("utf-8", 14, 1),
    ]
    occurrences = tables["ruling_occurrences"].sort("dump_id", "line_number")
    by_dump = occurrences.group_by("dump_id", maintain_order=True).agg("ruling_id")
    assert by_dump["ruling_id"][0].to_list() == by_dump["ruling_id"][1].to_list()


def test_a_file_of_many_nul_bytes_is_binary() -> None:
    # UTF-16 without its BOM: every ASCII character has a NUL byte
    tables = _run("07 juin 2024 · source : wotc\nEnergy counters.\n".encode("utf-16-le"))
    assert tables["rejects"].select("reason").rows() == [
        ("file has NUL bytes: binary, not a text dump",)
    ]


@needs_round3
def test_a_bom_before_a_utf8_file_with_a_cp1252_line() -> None:
    # A probe (r03 and c03's kinds): Notepad's BOM before case r03 read the file as
    # UTF-8 with damaged bytes, its cp1252 line (the fr translation) rejected
    r03 = (ROUND3_DIR / "r03_utf8_with_cp1252_line.txt").read_bytes()
    tables = _run(r03, codecs.BOM_UTF8 + r03)
    assert tables["dumps"].sort("path")["encoding"].to_list() == [
        "utf-8+cp1252",
        "utf-8-sig+cp1252",
    ]
    translations = tables["ruling_translations"].sort("dump_id")
    assert translations.select("line_number", "language").rows() == [(4, "fr"), (4, "fr")]
    assert translations["text"].n_unique() == 1
    assert tables["rejects"].height == 0
