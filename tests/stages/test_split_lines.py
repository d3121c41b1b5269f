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


ENERGY = "If an effect says you get one or more {E}, you get that many energy counters."


@pytest.mark.parametrize(
    ("written", "line", "markup"),
    [
        (ENERGY.replace("{E}", '<abbr class="card-symbol card-symbol-E" title="one energy">{E}</abbr>'), ENERGY, 2),  # Scryfall's symbols
        ("You may rev<wbr>eal it.", "You may reveal it.", 1),  # wbr joins with nothing
        ("<mark>Flying</mark> <nobr>and</nobr> <cite>reach</cite>", "Flying and reach", 6),
        ("<var>X</var><sup>2</sup> <samp>ok</samp> <dfn>tap</dfn>", "X2 ok tap", 8),
        ("<u>a</u><s>b</s><del>c</del><ins>d</ins>", "abcd", 8),
        ("<code>{T}</code> <kbd>T</kbd> <q>tap</q>", "{T} T tap", 6),
        ("<time datetime='2024-06-14'>June 14</time> <bdi>x</bdi> <label for=a>y</label>", "June 14 x y", 6),
        ("<img src='e.png' alt=\"energy\"/>Energy", "Energy", 1),
        ("<section><article>a</article></section>b", "a b", 4),  # block tags are a space
        ("<dl><dt>Energy</dt><dd>a counter</dd></dl>", "Energy a counter", 6),
        ("<table><caption>Rulings</caption><tfoot><tr><td>x</td></tr></tfoot></table>", "Rulings x", 10),
        ("<main><header>a</header>b<footer>c</footer></main>", "a b c", 6),
        ("<details open><summary>More</summary>x</details>", "More x", 4),  # a boolean attribute
    ],
    ids=[
        "abbr", "wbr", "mark-nobr-cite", "var-samp-dfn", "u-s-del-ins", "code-kbd-q",
        "time-bdi-label", "img", "section-article", "dl", "caption-tfoot", "main-header-footer",
        "details-open",
    ],
)  # fmt: skip
def test_every_html_element_is_markup(written: str, line: str, markup: int) -> None:
    """Any HTML element's tags are removed (the list was 33 names: `<abbr>` stayed and
    made a second ruling of Scryfall's `{E}`)."""
    lines = lines_of(dump_of(written))
    assert lines.select("line", "markup_count").rows() == [(line, markup)]


@pytest.mark.parametrize(
    ("written", "line", "markup"),
    [
        ("Energy counters stay.<!-- ad -->", "Energy counters stay.", 1),
        ("Energy <!-- a --> counters<!--b-->stay.", "Energy countersstay.", 2),
        ("<!-- ad slot -->", "", 1),  # a line that was only a comment is blank
        ("<!DOCTYPE html>", "", 1),
    ],
    ids=["end", "inside", "whole-line", "doctype"],
)
def test_html_comments_are_removed(written: str, line: str, markup: int) -> None:
    lines = lines_of(dump_of(written))
    assert lines.select("line", "markup_count").rows() == [(line, markup)]


@pytest.mark.parametrize(
    "written",
    [
        "A creature with power<2 can't block, but one with power<a lot> can.",
        "Choose a number X<p and Y>q where X and Y are different.",
        "If X<b and b>c, nothing happens.",
    ],
    ids=["power-a-lot", "x-p-and-y", "x-b-and-b"],
)
def test_a_literal_less_than_sign_is_text(written: str) -> None:
    """Only a tag of an HTML element with HTML's attribute syntax, a bare attribute being
    a boolean one, is markup: `power<a lot>` was read as an `a` tag and lost its words."""
    lines = lines_of(dump_of(written))
    assert lines.select("line", "markup_count").rows() == [(written, 0)]


@pytest.mark.parametrize(
    ("written", "line", "markup"),
    [
        ("one&#x2063;energy", "oneenergy", 1),  # invisible separator
        ("one\u2063energy", "oneenergy", 0),  # written: a format character
        ("https://x.example/?tag=rules&section=faq&amp;p=2", "https://x.example/?tag=rules&section=faq&p=2", 1),
        ("&copy 2024 &amp; &sect 3", "&copy 2024 & &sect 3", 1),  # no `;`: text
        ("&notin; &notit;", "∉ &notit;", 1),  # a name is read whole or not at all
        ("Tom &foo; Jerry", "Tom &foo; Jerry", 0),  # no such name: text, not counted
    ],
    ids=["invisible-separator", "written-separator", "url-query", "legacy-no-semicolon", "longest-name", "unknown"],
)  # fmt: skip
def test_entities_need_their_semicolon_and_are_decoded_once(
    written: str, line: str, markup: int
) -> None:
    lines = lines_of(dump_of(written))
    assert lines.select("line", "markup_count").rows() == [(line, markup)]


@pytest.mark.parametrize(
    ("written", "line"),
    [
        ("<sad trombone noises>", "<sad trombone noises>"),  # real rulings' words
        ("<spooky music>It returns.</spooky music>", "<spooky music>It returns.</spooky music>"),
        ("See <www.wizards.com/Magic/rules>.", "See <www.wizards.com/Magic/rules>."),
        ("&lt;I&gt;(You may", "<I>(You may"),
        ("It&amp;rsquo;s", "It&rsquo;s"),  # double-escaped: decoded once, as documented
    ],
    ids=["sad-trombone", "spooky-music", "url", "escaped-tag", "double-escaped"],
)
def test_what_reads_as_text_stays_text(written: str, line: str) -> None:
    """Guards, true before the element list grew too: words between `<` and `>` that name
    no element stay, and an entity's result is not read again (`&lt;I&gt;` stays `<I>`,
    `&amp;rsquo;` stays `&rsquo;`)."""
    assert lines_of(dump_of(written))["line"].to_list() == [line]


@pytest.mark.parametrize(
    ("written", "line", "markup"),
    [
        ("may have.&lt;br&gt;They're not", "may have. They're not", 1),
        ("may have.&lt;br /&gt;They're not", "may have. They're not", 1),
        ("may have. &LT;BR/&GT; They're not", "may have. They're not", 1),
        ("may have.&#60;br&#62;They're not", "may have. They're not", 1),  # by number
        ("may have.&#x3C;br /&#x3E;They're not", "may have. They're not", 1),
        ("may have.&#060;BR&#062;They're not", "may have. They're not", 1),
        ("may have.\\nThey're not", "may have. They're not", 1),  # a JSON string's `\n`
        ("may have.\\r\\nThey're not", "may have. They're not", 1),
        ('"may have."\\n\\n{E} is not', '"may have." {E} is not', 1),
        ("may have.&#10;They're not", "may have. They're not", 1),
        ("may have.&#13;&#10;They're not", "may have. They're not", 2),
        ("may have.&NewLine;They're not", "may have. They're not", 1),
        # other escaped tags and backslashes stay text
        ("&lt;sad trombone noises&gt;", "<sad trombone noises>", 2),
        ("See C:\\new\\notes.txt.", "See C:\\new\\notes.txt.", 0),
        ("X\\nY is one word.", "X\\nY is one word.", 0),
    ],
)
def test_escaped_line_breaks_are_spaces(written: str, line: str, markup: int) -> None:
    # Case r05's kind, escaped: a probe found `may have.&lt;br&gt;They're` and a pasted
    # JSON string's `\n` published as written, under another ruling id than the clean text.
    assert lines_of(dump_of(written)).select("line", "markup_count").rows() == [(line, markup)]
