"""`dump_checks`: each attributed dump against the catalog's record of its card.

For each dump with an oracle_id, against the catalog's rulings of that card:

- `missing`: an official ruling of the card that no entry of the dump carries;
- `not_on_card`: an entry whose text is not one of the card's official
  rulings (another card's ruling, a typo, an outdated wording), with the
  card's closest official text when one is a near-duplicate of it
  (`CLOSEST_MIN_RATIO`);
- `other_date`: an entry that carries one of the card's rulings (exactly or
  as its near-duplicate) under a date the catalog does not give it.

An entry counts as carrying an official ruling when its text equals it
(normalized) or is its near-duplicate; a near-duplicate is also listed as
`not_on_card`, with the official text beside it, so the typo is seen.
"""

from __future__ import annotations

import difflib
import logging

import polars as pl
from rapidfuzz import fuzz

from flows.errors import ContractError
from flows.stages.dedupe import normalize_text
from schemas import CARD_ATTRIBUTION_KINDS, DUMP_CHECK_KINDS

#: The check kinds, in the order the table lists them.
CHECKS = DUMP_CHECK_KINDS
#: An official text at least this similar (difflib ratio, 0-1) to an entry is its closest.
#: Seed 002's outdated energy wordings are 0.57 and 0.73 from their official texts, other
#: pairs of the card's rulings at most 0.33.
CLOSEST_MIN_RATIO = 0.5
#: Pairs under this Indel similarity (rapidfuzz) are not compared by difflib.
PREFILTER_RATIO = 0.45

logger = logging.getLogger(__name__)

DUMP_CHECK_SCHEMA = {
    "dump_id": pl.String,
    "path": pl.String,
    "oracle_id": pl.String,
    "card_name": pl.String,
    "check": pl.String,
    "line_number": pl.Int64,
    "ruling_id": pl.String,
    "text": pl.String,
    "published_on": pl.Date,
    "catalog_text": pl.String,
    "catalog_date": pl.Date,
}


def add_dump_cards(
    published: dict[str, pl.DataFrame], attribution: pl.DataFrame, dated: pl.DataFrame | None
) -> dict[str, pl.DataFrame]:
    """`published` with each dump's card (`attribution.attribute_dumps`) on `dumps` and the
    `dump_checks` table (`build_dump_checks`; `dated`: None without a catalog).

    Raises:
        ContractError: a card_attribution the schema does not list (`check_kinds`).
    """
    dumps = published["dumps"].join(check_kinds(attribution), on="dump_id", how="left")
    logger.info(
        "attributed %d of %d dumps to a card (%d with an oracle_id)",
        attribution.height, dumps.height, attribution["oracle_id"].count(),
    )  # fmt: skip
    checks = build_dump_checks(dumps, published["ruling_occurrences"], dated)
    logger.info("dump_checks: %d findings on %d dumps", checks.height, checks["dump_id"].n_unique())
    return published | {"dumps": dumps, "dump_checks": checks}


def check_kinds(found: pl.DataFrame) -> pl.DataFrame:
    """`found` itself; raises ContractError on a card_attribution the schema does not list.

    A value missing from the schema's list would move every such dump to `rejects`
    at validation, silently: it is a code fault, so the run stops instead.
    """
    unknown = set(found["card_attribution"].unique().to_list()) - set(CARD_ATTRIBUTION_KINDS)
    if unknown:
        raise ContractError(
            f"card_attribution {sorted(unknown)} is not in schemas.models.CARD_ATTRIBUTION_KINDS "
            f"{list(CARD_ATTRIBUTION_KINDS)}: add it to the schema (and bump SCHEMA_VERSION)"
        )
    return found


def build_dump_checks(
    dumps: pl.DataFrame, occurrences: pl.DataFrame, dated: pl.DataFrame | None
) -> pl.DataFrame:
    """One row per finding of `CHECKS` for each dump with an oracle_id.

    Needs:
        dumps: dump_id, path, oracle_id, card_name (`dumps`).
        occurrences: dump_id, line_number, published_on, ruling_id, text_raw,
            language (`ruling_occurrences`); English entries are checked.
        dated: text (normalized), oracle_id, date, written (the catalog's text as
            written) (`record_match.index_dated_rulings`); None without a catalog.

    Returns:
        DUMP_CHECK_SCHEMA; sorted by dump_id, check, line_number, catalog_text.
        Empty without a catalog.
    """
    if dated is None:
        return pl.DataFrame(schema=DUMP_CHECK_SCHEMA)
    cards = dumps.filter(pl.col("oracle_id").is_not_null()).select(
        "dump_id", "path", "oracle_id", "card_name"
    )
    entries = (
        occurrences.filter(pl.col("language") == "en")
        .join(cards.select("dump_id", "oracle_id"), on="dump_id")
        .select("dump_id", "oracle_id", "line_number", "published_on", "ruling_id",
                text="text_raw", _key=normalize_text(pl.col("text_raw")))
    )  # fmt: skip
    official = dated.join(cards.select("oracle_id").unique(), on="oracle_id")
    paired = _pair_entries(entries, official)
    found = pl.concat([_not_on_card(paired), _other_date(paired, official)]).join(
        _official_written(official), on=["oracle_id", "_official"], how="left"
    )
    rows = pl.concat([_missing(cards, official, paired), found], how="diagonal_relaxed")
    return (
        rows.join(cards, on=["dump_id", "oracle_id"])
        .select([pl.col(c).cast(t) for c, t in DUMP_CHECK_SCHEMA.items()])
        .with_columns(_order=pl.col("check").replace_strict(CHECKS, range(len(CHECKS))))
        .sort("dump_id", "_order", "line_number", "catalog_text", nulls_last=True)
        .drop("_order")
    )


