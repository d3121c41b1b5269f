"""CJK text in encodings that neither a BOM nor an 8-bit byte marks.

Two kinds of file hold Korean, Japanese or Chinese text that the usual path
(`encodings.decode_bytes`: UTF-8, then legacy code pages) misreads:

- 7-bit encodings (`decode_escaped`): ISO-2022-JP (mail and old Japanese
  editors), ISO-2022-KR and HZ-GB-2312 (Chinese Usenet) write every byte below
  0x80, switching to a double-byte set with an escape sequence (`ESC $ B … ESC ( B`,
  HZ's `~{ … ~}`). Their bytes are valid UTF-8 (ASCII), so without this a whole
  file read as one header line of `$B8xOk…` letters, its date lines unseen.
- UTF-16 without a BOM (`decode_utf16`) of text that is nearly all CJK: only its
  ASCII characters (line ends, digits) and a few CJK ones give NUL bytes, fewer than
  `encodings.MAX_NUL_SHARE`, so the file was not rejected as binary but read as
  cp1252 mojibake.

Each is decoded with Python's codec only when the bytes decode strictly and the
text reads as frequent CJK characters (`legacy_text.cjk_score`): a stray `~{` or
NUL byte in another text leaves it to the usual path.
"""

from __future__ import annotations

from flows.stages.legacy_text import CJK_TEXT_MIN, cjk_score

#: 7-bit codecs (Python's names, published as `encoding`), each tried when the file
#: holds one of its escape sequences, narrowest first: ISO-2022-JP (JIS X 0208 by
#: `ESC $ B` or `ESC $ @`), its extension with half-width katakana (`ESC ( I`), its
#: multilingual form (`ESC $ A` GB2312, `ESC $ ( C` KS X 1001, `ESC $ ( D` JIS X
#: 0212), JIS X 0213's (`ESC $ ( Q`); ISO-2022-KR (`ESC $ ) C`, then SO/SI); HZ (`~{`).
ESCAPED_CODECS: tuple[tuple[str, bytes], ...] = (
    ("iso2022_jp", b"\x1b$"),
    ("iso2022_jp_ext", b"\x1b(I"),
    ("iso2022_jp_2", b"\x1b$"),
    ("iso2022_jp_2004", b"\x1b$(Q"),
    ("iso2022_kr", b"\x1b$)C"),
    ("hz", b"~{"),
)

#: UTF-16 without a BOM: (codec, offset of the NUL bytes of its ASCII characters, mod 2).
UTF16_CODECS = (("utf-16-le", 1), ("utf-16-be", 0))

#: Only the start of a large file is scored (`legacy_text.cjk_score`).
_SCORED_CHARACTERS = 65_536
#: A UTF-16 reading is text when at least this share of its characters that are not
#: spaces are letters (CJK text holds few digits and signs).
MIN_LETTER_SHARE = 0.5


def decode_escaped(content: bytes) -> tuple[str, str] | None:
    """A pure-ASCII file in a 7-bit CJK encoding (ESCAPED_CODECS), decoded.

    Tried only on ASCII bytes holding an escape sequence of a codec (a cheap test:
    most files have neither ESC nor `~{`); the first codec that decodes them
    strictly into frequent CJK characters (`legacy_text.cjk_score` of at least
    CJK_TEXT_MIN) wins: `ESC $ B 8x<0 ESC ( B` is ISO-2022-JP's `公式`.

    Returns:
        (text, codec name), or None (the file is read as it is, UTF-8/ASCII).
    """
    if (b"\x1b" not in content and b"~{" not in content) or not content.isascii():
        return None
    for codec, escape in ESCAPED_CODECS:
        if escape not in content:
            continue
        try:
            text = content.decode(codec)
        except UnicodeDecodeError:
            continue
        if _reads_cjk(text):
            return text, codec
    return None


def decode_utf16(content: bytes) -> tuple[str, str] | None:
    """A file with NUL bytes that is UTF-16 without a BOM, decoded.

    The byte order under which its ASCII characters make most of its NUL bytes
    (little-endian `\n\x00`: at odd offsets) is tried first, then the other (CJK
    characters make some too: `一`, U+4E00, is `\x00N`). A reading is taken when the
    bytes decode strictly and its text is mostly letters (MIN_LETTER_SHARE of its
    characters but spaces) reading as frequent CJK characters
    (`legacy_text.cjk_score` of at least CJK_TEXT_MIN): a stray NUL byte in a
    legacy file reads as rare ideographs (`整栠` for `Le`).

    Returns:
        (text, "utf-16-le" or "utf-16-be"), or None (the file is read as before).
    """
    if len(content) % 2 or b"\x00" not in content:
        return None
    ascii_side = {codec: content[offset::2].count(0) for codec, offset in UTF16_CODECS}
    for codec in sorted(ascii_side, key=ascii_side.__getitem__, reverse=True):
        try:
            text = content.decode(codec)
        except UnicodeDecodeError:
            continue
        if _is_letters(text) and _reads_cjk(text):
            return text, codec
    return None


def _reads_cjk(text: str) -> bool:
    score = cjk_score(text[:_SCORED_CHARACTERS])
    return score is not None and score >= CJK_TEXT_MIN


def _is_letters(text: str) -> bool:
    shown = [c for c in text[:_SCORED_CHARACTERS] if not c.isspace()]
    return sum(c.isalpha() for c in shown) >= MIN_LETTER_SHARE * len(shown) > 0
