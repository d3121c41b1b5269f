"""Does a code page's reading of a legacy paste read as text of the languages read?

`encodings` decodes the lines of a legacy paste inside a UTF-8 dump (a line
saved by an old editor in cp1252, `’` = 0x92), and a whole legacy file, with
the code page under which they read as real text: only letters and signs of
the languages read (`plausible_legacy`, `plausible_text`), words found in
their word lists (`word_evidence`, wordfreq), frequent Korean, Japanese or
Chinese characters (`cjk_score`), and date·source lines that parse
(`count_heads`). `mojibake` undoes a line only when it then reads so.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
import unicodedata

import polars as pl

from flows.stages.dates import parse_date
from flows.stages.shapes import date_source_text

#: The languages whose words are looked up (wordfreq): the Latin-, Cyrillic- and
#: Greek-script languages read (Greek: case r01's site).
WORD_LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "ru", "el")

#: A word at or above this Zipf frequency in one of WORD_LANGUAGES is real
#: (1.0: once per 100 million words; `æther` is 1.1 in English).
REAL_WORD_ZIPF = 1.0

_WORD = re.compile(r"[^\W\d_]+")

#: More than three accented Western letters in a row: damaged bytes, not a word.
ACCENTED_RUN = re.compile(r"[À-ÿŒœŸ]{4,}")

#: Letters and punctuation of the Latin-script languages read (fr, en, de, es,
#: it, pt) and of the dump format: a line of a legacy paste inside a UTF-8 file
#: decodes to these (or to Cyrillic or Greek letters) and nothing else.
WESTERN = set("àâäçéèêëîïôöùûüÿœæÀÂÄÇÉÈÊËÎÏÔÖÙÛÜŸŒÆßáíóúñÁÍÓÚÑãõÃÕìòÌÒ¡¿ºª·«»‘’“”–—…°€\u00a0\u202f")


def plausible_legacy(legacy_bytes: bytes, code_page: str) -> bool:
    """`legacy_bytes` decode under `code_page` to text of the languages read.

    Every character is ASCII, a Western letter or sign (WESTERN), or a
    Cyrillic or Greek letter; a line with Cyrillic or Greek letters is mostly
    in that script (an English line with `яюэьыъщшч` in it is damaged bytes,
    not a cp1251 paste); and no line has a run of more than three accented
    letters (`ÿúûü` is damaged bytes, not French).
    """
    try:
        text = legacy_bytes.decode(code_page)
    except (UnicodeDecodeError, LookupError):
        return False
    return plausible_text(text)


def plausible_text(text: str) -> bool:
    """`text` is text of the languages read, as `plausible_legacy` reads it; and no word
    mixes Latin letters with Cyrillic or Greek ones (`fГјr`: für through Windows-1251)."""
    if not all(c.isascii() or is_plausible(c) for c in text):
        return False
    for line in text.splitlines():
        letters = [c for c in line if c.isalpha()]
        other_script = [c for c in letters if not c.isascii() and c not in WESTERN]
        if other_script and 2 * len(other_script) < len(letters):
            return False
        if ACCENTED_RUN.search(line):
            return False
    return not any(_mixes_scripts(word) for word in _WORD.findall(text) if not word.isascii())


def _mixes_scripts(word: str) -> bool:
    latin = [c.isascii() or c in WESTERN for c in word]
    return any(latin) and not all(latin)


#: Signs of real rulings and card texts beside WESTERN's (`derived/` of the real
#: data: modes' bullets, German quotes, loyalty's minus, `20½` of case c20).
SIGNS = set("•„‚−●½⅓™®")


def is_plausible(char: str) -> bool:
    """`char` is a WESTERN letter or sign, one of SIGNS, an invisible format character
    (a soft hyphen: case c19), or a Cyrillic or Greek letter."""
    if char in WESTERN or char in SIGNS or unicodedata.category(char) == "Cf":
        return True
    name = unicodedata.name(char, "")
    return name.startswith(("CYRILLIC", "GREEK")) and unicodedata.category(char).startswith("L")


def is_site_letter(char: str) -> bool:
    """`char` is a letter of a site's language: ASCII, `is_plausible` (Western, Cyrillic,
    Greek), Korean, Japanese or Chinese (full-width Latin and `々` too); not `Ʃ`."""
    if char.isascii() or is_plausible(char) or _is_cjk(char):
        return True
    return unicodedata.name(char, "").startswith(("FULLWIDTH", "IDEOGRAPHIC"))


def fits_scripts(text: str, scripts: set[str]) -> bool:
    """`text` (a legacy paste as a code page reads it) is in the scripts of the
    dump's UTF-8 lines (`scripts`, from `other_scripts`), or in another one
    with words clearly real (at least 4, 4 real for each unknown one: a
    Russian line, not `дц ск гщ зл оы` in an English dump)."""
    if other_scripts(text) <= scripts:
        return True
    known, unknown = word_evidence(text)
    return known >= 4 and 4 * unknown <= known


def other_scripts(text: str) -> set[str]:
    """The scripts other than Latin of `text`'s letters ("CYRILLIC", "GREEK"…)."""
    return {
        unicodedata.name(c, "?").split()[0] for c in text if c.isalpha() and not c.isascii()
    } - {"LATIN"}


