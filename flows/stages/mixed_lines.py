"""Legacy lines inside a UTF-8 dump: each line read in the code page of its words.

A UTF-8 dump may hold lines saved by another editor in a legacy code page (case
r03: one French line in cp1252, `’` = 0x92; a Japanese line in Shift_JIS, a
Russian date line in KOI8-R). `encodings.decode_bytes` asks `decode_mixed`
first for a file that is not valid UTF-8.
"""

from __future__ import annotations

import re

import charset_normalizer

from flows.stages.code_pages import (
    CJK_CODE_PAGES,
    CYRILLIC_CODE_PAGES,
    PREFERRED_CODE_PAGES,
    ranked_code_pages,
)
from flows.stages.legacy_text import (
    CJK_TEXT_MIN,
    cjk_families,
    cjk_line_page,
    cjk_score,
    count_heads,
    fits_scripts,
    line_page,
    other_scripts,
    plausible_legacy,
    read_line,
    word_score,
)

#: A non-ASCII character that shows a line is UTF-8: any but Armenian to NKo
#: (U+0530-U+07FF), which legacy bytes make by chance in a file of the languages
#: read (MacRoman's `’é`, bytes D5 8E, is `Վ`).
UTF8_EVIDENCE = re.compile(r"[^\x00-\x7f\ufffd\u0530-\u07ff]")


def decode_mixed(content: bytes) -> tuple[str, str] | None:
    """A UTF-8 paste and legacy lines joined, decoded line by line: (text, the code pages
    used, "+"-joined in the order first used); else None.

    Needs UTF-8 lines with non-ASCII letters, and other lines that decode to
    letters and punctuation of the languages read under some code page
    (`legacy_text.plausible_legacy`). Among those pages (PREFERRED_CODE_PAGES
    first, then charset-normalizer's guess, then CYRILLIC_CODE_PAGES: `_fits`) the one
    under which the most date·source lines parse wins, then the one whose words
    are most often real words (`legacy_text.word_evidence`: `d’énergie` in
    cp1252, not cp850's `dÆÚnergie`), then the first; a page that reads them in
    a script the UTF-8 lines do not write needs clearly real words
    (`legacy_text.fits_scripts`: not `дц ск гщ зл оы` in an English dump). Each
    legacy line takes the page under which it reads best (the dump's page on a
    tie: one line may come from another editor). A legacy line that still reads
    as more unknown words than real ones is decoded with U+FFFD for its non-ASCII
    bytes: rejected, never published.

    Legacy bytes that hold a valid UTF-8 sequence by chance (UTF8_EVIDENCE: KOI8-R's
    and cp866's Cyrillic, Shift_JIS's, EUC's and GBK's double bytes) and lines no
    single-byte page reads are read only while the UTF-8 lines are the dump
    (`_utf8_is_the_dump`): in CYRILLIC_CODE_PAGES, or in the CJK page under which the
    line reads as Korean, Japanese or Chinese text (`legacy_text.cjk_line_page`:
    `2024年6月7日 ・ 出典：wotc` in Shift_JIS). Else a file with such bytes is not
    decoded here (None): a whole Shift_JIS or cp866 file with a line that is UTF-8
    by chance is read whole (`encodings._legacy`).
    """
    lines = content.splitlines(keepends=True)
    invalid = {i for i, line in enumerate(lines) if not is_utf8(line) or _by_chance(line)}
    utf8 = [line.decode("utf-8") for i, line in enumerate(lines) if i not in invalid]
    if all(text.isascii() for text in utf8):
        return None
    chance = {i for i in invalid if UTF8_EVIDENCE.search(lines[i].decode("utf-8", "replace"))}
    if chance and not _utf8_is_the_dump(utf8, len(invalid)):
        return None
    scripts = other_scripts("".join(utf8))
    candidates, fitting = _fitting_pages(lines, invalid, chance, scripts)
    wide = bool(chance) or (not all(fitting.values()) and _utf8_is_the_dump(utf8, len(invalid)))
    pages = [page for page in candidates if any(page in found for found in fitting.values())]
    legacy_bytes = b"".join(lines[i] for i in sorted(invalid))
    pages.sort(
        key=lambda p: (count_heads(legacy_bytes, p), word_score(legacy_bytes, p)), reverse=True
    )
    families = cjk_families("".join(utf8)) if wide else set()
    decoded, used = [], {}
    for i, line in enumerate(lines):
        if i not in invalid:
            decoded.append(line.decode("utf-8"))
        elif fitting[i]:
            page = line_page(line, [p for p in pages if p in fitting[i]])
            used[page] = None
            decoded.append(read_line(line, page))
        elif wide and (page := cjk_line_page(line, CJK_CODE_PAGES, families)) is not None:
            used[page] = None  # read as CJK text: its words are no wordfreq words
            decoded.append(line.decode(page))
        else:  # no page reads it as text: U+FFFD, rejected
            decoded.append(line.decode("utf-8", errors="replace"))
    return ("".join(decoded), "+".join(used)) if used else None


