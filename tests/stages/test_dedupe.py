"""dedupe: normalization, and a labelled fixture of real duplicate and distinct rulings."""

from __future__ import annotations

import hashlib

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from rapidfuzz.distance import Levenshtein

from flows.stages.dedupe import (
    assign_variants,
    cluster_variants,
    normalize_text,
    sha256_hex,
    stabilize_ruling_ids,
)
from flows.stages.merge_rule import (
    MAX_EDITS,
    MERGE_RULES_VERSION,
    negates,
    protected_tokens,
    swaps_word,
    within_merge_rule,
)
from tests.conftest import CASES_DIR as CASES
from tests.conftest import content_of, needs_cases, run_contents, run_raw

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
# R1 of ../shared/cases/realworld/CASES.md; `arent` in a paste was merged with `are mana` in v3.
ENERGY = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."
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


def _clusters(
    texts: list[str], languages: list[str] | None = None, counts: list[int] | None = None
) -> list[set[str]]:
    """Clusters of `texts` (as written; compared by their key), as sets of the texts."""
    variants = pl.DataFrame({
        "written": texts,
        "language": languages or ["en"] * len(texts),
        "occurrence_count": counts or [1] * len(texts),
    }).with_columns(text=normalize_text(pl.col("written")))  # fmt: skip
    variants = variants.with_columns(variant_id=sha256_hex(variants["text"]))
    merged = cluster_variants(variants).join(variants, on="variant_id")
    return sorted(
        (set(g) for g in merged.group_by("ruling_id").agg("written")["written"].to_list()),
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
        # a probe's finds (case c19's kind): French typography and corner brackets
        ("you « may pay » it", 'you "may pay" it'),
        ("you «\u202fmay pay\u202f» it", 'you "may pay" it'),
        ("you 「may pay」 it", 'you "may pay" it'),
    ],
    ids=[
        "curly-quotes",
        "whitespace",
        "nfkc",
        "symbols-kept",
        "guillemets",
        "guillemets-narrow-nbsp",
        "corner-brackets",
    ],
)
def test_normalize_text(raw: str, normalized: str) -> None:
    assert pl.select(normalize_text(pl.lit(raw))).item() == normalized


def test_assign_variants_hashes_the_normalized_text() -> None:
    entries = assign_variants(
        pl.DataFrame({"text_raw": ["It won’t resolve.", "It won't  resolve."]})
    )
    assert entries["text_normalized"].to_list() == ["It won't resolve."] * 2
    assert entries["variant_id"].to_list() == [hashlib.sha256(b"It won't resolve.").hexdigest()] * 2


# Case c04 (../shared/cases/realworld): a real ruling with signed power/toughness.
PLUS = (
    "The +1/+0 applies to attacking creatures from all players, not just the creatures you control."
)
MINUS = PLUS.replace("+1/+0", "-1/-0")


