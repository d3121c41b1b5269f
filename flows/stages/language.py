"""Every text's language in its dump's context; translations told from originals.

`detector.detect_languages` reads each distinct text once (seeded
langdetect, the script, word frequencies). A result is then settled by
its context: an unreliable one falls back to a prior (`resolve_language`),
and a close call between neighbours goes to the dump's language
(`settle_language`). Body lines are English unless there is evidence of
another language (`label_line_languages`); a foreign body line of an entry
that keeps an English original is that ruling's translation
(`mark_translations`): some sites put their translation of a ruling on its
own line under (or above) the English original, inside the same entry,
others on the same line after ` / ` (`split_bilingual_lines`).
"""

from __future__ import annotations

import polars as pl

from flows.stages.claims import with_label_languages
from flows.stages.dedupe import comparison_keys, normalize_text
from flows.stages.detector import CHINESE, HAN_CHARACTER, NEIGHBOURS, UNDETERMINED, han_script
from flows.stages.english_words import undetermined_with_foreign_words

#: Rulings are published in English; translations are made from it.
ORIGINAL_LANGUAGE = "en"


def resolve_language(detected: pl.Expr, is_reliable: pl.Expr, prior: pl.Expr) -> pl.Expr:
    """The detected language where reliable, else `prior` (where it is not null)."""
    return pl.when(is_reliable | prior.is_null()).then(detected).otherwise(prior)


def resolve_is_inferred(is_reliable: pl.Expr, prior: pl.Expr) -> pl.Expr:
    """True where `resolve_language` took the prior instead of the detected language."""
    return ~is_reliable & prior.is_not_null()


#: Every character but the Han ones `detector.han_script` reads (HAN_CHARACTER's class, negated).
_NOT_HAN = "[^" + HAN_CHARACTER.pattern.removeprefix("[")

#: "detected>context" pairs where the dump's context wins (NEIGHBOURS), but Chinese's two
#: scripts: a text read zh-cn has characters only Simplified has (`detector.han_script`) and
#: keeps it in a zh-tw dump (`官方裁定 (zh-TW)` made it zh-tw). Shared characters are "zh".
_SCRIPTS = {"zh-cn", "zh-tw"}
_NEIGHBOUR_PAIRS = [
    f"{a}>{b}" for a, near in NEIGHBOURS.items() for b in near if {a, b} != _SCRIPTS
]


def settle_language(detected: pl.Expr, context: pl.Expr) -> pl.Expr:
    """`detected`, or the dump's `context` language where the two are NEIGHBOURS.

    langdetect confuses neighbours (real pt-BR card text reads es, Russian bg,
    Han-only Japanese zh), and hanzidentifier cannot tell the script of Han
    text whose characters both scripts share ("zh"): the language the header
    claims, or the dump's script, decides. "zh" with no Chinese context is
    "zh-cn" (marked inferred by `settle_is_inferred`).
    """
    is_pair = pl.concat_str(detected, context, separator=">").is_in(_NEIGHBOUR_PAIRS)
    return (
        pl.when(is_pair)
        .then(context)
        .when(detected == CHINESE)
        .then(pl.lit("zh-cn"))
        .otherwise(detected)
    )


def settle_is_inferred(detected: pl.Expr, context: pl.Expr) -> pl.Expr:
    """True where `settle_language` did not keep the detected language as it was."""
    return settle_language(detected, context).ne_missing(detected) | (detected == CHINESE)


def with_comparison_key(frame: pl.DataFrame, text_column: str, alias: str) -> pl.DataFrame:
    """Add `alias` (String): `text_column`'s comparison key (`dedupe.normalize_text`; null
    for a null text), each distinct text normalized once; rows in their order."""
    keys = comparison_keys(frame[text_column], alias)
    return frame.join(keys, on=text_column, how="left", nulls_equal=True, maintain_order="left")


