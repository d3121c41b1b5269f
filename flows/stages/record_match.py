"""Match a dump's dated entries against the catalog's record of (card, ruling, date).

The catalog records each ruling of each card with its date; a dump carries
the date of each entry. A ruling the catalog gives to one card alone
(`card_count` 1) names that card when the dump is consistent with the card's
record (`find_consistent_cards`):

- every English entry of the dump matches a catalog ruling (a ruling the
  catalog does not know may be the ruling of a card it lacks, whose other
  rulings it shares with the candidate: functional reprints, cycles);
- each entry the candidate carries has one of the candidate's dates for it, and
  every other entry a date the catalog records for its text (a newer card that
  repeats an old ruling's words gets its own, later date);
- no entry is a specific ruling (carried by at most `MAX_SPECIFIC` cards) that
  the candidate does not carry;
- the dump has every ruling the record gives the candidate up to the dump's
  last date (a site pastes a card's whole page).

Rulings shared by several cards (cycles, functional reprints) never pin a
card here, even with their dates: measured, that named a wrong card for cards
removed from the catalog (see `docs/attribution.md`). One unique ruling pins
the card; the score says how much: RECORD_SCORE with FULL_SCORE_RULINGS unique
rulings or more, or with a stub that fits the card alone too
(`attribute_by_record_and_stub`), 0.1 less for each ruling short. A card's
twin ruled the same day (Absolute Grace and Absolute Law, one ruling, both
2004-10-04) makes the twin's page the card's, ruling and date: when a catalog
lacks an old card its page may be named its twin, at a score under RECORD_SCORE
(measured: `docs/attribution.md`). A catalog of a few set files lacks most, and
gets no record evidence at all (`attribution.index_catalog`, `cards.is_whole`).
"""

from __future__ import annotations

import polars as pl

from flows.stages.dedupe import normalize_text
from flows.stages.rulings_match import MAX_SPECIFIC

#: The score of a card pinned by its record with FULL_SCORE_RULINGS unique rulings.
RECORD_SCORE = 0.9
#: Unique rulings for RECORD_SCORE; each one fewer scores 0.1 less (one: 0.6). Measured over
#: seeds 0, 1, 2 (`bench/README.md`, issue 25): with the catalog as it was before the newest
#: sets (`--removed newest`), the right card for 96.2-98.1 % of identifiable dumps and no
#: removed card named; with cards removed at random and 100 same-ruling pairs one of each
#: removed (a catalog that lacks old cards), 7 / 17 / 13 removed cards named, each as its
#: same-day twin (Absolute Grace's page as Absolute Law): all at 0.6 but three of seed 1
#: (Ardent Plea as Captured Sunlight at 0.8, two at 0.7); none at 0.9.
FULL_SCORE_RULINGS = 4


def index_dated_rulings(rulings: pl.DataFrame) -> pl.DataFrame:
    """The catalog's record: one row per distinct (normalized text, oracle_id, date).

    Needs:
        rulings: oracle_id, date (String, ISO), text (`catalog.Catalog["rulings"]`).

    Returns:
        text (String, `dedupe.normalize_text`), oracle_id (String), date (Date),
        written (String: the catalog's text as written, trimmed; of several, the
        smallest); sorted by text, oracle_id, date.
    """
    return (
        rulings.filter(pl.col("oracle_id").is_not_null() & (pl.col("text") != ""))
        .select(
            text=normalize_text(pl.col("text")),
            oracle_id="oracle_id",
            date=pl.col("date").str.to_date(strict=False),
            written=pl.col("text").str.strip_chars(),
        )
        .drop_nulls()
        .group_by("text", "oracle_id", "date")
        .agg(pl.col("written").min())
        .sort("text", "oracle_id", "date")
    )