@pytest.mark.parametrize(
    ("a", "b", "merged"),
    [
        (PLUS, MINUS, False),
        (PLUS, PLUS.replace("+1/+0", "+0/+1"), False),
        (PLUS.replace("+1/+0", "+2/+0"), PLUS.replace("+1/+0", "+0/+2"), False),
        (PLUS.replace("+1/+0", "-1/-1"), PLUS.replace("+1/+0", "\u22121/\u22121"), True),
        (POWER_2, POWER_2.replace("the blocking", "that blocking"), False),
        (POWER_2, POWER_2.replace("won't cause", "will cause"), False),
        (KEEP_THEM, KEEP_THEM.replace("dice may not", "dice may"), False),
        (KEEP_THEM, KEEP_THEM.replace("is fine", "is unfine"), False),
        (BESTOW, BESTOW.replace(" allow you ", " disallow you "), False),
        (CAN, CAN.replace("You can pay", "You may pay"), False),
        (CAN.replace("pay", "tap"), CAN.replace("pay", "untap"), False),
        (
            "Put a +1/+1 counter on each token creature you control.",
            "Put a +1/+1 counter on each nontoken creature you control.",
            False,
        ),
        (
            "That player is able to block with the creature this turn.",
            "That player is unable to block with the creature this turn.",
            False,
        ),
        (
            "The ability checks whether the permanent is active as it resolves.",
            "The ability checks whether the permanent is inactive as it resolves.",
            False,
        ),
        (
            "The ability checks whether the creature is a token as it resolves.",
            "The ability checks whether the creature is a tokn as it resolves.",
            True,
        ),
        # a negation typed without its apostrophe is that negation, not its opposite
        (ENERGY, ENERGY.replace("aren't", "arent"), True),
        (ENERGY.replace("aren't", "are"), ENERGY.replace("aren't", "arent"), False),
        ("You cant sacrifice it.", "You can sacrifice it.", False),
        ("You cant sacrifice it.", "You can't sacrifice it.", True),
        ("Arent they tokens?", "Are they tokens?", False),
        (ENERGY.replace("'", "\u02bc"), ENERGY.replace("aren't", "arent"), True),
        (ENERGY.replace("'", "\u00b4"), ENERGY, True),
        ("ISN'T THAT A CREATURE SPELL?", "ISNT THAT A CREATURE SPELL?", True),
        ("It mightn't resolve.", "It mightnt resolve.", True),
    ],
    ids=[
        "c04-sign", "pt-order-own", "pt-order", "minus-sign-folded", "the-that",
        "negation", "negation-removed", "prefix-un-added", "prefix-dis", "modal-may",
        "prefix-untap", "prefix-non", "prefix-unable", "prefix-inactive", "typo-merges",
        "arent-is-arent", "arent-is-not-are", "cant-is-not-can", "cant-is-cant",
        "capitalized-arent", "modifier-apostrophe", "acute-apostrophe", "capitals",
        "mightnt",
    ],
)  # fmt: skip
def test_merge_rule_keeps_signs_order_and_negations(a: str, b: str, merged: bool) -> None:
    assert len(_clusters([a, b])) == (1 if merged else 2)


def test_negates_needs_a_word_of_three_letters() -> None:
    assert negates("tap it", "untap it")
    assert not negates("go to the zone", "go into the zone")  # "to" is no word to negate


@pytest.mark.parametrize(
    ("a", "b", "negated", "swapped"),
    [
        (
            "Untap it, then tap it. The count includes it but excludes tokens.",
            "Untap it, then tap it. The count includes it but excludes tokenz.",
            False,
            False,
        ),
        ("Untap it, then tap it.", "Untap it, then untap it.", True, False),
        (
            "The count includes it but excludes tokens.",
            "The count excludes it but excludes tokens.",
            False,
            True,
        ),
    ],
    ids=["in-both-unaligned", "untap-aligned", "excludes-aligned"],
)
def test_words_in_both_texts_negate_or_swap_only_where_aligned(
    a: str, b: str, negated: bool, swapped: bool
) -> None:
    """tap/untap and includes/excludes in both texts: only a replacement counts (the
    quick check on the texts' words must leave these to the alignment)."""
    assert (negates(a, b), swaps_word(a, b)) == (negated, swapped)


THEME, THEM, TH = (
    KEEP_THEM.replace("writing them", f"writing {w}") for w in ("theme", "them", "th")
)


def test_no_chaining_every_variant_is_within_its_representatives_rule() -> None:
    # theme-them 1 edit, them-th 2 edits, theme-th 3 edits: single linkage would join all three.
    assert not within_merge_rule(normalize_text_str(THEME), normalize_text_str(TH))
    # representative: the most frequent variant (ties: the smallest text, "th down" < "them")
    assert _clusters([THEME, THEM, TH]) == sorted([{TH, THEM}, {THEME}], key=sorted)
    assert _clusters([THEME, THEM, TH], counts=[3, 1, 1]) == sorted(
        [{THEME, THEM}, {TH}], key=sorted
    )


def test_verified_clusters_do_not_depend_on_row_order() -> None:
    variants = pl.DataFrame({"text": [THEME, THEM, TH, POWER_2], "language": ["en"] * 4})
    variants = variants.with_columns(variant_id=sha256_hex(variants["text"]))
    assert cluster_variants(variants).equals(cluster_variants(variants.reverse()))
    assert cluster_variants(variants)["is_representative"].sum() == 3


def normalize_text_str(text: str) -> str:
    return pl.select(normalize_text(pl.lit(text))).item()


