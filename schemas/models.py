"""The data contract: one pandera model per published table.

Columns may be added in a later schema version; none is renamed or dropped.
Every model is strict (no undeclared column) and every column is described,
so these models are the column reference for analysts.
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

#: Bumped when a table gains a column (minor) or a column changes meaning (major).
SCHEMA_VERSION = "1.6.0"

#: What every text column holds (the data dictionary says it first).
TEXT_IS_NOT_HTML = (
    "Text columns hold text, not HTML: a dump's HTML entities are decoded and its tags "
    "removed (`&lt;script&gt;` in a dump is `<script>` in `text_raw`), so escape text "
    "before putting it into HTML, as `report.html` does."
)

#: How a dump's card was found (`dumps.card_attribution`); the tables step (`dump_checks`)
#: checks its output against this list and stops the run on any other value.
CARD_ATTRIBUTION_KINDS = ("rulings", "record", "stub", "name")

#: What `dump_checks.check` says of a dump's entry or of its card's official ruling.
DUMP_CHECK_KINDS = ("missing", "not_on_card", "other_date")

_SHA256 = r"^[0-9a-f]{64}$"
_LANGUAGE = r"^([a-z]{2}(-[a-z]{2})?|und)$"
_UUID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


class PublishedDump(pa.DataFrameModel):
    """`dumps`: one row per dump file read (byte-identical repeats are read once)."""

    dump_id: pl.String = pa.Field(
        unique=True, str_matches=_SHA256, description="sha256 hex of the file's bytes"
    )
    path: pl.String = pa.Field(unique=True, description="file path relative to the raw dir")
    encoding: pl.String = pa.Field(description="encoding the bytes were read with, e.g. utf-8")
    encoding_repair: pl.String = pa.Field(
        nullable=True,
        description="repair made while decoding, e.g. mojibake repaired (ftfy)",
    )
    byte_count: pl.Int64 = pa.Field(ge=0, description="file size in bytes")
    header_text: pl.String = pa.Field(description="header lines joined by newline; '' if none")
    header_language: pl.String = pa.Field(
        str_matches=_LANGUAGE,
        description="langdetect language of the header; und if none, or when it reads en only "
        "by default and a word is a site language's, not English's (too short to tell)",
    )
    header_language_is_inferred: pl.Boolean = pa.Field(
        description="langdetect was unreliable on the header: the claimed translation code was used"
    )
    claimed_translation_language: pl.String = pa.Field(
        nullable=True,
        description="ISO 639-1 code of the translation the header claims, e.g. fr; "
        "zh-tw or zh-cn when it names Chinese's script",
    )
    line_count: pl.Int64 = pa.Field(ge=0, description="lines read from the file")
    entry_count: pl.Int64 = pa.Field(
        ge=0, description="date·source lines kept (one per ruling entry)"
    )
    translation_count: pl.Int64 = pa.Field(
        ge=0,
        description="translations (ruling_translations rows): lines of their own, and "
        "translations after ' / ' on their ruling's line",
    )
    stub_count: pl.Int64 = pa.Field(ge=0, description="stray card stubs found")
    rejected_line_count: pl.Int64 = pa.Field(ge=0, description="lines rejected (see rejects)")
    control_char_count: pl.Int64 = pa.Field(ge=0, description="control characters removed")
    format_char_count: pl.Int64 = pa.Field(
        ge=0,
        description="invisible format characters removed (BOM, zero-width, soft hyphen, bidi)",
    )
    markup_count: pl.Int64 = pa.Field(
        ge=0,
        description="HTML tags and entities, rule lines (`---`, `***`) and bullets before "
        "entry heads removed",
    )
    paste_count: pl.Int64 = pa.Field(
        ge=0,
        description="pages pasted in the file: 2 when the site's header comes again after "
        "entries (cat of two pages); 0 for a file with no line",
    )
    has_claimed_translation: pl.Boolean = pa.Field(
        description="a translation line in the language the header claims is really there"
    )
    card_name: pl.String = pa.Field(
        nullable=True,
        description="the card the dump is about (catalog name, else as the rulings name it)",
    )
    oracle_id: pl.String = pa.Field(
        nullable=True,
        str_matches=_UUID,
        description="Scryfall oracle id from the catalog; null when not in it",
    )
    card_attribution: pl.String = pa.Field(
        nullable=True,
        isin=list(CARD_ATTRIBUTION_KINDS),
        description="how the card was found: rulings (its rulings, naming it), record (a "
        "ruling the catalog gives it alone, every date as the catalog's), stub, or name (the "
        "rulings' subject; an oracle_id only when the dump fits that card's record); "
        "null: no card",
    )
    card_attribution_score: pl.Float64 = pa.Field(
        nullable=True,
        ge=0,
        le=1,
        description="confidence of the attribution, 0-1; record from one ruling the catalog "
        "gives the card alone is 0.6 (two 0.7, three 0.8, four 0.9): where the catalog may "
        "lack single older cards, read >= 0.9 (docs/attribution.md)",
    )

    class Config:
        strict = True


class PublishedOccurrence(pa.DataFrameModel):
    """`ruling_occurrences`: one row per kept entry of a dump."""

    dump_id: pl.String = pa.Field(str_matches=_SHA256, description="the dump's id (dumps.dump_id)")
    path: pl.String = pa.Field(
        description="the dump file's path relative to the raw dir (dumps.path): no join needed"
    )
    line_number: pl.Int64 = pa.Field(
        ge=1, description="1-based line of the entry's date·source line"
    )
    published_on: pl.Date = pa.Field(description="the entry's date")
    source: pl.String = pa.Field(
        str_matches=r"^\S+$",
        description="source as written, lowercased, full-width letters as ASCII: wotc (`ｗｏｔｃ`)",
    )
    text_raw: pl.String = pa.Field(
        str_length={"min_value": 1}, description="the body as written, lines joined by newline"
    )
    variant_id: pl.String = pa.Field(
        str_matches=_SHA256,
        description="sha256 hex of the body's comparison key (dedupe.normalize_text)",
    )
    ruling_id: pl.String = pa.Field(
        str_matches=_SHA256, description="the ruling (rulings.ruling_id)"
    )
    language: pl.String = pa.Field(str_matches=_LANGUAGE, description="language of the body")
    language_is_inferred: pl.Boolean = pa.Field(
        description="langdetect was unreliable (short text, close guesses): the prior was used"
    )

    class Config:
        strict = True
        unique = ["dump_id", "line_number"]


class PublishedRuling(pa.DataFrameModel):
    """`rulings`: one row per distinct ruling after deduplication."""

    ruling_id: pl.String = pa.Field(unique=True, str_matches=_SHA256, description="ruling id")
    text: pl.String = pa.Field(
        str_length={"min_value": 1},
        description="the catalog's wording when one of its variants is a catalog ruling's text "
        "(text_source catalog); else its most frequent variant's text, as written",
    )
    text_source: pl.String = pa.Field(
        isin=["catalog", "most_frequent"],
        description="where `text` comes from: catalog (the official wording, with --catalog) "
        "or most_frequent (its most frequent variant, which may carry the dumps' typo)",
    )
    language: pl.String = pa.Field(str_matches=_LANGUAGE, description="language of the text")
    language_probability: pl.Float64 = pa.Field(
        nullable=True,
        ge=0,
        le=1,
        description="langdetect probability of `language`, 0-1; null when the label is inferred",
    )
    language_is_inferred: pl.Boolean = pa.Field(
        description="no reliable evidence for `language`: English by default, or a close call "
        "settled by the dump's claimed language or script"
    )
    first_published_on: pl.Date = pa.Field(description="earliest date of an occurrence")
    last_published_on: pl.Date = pa.Field(description="latest date of an occurrence")
    occurrence_count: pl.Int64 = pa.Field(ge=1, description="occurrences in all dumps")
    dump_count: pl.Int64 = pa.Field(ge=1, description="dumps it occurs in")
    variant_count: pl.Int64 = pa.Field(
        ge=1, description="variants (distinct comparison keys) merged"
    )

    class Config:
        strict = True


class PublishedVariant(pa.DataFrameModel):
    """`ruling_variants`: one row per variant (distinct comparison key of a body)."""

    variant_id: pl.String = pa.Field(
        unique=True, str_matches=_SHA256, description="sha256 hex of the comparison key"
    )
    ruling_id: pl.String = pa.Field(str_matches=_SHA256, description="the ruling it belongs to")
    text: pl.String = pa.Field(
        str_length={"min_value": 1}, description="its most frequent body as written, trimmed"
    )
    language: pl.String = pa.Field(
        str_matches=_LANGUAGE, description="most common language of its occurrences"
    )
    language_is_inferred: pl.Boolean = pa.Field(
        description="every occurrence in `language` had an inferred label (see rulings)"
    )
    occurrence_count: pl.Int64 = pa.Field(ge=1, description="occurrences with this comparison key")

    class Config:
        strict = True


class PublishedCardStub(pa.DataFrameModel):
    """`card_stubs`: one row per stray card stub at the end of a dump."""

    dump_id: pl.String = pa.Field(str_matches=_SHA256, description="the dump's id")
    path: pl.String = pa.Field(
        description="the dump file's path relative to the raw dir (dumps.path): no join needed"
    )
    line_number: pl.Int64 = pa.Field(ge=1, description="1-based line of the stat line (CMC ...)")
    mana_value: pl.Float64 = pa.Field(nullable=True, ge=0, description="mana value; null for X")
    power: pl.String = pa.Field(nullable=True, description="power as printed; * and X allowed")
    toughness: pl.String = pa.Field(nullable=True, description="toughness as printed")
    text: pl.String = pa.Field(nullable=True, description="the cut card text, spaces trimmed")
    language: pl.String = pa.Field(
        str_matches=_LANGUAGE, nullable=True, description="language of the text; null without text"
    )
    language_is_inferred: pl.Boolean = pa.Field(
        description="langdetect was unreliable; the dump's header language was used"
    )
    is_truncated: pl.Boolean = pa.Field(description="the text does not end a sentence")

    class Config:
        strict = True
        unique = ["dump_id", "line_number"]


class PublishedTranslation(pa.DataFrameModel):
    """`ruling_translations`: a site's translation line under (or above) an original ruling."""

    dump_id: pl.String = pa.Field(str_matches=_SHA256, description="the dump's id")
    line_number: pl.Int64 = pa.Field(ge=1, description="1-based line of the translation")
    ruling_id: pl.String = pa.Field(str_matches=_SHA256, description="the ruling it translates")
    language: pl.String = pa.Field(str_matches=_LANGUAGE, description="language of the translation")
    text: pl.String = pa.Field(
        str_length={"min_value": 1}, description="the translation as written, trimmed"
    )

    class Config:
        strict = True
        unique = ["dump_id", "line_number"]


