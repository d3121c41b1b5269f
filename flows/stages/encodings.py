"""Decode one dump's bytes: find the encoding, or reject the file; then repair mojibake.

The slow path of `decode.decode_dumps`: most dumps are plain UTF-8
(`decode.plain_texts`) and never come here.

Sites save dumps as UTF-8 (with or without BOM), UTF-16 with BOM, or a legacy
code page (cp1252 on a French or German Windows machine, cp850 on DOS); CJK text
in ISO-2022-JP, HZ or UTF-16 without BOM is read by `unmarked_cjk`.
Legacy code pages are identified by charset-normalizer and tried beside it
(`_pick_code_page`): the one under which the dump's date·source lines parse
wins (cp850 and cp852 differ in `·`), then the one that reads its words. A
file joined from a UTF-8 paste and a legacy one is decoded line by line. The
text is then repaired of mojibake (`mojibake.repair_mojibake`).
"""

from __future__ import annotations

import codecs
import functools
import re
import string
from typing import NamedTuple

import charset_normalizer

from flows.stages import fast_badness
from flows.stages.legacy_text import (
    CJK_MARGIN,
    CJK_TEXT_MIN,
    cjk_score,
    count_heads,
    count_text_heads,
    fits_scripts,
    line_page,
    other_scripts,
    plausible_legacy,
    plausible_text,
    read_line,
    word_evidence,
    word_score,
)
from flows.stages.mojibake import repair_mojibake
from flows.stages.unmarked_cjk import decode_escaped, decode_utf16

UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
#: UTF-32's BOMs (its little-endian one starts with UTF-16's: looked for first).
UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)

_NOISE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]")
_REAL_NON_ASCII = re.compile(r"[^\x00-\x7f\ufffd]")
#: A non-ASCII character that shows a line is UTF-8: any but Armenian to NKo
#: (U+0530-U+07FF), which legacy bytes make by chance in a file of the languages
#: read (MacRoman's `’é`, bytes D5 8E, is `Վ`).
_UTF8_EVIDENCE = re.compile(r"[^\x00-\x7f\ufffd\u0530-\u07ff]")

#: Above this share of control characters or U+FFFD the bytes are no text.
MAX_NOISE_SHARE = 0.25
#: Above this share of NUL bytes a file is binary (or UTF-16 or UTF-32 without a BOM:
#: every ASCII character has NUL bytes); a few NUL bytes in a text (a stray byte, an
#: editor's padding) are control characters, removed from their lines and counted
#: (`decode.split_lines`). One NUL byte rejected the whole file before (a probe's find).
MAX_NUL_SHARE = 0.01

#: Code pages preferred, in this order, among those charset-normalizer finds
#: equally fit (they decode this format's bytes alike): Windows Western, DOS
#: Western (German DOS dumps), Windows Cyrillic, Mac Western.
PREFERRED_CODE_PAGES: tuple[str, ...] = ("cp1252", "cp850", "cp1251", "mac_roman")
#: The code pages of Korean, Japanese, Simplified and Traditional Chinese files, in
#: this order on a tie (a Korean `2024. 6. 7. · 출처: wotc` parses in GB18030 too).
CJK_CODE_PAGES = ("cp949", "cp932", "euc_jp", "gb18030", "big5")
#: The superset of a CJK code page that is read in its place, as browsers do
#: (WHATWG's Encoding Standard): the same bytes, more characters, and the
#: mappings of real texts (the real Japanese card texts write `－` 1,916 times and
#: `−` 38: Shift_JIS's 0x817C). Not Big5's cp950: its 0xA1E3 is the `～` of 1,202
#: real Traditional Chinese texts, but its 0xA145 and 0xA241 are `‧` and `∕` where
#: 484 and 481 write `•` and `／`, as Big5 reads them.
WINDOWS_SUPERSETS = {"euc_kr": "cp949", "shift_jis": "cp932", "gb2312": "gb18030", "gbk": "gb18030"}
#: The code pages a whole legacy file is always tried in beside charset-normalizer's
#: guesses (`_pick_code_page`), and first on a tie: PREFERRED_CODE_PAGES, KOI8-R
#: (Russian Unix), ISO Western with the euro (its `œ` is cp1252's `½`), Windows Greek
#: (case r01's site). A few bytes of a short file can make charset-normalizer guess
#: none of them (a MacRoman `·` read as cp1257's `į`, a Korean paste of English
#: rulings as ISO Cyrillic: no date line parses).
TRIED_FIRST = (*PREFERRED_CODE_PAGES, "koi8_r", "iso8859_15", "cp1253")
#: Those, then the code pages tried always but not first on a tie (ISO Greek; DOS
#: Portuguese and Greek, read as cp850 when not tried: `traduçäo`; CJK_CODE_PAGES):
#: an unknown word read by cp850 stays cp850's (`loxodón`, not ISO Greek's `loxod’n`).
TRIED_CODE_PAGES = (*TRIED_FIRST, "iso8859_7", "cp860", "cp869", *CJK_CODE_PAGES)

