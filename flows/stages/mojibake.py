"""Repair mojibake: UTF-8 that was read once as a single-byte code page and saved again.

Some files went through UTF-8 -> cp1252 (or MacRoman, or Windows-1251) ->
UTF-8 once (`gÃ©nÃ©rÃ©e`, `d'√©nergie`, `РњР°СЂРєРµСЂС‹`); ftfy repairs those,
line by line (`repair_mojibake`). A line is suspect when it shows a mojibake
pair (`MOJIBAKE_MARK`) or ftfy's badness measure finds it bad
(`fast_badness`); `decode.plain_texts` checks the same with polars, for every
dump at once, so a dump that shows neither never comes here.
"""

from __future__ import annotations

import re

import ftfy
from ftfy import badness

from flows.stages import fast_badness
from flows.stages.legacy_text import (
    WESTERN,
    is_site_letter,
    letter_frequency,
    plausible_text,
    word_evidence,
)

#: UTF-8 read as cp1252 shows a lead character followed by continuation bytes' cp1252
#: characters: one after a two-byte lead (Â-ß for C2-DF: `Ã©` for é), two after a
#: three-byte lead (à-ï for E0-EF: `â€™` for ’; Portuguese `colocá—lo` is no pair).
_MARK_LEAD = "\u00c2-\u00df"
_MARK_LEAD3 = "\u00e0-\u00ef"
_MARK_TRAIL = (
    "\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e"
    "\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030"
    "\u2039\u203a\u20ac\u2122"
)
#: UTF-8 read as MacRoman: the lead bytes of Western letters and signs C2, C3, C5
#: (`¬`, `√`, `≈`) followed by a continuation byte's MacRoman character (`√°` for
#: á, `√£` for ã, `√º` for ü), or E2 80 (`‚Ä`) and one (`‚Äô` for ’). ftfy's
#: badness measure passes one such pair alone (`m√°s`, `n√£o`, `√úbergehe`).
_MAC_LEAD = "¬√≈"
_MAC_TRAIL = bytes(range(0x80, 0xC0)).decode("mac_roman")
#: UTF-8 read as Windows-1251: the lead byte of Latin letters C3 (`Г`) followed by a
#: continuation byte's character (`Г©` for é, `Гј` for ü, `ГЎ` for á), or E2 80
#: (`вЂ`) and one (`вЂ™` for ’); but not `Гё` (Russian `Гёте`), `Гі` (Ukrainian
#: `Гімн`) nor punctuation that ends a word (`ЛОГ…`, `«ДОГ»`): è, à, ó, ò, í and ë
#: are not marked so. (`В` and `Е`, the leads of signs and of œ, begin Russian words.)
_CP1251_LEAD = "Г"
_CP1251_CONTINUATION = bytes(range(0x80, 0xC0)).decode("cp1251", errors="ignore")
_CP1251_TRAIL = "".join(c for c in _CP1251_CONTINUATION if c not in "ЁёІі«»…–—‚„“”‘’‹›\xa0\xad·•")
#: A cp1252 mojibake pair: strong evidence (none of 369,743 real card texts, names
#: and rulings holds one); a line that keeps one is said to look like mojibake.
CP1252_PAIR = re.compile(f"[{_MARK_LEAD}][{_MARK_TRAIL}]|[{_MARK_LEAD3}][{_MARK_TRAIL}]{{2}}")
#: Any mojibake pair: a line with one is suspect. A MacRoman or Windows-1251 pair
#: alone is weaker evidence (math writes `√π`, `≈±`): such a line is only repaired
#: when it then reads as text of the languages read (`_undo`), and no claim is made
#: for it else.
MOJIBAKE_MARK = re.compile(
    f"{CP1252_PAIR.pattern}|[{_MAC_LEAD}][{_MAC_TRAIL}]|‚Ä[{_MAC_TRAIL}]"
    f"|[{_CP1251_LEAD}][{re.escape(_CP1251_TRAIL)}]|вЂ[{_CP1251_CONTINUATION}]"
)
#: C1 controls and U+FFFD are left out of the badness test (a lone C1 control is no
#: mojibake; U+FFFD lines are rejected later).
NOT_FOR_BADNESS = re.compile("[\u0080-\u009f\ufffd]")