class PublishedReject(pa.DataFrameModel):
    """`rejects`: every line, file or table row left out, with why."""

    dump_id: pl.String = pa.Field(nullable=True, description="the dump; null for a table row")
    line_number: pl.Int64 = pa.Field(
        nullable=True, ge=1, description="1-based line; null for a whole file or a row"
    )
    stage: pl.String = pa.Field(
        isin=["read", "parse", "validate"], description="stage that rejected it"
    )
    reason: pl.String = pa.Field(str_length={"min_value": 1}, description="why, in words")
    content: pl.String = pa.Field(description="the line, path or row (JSON) rejected")

    class Config:
        strict = True


class PublishedRulingCard(pa.DataFrameModel):
    """`ruling_cards`: one row per (ruling, catalog card) the catalog says carries the ruling."""

    ruling_id: pl.String = pa.Field(
        str_matches=_SHA256, description="the ruling (rulings.ruling_id)"
    )
    oracle_id: pl.String = pa.Field(str_matches=_UUID, description="Scryfall oracle id of the card")
    card_name: pl.String = pa.Field(nullable=True, description="the card's name in the catalog")
    catalog_date: pl.Date = pa.Field(
        nullable=True, description="the catalog's date for this ruling on this card"
    )

    class Config:
        strict = True
        unique = ["ruling_id", "oracle_id"]