def word_evidence(text: str) -> tuple[int, int]:
    """(real words, unknown words) among the words of `text` with a non-ASCII letter.

    A word is a run of letters; it is real when its lowercase form is at or
    above REAL_WORD_ZIPF in one of WORD_LANGUAGES (`dÆÚnergie` is not,
    `énergie` is). Words of ASCII letters only are no evidence either way, nor
    are single letters: a wrong code page reads Italian's `è` as HP Roman-8's
    `Ò`, a word of some language too.
    """
    known = unknown = 0
    for word in _WORD.findall(text):
        if word.isascii() or len(word) < 2:
            continue
        if is_real_word(word.lower()):
            known += 1
        else:
            unknown += 1
    return known, unknown


def letter_frequency(text: str) -> float:
    """The summed Zipf frequencies of `text`'s one-letter words with a non-ASCII letter,
    each in the one of WORD_LANGUAGES where it is highest (`è` 7.1, Italian; `Ú` 2.9):
    what tells two readings apart when their longer words do not (`word_evidence`)."""
    from wordfreq import zipf_frequency

    letters = [w.lower() for w in _WORD.findall(text) if len(w) == 1 and not w.isascii()]
    return sum(max(zipf_frequency(w, lang) for lang in WORD_LANGUAGES) for w in letters)


@functools.lru_cache(maxsize=65_536)
def is_real_word(word: str) -> bool:
    """`word` (lowercase) is at or above REAL_WORD_ZIPF in one of WORD_LANGUAGES (wordfreq).

    Each distinct word is looked up once (a paste repeats its words).
    """
    from wordfreq import zipf_frequency  # here: the command line's checks load no word list

    return any(zipf_frequency(word, lang) >= REAL_WORD_ZIPF for lang in WORD_LANGUAGES)


#: The languages whose characters are weighed (`cjk_score`): words cannot be looked
#: up in them here (wordfreq needs MeCab for ja and ko, jieba for zh), characters can.
CJK_LANGUAGES = ("ko", "ja", "zh")

#: A reading's CJK letters read as text at this mean log10 frequency or above
#: (`cjk_score`): right readings of the real card texts' headers and lines score
#: about -2.3 to -4.5 (short Traditional names to -5.2), another CJK page's reading
#: of them -3.6 to -9, a Western paste read as GB18030 or Shift_JIS -7 to -9.
CJK_TEXT_MIN = -6.0

#: Of the CJK readings that read as text, the first (charset-normalizer's order) is
#: taken unless another's score is this much higher (ten times more frequent
#: characters): Big5's Traditional Chinese names, not GB18030's or EUC-JP's readings
#: of their bytes; EUC-JP's Japanese (-2.5), not GB18030's (-3.8).
CJK_MARGIN = 1.0

#: The log10 frequency of a character no word of the language's list holds.
_UNSEEN = -9.0

#: The Unicode names of CJK characters start with these (half-width katakana, which
#: cp932 reads single bytes 0xA1-0xDF as, are scored too: real texts hardly write them).
_CJK_SCRIPTS = ("CJK", "HANGUL", "HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA", "HALFWIDTH HANGUL")


