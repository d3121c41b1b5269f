"""Give lines their language and separate translations from original rulings.

Some sites put their translation of a ruling on its own line under (or above)
the English original, inside the same entry. The original stays the ruling;
the translation goes to `ruling_translations`, linked to the ruling.
"""

from __future__ import annotations

import polars as pl

from flows.stages.dedupe import normalize_text
from flows.stages.language import (
    CHINESE,
    UNDETERMINED,
    han_script,
    settle_is_inferred,
    settle_language,
)

#: Rulings are published in English; translations are made from it.
ORIGINAL_LANGUAGE = "en"


def dump_context_languages(resolved: pl.DataFrame, dumps: pl.DataFrame) -> pl.DataFrame:
    """Each dump's context language: what decides langdetect's close calls there.

    The language the header claims (a claimed "zh" takes the script of the
    dump's header and date·source lines: Traditional gives "zh-tw",
    Simplified "zh-cn"), else the header's language when it is not English.

    Needs:
        resolved: dump_id, line, kind (one row per line).
        dumps: dump_id, claimed_translation_language, header_language.

    Returns:
        dump_id (String), context_language (String, null when the dump has none).
    """
    claims_chinese = dumps.filter(pl.col("claimed_translation_language") == CHINESE)["dump_id"]
    scripts = (
        resolved.filter(
            pl.col("kind").is_in(["header", "date_source"])
            & pl.col("dump_id").is_in(claims_chinese.implode())
        )
        .group_by("dump_id")
        .agg(_framing=pl.col("line").str.join(" "))
        .with_columns(_han=pl.col("_framing").map_elements(han_script, return_dtype=pl.String))
    )
    claimed = pl.col("claimed_translation_language")
    header = pl.col("header_language")
    return (
        dumps.select("dump_id", "claimed_translation_language", "header_language")
        .join(scripts.select("dump_id", "_han"), on="dump_id", how="left")
        .select(
            "dump_id",
            context_language=pl.when(claimed == CHINESE)
            .then(pl.col("_han"))
            .when(claimed.is_not_null())
            .then(claimed)
            .when(~header.is_in([ORIGINAL_LANGUAGE, UNDETERMINED, CHINESE]))
            .then(header),
        )
    )