def match_dump_entries(
    dump_entries: pl.DataFrame, matches: pl.DataFrame, catalog_rulings: pl.DataFrame
) -> pl.DataFrame:
    """Each dump entry with the catalog cards that carry its text.

    Needs:
        dump_entries: dump_id, text (normalized), published_on (Date).
        matches: text, catalog_text (`rulings_match.match_catalog_texts`).
        catalog_rulings: text, oracle_id, card_count (`rulings_match.index_catalog_rulings`).

    Returns:
        dump_id, text, published_on, catalog_text (null: no catalog ruling),
        oracle_id, card_count (null with catalog_text).
    """
    carriers = catalog_rulings.select(catalog_text="text", oracle_id="oracle_id",
                                      card_count="card_count")  # fmt: skip
    return (
        dump_entries.select("dump_id", "text", "published_on")
        .unique()
        .join(matches, on="text", how="left")
        .join(carriers, on="catalog_text", how="left")
    )


def find_consistent_cards(matched: pl.DataFrame, dated: pl.DataFrame) -> pl.DataFrame:
    """dump_id, oracle_id: the cards carrying a dump ruling that the whole dump is consistent with.

    Consistent as the module doc says: no unknown entry, no date the record
    does not give, no specific ruling of another card.

    Needs:
        matched: `match_dump_entries` output. dated: `index_dated_rulings` output.
    """
    unknown = matched.filter(pl.col("catalog_text").is_null()).select("dump_id").unique()
    known_dates = dated.select(catalog_text="text", published_on="date").unique()
    undated = (
        matched.filter(pl.col("catalog_text").is_not_null())
        .join(known_dates, on=["catalog_text", "published_on"], how="anti")
        .select("dump_id")
        .unique()
    )
    vetoed = pl.concat([unknown, undated]).unique()
    candidates = (
        matched.filter(pl.col("oracle_id").is_not_null())
        .join(vetoed, on="dump_id", how="anti")
        .select("dump_id", "oracle_id")
        .unique()
    )
    # Entries a candidate does not carry at one of its dates: fine when generic and dated.
    own = dated.select(catalog_text="text", oracle_id="oracle_id", published_on="date")
    entries = matched.select("dump_id", "text", "catalog_text", "published_on").unique()
    carried = candidates.join(entries, on="dump_id").join(
        own, on=["catalog_text", "oracle_id", "published_on"], how="semi"
    )
    specific = (
        matched.group_by("dump_id", "text")
        .agg(_min_count=pl.col("card_count").min())
        .filter(pl.col("_min_count") <= MAX_SPECIFIC)
        .select("dump_id", "text")
    )
    bad = (
        candidates.join(specific, on="dump_id")
        .join(carried.select("dump_id", "oracle_id", "text"), on=["dump_id", "oracle_id", "text"],
              how="anti")
        .select("dump_id", "oracle_id")
        .unique()
    )  # fmt: skip
    # The candidate's own rulings must carry its own dates (no other card's date for them).
    misdated = (
        candidates.join(entries, on="dump_id")
        .join(own.select("catalog_text", "oracle_id").unique(), on=["catalog_text", "oracle_id"])
        .join(own, on=["catalog_text", "oracle_id", "published_on"], how="anti")
        .select("dump_id", "oracle_id")
        .unique()
    )
    vetoes = pl.concat([bad, misdated, _incomplete(candidates, entries, own)])
    return candidates.join(vetoes, on=["dump_id", "oracle_id"], how="anti").sort(
        "dump_id", "oracle_id"
    )


def _incomplete(candidates: pl.DataFrame, entries: pl.DataFrame, own: pl.DataFrame) -> pl.DataFrame:
    """dump_id, oracle_id: candidates with a ruling dated up to the dump's last entry that
    the dump lacks. A card's page lists all its rulings; a card the catalog lacks whose
    rulings are a part of a catalog card's (Contested Cliffs of Triangle of War's) lacks
    the others."""
    last = entries.group_by("dump_id").agg(_last=pl.col("published_on").max())
    present = entries.select("dump_id", "catalog_text").drop_nulls().unique()
    return (
        candidates.join(last, on="dump_id")
        .join(own, on="oracle_id")
        .filter(pl.col("published_on") <= pl.col("_last"))
        .join(present, on=["dump_id", "catalog_text"], how="anti")
        .select("dump_id", "oracle_id")
        .unique()
    )