#: The scripts of the sites' languages beside Latin (`legacy_text.other_scripts`'s names:
#: `々` is IDEOGRAPHIC, `ｶ` HALFWIDTH, `Ｋ` FULLWIDTH).
_SITE_SCRIPTS = {
    *("CYRILLIC", "GREEK", "CJK", "HANGUL", "HIRAGANA", "KATAKANA"),
    *("IDEOGRAPHIC", "HALFWIDTH", "FULLWIDTH"),
}

#: The noise characters for polars (`decode.plain_texts`).
NOISE_CLASS = fast_badness.rust_class(fast_badness.class_chars(_NOISE.pattern))

#: Only the start of a large file is used to rank candidate code pages.
_RANKING_BYTES = 65_536

REPAIR_REPLACED = "invalid UTF-8 bytes replaced by U+FFFD"
REPAIR_PER_LINE = "decoded line by line: UTF-8 lines as utf-8, the others as {code_page}"


class DecodedDump(NamedTuple):
    """The outcome of decoding one file: text and encoding, or why it was rejected."""

    text: str | None
    encoding: str | None
    repair: str | None
    reject_reason: str | None


def decode_bytes(content: bytes) -> DecodedDump:
    """Decode one dump's bytes. Never raises.

    UTF-8 is tried first (after ISO-2022 and HZ: `unmarked_cjk.decode_escaped`). A
    file that is not valid UTF-8 is, in this order: UTF-16 without a BOM of CJK text
    (`unmarked_cjk.decode_utf16`); UTF-8 lines plus lines of one legacy code page
    (two pastes joined: decoded line by line); UTF-8 with damaged bytes, when the
    lines whose non-ASCII text is valid UTF-8 outnumber the lines with invalid bytes
    (invalid bytes become U+FFFD and their lines are rejected later, however
    many bytes a damaged spot has); else a legacy code page.

    Returns:
        encoding: "utf-8-sig" (UTF-8 with BOM), "utf-16" or "utf-32" (with BOM), "utf-8",
        "utf-8+<code page>" (decoded line by line; "utf-8-sig+<code page>" after a
        BOM), "iso2022_jp", "hz"… (`unmarked_cjk.ESCAPED_CODECS`), "utf-16-le" or
        "utf-16-be" (no BOM), or the legacy code page (see `_legacy`).
        repair: what was done, "; "-joined: REPAIR_REPLACED (the affected
        lines are rejected later), REPAIR_PER_LINE, and one of `mojibake`'s REPAIR_MOJIBAKE,
        MOJIBAKE_PARTIAL, MOJIBAKE_LEFT (see `repair_mojibake`); None when
        the bytes decoded as they are.
        reject_reason: set (and text None) for a file with more than MAX_NUL_SHARE
        of NUL bytes, or one that decodes to mostly control characters (an image
        saved as .txt).
    """
    if content.startswith(codecs.BOM_UTF8):  # then read as any file is (Notepad's BOM
        decoded = _decode_unmarked(content[3:])  # on a UTF-8 file with a cp1252 line)
        encoding = decoded.encoding or ""
        if encoding == "utf-8" or encoding.startswith("utf-8+"):
            return decoded._replace(encoding=encoding.replace("utf-8", "utf-8-sig", 1))
        return decoded
    for boms, encoding in ((UTF32_BOMS, "utf-32"), (UTF16_BOMS, "utf-16")):
        if content.startswith(boms):
            try:
                return _checked(content.decode(encoding), encoding)
            except UnicodeDecodeError:
                replaced = content.decode(encoding, errors="replace")
                return _checked(replaced, encoding, REPAIR_REPLACED)
    return _decode_unmarked(content)


