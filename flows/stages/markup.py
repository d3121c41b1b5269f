"""HTML in dump lines: which tags, comments and entities are markup, and their removal.

A dump pasted from a web page holds HTML (case r05: `may have.<br>They're`). What is
markup is what HTML defines, from the WHATWG HTML Living Standard
(https://html.spec.whatwg.org/): its element names (Index: Elements, and the
non-conforming ones of Obsolete features §16.2), its tag syntax (§13.1.2), its
comments (§13.1.6) and its named character references (§13.5, Python's
`html.entities.html5`). Python's standard library and our dependencies hold no list of
element names (`html.parser` knows only `script` and `style`), hence the lists below.
Anything else between `<` and `>` is text: `power<2`, `<sad trombone noises>`,
`X<p and Y>q`, `power<a lot>` (see `_ATTRIBUTE`).
"""

from __future__ import annotations

import html
import re
from html.entities import html5

import polars as pl


def _words(names: str) -> frozenset[str]:
    """The space-separated names of `names`."""
    return frozenset(names.split())


#: Phrasing content (WHATWG §3.2.5.2.5, HTML's inline elements) and the obsolete
#: elements of that level (§16.2: acronym, big, blink, font, nobr, rb, rtc, strike, tt…),
#: plus rp and rt (inside ruby): their tags join what is around them (`<b>Flying</b>.`
#: reads `Flying.`, `rev<wbr>eal` reads `reveal`).
INLINE_ELEMENTS = _words(
    "a abbr area audio b bdi bdo button canvas cite code data datalist del dfn em embed i "
    "iframe img input ins kbd label link map mark math meta meter noscript object output "
    "picture progress q rp rt ruby s samp script select slot small span strong sub sup svg "
    "template textarea time u var video wbr "
    "acronym basefont big blink font image keygen nobr rb rtc spacer strike tt"
)
#: Every other element (WHATWG Index: Elements, §16.2), and `br` (phrasing, but a line
#: break): a run of their tags, with the spaces around it, is one space (`mana.<br>They`
#: reads `mana. They`, `</td><td>` separates two cells' words).
BLOCK_ELEMENTS = _words(
    "address article aside base blockquote body br caption col colgroup dd details dialog "
    "div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup "
    "hr html legend li main menu nav ol optgroup option p param pre search section "
    "selectedcontent source style summary table tbody td tfoot th thead title tr track ul "
    "applet bgsound center dir frame frameset isindex listing marquee menuitem multicol "
    "nextid noembed noframes plaintext xmp"
)
_NAMES = "|".join(sorted(INLINE_ELEMENTS | BLOCK_ELEMENTS, key=lambda n: (-len(n), n)))

#: Attributes written without a value are HTML's boolean attributes (WHATWG Index:
#: Attributes, and obsolete ones of §16.2), plus hidden and download, which may be empty.
#: An attribute with a value may have any name HTML's syntax allows.
BOOLEAN_ATTRIBUTES = (
    "allowfullscreen|alpha|async|autofocus|autoplay|checked|compact|controls|declare|default|"
    "defer|disabled|download|formnovalidate|hidden|inert|ismap|itemscope|loop|multiple|muted|"
    "nohref|nomodule|noresize|noshade|novalidate|nowrap|open|playsinline|readonly|required|"
    "reversed|selected|shadowrootclonable|shadowrootdelegatesfocus|shadowrootserializable"
)
#: An attribute (WHATWG §13.1.2.3): `name="value"`, `name='value'`, `name=value` or a
#: boolean attribute alone. A bare word of another name is text: with it `power<a lot>`
#: would be an `a` tag with an attribute `lot`, and `X<p and Y>q` a `p` tag.
_ATTRIBUTE = (
    r"""(?:[^\s"'>/=\x00-\x1f\x7f]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+)"""
    rf"|(?:{BOOLEAN_ATTRIBUTES})(?=[\s/>]))"
)
#: A tag of an HTML element (start tag with its attributes, end tag), a comment or a
#: doctype; the element's name is the group `start` or `end`.
TAG = (
    rf"(?i)<(?P<start>{_NAMES})(?:\s+{_ATTRIBUTE})*\s*/?>"
    rf"|</(?P<end>{_NAMES})\s*>"
    r"|<!--(?:(?!<!--).)*?-->|<!doctype\s[^<>]*>"  # a comment holds no `<!--` (linear)
)
_TAG_RE = re.compile(TAG, re.DOTALL)