def protected_tokens_of(text: str) -> list[str]:
    return pl.select(protected_tokens(normalize_text(pl.lit(text)))).item().to_list()


@pytest.mark.parametrize(
    "invisible",
    ["\u00ad", "\u200b", "\u200d", "\u200e", "\u202e", "\u2066", "\ufeff", "\u2060"],
    ids=["soft-hyphen", "zwsp", "zwj", "lrm", "rlo", "lri", "bom", "word-joiner"],
)
def test_invisible_characters_are_not_in_the_key(invisible: str) -> None:
    written = f"An Equip{invisible}ment creature can never become attached to itself."
    assert (
        normalize_text_str(written) == "An Equipment creature can never become attached to itself."
    )


@needs_cases
@pytest.mark.parametrize(
    ("case", "texts", "occurrences"),
    [
        (
            "c04_signed_pt.txt",
            [PLUS, MINUS],
            [1, 1],
        ),
        (
            "c19_soft_hyphen.txt",
            [
                "An Equipment creature can never become attached to itself. "
                "If an effect tries to do this, nothing happens."
            ],
            [2],
        ),
        (
            "c20_display_text.txt",
            [
                "If you have 41 life, half that number rounded up is 21, "
                "and rounded down it is 20\u00bd."
            ],
            [1],
        ),
    ],
    ids=["c04", "c19", "c20"],
)
def test_realworld_cases(case: str, texts: list[str], occurrences: list[int], tmp_path) -> None:
    (tmp_path / case).write_bytes((CASES / case).read_bytes())
    tables = run_raw(tmp_path).tables
    rulings = tables["rulings"].sort("text")
    assert rulings["text"].to_list() == sorted(texts)
    assert rulings["occurrence_count"].to_list() == [
        n for _, n in sorted(zip(texts, occurrences, strict=True))
    ]


def test_published_texts_keep_what_was_written() -> None:
    written = "Commander\u2122 rulings: if you have 41 life, half of it rounded down is 20\u00bd."
    spelled = written.replace("\u2122", "TM")  # the same key (NFKC), another text
    entries = [
        line
        for day, body in ((7, written), (8, spelled), (9, written))
        for line in (f"June {day}, 2024 \u00b7 source: wotc", body)
    ]
    header = "Official rulings from Wizards of the Coast, as published."
    tables = run_contents({"t.txt": content_of(header, *entries)}).tables
    # One variant (one key), published as its most frequent text as written.
    assert tables["ruling_variants"].select("text", "occurrence_count").rows() == [(written, 3)]
    assert tables["rulings"]["text"].to_list() == [written]
    assert "201\u20442" not in tables["rulings"]["text"][0]  # NFKC would write 20½ as 201⁄2
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [written, spelled, written]


#: Real rulings (../shared/data/real, derived/mtgjson_v5_rulings.jsonl) and the
#: same with an opposite word two edits away: found by a fresh review, merged
#: under merge rules version 2.
EXTORT = (
    "You may pay {W/B} a maximum of one time for each extort triggered ability. "
    "You decide whether to pay when the ability resolves."
)
BENEFACTION = (
    "While resolving Benefaction of Rhonas, you could put no cards, a creature card, "
    "an enchantment card, or a creature card and an enchantment card into your hand."
)


@pytest.mark.parametrize(
    ("a", "b", "merged"),
    [
        (EXTORT, EXTORT.replace("maximum", "minimum"), False),
        (BENEFACTION, BENEFACTION.replace("could", "would"), False),
        (
            "The spell's effect increases the amount of damage dealt to that creature.",
            "The spell's effect decreases the amount of damage dealt to that creature.",
            False,
        ),
        (
            "The count includes the creature that left the battlefield.",
            "The count excludes the creature that left the battlefield.",
            False,
        ),
        (EXTORT, EXTORT.replace("maximum", "maximun"), True),  # a typo is no common word
        (EXTORT, EXTORT.replace("triggered", "trigegred"), True),  # two letters, not at the start
        # one letter, but another common word of similar frequency (v5; v4 merged it)
        (BENEFACTION, BENEFACTION.replace("hand", "band"), False),
    ],
    ids=[
        "maximum-minimum",
        "could-would",
        "increases",
        "includes",
        "typo",
        "typo-swap",
        "hand-band",
    ],
)
def test_a_common_word_swapped_for_another_is_a_different_ruling(
    a: str, b: str, merged: bool
) -> None:
    assert len(_clusters([a, b])) == (1 if merged else 2)