def label_line_languages(
    resolved: pl.DataFrame, languages: pl.DataFrame, dumps: pl.DataFrame
) -> pl.DataFrame:
    """Add each body line's language: English unless there is evidence of another.

    A body line is foreign on positive evidence only: it is mostly in another
    script than Latin (the English originals'), or `language.detect_text_language`
    finds it reliably in another language (its words, not its names or
    numbers), or finds it (unreliably: a short line such as `X peut valoir
    zéro.`) in the language the header claims. A foreign line's language is
    settled by the dump's context (`dump_context_languages`, then the dump's
    most common reliable foreign language, unless two tie:
    `language.settle_language`). Every other
    body line is English: reliably (inferred false) when langdetect says so,
    else by default (inferred true).

    Needs:
        resolved: dump_id, line_number, line, kind (one row per line);
            line_normalized (`dedupe.normalize_text` of body lines) when present.
        languages: text (normalized), language, language_probability, is_reliable.
        dumps: dump_id, header_language, claimed_translation_language.

    Adds (on body lines; null elsewhere):
        language (String), language_probability (Float64: of `language`; null
        when inferred), language_is_inferred (Boolean),
        _is_foreign (Boolean: the line may translate its entry's original).
    """
    lookup = languages.rename(
        {"text": "_key", "language": "_detected", "language_probability": "_probability"}
    )
    is_body = pl.col("kind") == "body"
    key = (
        pl.col("line_normalized")
        if "line_normalized" in resolved.columns
        else normalize_text(pl.col("line"))
    )
    detected, reliable = pl.col("_detected"), pl.col("is_reliable").fill_null(False)
    claimed = pl.col("claimed_translation_language")
    not_english = is_body & ~detected.is_in([ORIGINAL_LANGUAGE, UNDETERMINED]).fill_null(True)
    with_detected = (
        resolved.with_columns(_key=pl.when(is_body).then(key))
        .join(lookup, on="_key", how="left")
        .join(dump_context_languages(resolved, dumps), on="dump_id", how="left")
        .join(dumps.select("dump_id", "claimed_translation_language"), on="dump_id", how="left")
        .pipe(_with_other_script, not_english)
        .with_columns(
            _is_foreign=not_english
            & (reliable | pl.col("_other_script") | (settle_language(detected, claimed) == claimed))
        )
        .drop("_other_script")
    )
    modes = detected.filter(pl.col("_is_foreign") & reliable).mode()
    foreign_mode = (  # the dump's most common reliable foreign language; none on a tie
        pl.when(modes.min().over("dump_id") == modes.max().over("dump_id")).then(
            modes.min().over("dump_id")
        )
    )
    context = pl.coalesce(pl.col("context_language"), foreign_mode)
    is_english = is_body & ~pl.col("_is_foreign")
    is_reliable_english = is_english & reliable & (detected == ORIGINAL_LANGUAGE)
    inferred = (
        pl.when(pl.col("_is_foreign"))
        .then(~reliable | settle_is_inferred(detected, context))
        .when(is_body)
        .then(~is_reliable_english)
    )
    return with_detected.with_columns(
        language=pl.when(pl.col("_is_foreign"))
        .then(settle_language(detected, context))
        .when(is_body)
        .then(pl.lit(ORIGINAL_LANGUAGE)),
        language_is_inferred=inferred,
        language_probability=pl.when(is_body & ~inferred).then(pl.col("_probability")),
    ).drop(
        "_key",
        "_detected",
        "_probability",
        "is_reliable",
        "context_language",
        "claimed_translation_language",
    )


def _with_other_script(lines: pl.DataFrame, candidate: pl.Expr) -> pl.DataFrame:
    """Add _other_script (Boolean): `line` is mostly in another script than Latin.

    Letters inside `{...}` symbols are left out (`{T}` is no Latin evidence).
    Counted only on `candidate` lines (null elsewhere): counting every letter
    of every line is the costly part, and only lines detected as neither
    English nor undetermined can be foreign.
    """
    words = pl.col("line").str.replace_all(r"\{[^}]*\}", " ")
    letters = words.str.replace_all(r"\P{L}+", "").str.len_chars()
    other = words.str.replace_all(r"[\P{L}\p{Latin}]+", "").str.len_chars()
    numbered = lines.with_row_index("_row")
    counted = numbered.filter(candidate).select("_row", _other_script=other * 2 > letters)
    return numbered.join(counted, on="_row", how="left", maintain_order="left").drop("_row")


def mark_translations(labelled: pl.DataFrame) -> pl.DataFrame:
    """Turn foreign body lines of an entry that has an English original into `translation` lines.

    A body line is a translation when `label_line_languages` found it foreign
    and its entry keeps a line that is not (so every entry keeps its
    original): lines above or below the original alike, in the language the
    header claims or another (a German line under a header that claims French
    is still no part of the English ruling).

    Needs:
        labelled: the output of `label_line_languages` (with entry_line).

    Returns:
        `labelled` with kind "translation" on those lines; drops _is_foreign.
    """
    is_body = pl.col("kind") == "body"
    foreign = pl.col("_is_foreign").fill_null(False)
    if not labelled.select((is_body & foreign).any()).item():
        return labelled.drop("_is_foreign")  # no foreign body line: nothing to mark
    has_original = (is_body & ~foreign).any().over("dump_id", "entry_line")
    return labelled.with_columns(
        kind=pl.when(is_body & foreign & has_original)
        .then(pl.lit("translation"))
        .otherwise(pl.col("kind"))
    ).drop("_is_foreign")


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
