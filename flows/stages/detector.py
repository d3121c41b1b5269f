"""Each text's language: langdetect (seeded), the script, and word frequencies.

langdetect's answers are those of `detect_langs` seeded with 0 (`DetectorFactory.seed
= 0`), computed for many texts at once (`batch_langdetect`). langdetect is unreliable
on short strings and names (the seeds' `CMC 2F/E 1/3` and `Regicide can't target
colorless creatures.` read as Catalan, card names as Danish, pt-BR as Spanish), so a
Latin or Cyrillic result is weighed by word frequencies (wordfreq): another language
than English needs clearly more frequent words in it. Each result says whether it is
reliable; callers settle the rest by the dump's context (`language`). CJK is settled
by script: Hangul ko, kana ja, Han zh (hanzidentifier's script, "zh" when it cannot tell).

A detection has two halves, langdetect (`probe_texts`, most of the CPU) and the
weighing (`decide_languages`: wordfreq's frequencies of every word of a batch at once,
`word_scores`, from wordfreq's lists held as frames, ~76 MB for 22 languages): a pool
runs the first in its workers, the caller the second (`processes.pools.probe_in_workers`).
"""

from __future__ import annotations

import itertools
import logging
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import hanzidentifier
import polars as pl
import wordfreq

from flows.stages.word_frequency import WordListSource, word_list
from flows.stages.word_scores import UNKNOWN_WORD, held_word_list, mean_score, word_scores
from flows.stages.word_scores import release_word_lists as release_word_lists  # this API's too

logger = logging.getLogger(__name__)

#: Language code for a text with no letters (ISO 639-2 "undetermined").
UNDETERMINED = "und"
#: Below this many letters a langdetect result is unreliable ...
MIN_LETTERS = 20
#: ... and so is one whose lead over the second guess is below this.
MIN_MARGIN = 0.2
#: A language settled by script (CJK) needs this many letters.
MIN_SCRIPT_LETTERS = 6
#: (language, probability, is_reliable)
Detection = tuple[str, float | None, bool]
#: Chinese whose characters are all shared by Simplified and Traditional
#: (hanzidentifier BOTH): the dump's script decides (`language.settle_language`).
CHINESE = "zh"

#: Rulings are published in English; every other language needs evidence.
ENGLISH = "en"

#: langdetect's neighbours: languages it confuses on real card text (pt-BR read as es,
#: Russian as bg, Spanish as it); the words and the dump's context choose among them.
NEIGHBOURS: dict[str, tuple[str, ...]] = {
    "es": ("pt", "it", "ca", "gl"),
    "pt": ("es", "gl", "ca"),
    "it": ("es", "pt", "ca"),
    "ca": ("es", "pt", "it", "fr"),
    "gl": ("pt", "es"),
    "ro": ("it", "es", "pt", "fr"),
    "fr": ("ca",),
    "bg": ("ru", "mk", "uk"),
    "ru": ("bg", "uk", "mk"),
    "uk": ("ru", "bg"),
    "mk": ("bg", "ru"),
    "zh-cn": ("zh-tw", "ja"),
    "zh-tw": ("zh-cn", "ja"),
    CHINESE: ("zh-cn", "zh-tw", "ja"),
}

#: A foreign language needs its words to be this much more frequent than as
#: English (mean log10 word frequency, wordfreq) ...
MIN_LEXICAL_LEAD = 0.5
#: Under MIN_LETTERS letters, or a close langdetect call, the lexical lead must be this.
MIN_SHORT_LEXICAL_LEAD = 1.5

