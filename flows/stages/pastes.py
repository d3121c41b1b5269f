"""Pastes: a file may hold two pages pasted one after the other (`cat` of two pages).

The second page's header comes again after the first page's entries (and its
stub): `mark_repeated_headers` finds where, `parse.classify_lines` makes those
lines header lines, and `count_pastes` counts the pages (`dumps.paste_count`).
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from flows.stages.claims import CODES, TRANSLATION_WORDS
from flows.stages.shapes import count_words, stub_number


def paste_text_shapes() -> dict[str, pl.Expr]:
    """What `mark_repeated_headers` needs of a line's text alone besides `shapes.shape_texts`
    (`parse.classify_lines` finds it once per distinct text): _has_letter (it holds a
    letter), _names_site (it names the site's source: SITE_NAMES); Boolean, expressions
    of `line`; _header_key (String: the text as a repeated header is compared: spaces
    folded, HEADER_KEY_STRIPPED, LOOSE_HEADER_CHARS); _tail_hash (UInt64: the hash of the
    last LOOSE_HEADER_CHARS characters of a line at least that long, its final spaces
    left out, else null: where `cut_glued_headers` looks)."""
    line = pl.col("line")
    return {
        "_has_letter": line.str.contains(r"\p{L}"),
        "_names_site": line.str.contains(SITE_NAMES),
        "_tail_hash": pl.when(line.str.len_chars() >= LOOSE_HEADER_CHARS).then(
            line.str.strip_chars_end().str.slice(-LOOSE_HEADER_CHARS).hash()
        ),
        "_header_key": pl.coalesce(  # the work on the long lines only
            pl.when(line.str.len_chars() >= LOOSE_HEADER_CHARS)
            .then(line)
            .str.to_lowercase()
            .str.replace_all(r"\s{2,}|[\s--[ ]]", " ")  # (only those: `\s+` cost 3x)
            .str.strip_chars(HEADER_KEY_STRIPPED),
            line,
        ),
    }


#: What a repeated header may lose or gain around its text and still be the same line
#: (a page pasted again by hand: `Official rulings … as published` without its final
#: period, a space before or after it, Markdown's `**` around it); its case is not
#: compared either, and a run of spaces of any kind (a tab, a no-break or ideographic
#: space: a probe's find, 40 of 50 such headers glued into the ruling before) is one space.
HEADER_KEY_STRIPPED = " .。!！:：…*_"
#: ... when it is a sentence at least this long: a short header line (`Official rulings`,
#: a card's name) is only repeated exactly (a review's find: a ruling `OFFICIAL RULINGS.`
#: or a stub's `lightning bolt` under such a header line was taken for a second page).
LOOSE_HEADER_CHARS = 30


def cut_glued_headers(
    dated: pl.DataFrame, shape: Callable[[pl.DataFrame], pl.DataFrame]
) -> pl.DataFrame:
    """Cut the dump's header off a line that ends with it: the line keeps only its text
    before the header, shaped again (`shape`).

    That is a line after the dump's first head whose text, its final spaces left out,
    ends with the dump's first header line (of LOOSE_HEADER_CHARS characters or more)
    after text of MIN_GLUED_WORDS words or more, the only such line of its dump, and
    whose next line starts a page (a head, or one of the dump's header lines): a page
    whose last line had no line end, then the next page (`cat` of two pages; r04's
    kind: `… vous obtenez Clarifications officielles…` had become a header line, the
    stub's cut sentence lost into the dump's header_text). The header's text is
    dropped, as a repeated header's is (it is no stub, ruling or translation); a
    second header line after it repeats the header (`mark_repeated_headers`).
    `dumps.paste_count` does not count that page. A marker (`> `, `Page 2 — `) is no
    text, and translations ending with the header's notice are no pages (reviews).

    Needs:
        dated: dump_id (String), line_number (Int64), line (String), _first_head
        (Int64), the columns `shape` adds (`_tail_hash`, `_has_letter`, `_header_key`,
        `_is_date`, `_looks_dated` among them).

    Returns:
        `dated`, in its order, with those lines' `line` and the columns `shape` adds
        replaced.
    """
    tail = pl.col("_tail_hash")
    framing = dated.select(
        "dump_id", "line_number", "line", "_first_head", "_tail_hash", "_header_key",
        _header=(pl.col("line_number") < pl.col("_first_head")) & pl.col("_has_letter"),
        _head=pl.col("_is_date") | pl.col("_looks_dated"),
    )  # fmt: skip
    first_lines = framing.filter("_header").sort("line_number").unique("dump_id", keep="first")
    first_lines = first_lines.filter(tail.is_not_null())  # each dump's first, when long
    if first_lines.is_empty():
        return dated
    after = pl.col("line_number") > pl.col("_first_head")
    rows = dated.with_row_index("_row")  # the few lines ending as a header does (any dump's)
    glued = rows.filter(after & tail.is_in(first_lines["_tail_hash"].unique().implode()))
    if glued.is_empty():  # most runs
        return dated
    line = pl.col("line").str.strip_chars_end()
    header = pl.col("_header_line").str.strip_chars_end()
    cut = (
        glued.select("_row", "dump_id", "line_number", "line")
        .join(first_lines.select("dump_id", _header_line="line"), on="dump_id")
        .filter(line.str.ends_with(header) & (line.str.len_chars() > header.str.len_chars()))
        .with_columns(line=line.str.strip_suffix(header).str.strip_chars_end())
        .filter(pl.len().over("dump_id") == 1)  # a notice ending every translation is no page
        .filter(count_words(pl.col("line")) >= MIN_GLUED_WORDS)
        .join(_page_starts(framing, glued["dump_id"]), on=["dump_id", "line_number"], how="semi")
        .select("_row", "line")
    )
    if cut.is_empty():
        return dated
    reshaped = shape(cut)  # _row, line and the shape's columns, each replacing its own
    kept = glued.drop(*(c for c in reshaped.columns if c != "_row")).join(reshaped, on="_row")
    uncut = rows.filter(~pl.col("_row").is_in(cut["_row"].implode()))
    return pl.concat([uncut, kept.select(rows.columns)]).sort("_row").drop("_row")


#: Words the text before a glued header needs (`cut_glued_headers`): a ruling or a stub's
#: cut sentence, not a marker (`> `, `※ `, `Page 2 — `, `Copie : `: a review's find).
MIN_GLUED_WORDS = 3


def _page_starts(framing: pl.DataFrame, dump_ids: pl.Series) -> pl.DataFrame:
    """dump_id, line_number of each line before a head or a header line of its dump (the
    line before a page starts), in the dumps `dump_ids`, from `cut_glued_headers`'
    framing."""
    framing = framing.filter(pl.col("dump_id").is_in(dump_ids.unique().implode()))
    headers = framing.filter("_header").select("dump_id", "_header_key")
    nexts = framing.filter(pl.col("line_number") > pl.col("_first_head"))
    starts = pl.concat(
        [
            nexts.filter("_head").select("dump_id", "line_number"),
            nexts.join(headers, on=["dump_id", "_header_key"], how="semi").select(
                "dump_id", "line_number"
            ),
        ]
    )
    return starts.with_columns(pl.col("line_number") - 1)


def mark_repeated_headers(dated: pl.DataFrame) -> pl.DataFrame:
    """Add _repeats_header (Boolean): the line starts a repeated header.

    That is a line after the dump's first head that repeats its header (the
    text of one of its header lines, with a letter, compared by `_header_key`) or
    names a translation language as a header does (`claims.named_code`, `_named_translations`): the
    start of a second paste (`cat` of two pages: r04 of the round-3 cases).

    A line of a card stub that names the site's source (SITE_NAMES) starts one
    too.

    Needs:
        dump_id (String), line_number (Int64), line (String), _is_date,
        _looks_dated, _is_stat, _names_translation (Boolean: `shapes.shape_texts`),
        the columns of `paste_text_shapes`, _first_head (Int64: the line_number
        of the dump's first head, null when none).
    """
    before = pl.col("line_number") < pl.col("_first_head")
    after = pl.col("line_number") > pl.col("_first_head")
    # (dump, text) as one 64-bit hash: a set lookup over every line, no join (a
    # join on dump_id and text cost 0.4 s of CPU at a million lines); two
    # different pairs share a hash once in ~10^9 runs of that size.
    keyed = dated.with_columns(_key=pl.col("_header_key").hash() + pl.col("dump_id").hash())
    header_keys = keyed.filter(before & pl.col("_has_letter"))["_key"]
    marked = keyed.with_columns(
        _repeats_header=after & pl.col("_key").is_in(header_keys.implode())
    ).drop("_key")
    return _site_names_in_stubs(_named_translations(marked))


#: A line whose code labels its text: `(FR) Les marqueurs…`, `Traduction FR : …`,
#: `DE-Übersetzung: …` (a translation line, not a header naming its translation), the
#: text (group 1) naming no translation (`(FR) Clarifications, traduction automatique.`
#: is a header).
TRANSLATION_LABEL = (
    rf"^\s*(?:[(（\[【]\s*(?:{CODES})\s*[)）\]】]|(?i:{TRANSLATION_WORDS})\s+(?:{CODES})\s*[:：]"
    rf"|(?:{CODES})\s*[-‐]?\s*(?i:{TRANSLATION_WORDS})\s*[:：])\s*(\S.*)$"
)


def _named_translations(marked: pl.DataFrame) -> pl.DataFrame:
    """Also mark (`_repeats_header`) a line after the first head that names a translation
    language as a header does (`_names_translation`), unless it is the line right after
    a head (an entry's body: `The Italian (IT) printing…`) or its code labels its text
    (TRANSLATION_LABEL): those were taken for a second page's header, a ruling or a
    translation lost into the header."""
    after = (pl.col("line_number") > pl.col("_first_head")).fill_null(False)
    named = after & pl.col("_names_translation")  # rare: the label looked for on these only
    text = pl.when(named).then(pl.col("line")).str.extract(TRANSLATION_LABEL, 1)
    named = named & (text.is_null() | text.str.contains(f"(?i:{TRANSLATION_WORDS})"))
    qualify = marked.filter(named)["dump_id"].unique()
    if qualify.is_empty():  # most runs
        return marked
    rows = marked.with_row_index("_row").filter(pl.col("dump_id").is_in(qualify.implode()))
    is_head = pl.col("_is_date") | pl.col("_looks_dated")
    after_head = is_head.shift(1).over("dump_id", order_by="line_number").fill_null(False)
    found = rows.filter(named & ~after_head)["_row"]
    return marked.with_columns(
        _repeats_header=pl.col("_repeats_header") | pl.int_range(pl.len()).is_in(found.implode())
    )


#: Names a site's header gives: rulings may hold them (4 of 23,597), and one
#: real card (Unhinged's The Ultimate Nightmare of Wizards of the Coast®
#: Customer Service), so only a stub's line after its card text counts.
SITE_NAMES = (
    r"(?i)wizards\s+of\s+the\s+coast|\bwotc\b|scryfall|威世智|ウィザーズ・オブ・ザ・コースト"
)


def _site_names_in_stubs(marked: pl.DataFrame) -> pl.DataFrame:
    """Also mark (`_repeats_header`) a line of a card stub after its first text line
    that names the site's source (SITE_NAMES): another site's header after a stub
    (`cat` of a French page and an English one). The first text line is the card's
    (Unhinged's real `The Ultimate Nightmare of Wizards of the Coast® Customer
    Service deals X damage…`)."""
    is_head = pl.col("_is_date") | pl.col("_looks_dated")
    is_stat = pl.col("_is_stat")
    named = pl.col("_names_site") & (pl.col("line_number") > pl.col("_first_head"))
    # Only a dump with a named line that is no head can change (a head ends a stub,
    # unless it is a stat line too); nearly every head names one (`source : wotc`):
    # 210 of the 1M-line bench corpus's 96,864 dumps qualify.
    rows = marked.with_row_index("_row")
    qualify = rows.filter(named & ~(is_head & ~is_stat))["dump_id"].unique()
    if qualify.is_empty():
        return marked
    stub = stub_number(is_head | pl.col("_repeats_header"))
    text = pl.col("_has_letter") & ~is_stat  # not the stat line, `.` or blank
    texts_so_far = text.cast(pl.Int64).cum_sum().over("dump_id", "_stub", order_by="line_number")
    found = (
        rows.filter(pl.col("dump_id").is_in(qualify.implode()))
        .with_columns(_stub=stub)
        .filter(named & (pl.col("_stub") > 0) & text & (texts_so_far >= 2))["_row"]
    )
    return marked.with_columns(
        _repeats_header=pl.col("_repeats_header") | pl.int_range(pl.len()).is_in(found.implode())
    )


def count_pastes(lines: pl.DataFrame) -> pl.DataFrame:
    """The pages pasted in each dump: 1, plus one for each header line that follows a
    line of another kind (blank lines left out); 1 for a dump with no header after its
    entries.

    Needs:
        lines: dump_id (String), line_number (Int64), kind (String).

    Returns:
        dump_id (String), paste_count (Int64): one row per dump with a line that
        is not blank (the others have 1).
    """
    kind, dump = pl.col("kind"), pl.col("dump_id")
    shown = (
        lines.select("dump_id", "line_number", "kind")
        .filter(kind != "blank")
        .sort("dump_id", "line_number")
        # over the whole frame, not per dump (a sort per dump cost 0.65 s at 1M lines)
        .with_columns(
            _start=(kind == "header") & (kind.shift(1) != "header") & (dump == dump.shift(1))
        )
    )
    return shown.group_by("dump_id").agg(paste_count=(1 + pl.col("_start").sum()).cast(pl.Int64))
