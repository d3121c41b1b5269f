"""The translation language a header claims: a code in a translation context
(`La traduction FR`, `(ES)`, `TW翻譯`), or a language's name beside its own word for
translation (`Traducción al español`): `claimed_language`. The same reading tells a
line naming its translation's language (`named_code`: a second page's header). A
code labelling a ruling or translation line (`EN: `, `[FR] `, `VO : `) is no part of
its text (`strip_language_labels`) and names its language (`with_label_languages`).
"""

from __future__ import annotations

import polars as pl

#: Codes a header may name as its translation's language: ISO 639-1, and the
#: country codes sites also write (JP, CN, TW, KR, BR).
CODES = "FR|DE|ES|IT|PT|JA|ZH|KO|RU|JP|CN|TW|KR|BR"
#: Words for "translation" a code may stand beside (`traduction FR`, `DE-Übersetzung`,
#: `Traductions FR`), lowercased, each with its language: the language a header naming
#: its translation with it is written in (`Spanish translation (ES) below` is English,
#: `Traduction EN ci-dessous` French).
WORD_LANGUAGES = {
    **dict.fromkeys(["traduction", "traductions"], "fr"),
    **dict.fromkeys(["traducción", "traduccion", "traducciones"], "es"),
    **dict.fromkeys(["traduzione", "traduzioni"], "it"),
    **{f"tradu{c}{a}o": "pt" for c in "cç" for a in "aã"},
    **{f"tradu{c}{o}es": "pt" for c in "cç" for o in "oõ"},
    **dict.fromkeys(["translation", "translations"], "en"),
    **dict.fromkeys(["übersetzung", "übersetzungen"], "de"),
    **dict.fromkeys(["перевод", "переводы", "перевода"], "ru"),
    "翻訳": "ja",
    **dict.fromkeys(["翻译", "翻譯", "译文", "譯文"], "zh"),
    "번역": "ko",
}
#: WORD_LANGUAGES' words as a regex (longest first), to use with `(?i)`.
TRANSLATION_WORDS = "|".join(sorted(WORD_LANGUAGES, key=lambda word: (-len(word), word)))
#: The ISO codes of the languages read, in any case (a region after them: `pt-BR`).
_ISO_CODES = "(?i:(fr|de|es|it|pt|ja|zh|ko|ru))"
#: A code is a language only in such a context, never as an ordinary word
#: (`OFICIALES DE`, `READ IT`), markup (`<BR>`) or a set code (`[CN2]`):
#: alone in parentheses (`(ES)`), or joined to a translation word (`DE-Übersetzung`,
#: `TW翻譯`, `KO 번역`), ...
CLAIMED_LANGUAGE_PATTERNS = (
    rf"\(\s*({CODES})\s*\)",
    rf"\(\s*{_ISO_CODES}[-_](?:[A-Z]{{2}}|Han[st])\s*\)",  # a region after it: `(pt-BR)`
    rf"(?:^|[^A-Za-z])({CODES})\s*[-‐]?\s*(?i:{TRANSLATION_WORDS})",
    # ... or after a translation word and a colon (`Traduction : FR (IA)`, `Übersetzung: DE`)
    rf"(?i:{TRANSLATION_WORDS})\s*[:：]\s*({CODES})(?:[^A-Za-z]|$)",
    # ... or after its own language's word, where it is no word (`TRADUZIONE IT`;
    # `TRADUCCIÓN ES GENERADA`: "is" in a Spanish header that claims Spanish all the same)
    r"(?i:traduzione)\s+(IT)(?:[^A-Za-z]|$)",
    r"(?i:übersetzung)\s+(DE)(?:[^A-Za-z]|$)",
    r"(?i:traducci[oó]n)\s+(ES)(?:[^A-Za-z]|$)",
)
#: ... or after a translation word (`La traduction FR`, `Перевод RU`,
#: `TRADUÇÃO PT`; see CODES_THAT_ARE_WORDS for all-capitals headers).
CLAIMED_AFTER_WORD_PATTERN = rf"(?i:{TRANSLATION_WORDS})\s+({CODES})(?:[^A-Za-z]|$)"
#: Codes that are also words after a translation word in capitals (`TRADUCCIÓN DE`:
#: "of"; `ES` "is", `IT` "it"): in an all-capitals header they claim nothing there,
#: while `TRADUÇÃO PT ABAIXO` claims pt.
CODES_THAT_ARE_WORDS = ("DE", "ES", "IT")
#: The Japanese word for translation claims Japanese when no code is named.
JAPANESE_TRANSLATION_WORD = "翻訳"
#: Country code -> ISO 639-1 language code.
COUNTRY_LANGUAGES = {"JP": "JA", "CN": "ZH", "TW": "ZH", "KR": "KO", "BR": "PT"}
#: A header written in its translation's language names that language beside its
#: own word for translation, when it names no code: `La traduction française`,
#: `Traducción al español`, `Die deutsche Übersetzung`, `Русский перевод`,
#: `以下の日本語訳`, `한국어 번역`, or as its participle (`Traduit automatiquement en
#: français`, `ins Deutsche übersetzt`). A name beside another language's word claims
#: nothing (`Traducción del italiano`, `translated from French`, `No Spanish
#: translation`: an English header names none).
_S = r"[ \t]+"  # spaces in one line: a header's lines are joined by "\n"
#: Between a word for translation and the name: a word (`Traduction automatique en
#: français`), or a colon (`Traduction : français`, `Перевод: русский`); two words would
#: read `Traduction non disponible en français` or `Übersetzung aus dem Deutschen` as
#: claims (a review's find).
_COLON = r"[ \t]*[:：][ \t]*"
_TO = rf"(?:(?:{_S}\w+)?{_S}|{_COLON})"
LANGUAGE_NAMES = {
    "FR": rf"tradu(?:ctions?|ite?s?){_TO}(?:en{_S}|vers{_S}le{_S})?fran[cç]ais",
    "ES": rf"traduc(?:ci[oó]n|ciones|id[oa]s?){_TO}(?:al{_S}|en{_S})?(?:espa[nñ]ol|castellano)",
    "IT": rf"trad(?:uzion[ei]|ott[oaie]){_TO}(?:in{_S}(?:lingua{_S})?)?italian",
    "PT": rf"tradu(?:[cç][aã]o|[cç][oõ]es|zid[oa]s?){_TO}(?:para{_S}(?:o{_S})?|em{_S})?"
    r"(?:portugu[eê]s|brasileir)",
    "DE": rf"deutsche{_S}übersetzung|übersetzung(?:{_S}(?:ins{_S})?|{_COLON})deutsch"
    rf"|(?:ins{_S}deutsche|auf{_S}deutsch){_S}(?:\w+{_S})?übersetzt",
    "RU": rf"русск\w*{_S}перевод|перев[ое]д\w*(?:(?:{_S}\w+)?{_S}на{_S}|{_COLON})русск",
    "JA": r"日本語(?:翻)?訳|日本語の翻訳",
    "ZH": r"(?:中文|汉语|漢語|简体|簡體|繁體|繁体|繁中|简中|簡中)(?:中文)?(?:翻译|翻譯|译文|譯文)"
    r"|(?:翻译|翻譯)(?:成)?[ \t]*[:：]?[ \t]*(?:简体|簡體|繁體|繁体)?中文",
    "KO": rf"한국어(?:로)?(?:{_S})?번역|번역[ \t]*[:：]?[ \t]*한국어",
}
#: The cheap test before LANGUAGE_NAMES: a word of translating in the text.
_TRANSLATING = "tradu[cçzit]|tradot|übersetz|перев[ое]д|訳|译|譯|번역"