_NOT_LETTERS = re.compile(r"[\W\d_]+")  # a text without them: its letters ([^\W\d_])
_LATIN_LETTER = re.compile(r"[^\W\d_\u0250-\U0010ffff]")  # a letter below U+0250
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30fa\u30fc-\u30ff]")  # not `・`: `萬智牌・官方裁定` is zh
HAN_CHARACTER = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")  # what `han_script` reads
#: A word as written: letters, with inner apostrophes and hyphens.
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_SYMBOL = re.compile(r"\{[^}]*\}")
_NUMBERED = re.compile(r"(?<=\d)[^\W\d_]+")  # letters after a digit: `5j`, `2F`, `3rd`
#: Languages scored by word frequency (CJK ones are settled by script).
_WORDFREQ_LANGUAGES = frozenset(wordfreq.available_languages()) - {"ja", "ko", "zh"}


def detect_text_language(text: str) -> Detection:
    """`(language, probability, is_reliable)` of one text; never raises.

    language is an ISO 639-1 code as langdetect writes it ("en", "fr",
    "zh-cn", "zh-tw"), or "zh" for Chinese whose characters are shared by
    both scripts; probability langdetect's 0–1 probability of that language
    (None when langdetect did not rank it). A text with no letters gives
    `("und", None, False)`. An all-caps text is read case-folded, and
    `{symbols}` are left out (`{T}: Agrega {G}.` is Spanish, not Tagalog).

    A text in Latin or Cyrillic script is then weighed by its words
    (`decide_languages`): a language other than English needs positive evidence
    from word frequencies, which names, symbols and numbers do not give. When
    the words are more English than langdetect's pick (`Regicide can't target
    colorless creatures.` is ca to langdetect), the result is ("en", p,
    False): English by default, never reliably another language.
    """
    return decide_language(probe_text(text))


#: langdetect's half of a detection (`probe_text`): the text as read (capitals
#: folded, symbols out), its letter count, its CJK language by script (or
#: None), langdetect's probabilities ({} without letters), and what its words'
#: weighing needs (`_weighing`; None when the script or no letter settles it).
Probe = tuple[str, int, str | None, dict[str, float], "_Weighing | None"]


def probe_text(text: str) -> Probe:
    """The langdetect half of `detect_text_language`: no word list is read."""
    [probe] = probe_texts([text])
    return probe


def decide_language(probe: Probe, word_lists: WordListSource = word_list) -> Detection:
    """The other half of `detect_text_language`: the script, else the words weighed (wordfreq)."""
    [detection] = decide_languages([probe], word_lists)
    return detection


def decide_languages(
    probes: Sequence[Probe], word_lists: WordListSource = word_list
) -> list[Detection]:
    """`decide_language` of each probe (`probe_texts`'s results): one Detection each, in order.

    The words of all the probes are scored at once (`word_scores.word_scores`),
    English first, then the other candidates of the texts English did not
    settle. `word_lists`: where a list this process does not hold yet comes
    from (`word_frequency.word_list`, or a cache of it); results do not depend on it.
    """
    found: list[Detection | None] = []
    weighed: list[tuple[int, _Weighing]] = []
    for _, letters, by_script, probabilities, weighing in probes:
        if by_script:
            found.append((by_script, probabilities.get(by_script), letters >= MIN_SCRIPT_LETTERS))
        elif weighing is None:  # no probabilities
            found.append((UNDETERMINED, None, False))
        else:
            weighed.append((len(found), weighing))
            found.append(None)
    # English first: a clear English text with common English words weighs no other language
    latin = [w.words for _, w in weighed if w.is_latin]
    english = word_scores({ENGLISH: itertools.chain(*latin)}, word_lists).get(ENGLISH, {})
    foreign: list[tuple[int, _Weighing, float]] = []
    for index, weighing in weighed:
        score = mean_score(weighing.words, english) if weighing.is_latin else -math.inf
        if weighing.top == ENGLISH and weighing.is_clear and score >= COMMON_ENGLISH:
            found[index] = ENGLISH, weighing.probabilities[ENGLISH], True
        else:
            foreign.append((index, weighing, score))
    grouped: dict[frozenset[str], dict[str, None]] = {}  # the words of texts of like candidates
    for _, weighing, _ in foreign:
        grouped.setdefault(weighing.candidates, {}).update(dict.fromkeys(weighing.words))
    asked: dict[str, list[str]] = {}
    for candidates, words in grouped.items():
        for lang in candidates:
            asked.setdefault(lang, []).extend(words)
    scores = word_scores(asked, word_lists)
    for index, weighing, score in foreign:
        found[index] = _weigh_words(weighing, score, scores)
    return found  # type: ignore[return-value]  # every one is set


