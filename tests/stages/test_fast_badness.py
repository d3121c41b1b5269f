"""fast_badness.is_bad gives ftfy's `is_bad` answer on every text, real, mojibake or random."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator

import polars as pl
import pytest
from ftfy import badness
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.stages import encodings, fast_badness, mojibake
from flows.stages.mojibake import BADNESS_TRIGGERS
from tests.conftest import REAL_DATA, needs_real_data

TRIGGERS = fast_badness.derive_triggers(badness.BADNESS_RE)

#: Encodings a UTF-8 text is misread as, to make mojibake (ftfy's own list and DOS pages).
MISREADS = ("cp1252", "latin-1", "mac_roman", "cp1251", "cp1253", "cp1257", "cp437", "cp850")

#: Every character of ftfy's categories or pattern, so that random texts hit its patterns.
_CATEGORIES = re.compile("[" + "".join(badness.MOJIBAKE_CATEGORIES.values()) + "]")
PATTERN_CHARS = sorted(
    c
    for c in map(chr, [*range(0x80, 0x2600), 0xF8FF, 0xFFFD])
    if _CATEGORIES.match(c) or c in badness.BADNESS_RE.pattern
)


def misreads(text: str) -> Iterator[str]:
    """`text` as UTF-8 bytes decoded in each of MISREADS (undecodable bytes replaced)."""
    raw = text.encode("utf-8")
    for encoding in MISREADS:
        yield raw.decode(encoding, errors="replace")


def test_triggers_are_derived_from_the_installed_ftfy() -> None:
    assert TRIGGERS is not None and BADNESS_TRIGGERS is not None
    assert TRIGGERS.width == 7  # `ГўВЂВ.[A-Za-z ]`, the longest of ftfy 6.3's patterns
    for char in "€Ђ√ƒ\x81":  # each the only choice of one of ftfy's patterns
        assert TRIGGERS.pattern.match(char) and BADNESS_TRIGGERS.pattern.match(char)
    for char in "aé·’иの日":  # a date line's `·`, French, Russian, Japanese letters
        assert not BADNESS_TRIGGERS.pattern.match(char)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ã ", True),  # `^[ÃÂ][ ]` at the text's start
        ("1Ã ", False),  # the same two characters, not at the start
        ("x" * 40 + "Ã ", True),  # `[a-z]\s?[ÃÂ][ ]`, far from the start
        ("déjà vu" * 30 + "ГўВЂВ x", True),  # the 7-character pattern after a long text
        ("gÃ©nÃ©rÃ©e", True),
        ("d'√©nergie", True),
        ("РњР°СЂРєРµСЂС‹", True),
        ("Célérité · Quelle: wotc — « À chaque tour »", False),
        ("", False),
    ],
    ids=["start", "not-start", "late", "seven", "cp1252", "macroman", "cp1251", "fr", "empty"],
)
def test_known_texts(text: str, expected: bool) -> None:
    assert badness.is_bad(text) is expected
    assert fast_badness.is_bad(text, TRIGGERS) is expected
    assert fast_badness.is_bad(text, BADNESS_TRIGGERS) is expected


@settings(max_examples=3000, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(PATTERN_CHARS) | st.sampled_from(list("aZ .,?!\n\t1_")),
        max_size=40,
    ),
    st.text(max_size=30),
)
def test_random_texts(core: str, padding: str) -> None:
    for text in (core, padding + core, core + padding, padding + core + padding + core):
        assert fast_badness.is_bad(text, BADNESS_TRIGGERS) is badness.is_bad(text)


def _real_texts(step: int) -> list[str]:
    """Every `step`-th card of the real foreign-card file (name, type, text, flavor) and ruling."""
    texts = []
    path = REAL_DATA / "derived" / "mtgjson_v5_foreign_cards.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as cards:
        for number, line in enumerate(cards):
            if number % step == 0:
                card = json.loads(line)
                texts += [card[k] for k in ("name", "type", "text", "flavor_text") if card[k]]
    rulings = (REAL_DATA / "derived" / "mtgjson_v5_rulings.jsonl").read_text("utf-8")
    texts += [json.loads(line)["comment"] for line in rulings.splitlines()[::step]]
    return texts


@needs_real_data
def test_real_texts_and_their_mojibake() -> None:
    texts = _real_texts(step=100)
    checked = bad = 0
    for text in texts:
        for variant in (text, *misreads(text)):
            expected = badness.is_bad(variant)
            assert fast_badness.is_bad(variant, BADNESS_TRIGGERS) is expected, variant
            assert fast_badness.is_bad(variant, TRIGGERS) is expected, variant
            checked += 1
            bad += expected
    assert checked > 15_000 and 0.2 < bad / checked < 0.9  # both answers well covered


@needs_real_data
def test_real_release_notes_whole_and_misread() -> None:
    for path in sorted((REAL_DATA / "zh_release_notes" / "text").glob("*.txt")):
        text = path.read_text("utf-8")
        for variant in (text, *misreads(text)):
            assert fast_badness.is_bad(variant, BADNESS_TRIGGERS) is badness.is_bad(variant)


@pytest.mark.parametrize(
    "pattern",
    [
        r"[€]x+",  # unbounded repeat: no longest match
        r"a(?=€)",  # look-ahead
        r"€\b",  # a word boundary looks past the window's end
        r"€|[a-z]{2}",  # a branch with no non-ASCII character
    ],
    ids=["repeat", "lookahead", "boundary", "ascii-branch"],
)
def test_underivable_patterns_turn_the_shortcut_off(pattern: str) -> None:
    assert fast_badness.derive_triggers(re.compile(pattern)) is None


def test_classes_of_listed_characters_are_the_triggers() -> None:
    derived = fast_badness.derive_triggers(re.compile(r"\w[€£]|^Ã |[^a]√x?"))
    assert derived == fast_badness.Triggers(re.compile("[£Ã€√]"), 3)


@pytest.mark.parametrize(
    "char_class",
    [
        encodings._NOISE.pattern,
        f"[{mojibake._MARK_LEAD}]",
        f"[{mojibake._MARK_LEAD3}]",
        f"[{mojibake._MARK_TRAIL}]",
        f"[{mojibake._MAC_TRAIL}]",
        f"[{re.escape(mojibake._CP1251_TRAIL)}]",
        TRIGGERS.pattern.pattern,
    ],
    ids=["noise", "mark-lead", "mark-lead3", "mark-trail", "mac-trail", "cp1251-trail", "triggers"],
)
def test_rust_class_matches_the_same_characters(char_class: str) -> None:
    chars = pl.Series([chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000])
    in_polars = chars.str.contains(fast_badness.rust_class(fast_badness.class_chars(char_class)))
    in_python = [re.fullmatch(char_class, c) is not None for c in chars]
    assert in_polars.to_list() == in_python
    assert 10 < sum(in_python) < 1000


def test_mark_pair_in_polars_finds_what_python_finds() -> None:
    cp1252 = ["gÃ©nÃ©rÃ©e", "Ã", "colocá—lo", "Ã\u0080", "xâ€™", "générée"]
    mac = ["m√°s", "n√£o", "d‚Äôun", "¬†", "≈ì", "√x", "«Éclair»", "√2 ≈ 1,41", "–Ü"]
    cp1251 = ["fГјr", "manГЎ", "dвЂ™un", "Гёте", "«ВРЕМЕННОЕ»", "ЛОГ…"]
    texts = pl.Series([*cp1252, *mac, *cp1251])
    found = texts.str.contains(mojibake.MARK_PAIR_CLASS).to_list()
    assert found == [mojibake.MOJIBAKE_MARK.search(t) is not None for t in texts]
    expected = [True, False, False, True, True, False] + [True] * 5 + [False] * 4
    assert found == expected + [True] * 3 + [False] * 3


def test_class_chars_rejects_other_patterns() -> None:
    with pytest.raises(ValueError, match="not a class of listed characters"):
        fast_badness.class_chars(r"[^a]")
