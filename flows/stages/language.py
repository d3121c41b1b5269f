"""Detect the language of texts with langdetect, once per distinct text.

langdetect is random unless seeded: `DetectorFactory.seed = 0` makes each text's
result the same on every run and in any call order (each detection reseeds).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import polars as pl
from langdetect import DetectorFactory, detect_langs
from langdetect.lang_detect_exception import LangDetectException

logger = logging.getLogger(__name__)

DetectorFactory.seed = 0

#: Language code for a text with no letters (ISO 639-2 "undetermined").
UNDETERMINED = "und"

#: Texts without any letter are never sent to langdetect.
_HAS_LETTER = r"\p{L}"


def detect_text_language(text: str) -> tuple[str, float | None]:
    """Return `(language, probability)` for one text.

    language is langdetect's top ISO 639-1 code (e.g. "en", "fr", "zh-cn");
    probability is its 0–1 estimate. A text langdetect cannot read (no
    features) gives `("und", None)`; never raises.
    """
    try:
        best = detect_langs(text)[0]
    except LangDetectException:
        return UNDETERMINED, None
    return best.lang, float(best.prob)


def detect_languages(
    texts: pl.Series, detect: Callable[[str], tuple[str, float | None]] = detect_text_language
) -> pl.DataFrame:
    """Detect the language of each distinct text in `texts`.

    Args:
        texts: String series, repeats and nulls allowed (nulls are skipped).
        detect: called once per distinct text that has a letter (default
            `detect_text_language`, seeded langdetect).

    Returns:
        One row per distinct non-null text, sorted by text:
        text (String), language (String: ISO 639-1 code, or "und" for a text
        with no letters), language_probability (Float64, 0–1; null for "und").
    """
    distinct = texts.drop_nulls().unique().sort()
    with_letters = distinct.filter(distinct.str.contains(_HAS_LETTER)).to_list()
    detected = [detect(text) for text in with_letters]
    logger.info(
        "detected the language of %d distinct texts (%d without letters)",
        len(with_letters),
        distinct.len() - len(with_letters),
    )
    found = pl.DataFrame(
        {
            "text": with_letters,
            "language": [lang for lang, _ in detected],
            "language_probability": [prob for _, prob in detected],
        },
        schema={"text": pl.String, "language": pl.String, "language_probability": pl.Float64},
    )
    return (
        distinct.to_frame("text")
        .join(found, on="text", how="left")
        .with_columns(language=pl.col("language").fill_null(UNDETERMINED))
        .sort("text")
    )