def _decode_unmarked(content: bytes) -> DecodedDump:
    """`decode_bytes` of bytes without a BOM (or after a UTF-8 one)."""
    if b"\x00" in content and content.count(b"\x00") > MAX_NUL_SHARE * len(content):
        return DecodedDump(None, None, None, "file has NUL bytes: binary, not a text dump")
    unmarked = decode_escaped(content)  # ASCII bytes of ISO-2022-JP or HZ
    if unmarked is None:
        try:
            return _checked(content.decode("utf-8"), "utf-8")
        except UnicodeDecodeError:
            unmarked = decode_utf16(content)  # CJK text: its few NULs, ASCII characters'
    if unmarked is not None:
        return _checked(*unmarked)
    replaced = content.decode("utf-8", errors="replace")
    if _is_cut_utf8(content):  # a download cut inside its last character
        return _checked(replaced, "utf-8", REPAIR_REPLACED)
    mixed = _decode_mixed(content)
    if mixed is not None:
        return mixed
    if _mostly_utf8(replaced):
        return _checked(replaced, "utf-8", REPAIR_REPLACED)
    return _legacy(content, replaced)


def _is_cut_utf8(content: bytes) -> bool:
    """All but the last 1-3 bytes are valid UTF-8, and those start a multi-byte character."""
    return any(
        _is_utf8(content[:-cut]) and 0xC2 <= content[-cut] <= 0xF4
        for cut in (1, 2, 3)
        if len(content) > cut
    )


def _mostly_utf8(replaced: str) -> bool:
    """UTF-8 with damaged bytes rather than a legacy code page.

    True when the valid non-ASCII characters outnumber the U+FFFD, or when the
    lines whose non-ASCII text is valid are at least as many as the lines with
    damaged bytes (a run of junk bytes is one damaged spot, however long; on a
    tie the damaged lines are rejected rather than the file guessed a legacy
    code page that publishes them as mojibake).
    """
    good_chars = len(_REAL_NON_ASCII.findall(replaced))
    if good_chars > replaced.count("\ufffd"):
        return True
    lines = replaced.splitlines()
    bad = sum("\ufffd" in line for line in lines)
    good = sum("\ufffd" not in line and bool(_REAL_NON_ASCII.search(line)) for line in lines)
    return good >= bad > 0 or good > bad  # a tie rejects the damaged lines, never guesses


