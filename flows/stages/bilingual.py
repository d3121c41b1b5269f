"""A ruling and its translation on one line: `<original> / <translation>` split in two.

Some sites put a ruling's translation after ` / ` on the ruling's own line
(round-3 case r06), or in the next table cell (` | `, a tab). The halves'
languages are detected with the dump's other texts (`dumps.collect_texts`)
and a line is split only on positive evidence (`split_bilingual_lines`).
"""

from __future__ import annotations

import polars as pl

from flows.stages.claims import without_language_label
from flows.stages.dedupe import normalize_text
from flows.stages.detector import UNDETERMINED
from flows.stages.language import (
    ORIGINAL_LANGUAGE,
    dump_context_languages,
    mostly_other_script,
    settle_language,
)
from flows.stages.shapes import count_words

#: Between a ruling and its translation on one line: ` / ` (round-3 case r06), ` | ` or a
#: tab (table cells), ` // `, and the full-width `／` and `｜` CJK pages write (a probe's
#: find: 0 of 30 such lines split in each language). No real ruling holds one but ` // `
#: (a split card's name, `Fire // Ice`: both halves English, never split).
BILINGUAL_SEPARATOR = r" / | // | \| |\t|\s*[／｜]\s*"

#: What a table row may have around its cells (`Energy…end.\tLes marqueurs…\t`, Markdown's
#: `| Energy… | Les marqueurs… |`): a probe's find, 300 of 300 rows ending with a tab glued.
_ROW_ENDS = " \t|"

#: Words each half of a split line needs: a sentence, not a rule number or a card name
#: (`See rule 702.19 / 702.19c.`, `Liliana / Liliana, dernier espoir.` stay whole).
MIN_HALF_WORDS = 3


_NAME = r"\p{Lu}[\p{L}'’-]*$"  # a capitalized word (a name) ends the first half, and the
_NOT_NAME = r"\s|[。！？]$"  # second is no name: words, or a CJK sentence (`…为目标。`)


def bilingual_halves(resolved: pl.DataFrame) -> pl.DataFrame:
    """The two halves of each body line holding BILINGUAL_SEPARATOR exactly once, each
    of MIN_HALF_WORDS words or more, and not a name after a name (`_NAME`, `_NOT_NAME`:
    `Cards named Razorfield Ripper | 剃刀野の切り裂き魔.` stays whole).

    Needs:
        resolved: dump_id, line_number, line, kind (one row per line).

    Returns:
        dump_id (String), line_number (Int64), first, second (String: as written,
        trimmed, without a language label: `claims.LANGUAGE_LABEL`), first_key,
        second_key (String: `normalize_text`)."""
    kind = pl.col("kind")
    line = pl.col("line").str.strip_chars(_ROW_ENDS)  # a table row's last cell ends it
    parts = line.str.replace(BILINGUAL_SEPARATOR, "\n").str.split("\n")  # none in a line
    return (  # counted on the lines that hold it (counting on every line: 0.13 s at 1M lines)
        resolved.filter((kind == "body") & pl.col("line").str.contains(BILINGUAL_SEPARATOR))
        .filter(line.str.count_matches(BILINGUAL_SEPARATOR) == 1)
        .select(
            "dump_id",
            "line_number",
            first=without_language_label(parts.list.first().str.strip_chars(_ROW_ENDS)),
            second=without_language_label(parts.list.last().str.strip_chars(_ROW_ENDS)),
        )
        .filter(~pl.col("first").str.contains(_NAME) | pl.col("second").str.contains(_NOT_NAME))
        .filter(count_words(pl.col("first")) >= MIN_HALF_WORDS)
        .filter(count_words(pl.col("second")) >= MIN_HALF_WORDS)
        .with_columns(first_key=normalize_text(pl.col("first")),
                      second_key=normalize_text(pl.col("second")))
    )  # fmt: skip


def _is_foreign(found: pl.Expr, reliable: pl.Expr, claimed: pl.Expr, text: pl.Expr) -> pl.Expr:
    """`text`, detected as `found`, is another language than English on positive evidence
    (reliably, mostly in another script, or the language the header claims), as
    `label_line_languages` decides (`Draw three cards. / 抽三張牌。` under a TW claim: its
    second half is zh-tw, the claim "zh")."""
    other = ~found.is_in([ORIGINAL_LANGUAGE, UNDETERMINED]).fill_null(True)
    evidence = reliable.fill_null(False) | mostly_other_script(text)
    return other & (evidence | (settle_language(found, claimed) == claimed))


def split_bilingual_lines(
    resolved: pl.DataFrame, languages: pl.DataFrame, dumps: pl.DataFrame
) -> pl.DataFrame:
    """Split a body line `<original> / <translation>` into its ruling and its translation.

    A line is split only when one half is English (the entry's original,
    ORIGINAL_LANGUAGE: no evidence of another language, as `label_line_languages`
    decides) and the other is in another language on positive evidence (reliably,
    or the language the header claims), in either order (`Les marqueurs… / Energy
    counters…`: a probe's find, 0 of 300 such lines split); otherwise it is kept
    whole. The line keeps its kind (body): its text becomes the English half; the
    other half is its translation, in the language `settle_language` gives in the
    dump's context.

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
    split = _english_and_translation(halves, languages, dumps)
    return (
        resolved.join(split, on=["dump_id", "line_number"], how="left", maintain_order="left")
        .with_columns(
            line=pl.coalesce("first", "line"),
            line_normalized=pl.coalesce("first_key", "line_normalized"),
        )
        .drop("first", "first_key")
    )


def _english_and_translation(
    halves: pl.DataFrame, languages: pl.DataFrame, dumps: pl.DataFrame
) -> pl.DataFrame:
    """`split_bilingual_lines`' halves whose one half is English and the other foreign:
    dump_id, line_number, first, first_key (the English half), translation_text,
    translation_language (the other half; `settle_language` in the dump's context)."""
    lookup = languages.select("text", "language", "is_reliable")
    first_found = lookup.rename({"text": "first_key", "language": "_first", "is_reliable": "_r1"})
    second_found = lookup.rename(
        {"text": "second_key", "language": "_second", "is_reliable": "_r2"}
    )
    claimed = pl.col("claimed_translation_language")
    first_foreign = _is_foreign(pl.col("_first"), pl.col("_r1"), claimed, pl.col("first"))
    second_foreign = _is_foreign(pl.col("_second"), pl.col("_r2"), claimed, pl.col("second"))
    swapped = pl.col("_swapped")  # the translation first
    return (
        halves.join(first_found, on="first_key", how="left")
        .join(second_found, on="second_key", how="left")
        .join(dump_context_languages(dumps), on="dump_id", how="left")
        .join(dumps.select("dump_id", "claimed_translation_language"), on="dump_id", how="left")
        .with_columns(_swapped=first_foreign.fill_null(False))
        .filter(pl.col("_swapped") != second_foreign.fill_null(False))
        .select(
            "dump_id", "line_number",
            first=pl.when(swapped).then("second").otherwise("first"),
            first_key=pl.when(swapped).then("second_key").otherwise("first_key"),
            translation_text=pl.when(swapped).then("first").otherwise("second"),
            translation_language=settle_language(
                pl.when(swapped).then("_first").otherwise("_second"), pl.col("context_language")
            ),
        )
    )  # fmt: skip