#: Languages always weighed by their words (the sites' Latin and Cyrillic ones); a
#: text mostly in another script than Latin, in the last only.
SITE_LANGUAGES = ("fr", "de", "es", "it", "pt", "ru")
#: Mean log10 frequency of words this common in English (`Energy counters
#: aren't mana.`: -2.9) settles a clear langdetect en without weighing others:
#: a foreign language would need a lead of MIN_LEXICAL_LEAD over it, above -2.5.
COMMON_ENGLISH = -3.5
#: langdetect's guesses from this probability on are weighed too.
MIN_CANDIDATE_PROBABILITY = 0.01


class _Weighing(NamedTuple):
    """What `_weigh_words` weighs of one text."""

    words: list[str]  # `_words` of the text, in order
    is_latin: bool  # most letters are Latin (the English originals' script): may be English
    top: str  # langdetect's first guess
    probabilities: dict[str, float]  # langdetect's
    is_clear: bool  # enough letters, and a clear lead of top
    candidates: frozenset[str]  # the other languages weighed (wordfreq's)


def _weighing(text: str, letters: int, probabilities: dict[str, float]) -> _Weighing:
    """The candidates of `_weigh_words`: langdetect's `top` and its NEIGHBOURS, its other
    guesses from MIN_CANDIDATE_PROBABILITY, and SITE_LANGUAGES of its script (wordfreq's
    languages only: `Бросьте d20.` was fr, its `d` a French word)."""
    values = sorted(probabilities.values())  # langdetect's first by (-probability, language)
    top = max(probabilities, key=probabilities.__getitem__)  # (the first of a tie in its order:
    if values.count(values[-1]) > 1:  # the first by name is taken instead)
        top = min(lang for lang, p in probabilities.items() if p == values[-1])
    lead = values[-1] - (values[-2] if len(values) > 1 else 0.0)  # over the next one
    guesses = [lang for lang, p in probabilities.items() if p >= MIN_CANDIDATE_PROBABILITY]
    is_latin = text.isascii() or 2 * len(_LATIN_LETTER.findall(text)) >= letters
    site = SITE_LANGUAGES if is_latin else SITE_LANGUAGES[-1:]
    candidates = {top, *NEIGHBOURS.get(top, ()), *guesses, *site} - {ENGLISH}
    return _Weighing(
        words=list(map(str.casefold, written_words(text))),
        is_latin=is_latin,
        top=top,
        probabilities=probabilities,
        is_clear=letters >= MIN_LETTERS and lead >= MIN_MARGIN,
        candidates=frozenset(candidates & _WORDFREQ_LANGUAGES),
    )


def _weigh_words(
    weighing: _Weighing, english: float, scores: dict[str, dict[str, float]]
) -> Detection:
    """The language whose words the text uses most, when that is clearly not English.

    `english`: the words' mean score as English (-inf when the text is not
    Latin: never English); `scores`: every candidate's word scores
    (`word_scores.word_scores`). The best scored candidate (mean log10 word
    frequency) must beat English by MIN_LEXICAL_LEAD when langdetect agrees
    clearly (`is_clear`, same language), else by MIN_SHORT_LEXICAL_LEAD;
    below that, English by default.
    """
    words, is_latin, top, probabilities, is_clear, candidates = weighing
    means = {lang: mean_score(words, scores[lang]) for lang in candidates}
    best = max(means, key=lambda lang: (means[lang], lang == top, lang))
    if means[best] <= UNKNOWN_WORD + 1:  # no known word: langdetect's word alone
        if is_latin:
            return ENGLISH, probabilities.get(ENGLISH), top == ENGLISH and is_clear
        return top, probabilities[top], is_clear
    lead = means[best] - english
    if lead <= 0:
        return ENGLISH, probabilities.get(ENGLISH), top == ENGLISH and is_clear
    needed = MIN_LEXICAL_LEAD if is_clear and best == top else MIN_SHORT_LEXICAL_LEAD
    if lead < needed and top == ENGLISH:
        return ENGLISH, probabilities[ENGLISH], False
    return best, probabilities.get(best), lead >= needed