class PublishedDumpCheck(pa.DataFrameModel):
    """`dump_checks`: each dump with an oracle_id against the catalog's rulings of its card.

    One row per finding: an official ruling the dump lacks (`missing`), an entry
    the catalog does not give that card (`not_on_card`: another card's ruling, a
    typo, an outdated wording), an entry dated otherwise than the catalog
    (`other_date`). Empty without a catalog.
    """

    dump_id: pl.String = pa.Field(str_matches=_SHA256, description="the dump's id (dumps.dump_id)")
    path: pl.String = pa.Field(
        description="the dump file's path relative to the raw dir (dumps.path): no join needed"
    )
    oracle_id: pl.String = pa.Field(
        str_matches=_UUID, description="the dump's card (dumps.oracle_id)"
    )
    card_name: pl.String = pa.Field(nullable=True, description="the card's name (dumps.card_name)")
    check: pl.String = pa.Field(
        isin=list(DUMP_CHECK_KINDS),
        description="missing: an official ruling of the card no entry carries; not_on_card: "
        "an entry that is not exactly one of the card's official rulings; other_date: an "
        "entry carrying one of the card's rulings under a date the catalog does not give it",
    )
    line_number: pl.Int64 = pa.Field(
        nullable=True, ge=1, description="the entry's date·source line; null for missing"
    )
    ruling_id: pl.String = pa.Field(
        nullable=True,
        str_matches=_SHA256,
        description="the entry's ruling (rulings.ruling_id); null for missing",
    )
    text: pl.String = pa.Field(
        nullable=True, description="the entry's body as written; null for missing"
    )
    published_on: pl.Date = pa.Field(
        nullable=True, description="the entry's date; null for missing"
    )
    catalog_text: pl.String = pa.Field(
        nullable=True,
        description="the card's official ruling as the catalog writes it: the one missing, "
        "the one dated otherwise, or for not_on_card the closest (a near-duplicate: typo or "
        "outdated wording; null when none is close)",
    )
    catalog_date: pl.Date = pa.Field(
        nullable=True, description="the catalog's (earliest) date for catalog_text on this card"
    )

    class Config:
        strict = True


#: Table name -> model, in publishing order.
TABLE_MODELS: dict[str, type[pa.DataFrameModel]] = {
    "dumps": PublishedDump,
    "ruling_occurrences": PublishedOccurrence,
    "rulings": PublishedRuling,
    "ruling_variants": PublishedVariant,
    "ruling_translations": PublishedTranslation,
    "card_stubs": PublishedCardStub,
    "rejects": PublishedReject,
    "ruling_cards": PublishedRulingCard,
    "dump_checks": PublishedDumpCheck,
}