#: A character reference ended by `;` (`&nbsp;`, `&amp;`, `&#183;`, `&#x2063;`). One
#: without its `;` (`&copy`, `&sect` in a URL's `&section=faq`) is text: HTML reads some
#: so in text, but an `&` in a pasted query string is far more common in dumps.
ENTITY = r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});"
_ENTITY_RE = re.compile(ENTITY)

#: A `br` tag escaped once (`may have.&lt;br&gt;They're`, `&lt;br /&gt;`, by number
#: `&#60;br&#62;`, `&#x3C;br&#x3E;`: a page's HTML shown as text): a line break, as `<br>`
#: is. Any other escaped `<` stays a `<` (a ruling may write `&lt;sad trombone noises&gt;`).
ESCAPED_BR = r"(?i)(?:&lt;|&#0*60;|&#x0*3c;)\s*/?\s*br\s*/?\s*(?:&gt;|&#0*62;|&#x0*3e;)"
_ESCAPED_BR_RE = re.compile(ESCAPED_BR)
#: A line break escaped as JSON or C write it (`\n`, `\r\n`, backslash and letter),
#: between a sentence's end (and its closing quote) and the next word: a paste of a JSON
#: string. Only there: no real ruling or card text (`derived/` of the real data) writes
#: a backslash before an `n`.
ESCAPED_NEWLINE = r"""(?<=[.!?…。])(?P<quote>["'’”»)]?)\s*(?:(?:\\r)?\\n\s*)+(?=["'‘“«(\[{]?\w)"""
_ESCAPED_NEWLINE_RE = re.compile(ESCAPED_NEWLINE)
#: What an entity may decode to that ends a line: a line break inside the line, as `<br>`.
_LINE_BREAKS = frozenset("\n\r\u2028\u2029")

#: A Markdown thematic break (CommonMark §4.1: three or more `-`, `*` or `_`, spaces
#: between them allowed) alone on a line, and the lines of `=`, `~`, dashes and box
#: drawing rules sites draw the same way (`- - -`, `=====`, `———`, `────`): page markup
#: between entries, as an `<hr>` is (the line is blank). Never inside a ruling's sentence.
RULE_CHARACTERS = "-*_=~\u2013\u2014\u2015\u2500\u2501\u2550"  # - * _ = ~ – — ― ─ ━ ═
_RULES = "|".join(rf"(?:{re.escape(c)}\s*){{3,}}" for c in RULE_CHARACTERS)
THEMATIC_BREAK = rf"^\s*(?:{_RULES})$"
#: An `img` tag's alt text that is a mana or other symbol as typed (`{E}`, `{W/U}`,
#: `{T}{Q}`): a symbol pasted as an image keeps its text, as `{E}` typed does.
_SYMBOL_ALT_RE = re.compile(
    r"""(?<![\w-])alt\s*=\s*(?:"(?P<dq>(?:\{[^{}<>"]{1,8}\})+)"|'(?P<sq>(?:\{[^{}<>']{1,8}\})+)'"""
    r"|(?P<bare>(?:\{[^{}<>\s\"'=`]{1,8}\})+)(?=[\s/>]))",
    re.IGNORECASE,
)

#: A run of `img` tags ending or starting a text: the images beside an image (`{E}{E}<img
#: alt="{E}"><img alt="{E}">` is a page showing both the symbols and their images).
_IMAGES_AT_END = re.compile(r"(?:<img\b[^>]*>)+\Z", re.IGNORECASE)
_IMAGES_AT_START = re.compile(r"\A(?:<img\b[^>]*>)+", re.IGNORECASE)

#: The working character a block tag is replaced by (NUL never reaches this step).
_BLOCK = "\x00"
_BLOCK_RUN_RE = re.compile(rf"\s*{_BLOCK}[\s{_BLOCK}]*")
_NO_BREAK_SPACE = "\u00a0"