def _decode_mixed(content: bytes) -> DecodedDump | None:
    """A UTF-8 paste and a single-byte legacy paste joined, decoded line by line; else None.

    Needs UTF-8 lines with non-ASCII letters, and other lines that hold no
    valid multi-byte UTF-8 sequence (but by chance: `_UTF8_EVIDENCE`) and decode
    to letters and punctuation of the languages read under some code page
    (`legacy_text.plausible_legacy`).
    Among those pages (PREFERRED_CODE_PAGES first, then charset-normalizer's
    guess) the one under which the most date·source lines parse wins, then
    the one whose words are most often real words (`legacy_text.word_evidence`:
    `d’énergie` in cp1252, not cp850's `dÆÚnergie`), then the first; a page
    that reads them in a script the UTF-8 lines do not write needs clearly
    real words (`legacy_text.fits_scripts`: not `дц ск гщ зл оы` in an
    English dump). Each legacy line takes the page
    under which it reads best (the dump's page on a tie: one line may come
    from another editor). A legacy line that still reads as more unknown
    words than real ones is decoded with U+FFFD for its non-ASCII bytes:
    rejected, never published.
    """
    lines = content.splitlines(keepends=True)
    invalid = {i for i, line in enumerate(lines) if not _is_utf8(line) or _by_chance(line)}
    has_utf8 = any(not line.isascii() for i, line in enumerate(lines) if i not in invalid)
    legacy_bytes = b"".join(lines[i] for i in sorted(invalid))
    if not has_utf8 or _UTF8_EVIDENCE.search(legacy_bytes.decode("utf-8", errors="replace")):
        return None
    best = charset_normalizer.from_bytes(legacy_bytes).best()
    guessed = _ranked_code_pages(best)[:1] if best is not None else []
    scripts = other_scripts("".join(line.decode("utf-8") for line in lines if _is_utf8(line)))
    candidates = list(dict.fromkeys([*PREFERRED_CODE_PAGES, *guessed]))
    fitting = {  # per legacy line: the code pages it reads as text in under the dump's scripts
        i: [p for p in candidates if plausible_legacy(lines[i], p)
            and fits_scripts(lines[i].decode(p), scripts)]
        for i in invalid
    }  # fmt: skip
    pages = [p for p in candidates if any(p in found for found in fitting.values())]
    if not pages:
        return None
    pages.sort(
        key=lambda p: (count_heads(legacy_bytes, p), word_score(legacy_bytes, p)), reverse=True
    )
    decoded, used = [], {}
    for i, line in enumerate(lines):
        if i not in invalid:
            decoded.append(line.decode("utf-8"))
        elif not fitting[i]:  # no page reads it as text: U+FFFD, rejected
            decoded.append(line.decode("utf-8", errors="replace"))
        else:
            page = line_page(line, [p for p in pages if p in fitting[i]])
            used[page] = None
            decoded.append(read_line(line, page))
    code_pages = "+".join(used)
    return _checked(
        "".join(decoded), f"utf-8+{code_pages}", REPAIR_PER_LINE.format(code_page=code_pages)
    )


def _by_chance(line: bytes) -> bool:
    """`line` is valid UTF-8 with non-ASCII characters, none of them `_UTF8_EVIDENCE`."""
    return not line.isascii() and not _UTF8_EVIDENCE.search(line.decode("utf-8"))


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _legacy(content: bytes, replaced: str) -> DecodedDump:
    """Decode with the code page `_pick_code_page` finds. When charset-normalizer fits none,
    one of TRIED_CODE_PAGES only if a date·source line parses under it (a Korean
    paste of English rulings in EUC-KR), else as damaged UTF-8 or rejected."""
    matches = charset_normalizer.from_bytes(content)
    encoding = _pick_code_page(content, matches)
    if encoding is None:  # no guess, and no date·source line reads under a tried page
        if _REAL_NON_ASCII.search(replaced):  # no code page fits: keep it as damaged UTF-8
            return _checked(replaced, "utf-8", REPAIR_REPLACED)
        return DecodedDump(None, None, None, "no text encoding fits the bytes: not a text dump")
    return _checked(content.decode(encoding, errors="replace"), encoding)


def _ranked_code_pages(match: charset_normalizer.CharsetMatch) -> list[str]:
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


