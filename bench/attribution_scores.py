"""Score the attribution evaluation: recall on identifiable dumps, wrong cards, abstentions.

A dump of a catalog card is identifiable when the (reduced) catalog gives
one of its rulings to that card alone, or when it ends in a stub of at least
`MIN_STUB_CHARS` characters of the card's printed text (the issue 25
definition). Twins are cards that share a ruling the catalog gives to two
cards only (functional reprints, cycles, partners): one of a removed pair's
rulings then looks unique to the card kept.
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl

from flows.stages.cards import Catalog
from flows.stages.dedupe import normalize_text

#: A stub this long (characters, whitespace collapsed) makes a dump identifiable.
MIN_STUB_CHARS = 20


def _normalized_rulings(catalog: Catalog) -> pl.DataFrame:
    """oracle_id, text (normalized), card_count: the catalog's distinct (card, ruling text)."""
    return (
        catalog["rulings"]
        .filter(pl.col("oracle_id").is_not_null() & (pl.col("text").str.strip_chars() != ""))
        .select("oracle_id", text=normalize_text(pl.col("text")))
        .unique()
        .with_columns(card_count=pl.len().over("text"))
    )


def identifiable_by(catalog: Catalog, expected: pl.DataFrame) -> pl.DataFrame:
    """path, identifiable (String: "unique_ruling", "stub", "unique_ruling+stub"; null: not).

    Needs:
        expected: path, expected_oracle_id, stub_chars.
    """
    unique_ids = (
        _normalized_rulings(catalog).filter(pl.col("card_count") == 1)["oracle_id"].unique()
    )
    by_ruling = pl.col("expected_oracle_id").is_in(unique_ids.implode())
    by_stub = pl.col("stub_chars") >= MIN_STUB_CHARS
    kind = (
        pl.when(by_ruling & by_stub).then(pl.lit("unique_ruling+stub"))
        .when(by_ruling).then(pl.lit("unique_ruling"))
        .when(by_stub).then(pl.lit("stub"))
    )  # fmt: skip
    return expected.select("path", identifiable=kind)


def choose_twins(
    catalog: Catalog, pairs: int, rng: random.Random, taken: set[str]
) -> list[tuple[str, str]]:
    """`pairs` (card, twin) pairs of distinct cards sharing a ruling carried by them alone.

    Cards in `taken` are left out; no card is in two pairs. Sorted before drawing.
    """
    shared = _normalized_rulings(catalog).filter(pl.col("card_count") == 2)
    both = (
        shared.group_by("text")
        .agg(pl.col("oracle_id").sort())
        .select(a=pl.col("oracle_id").list.first(), b=pl.col("oracle_id").list.last())
        .unique()
        .sort("a", "b")
    )
    candidates = [(a, b) for a, b in both.iter_rows() if a not in taken and b not in taken]
    rng.shuffle(candidates)
    chosen: list[tuple[str, str]] = []
    used: set[str] = set()
    for a, b in candidates:
        if len(chosen) == pairs:
            break
        if a not in used and b not in used:
            chosen.append((a, b) if rng.random() < 0.5 else (b, a))
            used |= {a, b}
    return chosen


def score_inside(found: pl.DataFrame) -> dict[str, Any]:
    """Right, wrong, recall on identifiable dumps, coverage per evidence kind, abstentions.

    Needs:
        found: path, card_name, oracle_id, card_attribution (the run's `dumps`) joined
            with expected_oracle_id, expected_name, identifiable.
    """
    given = found.filter(pl.col("oracle_id").is_not_null())
    is_right = pl.col("oracle_id") == pl.col("expected_oracle_id")
    right = given.filter(is_right)
    identifiable = found.filter(pl.col("identifiable").is_not_null())
    found_right = identifiable.filter(is_right.fill_null(False)).height
    return {
        "dumps": found.height,
        "identifiable": identifiable.height,
        "identifiable_right": found_right,
        "recall_identifiable": round(found_right / identifiable.height, 4)
        if identifiable.height
        else None,
        "given_an_oracle_id": given.height,
        "right": right.height,
        "wrong": given.height - right.height,
        "accuracy": round(right.height / given.height, 4) if given.height else None,
        "coverage": round(right.height / found.height, 4) if found.height else None,
        "right_by_evidence": _counts(right, "card_attribution"),
        "coverage_by_evidence": {
            kind: round(n / found.height, 4)
            for kind, n in _counts(right, "card_attribution").items()
        },
        "name_only": found.filter(pl.col("oracle_id").is_null() & pl.col("card_name").is_not_null())
        .height,
        "abstained_identifiable_by_reason": _counts(
            identifiable.filter(~is_right.fill_null(False)).with_columns(reason=_reason()),
            "reason",
        ),
        "wrong_examples": given.filter(~is_right)
        .select("path", "card_name", "expected_name", "card_attribution").head(10).to_dicts(),
    }  # fmt: skip


def score_outside(found: pl.DataFrame) -> dict[str, Any]:
    """Dumps of removed cards: any oracle_id is wrong; names are counted."""
    wrong = found.filter(pl.col("oracle_id").is_not_null())
    named = found.filter(pl.col("card_name").is_not_null())
    return {
        "dumps": found.height,
        "wrong": wrong.height,
        "wrong_by_evidence": _counts(wrong, "card_attribution"),
        "named_by_rulings_text": named.height,
        "name_right": named.filter(pl.col("card_name") == pl.col("expected_name")).height,
        "wrong_examples": wrong.select("path", "card_name", "expected_name", "card_attribution")
        .head(10).to_dicts(),
    }  # fmt: skip


def against_targets(measured: dict[str, Any]) -> dict[str, bool]:
    """Issue 25's targets for one seed's `evaluate_attribution` result."""
    inside, outside, twins = measured["in_catalog"], measured["out_of_catalog"], measured["twins"]
    return {
        "identifiable_recall_at_least_0.95": (inside["recall_identifiable"] or 0) >= 0.95,
        "in_catalog_wrong_is_0": inside["wrong"] == 0,
        "out_of_catalog_wrong_is_0": outside["wrong"] == 0,
        "twins_wrong_is_0": twins["in_catalog"]["wrong"] + twins["out_of_catalog"]["wrong"] == 0,
    }


def _reason() -> pl.Expr:
    """Why an identifiable dump has no card: what made it identifiable, what was published."""
    published = (
        pl.when(pl.col("oracle_id").is_not_null()).then(pl.lit("another card"))
        .when(pl.col("card_name") == pl.col("expected_name")).then(pl.lit("its name only"))
        .when(pl.col("card_name").is_not_null()).then(pl.lit("another name only"))
        .otherwise(pl.lit("nothing"))
    )  # fmt: skip
    return pl.format("{}: {}", pl.col("identifiable"), published)


def _counts(frame: pl.DataFrame, column: str) -> dict[str, int]:
    return dict(frame.group_by(column).len().sort(column).iter_rows())
