"""The data contract of ruling-dumps: pandera (polars) models of every published table."""

from schemas.models import (
    CARD_ATTRIBUTION_KINDS,
    DUMP_CHECK_KINDS,
    SCHEMA_VERSION,
    TABLE_MODELS,
    PublishedCardStub,
    PublishedDump,
    PublishedDumpCheck,
    PublishedOccurrence,
    PublishedReject,
    PublishedRuling,
    PublishedRulingCard,
    PublishedTranslation,
    PublishedVariant,
)

__all__ = [
    "CARD_ATTRIBUTION_KINDS",
    "DUMP_CHECK_KINDS",
    "SCHEMA_VERSION",
    "TABLE_MODELS",
    "PublishedCardStub",
    "PublishedDump",
    "PublishedDumpCheck",
    "PublishedOccurrence",
    "PublishedReject",
    "PublishedRuling",
    "PublishedRulingCard",
    "PublishedTranslation",
    "PublishedVariant",
]