def _claimed_code(header_text: pl.Expr) -> pl.Expr:
    """The code (`FR`, `TW`…) a text names as its translation's language, else null."""
    has_lowercase = header_text.str.contains(r"\p{Ll}")
    after_word = header_text.str.extract(CLAIMED_AFTER_WORD_PATTERN, 1)
    return pl.coalesce(
        *[header_text.str.extract(p, 1) for p in CLAIMED_LANGUAGE_PATTERNS],
        pl.when(has_lowercase | ~after_word.is_in(CODES_THAT_ARE_WORDS)).then(after_word),
    )


#: A header naming Chinese's script: Traditional (`官方裁定 (zh-TW)`, `zh-Hant`, `【繁中】`,
#: `繁體中文`, `正體中文`, a TW code in brackets: `官方裁定 [TW]`) or Simplified (`zh-CN`,
#: `zh-Hans`, `简体中文`, `简中`). Header text only: a code in brackets ending a
#: translation line names nothing (`named_code`); `正体` (Japanese "true form") is no name.
_NOT_LATIN = "(?:^|[^A-Za-z])"
_NO_LATIN_AFTER = "(?:[^A-Za-z]|$)"
TRADITIONAL_NAMES = (
    rf"{_NOT_LATIN}(?i:zh[-_](?:tw|hk|mo|hant)){_NO_LATIN_AFTER}"
    r"|繁中|繁體|繁体|正體|[\[【(（［]\s*TW\s*[\]】)）］]"
)
SIMPLIFIED_NAMES = (
    rf"{_NOT_LATIN}(?i:zh[-_](?:cn|sg|hans)){_NO_LATIN_AFTER}|简中|簡中|简体|簡體|簡体"
)


