"""ftfy's mojibake test (`ftfy.badness.is_bad`), the same answer at a fraction of the CPU.

`is_bad` runs ftfy's BADNESS_RE, an alternation of 37 patterns, at every
position of a text: on a cold run that was most of the parse's CPU (20 s of
CPU at a million lines), though almost no dump is mojibake. Each pattern
needs one of a few characters somewhere in its match (`[{bad}]`, `€`, `Ђ`,
`√`, ...), so a text none of whose characters is such a trigger has no match,
and in one that has some, a match lies within the pattern's longest match of a
trigger. The triggers and the longest match are read from ftfy's own pattern
when this module is imported, so they follow ftfy's changes; a pattern this
module cannot read that way (an unbounded repeat, a look-around) turns the
shortcut off and `is_bad` runs as it is.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from ftfy import badness

try:  # the standard library's regular expression parser (3.11+: re._parser)
    from re import _constants as _sre
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover - Python before 3.11
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]


class Triggers(NamedTuple):
    """Characters at least one of which every match of a pattern holds, and its longest match."""

    pattern: re.Pattern[str]  # a character class of the trigger characters
    width: int  # the pattern's longest match, in characters


def derive_triggers(pattern: re.Pattern[str], common: str = "") -> Triggers | None:
    """The trigger characters of `pattern`, or None when they cannot be derived.

    `pattern` must be an alternation (or one pattern) whose every branch has,
    outside any repeat, a literal or a character class of listed characters
    (not `\\w`, `\\s`, `.` or a negated class) with no ASCII character; the
    branch's trigger is the one of those with the fewest letters and
    `common` characters (then the fewest characters, then the lowest code
    point): the rarest in text, so that most texts hold none. No branch
    may look around or back-reference, the match must have a bounded length,
    and no flag may change what a class matches (IGNORECASE).

    Args:
        pattern: a compiled `str` pattern (ftfy's BADNESS_RE).
        common: characters frequent in the text checked (not chosen as triggers
            when a branch has another choice; any value gives a correct result).
    """
    if pattern.flags & (re.IGNORECASE | re.MULTILINE | re.DEBUG) or not isinstance(
        pattern.pattern, str
    ):
        return None
    parsed = _sre_parse.parse(pattern.pattern, pattern.flags)
    width = parsed.getwidth()[1]
    if width >= _sre.MAXREPEAT or not _plain(parsed.data):
        return None
    items = parsed.data
    branches = items[0][1][1] if len(items) == 1 and items[0][0] is _sre.BRANCH else [items]
    chosen: set[str] = set()
    for branch in branches:
        candidates = [
            chars
            for op, av in branch
            if (chars := _listed_chars(op, av)) and not any(c.isascii() for c in chars)
        ]
        if not candidates:
            return None
        chosen |= min(candidates, key=lambda chars: _rarity_key(chars, common))
    members = "".join(re.escape(c) for c in sorted(chosen))
    return Triggers(re.compile(f"[{members}]"), width)


def _plain(items: list) -> bool:
    """No look-around, back-reference or conditional anywhere in the parsed `items`."""
    for op, av in items:
        if op in (_sre.ASSERT, _sre.ASSERT_NOT, _sre.GROUPREF, _sre.GROUPREF_EXISTS):
            return False
        if op is _sre.AT and av not in (_sre.AT_BEGINNING, _sre.AT_BEGINNING_STRING):
            return False  # `$`, `\b`: they look past an end of the window searched
        if op is _sre.BRANCH and not all(_plain(b.data) for b in av[1]):
            return False
        if op is _sre.SUBPATTERN and not _plain(av[-1].data):
            return False
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT) and not _plain(
            av[2].data
        ):
            return False
        if op is _sre.ATOMIC_GROUP and not _plain(av.data):
            return False
    return True


def _listed_chars(op: object, av: object) -> set[str] | None:
    """The characters a literal or a non-negated listed class matches; None for anything else."""
    if op is _sre.LITERAL:
        return {chr(av)}
    if op is not _sre.IN:
        return None
    chars: set[str] = set()
    for item_op, item_av in av:
        if item_op is _sre.LITERAL:
            chars.add(chr(item_av))
        elif item_op is _sre.RANGE:
            chars.update(map(chr, range(item_av[0], item_av[1] + 1)))
        else:  # NEGATE, CATEGORY (\w, \s), CHARSET: not a plain list
            return None
    return chars


def class_chars(char_class: str) -> frozenset[str]:
    """The characters of a character class `[...]` of characters and ranges (no negation).

    Raises:
        ValueError: `char_class` is anything else (`\\w`, `[^...]`, two classes).
    """
    items = _sre_parse.parse(char_class).data
    chars = _listed_chars(*items[0]) if len(items) == 1 else None
    if chars is None:
        raise ValueError(f"not a class of listed characters: {char_class!r}")
    return frozenset(chars)


def rust_class(chars: frozenset[str] | set[str]) -> str:
    """The same class for polars (Rust regex syntax): every character as `\\x{...}`."""
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in sorted(chars)) + "]"


def _rarity_key(chars: set[str], common: str) -> tuple[int, int, int]:
    letters = sum(c in common or "LETTER" in unicodedata.name(c, "") for c in chars)
    return letters, len(chars), min(map(ord, chars))


def is_bad(text: str, triggers: Triggers | None) -> bool:
    """`ftfy.badness.is_bad(text)`: the same answer, searched only near trigger characters.

    Every match of BADNESS_RE holds a trigger and is at most `width`
    characters long, so only the windows of `width - 1` characters either side
    of each trigger are searched (`^` still matches only at the text's start:
    a search from a position is no search of a slice). With `triggers` None,
    the whole text is searched.
    """
    if triggers is None:
        return badness.is_bad(text)
    width = triggers.width
    start = end = 0  # the window [start, end) not searched yet
    for found in triggers.pattern.finditer(text):
        low = max(0, found.start() - width + 1)
        if low > end:  # apart from the window: search it, open the next one
            if end > start and badness.BADNESS_RE.search(text, start, end):
                return True
            start = low
        end = found.start() + width
    return end > start and bool(badness.BADNESS_RE.search(text, start, end))
