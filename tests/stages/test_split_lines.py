"""read.split_lines: invisible format characters and markup are removed and counted."""

from __future__ import annotations

import polars as pl
import pytest

from tests.conftest import dump_of, lines_of

DATE = "07 juin 2024 · source : wotc"
R1 = "Energy counters aren't mana."


@pytest.mark.parametrize(
    ("written", "line", "format_chars"),
    [
        (DATE.replace(" · ", " ·\ufeff "), DATE, 1),  # BOM inside a line
        ("07 juin 2024\u200b · source : wotc", DATE, 1),  # zero-width space after the date
        ("Equip\u00adment", "Equipment", 1),  # soft hyphen
        ("a\u200cb\u200dc\u2060d", "abcd", 3),  # ZWNJ, ZWJ, word joiner
        ("\u200e\u200f\u202a\u202b\u202c\u202d\u202eX", "X", 7),  # bidi marks, embeddings
        ("\u2066\u2067\u2068\u2069X", "X", 4),  # bidi isolates
        ("\u00a0no-break spaces stay\u202f", "\u00a0no-break spaces stay\u202f", 0),
    ],
    ids=["bom-mid", "zwsp", "soft-hyphen", "joiners", "bidi", "isolates", "nbsp"],
)
def test_format_characters_are_removed_and_counted(
    written: str, line: str, format_chars: int
) -> None:
    lines = lines_of(dump_of(written))
    assert lines.select("line", "format_char_count", "markup_count").rows() == [
        (line, format_chars, 0)
    ]


@pytest.mark.parametrize(
    ("end", "last"),
    [
        ("\r\n", "\r\n"), ("\r", "\r"), ("\u2028", "\u2028"), ("\u2029", "\u2029"),
        ("\x0b", "\x0b"), ("\x0c", "\x0c"), ("\x85", "\x85"), ("\x0b", "\n"), ("\u2028", "\r\n"),
    ],
    ids=["crlf", "cr", "ls", "ps", "vt", "ff", "nel", "vt-then-lf", "ls-then-crlf"],
)  # fmt: skip
def test_unicode_line_breaks_end_lines(end: str, last: str) -> None:
    """A dump pasted with line or paragraph separators (web text), or with VT (a word
    processor's line break), FF or NEL and no other line end but a final one (as an
    editor adds), keeps its lines: it was one header line, its entries lost."""
    content = ("Header" + end + DATE + end + R1 + last).encode()
    lines = lines_of(pl.DataFrame({"path": ["t.txt"], "content": [content]}))
    assert lines.select("line_number", "line", "control_char_count").rows() == [
        (1, "Header", 0),
        (2, DATE, 0),
        (3, R1, 0),
    ]


def test_vt_and_ls_both_end_lines_in_a_text_without_lf() -> None:
    lines = lines_of(dump_of("Header\x0b" + DATE + "\x0b" + R1 + "\u2028" + DATE, R1, end="\x0b"))
    assert lines["line"].to_list() == ["Header", DATE, R1, DATE, R1]


def test_line_separators_end_lines_beside_lf() -> None:
    """LS and PS are Unicode's line and paragraph separators: they end lines in a text
    whose header lines end with LF too (its entries were one malformed line)."""
    lines = lines_of(dump_of("Header", f"{DATE}\u2028{R1}\u2029{DATE}", R1))
    assert lines["line"].to_list() == ["Header", DATE, R1, DATE, R1]


@pytest.mark.parametrize("inside", ["\x0b", "\x0c"], ids=["vt", "ff"])
def test_a_stray_vt_or_ff_in_a_text_with_lf_is_a_space(inside: str) -> None:
    """Inside a head or a ruling of a text whose lines end with LF, VT (a word processor's
    line break) and FF are a space, counted as control characters: the head and the
    ruling stay whole (`can\vbe` was `canbe`)."""
    head = f"07 juin 2024{inside}· source : wotc"
    ruling = f"X can{inside}be zero."
    lines = lines_of(dump_of("Header", head, ruling))
    assert lines.select("line_number", "line", "control_char_count").rows() == [
        (1, "Header", 0),
        (2, head.replace(inside, " "), 1),
        (3, ruling.replace(inside, " "), 1),
    ]