def find_missing_specific(
    matched: pl.DataFrame, dated: pl.DataFrame, catalog_rulings: pl.DataFrame, pairs: pl.DataFrame
) -> pl.DataFrame:
    """dump_id, oracle_id: the `pairs` whose card has a specific ruling (on at most
    MAX_SPECIFIC cards), dated up to the dump's last entry, that the dump lacks.

    A site pastes a card's whole page: a dump of Opalescence (not in the catalog)
    carries the rulings it shares with Humility, which name Humility, but none of
    Humility's own.

    Needs:
        matched: `match_dump_entries` output. dated: `index_dated_rulings` output.
        catalog_rulings: `rulings_match.index_catalog_rulings`. pairs: dump_id, oracle_id.
    """
    specific = catalog_rulings.filter(pl.col("card_count") <= MAX_SPECIFIC).select(
        catalog_text="text", oracle_id="oracle_id"
    )
    own = dated.select(catalog_text="text", oracle_id="oracle_id", published_on="date").join(
        specific, on=["catalog_text", "oracle_id"], how="semi"
    )
    entries = matched.select("dump_id", "text", "catalog_text", "published_on").unique()
    return _incomplete(pairs.select("dump_id", "oracle_id").unique(), entries, own)


def attribute_by_record(
    matched: pl.DataFrame,
    consistent: pl.DataFrame,
    card_names: pl.DataFrame,
    full_score: int = FULL_SCORE_RULINGS,
) -> pl.DataFrame:
    """The one card whose unique rulings a dump carries, when the dump is consistent with it.

    Needs:
        matched: `match_dump_entries` output.
        consistent: `find_consistent_cards` output.
        card_names: oracle_id, card_name (one row per oracle_id).

        full_score: unique rulings for RECORD_SCORE (0.1 less for each one fewer).

    Returns:
        dump_id, oracle_id, card_name, record_score (Float64: RECORD_SCORE, less with
        fewer than `full_score` unique rulings); dumps whose unique rulings belong to
        exactly one card, which the dump is consistent with.
    """
    unique_cards = (
        matched.filter(pl.col("card_count") == 1)
        .group_by("dump_id", "oracle_id")
        .agg(_n=pl.col("catalog_text").n_unique())
        .filter(pl.len().over("dump_id") == 1)
    )
    short = (full_score - pl.col("_n").cast(pl.Int64)).clip(lower_bound=0)
    return (
        unique_cards.join(consistent, on=["dump_id", "oracle_id"], how="semi")
        .join(card_names, on="oracle_id", how="left")
        .select(
            "dump_id", "oracle_id", "card_name", record_score=(RECORD_SCORE - 0.1 * short).round(3)
        )
        .sort("dump_id")
    )


def attribute_by_record_and_stub(
    matched: pl.DataFrame,
    consistent: pl.DataFrame,
    stub_fits: pl.DataFrame,
    card_names: pl.DataFrame,
) -> pl.DataFrame:
    """`attribute_by_record` at RECORD_SCORE from one unique ruling, for dumps whose stray
    stub fits the same card alone among the texts of its stats (`stub_match.find_stub_fits`).

    Two kinds of evidence that each alone could be a removed twin's (its one ruling the
    catalog now gives the card kept; a stub ending before the texts part) agree.

    Needs:
        matched, consistent, card_names: as `attribute_by_record`.
        stub_fits: dump_id, oracle_id.

    Returns:
        `attribute_by_record`'s columns.
    """
    both = consistent.join(stub_fits, on=["dump_id", "oracle_id"], how="semi")
    return attribute_by_record(matched, both, card_names, full_score=1)
