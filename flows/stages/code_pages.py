"""The legacy code pages a dump or a line is read in, and their order.

`encodings` (a whole legacy file) and `mixed_lines` (legacy lines inside a
UTF-8 file) take their candidates from here: charset-normalizer's guesses
(`ranked_code_pages`), read as browsers read them (WINDOWS_SUPERSETS), and
the pages tried beside them.
"""

from __future__ import annotations

import functools
import string

import charset_normalizer

#: Code pages preferred, in this order, among those charset-normalizer finds
#: equally fit (they decode this format's bytes alike): Windows Western, DOS
#: Western (German DOS dumps), Windows Cyrillic, Mac Western.
PREFERRED_CODE_PAGES: tuple[str, ...] = ("cp1252", "cp850", "cp1251", "mac_roman")
#: The code pages of Korean, Japanese, Simplified and Traditional Chinese files, in
#: this order on a tie (a Korean `2024. 6. 7. · 출처: wotc` parses in GB18030 too).
CJK_CODE_PAGES = ("cp949", "cp932", "euc_jp", "gb18030", "big5")
#: The Cyrillic code pages beside Windows-1251 (Russian Unix, Russian DOS): a legacy
#: line inside a UTF-8 file is tried in them too (`mixed_lines`).
CYRILLIC_CODE_PAGES = ("koi8_r", "cp866")
#: The superset of a CJK code page that is read in its place, as browsers do
#: (WHATWG's Encoding Standard): the same bytes, more characters, and the
#: mappings of real texts (the real Japanese card texts write `－` 1,916 times and
#: `−` 38: Shift_JIS's 0x817C). Not Big5's cp950: its 0xA1E3 is the `～` of 1,202
#: real Traditional Chinese texts, but its 0xA145 and 0xA241 are `‧` and `∕` where
#: 484 and 481 write `•` and `／`, as Big5 reads them.
WINDOWS_SUPERSETS = {"euc_kr": "cp949", "shift_jis": "cp932", "gb2312": "gb18030", "gbk": "gb18030"}


def ranked_code_pages(match: charset_normalizer.CharsetMatch) -> list[str]:
    """A match's equivalent code pages that read ASCII as ASCII, PREFERRED_CODE_PAGES first.

    cp1252 comes before latin-1. Code pages under which the format's ASCII
    (letters, digits, spaces, line breaks, `.,:;!?'"()/-`) reads as other
    characters are left out: EBCDIC (`cp037`, `cp500`, …), which charset-normalizer
    may guess for a few bytes (`b"%\\x80"` is `"\\nØ"` in cp037: a line
    break from a percent sign), and UTF-16 and UTF-32, which are read only
    with a BOM (a file without NUL bytes is no UTF-16 text: `b"\\n\\x80"` is
    no `耊`).
    """
    names = [
        WINDOWS_SUPERSETS.get(name, name)
        for name in dict.fromkeys([match.encoding, *match.could_be_from_charset])
        if _reads_ascii_as_ascii(name)
    ]
    names = list(dict.fromkeys(names))
    return sorted(
        names,
        key=lambda n: PREFERRED_CODE_PAGES.index(n) if n in PREFERRED_CODE_PAGES else 99,
    )


_FORMAT_ASCII = string.ascii_letters + string.digits + " \t\r\n.,:;!?'\"()/-"


@functools.cache
def _reads_ascii_as_ascii(encoding: str) -> bool:
    try:
        return _FORMAT_ASCII.encode().decode(encoding) == _FORMAT_ASCII
    except (UnicodeDecodeError, LookupError):
        return False
