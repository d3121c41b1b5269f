"""Decode one dump's bytes: find the encoding, repair mojibake, or reject the file.

Sites save dumps as UTF-8 (with or without BOM), UTF-16 with BOM, or a legacy
code page (cp1252 on a French or German Windows machine). Some files went
through UTF-8 -> cp1252 -> UTF-8 once (mojibake: `gÃ©nÃ©rÃ©e`); ftfy repairs
those. Legacy code pages are identified by charset-normalizer.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

import charset_normalizer
import ftfy

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)

#: UTF-8 read as cp1252 shows a lead character (Â-ï for lead bytes C2-EF) followed
#: by a continuation byte's cp1252 character: `Ã©` for é, `â€™` for ’. Only text
#: with such a pair goes to ftfy (a lone C1 control is no mojibake).
_MOJIBAKE_MARK = re.compile(
    "[\u00c2-\u00ef][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e"
    "\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030"
    "\u2039\u203a\u20ac\u2122]"
)
_NOISE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]")
_REAL_NON_ASCII = re.compile(r"[^\x00-\x7f\ufffd]")

#: A UTF-8 file with at most this many bad sequences (or 1 % of its good
#: multi-byte ones) is damaged UTF-8; with more, it is a legacy code page
#: (Shift_JIS, GBK, Big5, EUC-KR bytes also form some valid UTF-8 sequences).
MAX_DAMAGED_SEQUENCES = 3

#: Above this share of control characters or U+FFFD the bytes are no text.
MAX_NOISE_SHARE = 0.25

REPAIR_MOJIBAKE = "mojibake repaired (ftfy)"
REPAIR_REPLACED = "invalid UTF-8 bytes replaced by U+FFFD"


class DecodedDump(NamedTuple):
    """The outcome of decoding one file: text and encoding, or why it was rejected."""

    text: str | None
    encoding: str | None
    repair: str | None
    reject_reason: str | None


def decode_bytes(content: bytes) -> DecodedDump:
    """Decode one dump's bytes. Never raises.

    Returns:
        encoding: "utf-8-sig" (UTF-8 with BOM), "utf-16" (with BOM), "utf-8",
        or the legacy code page charset-normalizer finds ("cp1252" preferred
        among equivalent Western code pages).
        repair: REPAIR_MOJIBAKE, REPAIR_REPLACED (the affected lines are
        rejected later), or None.
        reject_reason: set (and text None) for a file with NUL bytes, or one
        that decodes to mostly control characters (an image saved as .txt).
    """
    if content.startswith(codecs.BOM_UTF8):
        return _checked(content[3:].decode("utf-8", errors="replace"), "utf-8-sig")
    if content.startswith(_UTF16_BOMS):
        return _checked(content.decode("utf-16", errors="replace"), "utf-16")
    if b"\x00" in content:
        return DecodedDump(None, None, None, "file has NUL bytes: binary, not a text dump")
    try:
        return _checked(content.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    replaced = content.decode("utf-8", errors="replace")
    bad = replaced.count("\ufffd")
    good = len(_REAL_NON_ASCII.findall(replaced))
    if good and bad <= max(MAX_DAMAGED_SEQUENCES, good // 100):  # UTF-8, a few bytes damaged
        return _checked(replaced, "utf-8", REPAIR_REPLACED)
    return _legacy(content, replaced)


def _legacy(content: bytes, replaced: str) -> DecodedDump:
    best = charset_normalizer.from_bytes(content).best()
    if best is None:
        if _REAL_NON_ASCII.search(replaced):  # no code page fits: keep it as damaged UTF-8
            return _checked(replaced, "utf-8", REPAIR_REPLACED)
        return DecodedDump(None, None, None, "no text encoding fits the bytes: not a text dump")
    encoding = "cp1252" if "cp1252" in best.could_be_from_charset else best.encoding
    return _checked(content.decode(encoding, errors="replace"), encoding)


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
    fixed = ftfy.fix_encoding(text) if _MOJIBAKE_MARK.search(text) else text
    if fixed != text and repair is None:
        return DecodedDump(fixed, encoding, REPAIR_MOJIBAKE, None)
    return DecodedDump(text, encoding, repair, None)