def with_language(
    frame: pl.DataFrame,
    text_column: str,
    languages: pl.DataFrame,
    prior: pl.Expr | None = None,
    context: pl.Expr | None = None,
    key: str | None = None,
) -> pl.DataFrame:
    """Join `languages` on normalized `text_column`; resolve unreliable results to `prior`.

    A detected language that `context` (the dump's language) neighbours, or
    Chinese of either script, is settled by `settle_language`. `key`: a
    column of `frame` holding `text_column`'s comparison key
    (`with_comparison_key`), dropped; None: the keys are found here.

    Adds language (String), language_probability (Float64: of `language`,
    null when inferred), language_is_inferred (Boolean).
    """
    lookup = languages.rename({"text": "_key", "language": "_found"})
    prior = pl.lit(None, dtype=pl.String) if prior is None else prior
    context = prior if context is None else context
    found = pl.col("_found")
    keyed = frame.rename({key: "_key"}) if key else with_comparison_key(frame, text_column, "_key")
    return (
        keyed.join(lookup, on="_key", how="left")
        .with_columns(_detected=settle_language(found, context))
        .with_columns(
            language=resolve_language(pl.col("_detected"), pl.col("is_reliable"), prior),
            language_is_inferred=resolve_is_inferred(pl.col("is_reliable"), prior)
            | (pl.col("is_reliable") & settle_is_inferred(found, context)),
        )
        .with_columns(
            language_probability=pl.when(~pl.col("language_is_inferred")).then(
                pl.col("language_probability")
            )
        )
        .drop("_key", "_found", "_detected", "is_reliable")
    )


def framing_scripts(resolved: pl.DataFrame, headers: pl.DataFrame) -> pl.DataFrame:
    """The script of each Chinese dump's framing: its header and date·source lines.

    A dump is Chinese here when its header claims "zh", or holds a Han character and
    claims neither ja nor ko (`公式裁定・日本語訳` is Japanese: a review's find).
    The framing's Han characters (those `detector.han_script` reads) decide:
    `官方裁定` shares its characters with both scripts, its date line's `來源`
    is Traditional (field case c11: a Traditional dump's translations are zh-tw).

    Needs:
        resolved: dump_id, line, kind (one row per line).
        headers: dump_id, header_text, claimed_translation_language.

    Returns:
        dump_id (String), framing_script (String: "zh-tw", "zh-cn", or null when
        the framing's Han characters are of both scripts or none); a row for
        each Chinese dump.
    """
    claimed = pl.col("claimed_translation_language")
    chinese = headers.filter(
        (claimed == CHINESE)
        | pl.col("header_text").str.contains(HAN_CHARACTER.pattern)
        & ~claimed.is_in(["ja", "ko"]).fill_null(False)
    )["dump_id"]
    framing = (
        resolved.filter(
            pl.col("kind").is_in(["header", "date_source"])
            & pl.col("dump_id").is_in(chinese.implode())
        )
        .group_by("dump_id")  # each dump's framing, as its Han characters (those han_script reads)
        .agg(_chars=pl.col("line").str.join(" ").str.replace_all(_NOT_HAN, ""))
    )
    read = framing.select(pl.col("_chars").unique())  # a site's framing repeats: each read once
    read = read.with_columns(framing_script=pl.col("_chars").map_elements(han_script, pl.String))
    return framing.join(read, on="_chars", how="left", nulls_equal=True).select(
        "dump_id", "framing_script"
    )


def dump_context_languages(dumps: pl.DataFrame) -> pl.DataFrame:
    """Each dump's context language: what decides langdetect's close calls there.

    The language the header claims (a claimed "zh" takes the script of the
    dump's framing, `framing_scripts`: Traditional gives "zh-tw", Simplified
    "zh-cn"), else the header's language when it is not English (a Chinese
    header's, the framing's script when it has one).

    Needs:
        dumps: dump_id, claimed_translation_language, header_language,
            framing_script (`describe_dump_headers`).

    Returns:
        dump_id (String), context_language (String, null when the dump has none).
    """
    claimed = pl.col("claimed_translation_language")
    header = pl.col("header_language")
    return dumps.select(
        "dump_id",
        context_language=pl.when(claimed == CHINESE)
        .then(pl.col("framing_script"))
        .when(claimed.is_not_null())
        .then(claimed)
        .when(header.is_in(["zh-cn", "zh-tw"]))
        .then(pl.coalesce("framing_script", header))
        .when(~header.is_in([ORIGINAL_LANGUAGE, UNDETERMINED, CHINESE]))
        .then(header),
    )


