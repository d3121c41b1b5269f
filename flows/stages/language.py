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

from flows.stages.dedupe import comparison_keys, normalize_text
from flows.stages.detector import CHINESE, HAN_CHARACTER, NEIGHBOURS, UNDETERMINED, han_script

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

#: "detected>context" pairs where the dump's context language wins (NEIGHBOURS).
_NEIGHBOUR_PAIRS = [f"{found}>{near}" for found, nears in NEIGHBOURS.items() for near in nears]


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
        .group_by("dump_id")  # each dump's framing, as its Han characters (those han_script reads)
        .agg(_chars=pl.col("line").str.join(" ").str.replace_all(_NOT_HAN, ""))
    )
    read = scripts.select(pl.col("_chars").unique())  # a site's framing repeats: each read once
    read = read.with_columns(_han=pl.col("_chars").map_elements(han_script, pl.String))
    scripts = scripts.join(read, on="_chars", how="left", nulls_equal=True)
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
    per_dump = dump_context_languages(resolved, dumps).join(claims, on="dump_id", how="left")
    with_detected = (
        resolved.with_columns(_key=pl.when(is_body).then(key))
        .join(lookup, on="_key", how="left")
        .join(per_dump, on="dump_id", how="left")  # context and claim: one join, not two
        .pipe(_with_other_script, not_english)
        .with_columns(
            _is_foreign=not_english
            & (reliable | pl.col("_other_script") | (settle_language(detected, claimed) == claimed))
        )
        .drop("_other_script")
    )
    return _with_settled_languages(with_detected).drop(
        "_key", "_detected", "_probability", "is_reliable", "context_language",
        "claimed_translation_language",
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
        language_is_inferred=inferred,
        language_probability=pl.when(is_body & ~inferred).then(pl.col("_probability")),
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


#: Between a ruling and its translation on one line: ` / ` (round-3 case r06), ` | ` or a
#: tab (table cells). No real ruling holds one (0 of 23,597).
BILINGUAL_SEPARATOR = r" / | \| |\t"

#: Words each half of a split line needs: a sentence, not a rule number or a card name
#: (`See rule 702.19 / 702.19c.`, `Liliana / Liliana, dernier espoir.` stay whole).
MIN_HALF_WORDS = 3


_NAME = r"\p{Lu}[\p{L}'’-]*$"  # a capitalized word (a name) ends the first half, and the
_NOT_NAME = r"\s|[。！？]$"  # second is no name: words, or a CJK sentence (`…为目标。`)
#: A word: a run of letters, or one Han or kana character (written without spaces).
_WORD = r"[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}--[\p{Han}\p{Hiragana}\p{Katakana}]]+"


def _words(text: pl.Expr) -> pl.Expr:
    """The words (`_WORD`) of `text` (UInt32)."""
    return text.str.count_matches(_WORD)


def bilingual_halves(resolved: pl.DataFrame) -> pl.DataFrame:
    """The two halves of each body line holding BILINGUAL_SEPARATOR exactly once, each
    of MIN_HALF_WORDS words or more, and not a name after a name (`_NAME`, `_NOT_NAME`:
    `Cards named Razorfield Ripper | 剃刀野の切り裂き魔.` stays whole).

    Needs:
        resolved: dump_id, line_number, line, kind (one row per line).

    Returns:
        dump_id (String), line_number (Int64), first, second (String: as written,
        trimmed), first_key, second_key (String: `normalize_text`)."""
    line, kind = pl.col("line"), pl.col("kind")
    parts = line.str.replace(BILINGUAL_SEPARATOR, "\n").str.split("\n")  # none in a line
    return (  # counted on the lines that hold it (counting on every line: 0.13 s at 1M lines)
        resolved.filter((kind == "body") & line.str.contains(BILINGUAL_SEPARATOR))
        .filter(line.str.count_matches(BILINGUAL_SEPARATOR) == 1)
        .select(
            "dump_id",
            "line_number",
            first=parts.list.first().str.strip_chars(),
            second=parts.list.last().str.strip_chars(),
        )
        .filter(~pl.col("first").str.contains(_NAME) | pl.col("second").str.contains(_NOT_NAME))
        .filter(_words(pl.col("first")) >= MIN_HALF_WORDS)
        .filter(_words(pl.col("second")) >= MIN_HALF_WORDS)
        .with_columns(first_key=normalize_text(pl.col("first")),
                      second_key=normalize_text(pl.col("second")))
    )  # fmt: skip


def _is_foreign(found: pl.Expr, reliable: pl.Expr, claimed: pl.Expr) -> pl.Expr:
    """A text detected as `found` is another language than English on positive evidence
    (reliably, or the language the header claims), as `label_line_languages` decides."""
    other = ~found.is_in([ORIGINAL_LANGUAGE, UNDETERMINED]).fill_null(True)
    return other & (reliable.fill_null(False) | (settle_language(found, claimed) == claimed))


def split_bilingual_lines(
    resolved: pl.DataFrame, languages: pl.DataFrame, dumps: pl.DataFrame
) -> pl.DataFrame:
    """Split a body line `<original> / <translation>` into its ruling and its translation.

    A line is split only when its first half is English (the entry's
    original, ORIGINAL_LANGUAGE: no evidence of another language, as
    `label_line_languages` decides) and its second is in another language on
    positive evidence (reliably, or the language the header claims);
    otherwise it is kept whole. The line keeps its kind (body): its text becomes the first half; the
    second half is its translation, in the language `settle_language` gives
    in the dump's context.

    Needs:
        resolved: dump_id, line_number, line, kind, line_normalized.
        languages: text (normalized), language, is_reliable, for every half of
            `bilingual_halves` (`dumps.collect_texts`).
        dumps: dump_id, header_language, claimed_translation_language.

    Adds:
        translation_text (String), translation_language (String): on split
        lines, else null.
    """
    halves = bilingual_halves(resolved)
    if halves.is_empty():  # most runs: no line holds ` / `
        return resolved.with_columns(
            translation_text=pl.lit(None, pl.String), translation_language=pl.lit(None, pl.String)
        )
    lookup = languages.select("text", "language", "is_reliable")
    first_found = lookup.rename({"text": "first_key", "language": "_first", "is_reliable": "_r1"})
    second_found = lookup.rename(
        {"text": "second_key", "language": "_second", "is_reliable": "_r2"}
    )
    claimed = pl.col("claimed_translation_language")
    second = pl.col("_second")
    split = (
        halves.join(first_found, on="first_key", how="left")
        .join(second_found, on="second_key", how="left")
        .join(dump_context_languages(resolved, dumps), on="dump_id", how="left")
        .join(dumps.select("dump_id", "claimed_translation_language"), on="dump_id", how="left")
        .filter(~_is_foreign(pl.col("_first"), pl.col("_r1"), claimed).fill_null(False)
                & _is_foreign(second, pl.col("_r2"), claimed).fill_null(False))
        .select(
            "dump_id", "line_number", "first", "first_key",
            translation_text="second",
            translation_language=settle_language(second, pl.col("context_language")),
        )
    )  # fmt: skip
    return (
        resolved.join(split, on=["dump_id", "line_number"], how="left", maintain_order="left")
        .with_columns(
            line=pl.coalesce("first", "line"),
            line_normalized=pl.coalesce("first_key", "line_normalized"),
        )
        .drop("first", "first_key")
    )