def remove_markup(lines: pl.Series, invisible: str) -> pl.DataFrame:
    """Remove the tags and comments of each line and decode its entities (`strip_markup`).

    Only lines holding `<`, `&` or `\\` are read (in Python; a few in a thousand real
    lines).

    Args:
        lines: String Series, the lines (null stays null).
        invisible: a pattern of the characters an entity leaves none of.

    Returns:
        line (String: `lines` without markup), markup_count (Int64: tags, comments and
        entities removed), one row per line.
    """
    marked = lines.str.contains(r"[<&\\]").fill_null(False).arg_true()
    invisible_re = re.compile(invisible)
    stripped = [strip_markup(text, invisible_re) for text in lines.gather(marked)]
    counts = pl.repeat(0, lines.len(), dtype=pl.Int64, eager=True)
    if not stripped:
        return pl.DataFrame({"line": lines, "markup_count": counts})
    texts, found = zip(*stripped, strict=True)
    return pl.DataFrame(
        {
            "line": lines.scatter(marked, pl.Series(texts, dtype=pl.String)),
            "markup_count": counts.scatter(marked, pl.Series(found, dtype=pl.Int64)),
        }
    )


def strip_markup(text: str, invisible: re.Pattern[str]) -> tuple[str, int]:
    """`text` without its HTML (TAG) and with its entities (ENTITY) and escaped line
    breaks decoded, and how many of those it held.

    A tag of an inline element (INLINE_ELEMENTS) or a comment leaves nothing; a run of
    tags of block elements (BLOCK_ELEMENTS), or a comment beside a space, with the
    spaces around it, one space. An
    entity is decoded once (`&amp;rsquo;` reads `&rsquo;`), `&nbsp;` to a space, one for
    a character `invisible` matches to nothing, one for a line break (`&#10;`) a space as
    a `br` tag's; an unknown name (`&foo;`) stays, uncounted. An escaped `br` tag
    (ESCAPED_BR) and an escaped line break after a sentence (ESCAPED_NEWLINE) are one
    space with the spaces around them, as a `br` tag.
    """
    count = 0

    def tag(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        name = (match["start"] or match["end"] or "").lower()
        if not name:  # a comment or doctype: between spaces, one space (`end. <!-- x --> So.`)
            line, start, end = match.string, match.start(), match.end()
            before, after = line[start - 1 : start], line[end : end + 1]
            return _BLOCK if before.isspace() or after.isspace() else ""
        if name == "img" and (alt := _SYMBOL_ALT_RE.search(match[0])):
            symbol = alt["dq"] or alt["sq"] or alt["bare"]  # `<img alt="{E}">` reads `{E}`
            before = _IMAGES_AT_END.sub("", match.string[: match.start()])
            after = _IMAGES_AT_START.sub("", match.string[match.end() :])
            typed = after.startswith(symbol) or before.endswith(symbol)
            return "" if typed else symbol  # images beside their symbol typed: once
        return _BLOCK if name in BLOCK_ELEMENTS else ""

    if "<" in text:
        text = _TAG_RE.sub(tag, text)
        if _BLOCK in text:
            text = _BLOCK_RUN_RE.sub(" ", text)
    text, escapes = _decode_escapes(text, invisible)
    return text, count + escapes


def _decode_escapes(text: str, invisible: re.Pattern[str]) -> tuple[str, int]:
    """`strip_markup`'s decoding of entities and escaped line breaks: the text, and how
    many were decoded."""
    count = 0

    def entity(match: re.Match[str]) -> str:
        nonlocal count
        written = match[0]
        decoded = html.unescape(written) if written[1] == "#" else html5.get(written[1:])
        if decoded is None:
            return written
        count += 1
        if decoded in _LINE_BREAKS:
            return _BLOCK
        return " " if decoded == _NO_BREAK_SPACE else invisible.sub("", decoded)

    def escaped_break(match: re.Match[str]) -> str:  # a `br` or `\\n` escaped: a break
        nonlocal count
        count += 1
        return f"{match.groupdict().get('quote') or ''}{_BLOCK}"

    if "&" in text:
        text = _ENTITY_RE.sub(entity, _ESCAPED_BR_RE.sub(escaped_break, text))
    if "\\" in text:
        text = _ESCAPED_NEWLINE_RE.sub(escaped_break, text)
    if _BLOCK in text:  # escaped breaks, line breaks of entities: one space
        text = _BLOCK_RUN_RE.sub(" ", text)
    return text, count