def written_words(text: str) -> list[str]:
    """The words of `text` as written (’ read as '), `{symbols}`, numbers and the letters
    right after a digit left out (`(704.5j)`, `702.19c`: a rule's number, no French `j`)."""
    text = _NUMBERED.sub(" ", _SYMBOL.sub(" ", text)).replace("’", "'")
    return _WORD.findall(text)


def fold_capitals(text: str) -> str:
    """`text` lowercased when most of its cased letters are capitals (an all-caps header)."""
    upper = sum(map(str.isupper, text))
    cased = upper + sum(map(str.islower, text))  # a letter is upper, lower, or neither
    return text.lower() if cased >= 4 and upper >= 0.8 * cased else text


def _language_by_script(text: str) -> str | None:
    """ko, ja or zh-* when CJK letters are half the text's letters or more, or when its
    other letters are names (capitalized words, no lowercase word of any script), else None.
    `Razorfield Ripper和Leonin Shikari都会受到影响。` is zh; `牙長獣の仔 can't block.` and
    `The 剃刀野の切り裂き魔 token is an Equipment.` are English (a card's English name has
    2.3 to 3.25 letters per character of its ja, ko and zh names: 66,000 real printings).
    Han text hanzidentifier finds in both scripts gives CHINESE ("zh")."""
    if max(text, default="") < "\u1100":  # no Hangul, kana or Han (most texts)
        return None
    hangul, kana, han = (len(p.findall(text)) for p in (_HANGUL, _KANA, HAN_CHARACTER))
    cjk = hangul + kana + han
    lowercase = sum(len(word) > 1 and word[0].islower() for word in _WORD.findall(text))
    if 2 * cjk < len(_NOT_LETTERS.sub("", text)) and (lowercase or not cjk):
        return None
    if hangul:
        return "ko"
    if kana:
        return "ja"
    return _HAN_SCRIPTS.get(hanzidentifier.identify(text), CHINESE) if han else None


_HAN_SCRIPTS = {hanzidentifier.TRADITIONAL: "zh-tw", hanzidentifier.SIMPLIFIED: "zh-cn"}


def probe_texts(texts: list[str]) -> list[Probe]:
    """`probe_text` of each text, in order (a batch of `language.detect_languages`).

    langdetect's probabilities (seed 0) of all the texts are computed at once
    (`batch_langdetect.detect_langprobs`); each probe keeps those above 0, in
    langdetect's order of languages ({} for a text without features), and
    its words are readied for the weighing (`_weighing`: here, so a pool's
    workers do it, not the process that weighs).
    The engine's tables (~100 MB) are built on the first call in a process
    (imported here, not with this module): the run's own process never holds
    them when a pool detects (whose forkserver builds them once for its workers).
    """
    from flows.stages.batch_langdetect import LANGUAGES, detect_langprobs

    folded = [_SYMBOL.sub(" ", fold_capitals(text)) for text in texts]
    probabilities, featured = detect_langprobs(folded)
    probes: list[Probe] = []
    for text, row, has in zip(folded, probabilities.tolist(), featured.tolist(), strict=True):
        letters, by_script = len(_NOT_LETTERS.sub("", text)), _language_by_script(text)
        above = _above_zero(LANGUAGES, row) if has else {}
        weighing = _weighing(text, letters, above) if above and not by_script else None
        probes.append((text, letters, by_script, above, weighing))
    return probes