#: Real rulings (../shared/data/real, derived/mtgjson_v5_rulings.jsonl) and the
#: same with one real word swapped for another, 1-2 letters: found by a review,
#: merged under merge rules version 4 (into one ruling_id, one text published).
GOLD = (
    "A Gold token is a colorless Gold artifact token with "
    "\u201cSacrifice this artifact: Add one mana of any color.\u201d"
)
EQUIPMENT = "Equipment attached to the target creature remains on the battlefield."
ATTACH = "All Equipment you decide to attach to tokens become attached at the same time."
DIES = (
    "Abilities that trigger whenever a creature an opponent controls dies won\u2019t trigger "
    "unless that creature is a token."
)
COUNTERS = (
    "Creatures your opponent controls won\u2019t receive +1/+1 counters as they enter the "
    "battlefield."
)
COPIED_X = "If the copied creature card has {X} in its mana cost, X is considered to be 0."
EACH_HAND = "You count the cards in the each player's hand when the triggered ability resolves."
ATTACKER = "This creature does not have to be an attacker or blocker to use its ability."
PLAY = (
    "An effect that instructs you to \u201ccast\u201d a card doesn\u2019t allow you to play lands."
)
COST = "Blasphemous Act's ability can't reduce the total cost to cast the spell below {R}."
OWNERS_HAND = (
    "Archwing Dragon is only returned to its owner\u2019s hand if it\u2019s on the battlefield."
)
GRAVEYARD = (
    "If X is 0, Chimeric Coils becomes a 0/0 creature and is put into its owner\u2019s graveyard."
)
THESE = "If you have more than one of these on the battlefield, the cost reduction is cumulative."
PUMP = (
    "The +1/+0 applies to attacking creatures from all players, not just the creatures you control."
)
ZERO = "You have to choose zero or a positive number. It must be an integer number."


@pytest.mark.parametrize(
    ("a", "old", "new"),
    [
        (GOLD, "this artifact", "that artifact"),
        (EQUIPMENT, "target creature", "target creatures"),
        (ATTACH, "decide to attach", "decide to detach"),
        (DIES, "controls dies", "controls does"),
        (COUNTERS, "your opponent controls", "your opponents control"),
        (COPIED_X, "card has", "card had"),
        (EACH_HAND, "player's", "players'"),
        (ATTACKER, "an attacker", "an attacked"),
        (PLAY, "to play lands", "to pay lands"),
        (COST, "to cast the", "to cost the"),
        (OWNERS_HAND, "owner\u2019s hand", "owner\u2019s land"),
        (GRAVEYARD, "put into", "put onto"),
        (THESE, "of these", "of those"),
        (PUMP, "creatures you control", "creatures your control"),
        (ZERO, "choose zero", "choose hero"),
    ],
    ids=[
        "this-that", "creature-creatures", "attach-detach", "dies-does", "opponent-opponents",
        "has-had", "player's-players'", "attacker-attacked", "play-pay", "cast-cost",
        "hand-land", "into-onto", "these-those", "you-your", "zero-hero",
    ],
)  # fmt: skip
def test_a_real_word_swapped_for_a_common_word_is_a_different_ruling(
    a: str, old: str, new: str
) -> None:
    """A common word of similar frequency, an inflection or a moved possessive (merge rules v5)."""
    b = a.replace(old, new)
    # near enough to merge (MAX_EDITS) and the same protected tokens: only the word differs
    assert 1 <= Levenshtein.distance(normalize_text_str(a), normalize_text_str(b)) <= MAX_EDITS
    assert protected_tokens_of(a) == protected_tokens_of(b)
    assert _clusters([a, b]) == sorted([{a}, {b}], key=sorted)


