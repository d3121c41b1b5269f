"""Detect the language of texts with langdetect, once per distinct text.

langdetect is random unless seeded: `DetectorFactory.seed = 0` makes each text's
result the same on every run and in any call order (each detection reseeds).
langdetect is unreliable on short strings (it reads the seeds' stat line
`CMC 2F/E 1/3` as Catalan, single game words as Danish or Italian, and short
Han-only Chinese as Korean), so each result says whether it is reliable, and
callers fall back to a prior (`resolve_language`) where it is not. CJK
languages are settled by script: Hangul is Korean, kana Japanese, Han alone
Chinese, Simplified or Traditional by hanzidentifier.
"""

from __future__ import annotations

import logging
import multiprocessing
import re
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import hanzidentifier
import polars as pl
from langdetect import DetectorFactory, detect_langs
from langdetect.detector_factory import init_factory
from langdetect.lang_detect_exception import LangDetectException

logger = logging.getLogger(__name__)

DetectorFactory.seed = 0
init_factory()  # load the language profiles now (once per process, and before forks)

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

_LETTER = re.compile(r"[^\W\d_]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def detect_text_language(text: str) -> Detection:
    """Return `(language, probability, is_reliable)` for one text; never raises.

    language is an ISO 639-1 code as langdetect writes it ("en", "fr",
    "zh-cn", "zh-tw"); probability langdetect's 0–1 estimate for that language
    (None when langdetect did not rank it: a CJK language settled by script).
    A text with no letters gives `("und", None, False)`.
    """
    letters = len(_LETTER.findall(text))
    by_script = _language_by_script(text)
    try:
        guesses = detect_langs(text)
    except LangDetectException:
        return (by_script or UNDETERMINED), None, False
    if by_script:
        prob = next((g.prob for g in guesses if g.lang == by_script), None)
        return by_script, prob, letters >= MIN_SCRIPT_LETTERS
    lead = guesses[0].prob - (guesses[1].prob if len(guesses) > 1 else 0.0)
    return guesses[0].lang, float(guesses[0].prob), letters >= MIN_LETTERS and lead >= MIN_MARGIN


def _language_by_script(text: str) -> str | None:
    """ko, ja or zh-* when CJK letters are at least half the text's letters, else None.

    (An English ruling quoting the card name 牙長獣の仔 stays English.)
    """
    hangul, kana, han = (len(p.findall(text)) for p in (_HANGUL, _KANA, _HAN))
    if 2 * (hangul + kana + han) < len(_LETTER.findall(text)):
        return None
    if hangul:
        return "ko"
    if kana:
        return "ja"
    if han:
        return "zh-tw" if hanzidentifier.identify(text) == hanzidentifier.TRADITIONAL else "zh-cn"
    return None


#: Below this many texts, detection stays in the calling process.
PARALLEL_MIN_TEXTS = 400


def detect_languages(
    texts: pl.Series,
    detect: Callable[[str], Detection] = detect_text_language,
    processes: int = 1,
) -> pl.DataFrame:
    """Detect the language of each distinct text in `texts`.

    Args:
        texts: String series, repeats and nulls allowed (nulls are skipped).
        detect: called once per distinct text that has a letter (default
            `detect_text_language`, seeded langdetect).
        processes: worker processes for langdetect (pure Python, so threads
            would not help); results do not depend on it. `detect` must be a
            module-level function when it is above 1.

    Returns:
        One row per distinct non-null text, sorted by text:
        text (String), language (String: ISO 639-1 code, or "und" for a text
        with no letters), language_probability (Float64, 0–1; null for "und"),
        is_reliable (Boolean: see `detect_text_language`).
    """
    distinct = texts.drop_nulls().unique().sort()
    with_letters = distinct.filter(distinct.str.contains(r"\p{L}")).to_list()
    detected = _detect_all(with_letters, detect, processes)
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
        schema={
            "text": pl.String,
            "language": pl.String,
            "language_probability": pl.Float64,
            "is_reliable": pl.Boolean,
        },
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


def _detect_all(
    texts: list[str], detect: Callable[[str], Detection], processes: int
) -> list[Detection]:
    if processes <= 1 or len(texts) < PARALLEL_MIN_TEXTS:
        return [detect(text) for text in texts]
    size = -(-len(texts) // (processes * 8))  # a few chunks per process, for balance
    chunks = [texts[i : i + size] for i in range(0, len(texts), size)]
    context = multiprocessing.get_context("forkserver")  # no fork of a threaded process
    context.set_forkserver_preload([__name__])  # workers start with langdetect's profiles loaded
    with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
        return [d for part in pool.map(_detect_chunk, [(detect, c) for c in chunks]) for d in part]


def _detect_chunk(job: tuple[Callable[[str], Detection], list[str]]) -> list[Detection]:
    detect, chunk = job
    return [detect(text) for text in chunk]


def resolve_language(detected: pl.Expr, is_reliable: pl.Expr, prior: pl.Expr) -> pl.Expr:
    """The detected language where reliable, else `prior` (where it is not null)."""
    return pl.when(is_reliable | prior.is_null()).then(detected).otherwise(prior)


def resolve_is_inferred(is_reliable: pl.Expr, prior: pl.Expr) -> pl.Expr:
    """True where `resolve_language` took the prior instead of the detected language."""
    return ~is_reliable & prior.is_not_null()