def claimed_language(header_text: pl.Expr) -> pl.Expr:
    """The lowercased ISO code a header names as its translation's language, else null.

    A header naming Chinese's script, Traditional or Simplified but not both
    (TRADITIONAL_NAMES, SIMPLIFIED_NAMES, a TW code: `TW翻譯`), claims "zh-tw" or "zh-cn"
    where it claims Chinese or nothing (field case c11's kind: `官方裁定 (zh-TW)` over an
    English `source: wotc` line claimed "zh", and its translations of characters both
    scripts share were published zh-cn); any other Chinese claim is "zh".
    """
    code = _claimed_code(header_text)
    claim = claimed_language_of(code, header_text)
    traditional = header_text.str.contains(TRADITIONAL_NAMES) | (code == "TW").fill_null(False)
    simplified = header_text.str.contains(SIMPLIFIED_NAMES)
    script = (
        pl.when(traditional & ~simplified)
        .then(pl.lit("zh-tw"))
        .when(simplified & ~traditional)
        .then(pl.lit("zh-cn"))
    )
    is_chinese_or_none = claim.is_null() | (claim == "zh")
    return pl.when(is_chinese_or_none).then(pl.coalesce(script, claim)).otherwise(claim)


def claimed_language_of(code: pl.Expr, header_text: pl.Expr) -> pl.Expr:
    """`claimed_language` of `header_text`, whose `_claimed_code` is `code`; else the
    Japanese word for translation, else a language's name (LANGUAGE_NAMES)."""
    japanese = header_text.str.contains(JAPANESE_TRANSLATION_WORD, literal=True)
    translating = pl.when(header_text.str.contains(f"(?i){_TRANSLATING}")).then(header_text)
    named = [
        pl.when(translating.str.contains(f"(?i){p}")).then(pl.lit(c))
        for c, p in LANGUAGE_NAMES.items()
    ]
    code = pl.coalesce(code, pl.when(japanese).then(pl.lit("JA")), *named)
    return code.replace(COUNTRY_LANGUAGES).str.to_lowercase()


#: A text that may name a translation's language: it holds a code in capitals
#: (the cheap test before `_claimed_code`'s patterns: a set of literals).
MAY_CLAIM = CODES


def named_code(line: pl.Expr) -> pl.Expr:
    """The code (`FR`, `TW`…) with which `line` names its translation's language, as a
    site's header does (`La traduction FR ci-dessous`, `(ES)`, `TW翻譯`), else null
    (String). The bare Japanese word `翻訳` is not enough here (real Japanese flavour
    text says `龍詞からの翻訳`); on 23,597 real rulings and 536,020 real foreign card
    text lines, no line names one."""
    maybe = pl.when(line.str.contains(MAY_CLAIM)).then(line)  # the patterns skip null lines
    return _claimed_code(maybe)  # no code without MAY_CLAIM


def word_language(header_text: pl.Expr) -> pl.Expr:
    """The language (ISO code, String) of the first word for translation in
    `header_text` (WORD_LANGUAGES), else null."""
    word = header_text.str.extract(f"(?i)({TRANSLATION_WORDS})", 1).str.to_lowercase()
    return word.replace_strict(WORD_LANGUAGES, default=None, return_dtype=pl.String)


#: Labels sites put before a ruling and its translation: a code of CODES or EN, or a
#: version marker (French sites' VO/VF, "version originale/française"; German OV,
#: "Originalversion"), ...
LABEL_CODES = f"EN|{CODES}|VO|VF|OV"
#: ... in capitals before a colon (`EN: `, `FR : `, `VO : `, `EN-US: `), or in brackets
#: in any case (`[EN] `, `(FR) `, `【JP】`), at the line's start with text after it (group
#: 1: the text's first character). A word (`If`, `At`) or a card name before a colon is
#: no label. No real ruling (0 of 23,597 in `derived/mtgjson_v5_rulings.jsonl`) and no
#: real foreign card line (0 of 934,507: texts, flavour texts, names, types) starts so.
LANGUAGE_LABEL = (
    rf"^\s*(?:[\[(（【]\s*(?i:{LABEL_CODES})(?:[-_](?i:[a-z]{{2}}|han[st]))?\s*[\])）】]"
    rf"|(?:{LABEL_CODES})(?:[-_](?:[A-Z]{{2}}|Han[st]))?\s*[:：])\s*(\S)"
)


#: The language a label's code names (LABEL_CODES): VO and OV, the original, are English.
LABEL_LANGUAGES = {
    **dict.fromkeys(["EN", "VO", "OV"], "en"),
    **dict.fromkeys(["FR", "VF"], "fr"),
    **{code: code.lower() for code in ("DE", "ES", "IT", "RU")},
    **dict.fromkeys(["PT", "BR"], "pt"),
    **dict.fromkeys(["JA", "JP"], "ja"),
    **dict.fromkeys(["KO", "KR"], "ko"),
    **dict.fromkeys(["ZH", "CN", "TW"], "zh"),  # the characters or the dump give the script
}
_LABEL_CODE = r"^\s*[\[(（【]?\s*([A-Za-z]{2})"  # a label's code: LABEL_CODES are two letters