def _pair_entries(entries: pl.DataFrame, official: pl.DataFrame) -> pl.DataFrame:
    """Each entry with its card's official text it equals (`_exact`) or, else, is closest to.

    Returns the entry columns plus _official (normalized official text, null: none
    close enough) and _exact (Boolean).
    """
    texts = official.select("oracle_id", _official="text").unique()
    is_official = entries.join(
        texts, left_on=["oracle_id", "_key"], right_on=["oracle_id", "_official"], how="semi"
    )
    exact = is_official.with_columns(_official="_key", _exact=pl.lit(True))
    rest = entries.join(exact, on=["dump_id", "line_number"], how="anti")
    candidates = rest.select("oracle_id", "_key").unique().join(texts, on="oracle_id")
    pairs = zip(candidates["_key"].to_list(), candidates["_official"].to_list(), strict=True)
    ratios = [_similarity(a, b) for a, b in pairs]
    closest = (
        candidates.with_columns(_ratio=pl.Series(ratios, dtype=pl.Float64))
        .filter(pl.col("_ratio") >= CLOSEST_MIN_RATIO)
        .sort("_ratio", "_official", descending=[True, False])
        .unique(["oracle_id", "_key"], keep="first")
        .drop("_ratio")
    )
    near = rest.join(closest, on=["oracle_id", "_key"], how="left").with_columns(
        _exact=pl.lit(False)
    )
    return pl.concat([exact, near], how="diagonal_relaxed")


def _similarity(a: str, b: str) -> float:
    """difflib's ratio of two texts (0-1); 0.0 when rapidfuzz's (Indel, much faster) is under
    PREFILTER_RATIO: on seed 002, unrelated rulings of the card are at most 0.49 by Indel,
    related ones at least 0.59."""
    if fuzz.ratio(a, b, score_cutoff=100 * PREFILTER_RATIO) == 0:
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _official_written(official: pl.DataFrame) -> pl.DataFrame:
    """oracle_id, _official, catalog_text (as written), catalog_date (the earliest)."""
    return official.group_by("oracle_id", _official="text").agg(
        catalog_text=pl.col("written").min(), catalog_date=pl.col("date").min()
    )


def _missing(cards: pl.DataFrame, official: pl.DataFrame, paired: pl.DataFrame) -> pl.DataFrame:
    """The card's official rulings no entry of the dump carries (exactly or near)."""
    carried = paired.filter(pl.col("_official").is_not_null()).select(
        "dump_id", "oracle_id", "_official"
    )
    return (
        cards.select("dump_id", "oracle_id")
        .join(_official_written(official), on="oracle_id")
        .join(carried, on=["dump_id", "oracle_id", "_official"], how="anti")
        .select("dump_id", "oracle_id", "catalog_text", "catalog_date", check=pl.lit("missing"))
    )


def _not_on_card(paired: pl.DataFrame) -> pl.DataFrame:
    """Entries that are not exactly one of the card's official rulings, with the closest."""
    return (
        paired.filter(~pl.col("_exact"))
        .select("dump_id", "oracle_id", "line_number", "ruling_id", "text", "published_on",
                "_official", check=pl.lit("not_on_card"))
    )  # fmt: skip


def _other_date(paired: pl.DataFrame, official: pl.DataFrame) -> pl.DataFrame:
    """Entries carrying one of the card's rulings under a date the catalog does not give it."""
    dates = official.select("oracle_id", _official="text", published_on="date")
    return (
        paired.filter(pl.col("_official").is_not_null())
        .join(dates, on=["oracle_id", "_official", "published_on"], how="anti")
        .select("dump_id", "oracle_id", "line_number", "ruling_id", "text", "published_on",
                "_official", check=pl.lit("other_date"))
    )  # fmt: skip


def count_dump_checks(dumps: pl.DataFrame, dump_checks: pl.DataFrame) -> dict[str, int]:
    """The manifest's `dump_checks`: {"checked": dumps with an oracle_id, then each check of
    CHECKS: dumps with at least one such finding}; {} when no dump has an oracle_id."""
    checked = dumps["oracle_id"].count()
    if not checked:
        return {}
    found = dict(dump_checks.group_by("check").agg(pl.col("dump_id").n_unique()).iter_rows())
    return {"checked": int(checked)} | {check: int(found.get(check, 0)) for check in CHECKS}