def test_two_dumps_a_word_apart_publish_two_rulings() -> None:
    """The review's run: two dumps of one entry each, `this` and `that` (v4: one ruling_id,
    and one text, `that`, published for both)."""
    that = GOLD.replace("this artifact", "that artifact")
    header = "Official rulings from Wizards of the Coast, as published."
    dumps = {
        f"{name}.txt": content_of(header, "June 7, 2024 \u00b7 source: wotc", body)
        for name, body in (("this", GOLD), ("that", that))
    }
    rulings = run_contents(dumps).tables["rulings"].sort("text")
    assert rulings["text"].to_list() == sorted([GOLD, that])
    assert rulings["ruling_id"].n_unique() == 2


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (KEEP_THEME, KEEP_THEM),  # seeds 000 and 003: theme (Zipf 4.6) is far rarer than them (6.2)
        (BESTOW, BESTOW_TYPO),  # spellas: no word
        (EQUIPMENT, EQUIPMENT.replace("remains", "remanis")),
        (GOLD, GOLD.replace("\u201c", '"').replace("\u201d", '"')),  # straight quotes
        (GOLD, GOLD.replace("artifact:", "arti\u00adfact:")),  # an invisible soft hyphen
        (DIES, DIES.replace("won\u2019t", "wont")),  # a negation without its apostrophe
        (OWNERS_HAND, OWNERS_HAND.replace("if it\u2019s", "if its")),  # a dropped apostrophe
        (EACH_HAND, EACH_HAND.replace("player's", "players")),  # a dropped apostrophe
        (COUNTERS, COUNTERS.replace("battlefield", "battle-field")),  # a hyphen added
        (ZERO, ZERO.replace("positive", "posituve")),
        (COPIED_X, COPIED_X.replace("is considered", "is consdered")),
        (GOLD, GOLD.replace("Sacrifice this", "Sacrifice thiss")),  # an s typed twice
        (COUNTERS, COUNTERS.replace(" the ", " thes ", 1)),
        (COUNTERS, COUNTERS.replace("controls", "controled")),  # Zipf 3.5 below `control`
        (DEMON_SECOND, DEMON_SECOND.replace("another", "anothers")),  # 3.89 below
    ],
    ids=[
        "theme-them", "spellas", "remanis", "straight-quotes", "soft-hyphen", "wont",
        "its-it's", "players-player's", "battle-field", "posituve", "consdered", "thiss",
        "thes", "controled", "anothers",
    ],
)  # fmt: skip
def test_typos_and_variants_still_merge(a: str, b: str) -> None:
    assert _clusters([a, b]) == [{a, b}]


# ---- Ruling ids: content ids, kept across runs by the id registry ----------------------


def _content(text: str) -> str:
    return hashlib.sha256(f"ruling:{text}".encode()).hexdigest()


def _id_clusters(*rows: tuple[str, str, bool]) -> pl.DataFrame:
    """(variant_id, content ruling_id, is_representative) rows, as `cluster_variants` returns."""
    return pl.DataFrame(
        rows,
        schema={"variant_id": pl.String, "ruling_id": pl.String, "is_representative": pl.Boolean},
        orient="row",
    ).sort("variant_id")


def _registry(*rows: tuple[str, str, bool | None]) -> pl.DataFrame:
    return pl.DataFrame(
        [(*r, MERGE_RULES_VERSION) for r in rows],
        schema={
            "variant_id": pl.String,
            "ruling_id": pl.String,
            "is_representative": pl.Boolean,
            "merge_rules_version": pl.String,
        },
        orient="row",
    )


def _ids(stable: pl.DataFrame) -> dict[str, str]:
    return dict(stable.select("variant_id", "ruling_id").iter_rows())


def _stats(result: dict) -> dict[str, int]:
    return {k: result["stats"][k] for k in ("kept", "merged", "split", "gained")}


def test_cold_run_gives_content_ids() -> None:
    clusters = _id_clusters(("a", _content("x"), True), ("b", _content("x"), False))
    result = stabilize_ruling_ids(clusters, _registry())
    assert_frame_equal(result["clusters"], clusters)
    assert _stats(result) == {"kept": 0, "merged": 0, "split": 0, "gained": 1}
    assert result["registry"]["merge_rules_version"].to_list() == [MERGE_RULES_VERSION] * 2