def strip_language_labels(resolved: pl.DataFrame) -> pl.DataFrame:
    """Body lines without the language label they start with (LANGUAGE_LABEL), and the
    language it names (LABEL_LANGUAGES): `EN: Energy counters…` reads `Energy counters…`
    (en), `FR : Les marqueurs…` `Les marqueurs…` (fr) (a probe's find: the labelled ruling
    was another ruling, its translation kept the label). The label is the line's
    language (`language.label_line_languages`: `[ES] Arrollar` is no English line).

    Needs:
        kind (String), line (String). Updates line on `body` lines.

    Adds:
        label_language (String: an ISO 639-1 code, "zh" for Chinese; null when the line
        has no label).
    """
    body, line = pl.col("kind") == "body", pl.col("line")
    if not resolved.select((body & line.str.contains(LANGUAGE_LABEL)).any()).item():
        return resolved.with_columns(label_language=pl.lit(None, pl.String))  # most runs
    stripped = without_language_label(line)
    code = line.str.extract(_LABEL_CODE, 1).str.to_uppercase()
    return resolved.with_columns(
        label_language=pl.when(body & (stripped != line)).then(
            code.replace_strict(LABEL_LANGUAGES, default=None, return_dtype=pl.String)
        ),
        line=pl.when(body).then(stripped).otherwise(line),
    )


def without_language_label(text: pl.Expr) -> pl.Expr:
    """`text` without the language label it starts with (LANGUAGE_LABEL), String."""
    return text.str.replace(LANGUAGE_LABEL, "${1}")


def with_label_languages(lines: pl.DataFrame, neighbours: list[str]) -> pl.DataFrame:
    """A label (`strip_language_labels`; not a split line's) names its line's language,
    and context, unless langdetect reliably finds another but a neighbour, or another
    script: `[ES] Arrollar` is es, `IT: Cautela` it (read pt), `EN: …` English, `FR:
    Energiemarken…` de (two reviews' finds: with the label read as nothing, 29 of ~930
    short labelled lines were glued or a neighbour's; with the label above all, 54 of 60
    mislabelled lines were wrong).

    Needs (`language.label_line_languages`' working columns): label_language,
    _detected, _probability, is_reliable, context_language; translation_text if split.
    `neighbours`: "a>b" pairs of languages a label settles either way
    (`language._NEIGHBOUR_PAIRS`).

    Updates those but label_language; adds _labelled (Boolean: the label's language,
    not langdetect's reliable one).
    """
    if "label_language" not in lines.columns:
        return lines.with_columns(label_language=pl.lit(None, pl.String), _labelled=False)
    label, detected = pl.col("label_language"), pl.col("_detected")
    if "translation_text" in lines.columns:
        label = pl.when(pl.col("translation_text").is_null()).then(label)
    reliable = pl.col("is_reliable").fill_null(False)
    agrees = (detected == label) | ((label == "zh") & detected.is_in(_CHINESE))
    same_script = detected.is_null() | (_script(detected) == _script(label))
    neighbour = pl.concat_str(detected, label, separator=">").is_in(neighbours) | pl.concat_str(
        label, detected, separator=">"
    ).is_in(neighbours)
    neighbour &= ~detected.is_in(["ja", "ko"])  # kana or Hangul: the script decides
    settles = agrees | (~reliable & same_script) | neighbour
    applies = settles.fill_null(False) & label.is_not_null()
    other = applies & ~agrees.fill_null(False)
    return lines.with_columns(
        _detected=pl.when(other).then(label).otherwise(detected),
        _probability=pl.when(~other).then("_probability"),
        context_language=pl.when(applies & (label != "zh"))
        .then(label)
        .otherwise("context_language"),
        _labelled=other | (applies & ~reliable),
        is_reliable=pl.when(applies).then(True).otherwise("is_reliable"),
    )


_CHINESE = ["zh-cn", "zh-tw", "zh"]  # `detector.CHINESE`, "zh": not imported by the parse


def _script(language: pl.Expr) -> pl.Expr:
    """A language's script, as far as a label needs: Cyrillic, CJK, else Latin."""
    cjk = language.is_in(["ja", "ko", *_CHINESE])
    cyrillic = language.is_in(["ru", "bg", "uk", "mk"])
    return (
        pl.when(cjk)
        .then(pl.lit("cjk"))
        .when(cyrillic)
        .then(pl.lit("cyrl"))
        .otherwise(pl.lit("latn"))
    )