#: ftfy's badness test runs only near these characters (see `fast_badness`); the
#: languages' own letters and signs are chosen as triggers only where a pattern
#: leaves no other choice.
BADNESS_TRIGGERS = fast_badness.derive_triggers(badness.BADNESS_RE, common="".join(WESTERN))


def _rust(chars: str) -> str:
    return fast_badness.rust_class(fast_badness.class_chars(f"[{chars}]"))


#: The same checks for polars (`decode.plain_texts`): a mojibake pair, the
#: characters ftfy's measure skips (`NOT_FOR_BADNESS`), and the badness triggers
#: that `NOT_FOR_BADNESS` leaves in a text.
MARK_PAIR_CLASS = (
    f"(?:{_rust(_MARK_LEAD)}{_rust(_MARK_TRAIL)}|{_rust(_MARK_LEAD3)}{_rust(_MARK_TRAIL)}{{2}}"
    f"|{_rust(_MAC_LEAD)}{_rust(_MAC_TRAIL)}"
    f"|\\x{{201a}}\\x{{c4}}{_rust(_MAC_TRAIL)}"
    f"|{_rust(_CP1251_LEAD)}{_rust(re.escape(_CP1251_TRAIL))}"
    f"|\\x{{432}}\\x{{402}}{_rust(_CP1251_CONTINUATION)})"
)
NOT_FOR_BADNESS_CLASS = fast_badness.rust_class(fast_badness.class_chars(NOT_FOR_BADNESS.pattern))
TRIGGER_CLASS = (
    fast_badness.rust_class(
        fast_badness.class_chars(BADNESS_TRIGGERS.pattern.pattern)
        - fast_badness.class_chars(NOT_FOR_BADNESS.pattern)
    )
    if BADNESS_TRIGGERS is not None
    else "(?s)."  # every text is measured
)

REPAIR_MOJIBAKE = "mojibake repaired (ftfy)"
MOJIBAKE_PARTIAL = (
    "mojibake repaired (ftfy) in {repaired} line(s); {left} line(s) still look like "
    "mojibake, not repaired"
)
MOJIBAKE_LEFT = "{left} line(s) look like mojibake; ftfy could not repair them"

#: Where a marked line's UTF-8 went (ftfy's codec names), tried in this order by
#: `_undo`: cp1252, MacRoman, Windows-1251 (ftfy's sloppy codecs: their undefined
#: bytes too).
UNDONE_VIA = ("sloppy-windows-1252", "macroman", "sloppy-windows-1251")

#: ISO-8859-15 (latin-9) writes eight signs where cp1252 writes them elsewhere
#: (`€ŠšŽžŒœŸ`): UTF-8 read as latin-9 is mojibake that ftfy reads through cp1252 into
#: other letters (`cÃŽté` is côté, ô = C3 B4 and latin-9's `Ž` is 0xB4; ftfy gives
#: `cÎté`, cp1252's `Ž` being 0x8E). Such a line is also undone through latin-9, and
#: the reading that is clearly right is taken (`_against_latin_9`).
LATIN_9 = "iso8859_15"
_LATIN_9_SIGNS = re.compile("[€ŠšŽžŒœŸ]")
#: One-letter words tell two readings apart by this much Zipf frequency or more
#: (`letter_frequency`: ten times more frequent).
LETTER_MARGIN = 1.0