def _above_zero(languages: tuple[str, ...], probabilities: list[float]) -> dict[str, float]:
    """langdetect's probability of every language it ranks above 0, in its order of languages."""
    return {lang: p for lang, p in zip(languages, probabilities, strict=True) if p > 0}


def han_script(text: str) -> str | None:
    """ "zh-tw" or "zh-cn" when `text`'s Han characters are of one script, else None."""
    han = "".join(HAN_CHARACTER.findall(text))
    return _HAN_SCRIPTS.get(hanzidentifier.identify(han)) if han else None


#: The word lists nearly every weighed text reads (`_weigh_words`): English,
#: SITE_LANGUAGES, and Catalan, a NEIGHBOURS language of es, pt, it and fr.
COMMON_WORD_LISTS = (ENGLISH, *SITE_LANGUAGES, "ca")


def load_word_lists(word_lists: WordListSource = word_list) -> None:
    """Hold wordfreq's lists of COMMON_WORD_LISTS now, in this process; results do not change.

    A list not held is read on its first lookup (`word_frequency.word_list`: 1.1–1.4 s
    for these eight on the 2-core bench machine; 0.2–0.3 s from the state's cache,
    `disk.word_lists`): a caller that will detect here pays it while it waits."""
    for lang in COMMON_WORD_LISTS:
        held_word_list(lang, word_lists)


DECIDE_BATCH = 2048  # probes weighed at once: below a pool's chunk (~5,100 at 1M), keeping pace

#: What `detect_languages` gives (and the language cache keeps): one row per text.
LANGUAGE_SCHEMA = {
    "text": pl.String,
    "language": pl.String,
    "language_probability": pl.Float64,
    "is_reliable": pl.Boolean,
}


def detect_languages(
    texts: pl.Series,
    probe: Callable[[list[str]], Iterable[Probe]] = probe_texts,
    word_lists: WordListSource = word_list,
) -> pl.DataFrame:
    """Detect the language of each distinct text in `texts` (`detect_text_language`).

    Args:
        texts: String series, repeats and nulls allowed (nulls are skipped).
        probe: langdetect's half of each detection (`probe_texts`:
            here, in this process), called once with every distinct text that
            has a letter; results in order, which may come as they are made
            (`processes.pools.probe_in_workers`). This process weighs the words
            (`decide_languages`, DECIDE_BATCH probes at a time). Results do not
            depend on it.
        word_lists: where wordfreq's lists come from when this process does
            not hold them (`decide_languages`); results do not depend on it.

    Returns:
        One row per distinct non-null text, sorted by text (LANGUAGE_SCHEMA):
        text (String), language (String: ISO 639-1 code, or "und" for a text
        with no letters), language_probability (Float64, 0–1; null for "und"),
        is_reliable (Boolean: see `detect_text_language`).
    """
    distinct = texts.drop_nulls().unique().sort()
    with_letters = distinct.filter(distinct.str.contains(r"\p{L}")).to_list()
    probes, detected = iter(probe(with_letters)), []
    for start in range(0, len(with_letters), DECIDE_BATCH):  # no more than each batch's probes:
        batch = itertools.islice(probes, min(DECIDE_BATCH, len(with_letters) - start))
        detected += decide_languages(list(batch), word_lists)
    next(probes, None)  # then its end (a pool lets its lists go: `pools.probe_in_workers`)
    logger.info(
        "detected the language of %d distinct texts (%d without letters)",
        len(with_letters),
        distinct.len() - len(with_letters),
    )
    found = pl.DataFrame(
        {
            "text": with_letters,
            "language": [d[0] for d in detected],
            "language_probability": [d[1] for d in detected],
            "is_reliable": [d[2] for d in detected],
        },
        schema=LANGUAGE_SCHEMA,
    )
    return (
        distinct.to_frame("text")
        .join(found, on="text", how="left")
        .with_columns(
            language=pl.col("language").fill_null(UNDETERMINED),
            is_reliable=pl.col("is_reliable").fill_null(False),
        )
        .sort("text")
    )
