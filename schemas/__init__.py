"""The data contract of ruling-dumps: pandera (polars) models of every published table."""

from schemas.models import (
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