def test_new_variant_joins_and_keeps_the_registered_id() -> None:
    clusters = _id_clusters(("a", _content("a"), True), ("b", _content("a"), False))
    result = stabilize_ruling_ids(clusters, _registry(("b", "R", True)))
    assert _ids(result["clusters"]) == {"a": "R", "b": "R"}
    assert _stats(result) == {"kept": 1, "merged": 0, "split": 0, "gained": 0}


@pytest.mark.parametrize(
    ("representative", "keeps", "gets_own"),
    [("a", ["a", "b"], ["c"]), ("c", ["c"], ["a", "b"])],
    ids=["rep-in-bigger-part", "rep-in-smaller-part"],
)
def test_split_the_part_holding_the_representative_keeps_the_id(
    representative: str, keeps: list[str], gets_own: list[str]
) -> None:
    # a, b, c were one ruling R (bridged by b); now {a, b} and {c} are two rulings.
    registry = _registry(*((v, "R", v == representative) for v in "abc"))
    clusters = _id_clusters(("a", _content("a"), True), ("b", _content("a"), False),
                         ("c", _content("c"), True))  # fmt: skip
    result = stabilize_ruling_ids(clusters, registry)
    own = _content(gets_own[0])
    assert _ids(result["clusters"]) == {**dict.fromkeys(keeps, "R"), **dict.fromkeys(gets_own, own)}
    assert _stats(result) == {"kept": 1, "merged": 0, "split": 1, "gained": 0}


def test_merge_keeps_one_registered_id_and_says_so() -> None:
    registry = _registry(("a", "R2", True), ("b", "R1", True))
    clusters = _id_clusters(("a", _content("a"), True), ("b", _content("a"), False))
    result = stabilize_ruling_ids(clusters, registry)
    assert _ids(result["clusters"]) == {"a": "R1", "b": "R1"}  # both reps held: smallest id
    assert _stats(result) == {"kept": 0, "merged": 1, "split": 0, "gained": 0}


def test_unseen_variants_stay_registered_and_lose_representative_when_their_id_moved() -> None:
    registry = _registry(("a", "R", True), ("b", "R", False), ("z", "Z", True))
    clusters = _id_clusters(("b", _content("b"), True))
    result = stabilize_ruling_ids(clusters, registry)
    expected = _registry(("a", "R", False), ("b", "R", True), ("z", "Z", True))
    assert_frame_equal(result["registry"], expected)


def test_a_content_id_already_taken_is_rehashed() -> None:
    # {b} keeps R = content("a"); the split-off {a} would get content("a") too.
    registry = _registry(("a", _content("a"), False), ("b", _content("a"), True))
    clusters = _id_clusters(("a", _content("a"), True), ("b", _content("b"), True))
    ids = _ids(stabilize_ruling_ids(clusters, registry)["clusters"])
    assert ids == {"a": hashlib.sha256(f"ruling:{_content('a')}".encode()).hexdigest(),
                   "b": _content("a")}  # fmt: skip


def test_registry_without_representative_or_version_columns_is_read() -> None:
    old = pl.DataFrame({"variant_id": ["a", "c"], "ruling_id": ["R", "R"]})
    clusters = _id_clusters(("a", _content("a"), True), ("c", _content("c"), True))
    result = stabilize_ruling_ids(clusters, old)
    # neither holds R's representative (unknown), one variant each: the smaller content id wins
    winner, loser = sorted(["a", "c"], key=_content)
    assert _ids(result["clusters"]) == {winner: "R", loser: _content(loser)}
    assert result["stats"]["registry_merge_rules_version"] is None
    assert result["registry"].columns == [
        "variant_id", "ruling_id", "is_representative", "merge_rules_version"
    ]  # fmt: skip


def test_same_clusters_and_registry_give_the_same_ids() -> None:
    registry = _registry(("a", "R", True), ("b", "R", False), ("c", "S", True))
    clusters = _id_clusters(("a", _content("a"), True), ("b", _content("b"), True),
                         ("c", _content("a"), False))  # fmt: skip
    first = stabilize_ruling_ids(clusters, registry)
    again = stabilize_ruling_ids(clusters.reverse(), registry.reverse())
    assert_frame_equal(first["clusters"], again["clusters"])
    assert_frame_equal(first["registry"], again["registry"])