def repair_mojibake(text: str) -> tuple[str, str | None]:
    """Repair mojibake line by line with ftfy, and check the result.

    A line is suspect when it shows a mojibake pair (MOJIBAKE_MARK) or ftfy's
    badness measure finds it bad (weaker than a cp1252 pair: on 2 million
    real card texts it flags 7, such as `CéléritéÀ chaque`, which ftfy leaves
    alone). It is repaired when ftfy changes it (or, for a line with a
    mojibake pair that ftfy leaves alone, `_undo` does) and the result no
    longer looks broken (a cp1252 pair or bad by the measure: a MacRoman or
    Windows-1251 pair left may be real, `√π`, `МТГ™`). A line it cannot
    repair counts as left only when it looks broken so. Lines are repaired one
    by one (the lines `decode.split_lines` makes: `split_line_ends`), so a header
    with a real `é` does not stop the repair of a MacRoman line below it.

    Returns:
        (text, outcome): outcome is REPAIR_MOJIBAKE when every suspect line
        was repaired; MOJIBAKE_PARTIAL when some were and others still look
        like mojibake; MOJIBAKE_LEFT when none could be and one shows a
        cp1252 pair (CP1252_PAIR); None when nothing was repaired and no line
        shows one. No repair is ever claimed for text that still looks like mojibake.
    """
    if not _is_suspect(text):
        return text, None
    out, repaired, left, strong_left = [], 0, 0, 0
    for line, end in split_line_ends(text):
        suspect = _is_suspect(line)
        fixed = _repaired(line) if suspect else line
        out.append(fixed + end)
        if fixed != line:
            repaired += 1
        elif suspect and _looks_broken(line):
            left += 1
            strong_left += bool(CP1252_PAIR.search(line))
    if repaired and left:
        outcome = MOJIBAKE_PARTIAL.format(repaired=repaired, left=left)
    elif repaired:
        outcome = REPAIR_MOJIBAKE
    else:
        outcome = MOJIBAKE_LEFT.format(left=left) if strong_left else None
    return "".join(out), outcome


#: Line ends beside LF, CRLF, CR (`decode.split_lines`, which imports them: a line is
#: repaired as it will be split): LS, PS (web text); in a text with no LF or CR but a
#: final one, VT (a word processor's line break), FF, NEL (UAX #14). (`str.splitlines`
#: splits at all of those and at FS, GS, RS, always: a Latin-1 reading of UTF-8 holds
#: NEL, the byte 0x85 of `兵`, E5 85 B5.)
LINE_SEPARATORS, OTHER_LINE_ENDS = "[\u2028\u2029]", "[\x0b\x0c\x85]"
_LINE_END = re.compile(rf"\r\n?|\n|{LINE_SEPARATORS}")
_ANY_LINE_END = re.compile(rf"\r\n?|\n|{LINE_SEPARATORS}|{OTHER_LINE_ENDS}")
#: The end of a mojibake line whose UTF-8 letter read as Latin-1 still needs a NEL (after
#: its lead byte, U+00C2–U+00F4, or a 3- or 4-byte letter's lead and continuations): that
#: NEL is the letter's byte, no line end (three reviews' finds: `Ñ\x85`, Cyrillic `х`, was
#: cut and left unrepaired in VT, FF, LS or PS files: 161 of 424; a clean line ending
#: `réglé` is no mojibake, and its NEL ends it).
_NEEDS_NEL = re.compile(r"(?:[\xc2-\xf4]|[\xe0-\xf4][\x80-\xbf]|[\xf0-\xf4][\x80-\xbf]{2})\Z")
_INNER_LINE_END = re.compile(r"[\r\n](?![\r\n]*\Z)")


def _repaired(line: str) -> str:
    """A suspect line (no line end) repaired by ftfy or `_undo`, checked; else the line."""
    fixed = ftfy.fix_encoding(line)
    if fixed == line:
        fixed = _undo(line)
    fixed = _against_latin_9(line, fixed)
    if fixed != line and not _looks_broken(fixed) and _reads_as_site_letters(line, fixed):
        return fixed
    return line


def split_line_ends(text: str) -> list[tuple[str, str]]:
    """`text`'s lines, split where `decode.split_lines` splits: a Latin-1 mojibake line
    (`å\x85µå£«` for `兵士`) is repaired whole, not cut at its NEL; and a line is
    repaired without its line end (a NEL after a mojibake line is no cp1252 `…`). A NEL
    a mojibake line's last letter needs ends no line (`Ñ\x85` is `х`: _NEEDS_NEL).

    Returns:
        (line, line end) pairs, joined `text`; the last line end "" when `text` has none.
    """
    ends = _LINE_END if _INNER_LINE_END.search(text) else _ANY_LINE_END
    pieces, start = [], 0
    for end in ends.finditer(text):
        pieces.append((text[start : end.start()], end.group()))
        start = end.end()
    if start < len(text):
        pieces.append((text[start:], ""))
    lines: list[tuple[str, str]] = []
    for line, line_end in pieces:
        before, before_end = lines[-1] if lines else ("", "")
        if before_end == "\x85" and _NEEDS_NEL.search(before) and _is_suspect(before):
            line = lines.pop()[0] + before_end + line  # the NEL is a mojibake letter's byte
        lines.append((line, line_end))
    return lines


