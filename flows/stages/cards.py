"""The card catalog's tables: MTGJSON (v5) printings, rulings and foreign printings.

`disk.catalog` reads a catalog file set by set and caches these tables;
`extract_set` turns one MTGJSON set object into their rows. The fields are
MTGJSON's: a printing's `identifiers.scryfallOracleId` is its oracle_id,
`manaValue` (or the older `convertedManaCost`) its mana value.
"""

from __future__ import annotations

from typing import Any, TypedDict

import polars as pl

from flows.errors import CatalogError

#: MTGJSON foreignData language names -> the ISO codes the pipeline uses.
MTGJSON_LANGUAGES = {
    "French": "fr",
    "German": "de",
    "Spanish": "es",
    "Italian": "it",
    "Portuguese (Brazil)": "pt",
    "Japanese": "ja",
    "Chinese Simplified": "zh-cn",
    "Chinese Traditional": "zh-tw",
    "Korean": "ko",
    "Russian": "ru",
}

CARD_SCHEMA = {
    "uuid": pl.String,
    "oracle_id": pl.String,
    "name": pl.String,
    "face_name": pl.String,
    "set_code": pl.String,
    "set_release_date": pl.String,
    "release_date": pl.String,
    "mana_value": pl.Float64,
    "power": pl.String,
    "toughness": pl.String,
    "text": pl.String,
    "subtypes": pl.List(pl.String),
    "keywords": pl.List(pl.String),
    "printings": pl.List(pl.String),
}
RULING_SCHEMA = {"uuid": pl.String, "oracle_id": pl.String, "date": pl.String, "text": pl.String}
FOREIGN_SCHEMA = {
    "uuid": pl.String,
    "oracle_id": pl.String,
    "language": pl.String,
    "name": pl.String,
    "text": pl.String,
}
TABLES = {"cards": CARD_SCHEMA, "rulings": RULING_SCHEMA, "foreign": FOREIGN_SCHEMA}


class Catalog(TypedDict):
    """The catalog's tables (one row per printing, ruling entry, foreign printing)."""

    cards: pl.DataFrame  # CARD_SCHEMA: one row per printing (uuid)
    rulings: pl.DataFrame  # RULING_SCHEMA: one row per (printing, ruling)
    foreign: pl.DataFrame  # FOREIGN_SCHEMA: one row per foreign printing with a language code


def extract_set(set_code: str, set_data: Any, rows: dict[str, list[dict[str, Any]]]) -> None:
    """Append one set's printings, rulings and foreign printings to `rows` (table -> rows).

    Raises:
        CatalogError: the set has no `cards` list (not MTGJSON's layout).
    """
    if not isinstance(set_data, dict) or not isinstance(set_data.get("cards"), list):
        raise CatalogError(f"catalog set {set_code!r} has no `cards` list; not MTGJSON's layout")
    for card in set_data["cards"]:
        uuid = card.get("uuid")
        oracle_id = (card.get("identifiers") or {}).get("scryfallOracleId")
        mana_value = card.get("manaValue", card.get("convertedManaCost"))
        rows["cards"].append({
            "uuid": uuid, "oracle_id": oracle_id, "name": card.get("name"),
            "face_name": card.get("faceName"), "set_code": card.get("setCode", set_code),
            "set_release_date": set_data.get("releaseDate"),
            "release_date": card.get("originalReleaseDate") or set_data.get("releaseDate"),
            "mana_value": None if mana_value is None else float(mana_value),
            "power": card.get("power"), "toughness": card.get("toughness"),
            "text": card.get("text"), "subtypes": card.get("subtypes") or [],
            "keywords": card.get("keywords") or [],
            "printings": card.get("printings") or [],
        })  # fmt: skip
        for ruling in card.get("rulings") or []:
            rows["rulings"].append(
                {
                    "uuid": uuid,
                    "oracle_id": oracle_id,
                    "date": ruling.get("date"),
                    "text": ruling.get("text"),
                }
            )
        for foreign in card.get("foreignData") or []:
            language = MTGJSON_LANGUAGES.get(foreign.get("language"))
            if language and foreign.get("text"):
                rows["foreign"].append(
                    {
                        "uuid": uuid,
                        "oracle_id": oracle_id,
                        "language": language,
                        "name": foreign.get("name"),
                        "text": foreign.get("text"),
                    }
                )


#: A catalog holding fewer of the sets its cards are printed in (MTGJSON's `printings`) is
#: a part of MTGJSON, a few set files: AllPrintings of 2022-04-25 holds 549 of the 577 sets
#: its cards list (the others are digital or not out yet), KLD, AER and NEO hold 3 of 260.
WHOLE_CATALOG_SHARE = 0.5


def count_listed_sets(cards: pl.DataFrame) -> tuple[int, int]:
    """(the sets the catalog holds among those its cards list, the sets they list).

    Needs:
        cards: set_code, printings (`CARD_SCHEMA`).
    """
    listed = cards["printings"].explode().drop_nulls().unique()
    return int(listed.is_in(cards["set_code"].unique().implode()).sum()), listed.len()


def is_whole(cards: pl.DataFrame) -> bool:
    """Whether the catalog holds at least WHOLE_CATALOG_SHARE of the sets its cards list
    (`count_listed_sets`): AllPrintings, not a few set files. A catalog whose cards list
    no set (no `printings`: not MTGJSON's v5 files) cannot be told whole: it is not."""
    held, listed = count_listed_sets(cards)
    return listed > 0 and held >= WHOLE_CATALOG_SHARE * listed