def describe_dump_headers(
    headers: pl.DataFrame, languages: pl.DataFrame, resolved: pl.DataFrame
) -> pl.DataFrame:
    """Add each header's language, the prior of the dump's short texts.

    Where langdetect is unreliable on the header (a short disclaimer), the
    language the header names as its translation's is used instead. An
    all-caps header is read case-folded (`detect_text_language`). A Chinese
    header whose characters both scripts share takes its framing's script
    (`language.framing_scripts`: `官方裁定` over `來源：wotc` is zh-tw). A header
    read en by default (unreliably, no claim) is "und" when a word of it is a site language's
    and not English's (`english_words.has_foreign_words`: `Clarifications officielles`; a
    probe's find: 9 of 38 such short headers were en).

    Needs:
        headers: dump_id, header_text, claimed_translation_language, header_key
            (`assemble_dumps`: header_text's comparison key, dropped).
        resolved: dump_id, line, kind (one row per line).

    Adds:
        header_language (String; "und" for an empty header),
        header_language_is_inferred (Boolean: taken from the claimed code or
            the framing's script), framing_script (String: `framing_scripts`);
        rows sorted by dump_id.
    """
    claimed = pl.col("claimed_translation_language")
    weak = languages.filter((pl.col("language") == ORIGINAL_LANGUAGE) & ~pl.col("is_reliable"))
    framed = headers.join(
        framing_scripts(resolved, headers), on="dump_id", how="left", maintain_order="left"
    ).with_columns(_weak=pl.col("header_key").is_in(weak["text"].implode()))
    described = (
        with_language(
            framed,
            "header_text",
            languages,
            prior=claimed,
            context=pl.coalesce("framing_script", claimed),
            key="header_key",
        )
        .with_columns(
            header_language=pl.col("language").fill_null("und"),
            header_language_is_inferred=pl.col("language_is_inferred").fill_null(False),
        )
        .drop("language", "language_probability", "language_is_inferred")
        .sort("dump_id")
    )
    return undetermined_with_foreign_words(described).drop("_weak")


def label_line_languages(
    resolved: pl.DataFrame, languages: pl.DataFrame, dumps: pl.DataFrame
) -> pl.DataFrame:
    """Add each body line's language: English unless there is evidence of another.

    A body line is foreign on positive evidence only: it is mostly in another
    script than Latin (the English originals'), or `detector.detect_text_language`
    finds it reliably in another language (its words, not its names or
    numbers), or finds it (unreliably: a short line such as `X peut valoir
    zéro.`) in the language the header claims. A foreign line's language is
    settled by the dump's context (`dump_context_languages`, then the dump's
    most common reliable foreign language, unless two tie:
    `settle_language`). Every other
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
    claims = dumps.select("dump_id", "claimed_translation_language")
    per_dump = dump_context_languages(dumps).join(claims, on="dump_id", how="left")
    with_detected = (
        resolved.with_columns(_key=pl.when(is_body).then(key))
        .join(lookup, on="_key", how="left")
        .join(per_dump, on="dump_id", how="left")  # context and claim: one join, not two
        .pipe(with_label_languages, _NEIGHBOUR_PAIRS)
        .pipe(_with_other_script, not_english)
        .with_columns(
            _is_foreign=not_english
            & (reliable | pl.col("_other_script") | (settle_language(detected, claimed) == claimed))
        )
        .drop("_other_script")
    )
    return _with_settled_languages(with_detected).drop(
        "_key", "_detected", "_probability", "is_reliable", "context_language",
        "claimed_translation_language", "label_language", "_labelled",
    )  # fmt: skip


def _with_settled_languages(with_detected: pl.DataFrame) -> pl.DataFrame:
    """Add the body lines' language, language_is_inferred and language_probability
    (`label_line_languages`), from `_detected`, `is_reliable` and `_is_foreign`."""
    is_body = pl.col("kind") == "body"
    detected, reliable = pl.col("_detected"), pl.col("is_reliable").fill_null(False)
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
        language_is_inferred=inferred | (is_body & pl.col("_labelled")),
        language_probability=pl.when(is_body & ~inferred).then(pl.col("_probability")),
    )


def _with_other_script(lines: pl.DataFrame, candidate: pl.Expr) -> pl.DataFrame:
    """Add _other_script (Boolean): `line` is mostly in another script than Latin.

    (`mostly_other_script`).
    Counted only on `candidate` lines (null elsewhere): counting every letter
    of every line is the costly part, and only lines detected as neither
    English nor undetermined can be foreign.
    """
    numbered = lines.with_row_index("_row")
    counted = numbered.filter(candidate).select(
        "_row", _other_script=mostly_other_script(pl.col("line"))
    )
    return numbered.join(counted, on="_row", how="left", maintain_order="left").drop("_row")


def mostly_other_script(text: pl.Expr) -> pl.Expr:
    """True where most of `text`'s letters are in another script than Latin (the English
    originals'); letters inside `{...}` symbols are left out (`{T}` is no Latin evidence)."""
    words = text.str.replace_all(r"\{[^}]*\}", " ")
    letters = words.str.replace_all(r"\P{L}+", "").str.len_chars()
    other = words.str.replace_all(r"[\P{L}\p{Latin}]+", "").str.len_chars()
    return other * 2 > letters


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