def test_nel_in_a_text_with_lf_is_removed() -> None:
    """U+0085 there is more often cp1252's `…` read as Latin-1: removed and counted."""
    lines = lines_of(dump_of("Header", "Energy\x85 counters"))
    assert lines.select("line", "control_char_count").rows() == [
        ("Header", 0),
        ("Energy counters", 1),
    ]


def test_bom_of_a_joined_file_is_removed_and_counted() -> None:
    """A BOM opening the file is the encoding's (utf-8-sig); one opening line 3 is counted."""
    lines = lines_of(dump_of("\ufeffHeader", DATE, "\ufeff" + DATE))
    assert lines.select("line", "format_char_count").rows() == [
        ("Header", 0),
        (DATE, 0),
        (DATE, 1),
    ]


@pytest.mark.parametrize(
    ("written", "line", "markup"),
    [
        ("- " + DATE, DATE, 1),
        ("* " + DATE, DATE, 1),
        ("• " + DATE, DATE, 1),
        ("1. " + DATE, DATE, 1),
        ("12) " + DATE, DATE, 1),
        ("1. 7. Juni 2024 · Quelle: wotc", "7. Juni 2024 · Quelle: wotc", 1),
        ("7. Juni 2024 · Quelle: wotc", "7. Juni 2024 · Quelle: wotc", 0),  # a day, no bullet
        (f"<p>{DATE}</p>", DATE, 2),
        (f"{DATE}<br>", DATE, 1),
        (f"<li class='r'>{DATE}</li>", DATE, 2),
        ("07 juin 2024&nbsp;&middot; source : wotc", DATE, 2),
        (f"<p>{R1}<br/></p>", R1, 3),
        ("Tom &amp; Jerry &lt;3", "Tom & Jerry <3", 2),
        ("- Energy counters aren't mana.", "- Energy counters aren't mana.", 0),  # no head
        ("• Choose one —", "• Choose one —", 0),  # card text keeps its bullet
        (f"**{DATE}**", DATE, 1),  # Markdown emphasis and headings around a head
        ("**07 juin 2024** · source : wotc", DATE, 1),
        (f"_{DATE}_", DATE, 1),
        (f"### {DATE}", DATE, 1),
        ("- le 7 juin 2024 · source : wotc", "le 7 juin 2024 · source : wotc", 1),
        ("**Flying** is a keyword.", "**Flying** is a keyword.", 0),  # not around a head
        ("*Each* player loses 2 life.", "*Each* player loses 2 life.", 0),
        ("## Rulings", "## Rulings", 0),
        # Markdown is removed around a head only: these are ruling text (a review's finds)
        ("*June 14, 2024* is the day.", "*June 14, 2024* is the day.", 0),
        ("**June 14, 2024**: the rules changed.", "**June 14, 2024**: the rules changed.", 0),
        ("# 7 June 2024 was a Friday.", "# 7 June 2024 was a Friday.", 0),
        ("*10/10/10* damage is dealt.", "*10/10/10* damage is dealt.", 0),
        ("**June 14, 2024** · source: mtg__arena", "June 14, 2024 · source: mtg__arena", 1),
        ("{X} < 3 and AT&T", "{X} < 3 and AT&T", 0),
        ("counters.<br>They", "counters. They", 1),  # a break is a space (case r05)
        ("counters.</div><div>They", "counters. They", 2),
        ("counters. <br/> <br> They", "counters. They", 2),
        ("<b>Flying</b>. <i>Trample</i>", "Flying. Trample", 4),  # inline tags leave nothing
        ("Equip&shy;ment and&#8203;more", "Equipment andmore", 2),  # invisible ones too
    ],
)
def test_markup_is_removed_and_counted(written: str, line: str, markup: int) -> None:
    lines = lines_of(dump_of(written))
    assert lines.select("line", "markup_count").rows() == [(line, markup)]
