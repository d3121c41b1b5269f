"""`python -m bench eval dedup`: its parts on small inputs, and its targets on the real rulings."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import regex
from rapidfuzz.distance import Levenshtein
from typer.testing import CliRunner

from bench.__main__ import app
from bench.dedup_report import write_results
from bench.evaluate_dedup import (
    REAL_WORD_SWAP,
    classify_pair,
    evaluate_dedup,
    find_close_pairs,
    load_real_texts,
    make_hard_negatives,
    make_typo,
    make_word_swaps,
    swapped_words,
)
from flows.stages.merge_rule import PROTECTED_TOKENS
from tests.conftest import REAL_DATA, needs_real_data

RULINGS = REAL_DATA / "derived" / "mtgjson_v5_rulings.jsonl"
PUMP = (
    "The +1/+0 applies to attacking creatures from all players, not just the creatures you control."
)


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        (PUMP, PUMP.replace("+1/+0", "-1/-0"), "sign or number"),
        (PUMP, PUMP.replace("all players", "any players"), "negation, number word, quantifier or modal"),
        (PUMP, PUMP.replace("players", "Players"), "capitalized word"),
        ("Pay {E}.", "Pay {W}.", "symbol"),
        ("You may tap it.", "You may untap it.", "negating prefix"),
        (PUMP, PUMP.replace("applies", "applied"), REAL_WORD_SWAP),
        (PUMP, PUMP.replace("the creatures you", "those creatures you"), None),
        (PUMP, PUMP.replace("creatures you control", "creatures you controls"), REAL_WORD_SWAP),
        (PUMP, PUMP.replace("is", "was"), None),
    ],
    ids=[
        "sign", "quantifier", "capitalized", "symbol", "prefix", "applies-applied", "other-words",
        "inflection", "short-word",
    ],
)  # fmt: skip
def test_classify_pair(a: str, b: str, kind: str | None) -> None:
    assert classify_pair(a, b) == kind


def test_find_close_pairs_matches_brute_force() -> None:
    texts = ["abcdef", "abcdxf", "abcxyz", "abc", "zzzzzz", "abcdefgh"]
    brute = [(i, j, Levenshtein.distance(texts[i], texts[j]))
             for i in range(len(texts)) for j in range(i + 1, len(texts))
             if Levenshtein.distance(texts[i], texts[j]) <= 3]  # fmt: skip
    assert find_close_pairs(texts) == brute


def test_typos_keep_protected_tokens_and_negatives_change_them() -> None:
    rng = random.Random(0)
    for _ in range(50):
        typo, kind = make_typo(PUMP, rng)
        assert 1 <= Levenshtein.distance(PUMP, typo) <= 2, kind
        assert regex.findall(PROTECTED_TOKENS, typo) == regex.findall(PROTECTED_TOKENS, PUMP)
    made = make_hard_negatives([PUMP, "You can tap it.", "You can untap it."], 5, rng)
    assert ("You can tap it.", "You can untap it.", "negating prefix") in made
    assert ("You can tap it.", "You cant tap it.", "negation added without its apostrophe") in made
    assert (PUMP, PUMP.replace("+1/+0", "-1/-0"), "sign flipped") in made
    assert all(classify_pair(original, negative) for original, negative, _ in made)


def test_word_swaps_are_common_words_of_similar_frequency_or_inflected() -> None:
    texts = [
        "Sacrifice this artifact when it dies.",
        "Sacrifice that artifact when it does.",  # this/that and dies/does: words of the texts
        "Use theme decks; untap them all.",  # theme/them: 1.57 apart, too far (a typo's)
        "Creatures you control get +1/+1.",
    ]
    made = make_word_swaps(texts, 10, random.Random(1))
    # one swap a text at most; never theme/them, never a word the texts do not write
    assert sorted(swapped_words(o, n) for o, n, _ in made) == [
        "dies→does", "that→this", "them→this",
    ]  # fmt: skip
    assert {kind for _, _, kind in made} == {REAL_WORD_SWAP}
    assert all(classify_pair(o, n) == REAL_WORD_SWAP for o, n, _ in made)


def test_missing_real_data_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "dedup", "--real", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (
        f"error: {tmp_path / 'derived' / 'mtgjson_v5_rulings.jsonl'} not found; "
        "pass --real with the real data folder\n"
    )


@needs_real_data
def test_targets_on_the_real_rulings(tmp_path: Path) -> None:
    results = evaluate_dedup(RULINGS, positives=300, made_per_kind=100)
    assert results["distinct_texts"] == len(load_real_texts(RULINGS)) > 20_000
    assert results["hard_negatives"]["pairs"] > 0
    assert results["hard_negatives"]["merged"] == 0
    assert results["made_hard_negatives"]["merged"] == 0
    assert results["made_hard_negatives"]["within_2_edits"] > 100
    assert results["made_hard_negatives"]["by_kind"][REAL_WORD_SWAP] == 100
    real_words = results["positives"]["real_words"]  # typos that made a common word: kept apart
    assert real_words["kept_apart"] == real_words["variants"] > 0
    assert results["positives"]["variants"] == 300
    assert results["positives"]["recall"] >= 0.99
    assert results["dropped_apostrophes"]["variants"] == 100
    assert results["dropped_apostrophes"]["merged"] >= 98  # `arent` is `aren't`
    write_results(results, tmp_path / "eval.json", tmp_path / "eval.md")
    assert json.loads((tmp_path / "eval.json").read_text())["positives"]["seed"] == 0
    assert "| hard negatives merged | 0 of " in (tmp_path / "eval.md").read_text()