def _pick_code_page(content: bytes, matches: charset_normalizer.CharsetMatches) -> str | None:
    """The code page under which the file reads as a dump (its date lines, then its text);
    None when charset-normalizer fits none and no date·source line parses under a
    tried page (in the first _RANKING_BYTES).

    Candidates: every match's code pages in charset-normalizer's order
    (PREFERRED_CODE_PAGES first within a match), then TRIED_CODE_PAGES. The
    first under which the most date·source lines parse wins (0xFA is the `·`
    of `7. März 2024 · Quelle: wotc` in cp850, not in cp852). Of those that
    parse as many yet read the bytes differently (`_break_tie`):
    1. the reading in letters and signs of the languages read
       (`legacy_text.plausible_text`) with the best words (`legacy_text.word_evidence`),
       TRIED_FIRST first, if it has no more unknown words than real ones or one
       unknown word only (a name): cp1252's `ESPAÑOL` and `20½`, not cp1250's
       `ESPAŃOL` and `20˝`. A page neither guessed nor in TRIED_FIRST competes
       only with more real words than unknown ones;
    2. else, with no plausible reading, the first if it reads a script no site
       writes (Thai);
    3. else the first reading in frequent CJK characters
       (`legacy_text.cjk_score`, at least CJK_TEXT_MIN, no U+FFFD), unless another
       scores CJK_MARGIN more: a Korean header in EUC-KR, not ISO Cyrillic's
       `РЧ АјНФ`; Japanese in EUC-JP, not cp949's `ㅛㅸㅻ못섟`;
    4. else that plausible reading, or the first (`tests/test_legacy_code_pages.py`).
    """
    guessed = [name for match in matches for name in _ranked_code_pages(match)]
    candidates = list(dict.fromkeys([*guessed, *TRIED_CODE_PAGES]))
    sample = content[:_RANKING_BYTES]  # every candidate is a codec Python knows
    readings = {name: sample.decode(name, errors="replace") for name in candidates}
    heads = {name: count_text_heads(readings[name]) for name in candidates}
    most = max(heads.values())
    if matches.best() is None and most < 1:
        return None
    tied = [name for name in candidates if heads[name] == most]
    if len({readings[name] for name in tied}) == 1:
        return tied[0]  # they read the bytes alike (cp1252 and latin-1 for most dumps)
    return _break_tie(tied, readings, guessed)


def _break_tie(tied: list[str], readings: dict[str, str], guessed: list[str]) -> str:
    """Of the `tied` code pages (their `readings` differ), the one `_pick_code_page` takes."""
    # U+FFFD, an undefined byte, is no plausible character: as plausible_legacy's strict read
    words = {name: word_evidence(readings[name]) for name in tied if plausible_text(readings[name])}
    plausible = [  # a page neither guessed nor tried first needs more real words than unknown
        name  # ones (ISO Greek's `ΎΕΓό»€Ιν` for GBK's `九命护身` has one of each)
        for name, (known, unknown) in words.items()
        if name in TRIED_FIRST or name in guessed or known > unknown
    ]
    plausible.sort(key=lambda name: name not in TRIED_FIRST)  # these first
    # The fewest unknown words, then the most real ones: a wrong page's garbage holds real
    # words by chance (cp1251 reads cp866's `Официальные разъяснения` as `ЋдЁжЁ`, `лҐ`,
    # `кпб`…), a right page's unknown words are names.
    best = max(plausible, key=lambda name: (-words[name][1], words[name][0]), default=None)
    if best is not None and words[best][1] <= max(words[best][0], 1):  # one unknown: a name
        return best  # (`Озолит`); not ISO Cyrillic's `РЧ АјНФ ЦЧСЄРдДЯДй` for Korean
    if best is None and other_scripts(readings[tied[0]]) - _SITE_SCRIPTS:
        return tied[0]  # charset-normalizer's first reads a script no site writes (Thai)
    scores = {name: cjk_score(readings[name]) for name in tied if "\ufffd" not in readings[name]}
    cjk = {
        name: score for name, score in scores.items() if score is not None and score >= CJK_TEXT_MIN
    }
    if cjk:  # in their order, unless another reads ten times more frequent characters
        best_score = max(cjk.values())
        return next(name for name, score in cjk.items() if score >= best_score - CJK_MARGIN)
    return best or tied[0]


def _checked(text: str, encoding: str, repair: str | None = None) -> DecodedDump:
    noise = len(_NOISE.findall(text))
    if text and noise / len(text) > MAX_NOISE_SHARE:
        return DecodedDump(
            None,
            encoding,
            None,
            f"{noise} of {len(text)} characters are control characters or undecodable: "
            "not a text dump",
        )
    fixed, outcome = repair_mojibake(text)
    repairs = "; ".join(r for r in (repair, outcome) if r)
    return DecodedDump(fixed, encoding, repairs or None, None)