def _fitting_pages(
    lines: list[bytes], invalid: set[int], chance: set[int], scripts: set[str]
) -> tuple[list[str], dict[int, list[str]]]:
    """The single-byte pages tried, in their order, and per legacy line those it reads as
    text in under the dump's scripts (`decode_mixed`): a line with UTF-8 by chance in
    CYRILLIC_CODE_PAGES only (a UTF-8 sequence is one of their box-drawing signs and a
    letter, no text)."""
    legacy_bytes = b"".join(lines[i] for i in sorted(invalid - chance))
    best = charset_normalizer.from_bytes(legacy_bytes).best() if legacy_bytes else None
    guessed = ranked_code_pages(best)[:1] if best is not None else []
    candidates = list(dict.fromkeys([*PREFERRED_CODE_PAGES, *guessed, *CYRILLIC_CODE_PAGES]))
    return candidates, {
        i: [
            page
            for page in (CYRILLIC_CODE_PAGES if i in chance else candidates)
            if plausible_legacy(lines[i], page) and _fits(lines[i], page, scripts)
        ]
        for i in invalid
    }


def _fits(line: bytes, page: str, scripts: set[str]) -> bool:
    """`line` read by `page` fits the dump (`legacy_text.fits_scripts`); read by one of
    CYRILLIC_CODE_PAGES, only in a dump whose UTF-8 lines write Cyrillic, or as a head
    that parses (KOI8-R reads the bytes of `дц ск гщ зл оы` as `ДЖ ЯЙ ЦЫ ГК НШ`, five
    Russian abbreviations)."""
    text = line.decode(page)
    if page not in CYRILLIC_CODE_PAGES:
        return fits_scripts(text, scripts)
    return other_scripts(text) <= scripts or count_heads(line, page) > 0


def _utf8_is_the_dump(utf8: list[str], legacy_lines: int) -> bool:
    """The UTF-8 lines (`utf8`) are the dump and the other lines pasted into it: more
    of them hold non-ASCII text than there are legacy lines, and their Korean,
    Japanese or Chinese letters read as text (`legacy_text.cjk_score`: a line of
    Shift_JIS or GBK bytes that is UTF-8 by chance reads as rare characters)."""
    if sum(not text.isascii() for text in utf8) <= legacy_lines:
        return False
    score = cjk_score("".join(text for text in utf8 if not text.isascii()))
    return score is None or score >= CJK_TEXT_MIN


def _by_chance(line: bytes) -> bool:
    """`line` is valid UTF-8 with non-ASCII characters, none of them UTF8_EVIDENCE."""
    return not line.isascii() and not UTF8_EVIDENCE.search(line.decode("utf-8"))


def is_utf8(line: bytes) -> bool:
    """`line` decodes as UTF-8."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