def cjk_score(text: str) -> float | None:
    """How well `text`'s non-ASCII letters read as Korean, Japanese or Chinese characters:
    the mean log10 frequency of its CJK letters in the language of CJK_LANGUAGES
    where it is highest (a character's frequency: its share of the CJK characters
    of wordfreq's word list, weighted by the words' frequencies). _UNSEEN for a
    character no word holds and for a private-use or unassigned code point
    (GB18030's `る\ue1f6\ue165` for Big5 bytes); letters of other scripts are no
    evidence (a Russian line in a GBK dump). None with fewer than two CJK letters:
    cp1250's `ESPAŃOL`, cp932's `f四idar` are no CJK text."""
    letters = [c for c in text if _is_cjk(c) or unicodedata.category(c) in ("Co", "Cn")]
    if sum(c.isalpha() for c in letters) < 2:
        return None
    return max(
        sum(frequencies.get(c, _UNSEEN) for c in letters) / len(letters)
        for frequencies in _character_frequencies().values()
    )


def _is_cjk(char: str) -> bool:
    return char.isalpha() and unicodedata.name(char, "").startswith(_CJK_SCRIPTS)


@functools.cache
def _character_frequencies() -> dict[str, dict[str, float]]:
    """{language: {character: log10 frequency}} for CJK_LANGUAGES, from wordfreq's lists
    (loaded on the first tie no plausible reading settles: about 0.8 s). wordfreq's
    zh list is Simplified Chinese: a Traditional character takes its Simplified
    one's frequency (wordfreq's own mapping, as its lookups do: `毆鬥` as `殴斗`)."""
    from wordfreq import get_frequency_dict

    tables = {}
    for language in CJK_LANGUAGES:
        counts: dict[str, float] = {}
        for word, frequency in get_frequency_dict(language).items():
            for char in word:
                if _is_cjk(char):
                    counts[char] = counts.get(char, 0.0) + frequency
        total = sum(counts.values())
        tables[language] = {c: math.log10(n / total) for c, n in counts.items()}
    simplified = tables["zh"]
    for code, simple in _traditional_to_simplified().items():
        if simple in simplified:
            simplified.setdefault(chr(code), simplified[simple])
    return tables


def _traditional_to_simplified() -> dict[int, str]:
    """wordfreq's Traditional to Simplified Chinese character map (`str.translate`'s
    table), read from its data without `wordfreq.chinese`, which needs jieba."""
    import gzip

    import msgpack
    from wordfreq.util import data_path

    with gzip.open(data_path("_chinese_mapping.msgpack.gz")) as packed:
        return msgpack.load(packed, raw=False, strict_map_key=False)


def count_heads(sample: bytes, code_page: str) -> int:
    """How many lines of `sample`, decoded with `code_page`, are date·source lines that parse
    (-1 for a code page Python does not know)."""
    try:
        text = sample.decode(code_page, errors="replace")
    except LookupError:
        return -1
    return count_text_heads(text)


def count_text_heads(text: str) -> int:
    """How many lines of `text` are date·source lines that parse."""
    lines = pl.DataFrame({"line": text.splitlines()}, schema={"line": pl.String})
    date_texts = lines.select(date_source_text(pl.col("line")))["line"].drop_nulls()
    far_future = dt.date(9000, 1, 1)  # only the shape matters here
    return sum(parse_date(d, far_future)[0] is not None for d in date_texts)


def word_score(legacy_bytes: bytes, code_page: str) -> int:
    """Real words minus unknown ones (`word_evidence`) under `code_page`.

    A byte `code_page` leaves undefined reads as U+FFFD, no letter (cp1252 has no
    0x81, cp437's `ü` in `für`): a dump's legacy lines from two code pages are
    scored under each, as `count_heads` reads them.
    """
    known, unknown = word_evidence(legacy_bytes.decode(code_page, errors="replace"))
    return known - unknown


def line_page(line: bytes, ranked: list[str]) -> str:
    """The code page of `ranked` (the dump's first) under which one legacy line reads
    best: more real words, and no fewer heads (cp850 reads cp1252's `·` as `À`, a
    French word, and the head no more: the head keeps cp1252)."""
    best, best_score = ranked[0], word_score(line, ranked[0])
    for page in ranked[1:]:
        score = word_score(line, page)
        if score > best_score and count_heads(line, page) >= count_heads(line, best):
            best, best_score = page, score
    return best


def read_line(line: bytes, code_page: str) -> str:
    """`line` decoded with `code_page`, or with U+FFFD where it reads as mojibake (more
    unknown words than real ones)."""
    text = line.decode(code_page)
    known, unknown = word_evidence(text)
    return line.decode("utf-8", errors="replace") if unknown > known else text
