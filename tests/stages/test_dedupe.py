"""dedupe: normalization, and a labelled fixture of real duplicate and distinct rulings."""

from __future__ import annotations

import hashlib

import polars as pl
import pytest

from flows.stages.dedupe import assign_variants, cluster_variants, normalize_text, sha256_hex

# Seeds 000 and 003: the same ruling, "theme" (typo) and "them".
KEEP_THEME = (
    "Keep track of how many energy counters each player has. Potential ways to track this include "
    "writing theme down on paper or using dice, but any method that is clear and mutually agreeable "
    "is fine. (At higher levels of tournament play, dice may not be allowed for tracking counters "
    "that players have.)"
)
KEEP_THEM = KEEP_THEME.replace("writing theme down", "writing them down")
# Real MTGJSON rulings (BNG bestow): "spellas" is a typo in one printing's copy.
BESTOW = (
    "You don't choose whether the spell is going to be an Aura spell or not until the spell is "
    "already on the stack. Abilities that affect when you can cast a spell, such as flash, will "
    "apply to the spell after you've made this choice. For example, an effect that said you can "
    "cast creature spells as though they have flash won't allow you to cast a creature card with "
    "bestow as an Aura spell anytime you could cast an instant, but one that said you can cast "
    "Aura spells as though they have flash will."
)
BESTOW_TYPO = BESTOW.replace("cast Aura spells as", "cast Aura spellas as")
# Real ruling; the power 3 text is its hard negative (a number differs).
POWER_2 = (
    "Once a creature with power 2 or less has blocked this creature, changing the power of "
    "the blocking creature won't cause this creature to become unblocked."
)
POWER_3 = POWER_2.replace("power 2 or less", "power 3 or less")
# Seed 002: first and second triggered abilities of one card.
DEMON_SECOND = (
    "Demon of Dark Schemes's second triggered ability triggers whenever another creature "
    "dies for any reason, not just due to the first triggered ability."
)
DEMON_FIRST = DEMON_SECOND.replace("'s second", "'s first")
# Negation and card-name hard negatives.
CAN = "You can pay that amount of {E} as the ability resolves."
CANT = CAN.replace("You can pay", "You can't pay")
SENTRY_BOT = "Use the number of creatures attacking you as Sentry Bot's third ability resolves."
SENTRY_BAT = SENTRY_BOT.replace("Sentry Bot's", "Sentry Bat's")

LABELLED: list[tuple[str, str]] = [
    ("keep-track", KEEP_THEME),
    ("keep-track", KEEP_THEM),
    ("bestow", BESTOW),
    ("bestow", BESTOW_TYPO),
    ("power-2", POWER_2),
    ("power-3", POWER_3),
    ("demon-second", DEMON_SECOND),
    ("demon-first", DEMON_FIRST),
    ("can", CAN),
    ("cant", CANT),
    ("sentry-bot", SENTRY_BOT),
    ("sentry-bat", SENTRY_BAT),
]


def _clusters(texts: list[str], languages: list[str] | None = None) -> list[set[str]]:
    variants = pl.DataFrame({"text": texts, "language": languages or ["en"] * len(texts)})
    variants = variants.with_columns(variant_id=sha256_hex(variants["text"]))
    merged = cluster_variants(variants).join(variants, on="variant_id")
    return sorted(
        (set(g) for g in merged.group_by("ruling_id").agg("text")["text"].to_list()),
        key=lambda s: sorted(s),
    )


def test_labelled_fixture_exact_membership() -> None:
    labels = {text: label for label, text in LABELLED}
    found = _clusters([text for _, text in LABELLED])
    expected_groups: dict[str, set[str]] = {}
    for label, text in LABELLED:
        expected_groups.setdefault(label, set()).add(text)
    assert sorted(found, key=lambda s: sorted(s)) == sorted(
        expected_groups.values(), key=lambda s: sorted(s)
    )
    assert {frozenset(labels[t] for t in group) for group in found} == {
        frozenset([label]) for label in expected_groups
    }


def test_same_text_in_two_languages_is_not_merged() -> None:
    assert len(_clusters([KEEP_THEME, KEEP_THEM], ["en", "fr"])) == 2


def test_ruling_id_does_not_depend_on_row_order() -> None:
    texts = [KEEP_THEME, KEEP_THEM, POWER_2]
    forward = pl.DataFrame({"text": texts, "language": ["en"] * 3})
    forward = forward.with_columns(variant_id=sha256_hex(forward["text"]))
    assert cluster_variants(forward).equals(cluster_variants(forward.reverse()))


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("doesn’t “may pay”", 'doesn\'t "may pay"'),  # seed 003's curly quotes
        ("  two\n lines\t here ", "two lines here"),
        ("ｆｕｌｌ　ｗｉｄｔｈ", "full width"),  # NFKC
        ("{E}{E}", "{E}{E}"),
    ],
    ids=["curly-quotes", "whitespace", "nfkc", "symbols-kept"],
)
def test_normalize_text(raw: str, normalized: str) -> None:
    assert pl.select(normalize_text(pl.lit(raw))).item() == normalized


def test_assign_variants_hashes_the_normalized_text() -> None:
    entries = assign_variants(
        pl.DataFrame({"text_raw": ["It won’t resolve.", "It won't  resolve."]})
    )
    assert entries["text_normalized"].to_list() == ["It won't resolve."] * 2
    assert entries["variant_id"].to_list() == [hashlib.sha256(b"It won't resolve.").hexdigest()] * 2