def _undo(line: str) -> str:
    """ftfy's own step (`fix_encoding`: encode with the single-byte code page, decode as
    UTF-8), for a line with a mojibake pair that ftfy's badness measure passes (`m√°s`):
    with the first of UNDONE_VIA that encodes the whole line into strict UTF-8, when
    the line is no text of the languages read and undone it is
    (`legacy_text.plausible_text`), with a word of three letters or more holding a
    non-ASCII one (`T√°nazir` is `Tánazir`: names are words too); else the line as
    it is. A few signs are strict UTF-8 by chance: `√π` would be `ù` and `n√π` `nù`
    (no word of three letters; wordfreq knows `nù`, so real words are no test),
    `CAFÉ—` `CAFɗ` (no letter of these languages). A line whose only such word is
    shorter (`o√π` alone) is left."""
    if not MOJIBAKE_MARK.search(line) or plausible_text(line):
        return line
    for via in UNDONE_VIA:
        try:
            undone = line.encode(via).decode("utf-8")
        except UnicodeError:
            continue
        has_word = any(len(w) > 2 for w in _NON_ASCII_WORD.findall(undone))
        return undone if has_word and plausible_text(undone) else line
    return line


def _against_latin_9(line: str, fixed: str) -> str:
    """`fixed` (the line repaired through cp1252, MacRoman or Windows-1251), or the line
    undone through LATIN_9 when that is text of the languages read
    (`legacy_text.plausible_text`: not `Elige uno: ⤢ La`, cp1252's `â€¢` for `•`) and
    reads clearly better (`_clearer`). Only a line with one of latin-9's own signs is
    undone so; on a tie cp1252's reading stays (`joueurÃ€` is `joueurÀ`: Windows pages
    are the common ones, as real dumps show)."""
    if not _LATIN_9_SIGNS.search(line):
        return fixed
    try:
        undone = line.encode(LATIN_9).decode("utf-8")
    except UnicodeError:
        return fixed
    if undone != fixed and plausible_text(undone) and _clearer(fixed, undone) == undone:
        return undone
    return fixed


def _clearer(one: str, other: str) -> str | None:
    """Of two readings of a line, the one with fewer unknown words, then more real ones
    (`legacy_text.word_evidence`: `côté` and `trône`, not `cÎté` and `trÎne`), then
    whose one-letter words are LETTER_MARGIN more frequent (`è già`, not `Ú già`); None
    when neither is clearly right."""
    (known, unknown), (other_known, other_unknown) = word_evidence(one), word_evidence(other)
    if (unknown, -known) != (other_unknown, -other_known):
        return one if (unknown, -known) < (other_unknown, -other_known) else other
    letters, other_letters = letter_frequency(one), letter_frequency(other)
    if abs(letters - other_letters) < LETTER_MARGIN:
        return None
    return one if letters > other_letters else other


def _reads_as_site_letters(line: str, fixed: str) -> bool:
    """The letters a repair brings are letters of the sites' languages
    (`legacy_text.is_site_letter`): not cp1257's mojibake repaired to `d'Ʃnergie`."""
    return all(is_site_letter(c) for c in set(fixed) - set(line) if c.isalpha())


#: A word (a run of letters) holding a non-ASCII letter.
_NON_ASCII_WORD = re.compile(r"[^\W\d_]*[^\W\d_\x00-\x7f][^\W\d_]*")


def _is_suspect(text: str) -> bool:
    """A mojibake pair, or bad by ftfy's measure."""
    return bool(MOJIBAKE_MARK.search(text)) or _is_bad(text)


def _looks_broken(text: str) -> bool:
    """A cp1252 pair, or bad by ftfy's measure: mojibake, whatever else the text is."""
    return bool(CP1252_PAIR.search(text)) or _is_bad(text)


def _is_bad(text: str) -> bool:
    return fast_badness.is_bad(NOT_FOR_BADNESS.sub("", text), BADNESS_TRIGGERS)
