"""Give lines their language and separate translations from original rulings.

Some sites put their translation of a ruling on its own line under (or above)
the English original, inside the same entry. The original stays the ruling;
the translation goes to `ruling_translations`, linked to the ruling.
"""

from __future__ import annotations

import polars as pl

from flows.stages.dedupe import normalize_text
from flows.stages.language import resolve_is_inferred, resolve_language

#: Rulings are published in English; translations are made from it.
ORIGINAL_LANGUAGE = "en"


def label_line_languages(
    resolved: pl.DataFrame, languages: pl.DataFrame, dumps: pl.DataFrame
) -> pl.DataFrame:
    """Add each body line's language, with a prior where detection is unreliable.

    The prior for a dump's body lines is ORIGINAL_LANGUAGE when one of them is
    reliably English (the seeds: a French header over English rulings), else
    the dump's most common reliable body language, else its header language.

    Needs:
        resolved: dump_id, line_number, line, kind (one row per line);
            line_normalized (`dedupe.normalize_text` of body lines) when present.
        languages: text (normalized), language, language_probability, is_reliable.
        dumps: dump_id, header_language.

    Adds (on body lines; null elsewhere):
        language (String), language_probability (Float64),
        language_is_inferred (Boolean: the prior was used),
        _is_reliable (Boolean).
    """
    lookup = languages.rename(
        {"text": "_key", "language": "_detected", "is_reliable": "_is_reliable"}
    )
    is_body = pl.col("kind") == "body"
    key = (
        pl.col("line_normalized")
        if "line_normalized" in resolved.columns
        else normalize_text(pl.col("line"))
    )
    with_detected = resolved.with_columns(_key=pl.when(is_body).then(key)).join(
        lookup, on="_key", how="left"
    )
    reliable_body = is_body & pl.col("_is_reliable").fill_null(False)
    body_prior = (
        pl.when((reliable_body & (pl.col("_detected") == ORIGINAL_LANGUAGE)).any().over("dump_id"))
        .then(pl.lit(ORIGINAL_LANGUAGE))
        .otherwise(pl.col("_detected").filter(reliable_body).mode().min().over("dump_id"))
    )
    labelled = with_detected.join(
        dumps.select("dump_id", "header_language"), on="dump_id", how="left"
    ).with_columns(
        _prior=pl.coalesce(body_prior, pl.col("header_language")),
        _is_reliable=pl.col("_is_reliable").fill_null(False),
    )
    return labelled.with_columns(
        language=pl.when(is_body).then(
            resolve_language(pl.col("_detected"), pl.col("_is_reliable"), pl.col("_prior"))
        ),
        language_probability=pl.when(is_body).then(pl.col("language_probability")),
        language_is_inferred=pl.when(is_body).then(
            resolve_is_inferred(pl.col("_is_reliable"), pl.col("_prior"))
        ),
    ).drop("_key", "_detected", "header_language", "_prior")


def mark_translations(labelled: pl.DataFrame) -> pl.DataFrame:
    """Turn body lines that translate their entry's original into `translation` lines.

    A body line is a translation when its language is reliably detected and
    is not ORIGINAL_LANGUAGE, and its entry has a line in ORIGINAL_LANGUAGE
    (so every entry keeps its original): lines above or below the original
    alike, in the language the header claims or another (a German line under
    a header that claims French is still no part of the English ruling).

    Needs:
        labelled: the output of `label_line_languages` (with entry_line).

    Returns:
        `labelled` with kind "translation" on those lines; drops _is_reliable.
    """
    is_body = pl.col("kind") == "body"
    has_original = (
        (is_body & (pl.col("language") == ORIGINAL_LANGUAGE)).any().over("dump_id", "entry_line")
    )
    is_translation = (
        is_body & pl.col("_is_reliable") & (pl.col("language") != ORIGINAL_LANGUAGE) & has_original
    )
    return labelled.with_columns(
        kind=pl.when(is_translation).then(pl.lit("translation")).otherwise(pl.col("kind"))
    ).drop("_is_reliable")


def build_translations(marked: pl.DataFrame, occurrences: pl.DataFrame) -> pl.DataFrame:
    """The `ruling_translations` table: each translation line, linked to its ruling.

    Needs:
        marked: the output of `mark_translations`.
        occurrences: dump_id, line_number (of the date·source line), ruling_id.

    Returns:
        dump_id (String), line_number (Int64, of the translation line),
        ruling_id (String), language (String), text (String: as written, trimmed);
        sorted by dump_id, line_number.
    """
    return (
        marked.filter(pl.col("kind") == "translation")
        .join(
            occurrences.select("dump_id", "line_number", "ruling_id"),
            left_on=["dump_id", "entry_line"],
            right_on=["dump_id", "line_number"],
            how="inner",
        )
        .select(
            "dump_id", "line_number", "ruling_id", "language", text=pl.col("line").str.strip_chars()
        )
        .sort("dump_id", "line_number")
    )


def find_claimed_translations(dumps: pl.DataFrame, translations: pl.DataFrame) -> pl.DataFrame:
    """Add `has_claimed_translation`: the language the header claims has a translation line.

    Needs:
        dumps: dump_id, claimed_translation_language ("zh" matches "zh-cn", "zh-tw").
        translations: dump_id, language.

    Adds:
        has_claimed_translation (Boolean): false when the header claims none.
    """
    found = translations.select(
        pl.concat_str("dump_id", pl.col("language").str.split("-").list.first(), separator="|")
    ).to_series()
    key = pl.concat_str("dump_id", "claimed_translation_language", separator="|")
    return dumps.with_columns(has_claimed_translation=key.is_in(found.implode()).fill_null(False))
