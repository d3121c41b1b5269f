"""The weighing's word frequencies against wordfreq's, on every distinct text of a corpus.

`flows.stages.word_frequency.word_frequencies` must give each word exactly
`wordfreq.word_frequency(word, lang)` (floats equal with `==`), and the
weighing (`detector.decide_languages`) the same Detection as with wordfreq's
own frequencies. This probes every text of a languages file (a state's
`languages.<generation>.parquet`, column `text`: the distinct texts of a run),
weighs them with the product's batch, weighs them again with a scorer that
asks wordfreq for every (word, language) pair, one call each (the reference),
and counts the texts whose Detection differs and the pairs whose frequency
differs (targets 0). It also times both weighings, in this one process.

    python -m bench.evaluate_words /tmp/bench-1m/direct/state/languages.<generation>.parquet \
        bench/eval-words.json
"""

from __future__ import annotations

import json
import math
import platform
import sys
import time
from collections.abc import Iterable
from importlib.metadata import version
from pathlib import Path
from typing import Any
from unittest import mock

import polars as pl
import wordfreq

from flows.stages import detector, word_scores
from flows.stages.word_frequency import WordListSource, word_frequencies, word_list

#: Targets: no text weighed otherwise, no frequency otherwise.
TARGETS = {"detection_mismatches": 0, "frequency_mismatches": 0}
#: Mismatches listed in the results.
EXAMPLES = 10


def _reference_scores(
    words: dict[str, Iterable[str]], source: WordListSource
) -> dict[str, dict[str, float]]:
    """`word_scores.word_scores` from wordfreq itself: one `word_frequency` call a pair."""
    floor = 10**word_scores.UNKNOWN_WORD
    return {
        lang: {w: math.log10(max(wordfreq.word_frequency(w, lang), floor)) for w in asked}
        for lang, asked in words.items()
    }


def _weigh(probes: list[detector.Probe]) -> list[detector.Detection]:
    found: list[detector.Detection] = []
    for start in range(0, len(probes), detector.DECIDE_BATCH):
        found += detector.decide_languages(probes[start : start + detector.DECIDE_BATCH])
    return found


def evaluate_words(texts: list[str]) -> dict[str, Any]:
    """Probe `texts`, weigh them both ways; the counts, examples and seconds (see the module)."""
    started = time.perf_counter()
    probes = detector.probe_texts(texts)
    probed = time.perf_counter()
    asked: dict[str, set[str]] = {}

    def recorded(words: dict[str, Iterable[str]], source: WordListSource) -> Any:
        words = {lang: list(found) for lang, found in words.items()}
        for lang, found in words.items():
            asked.setdefault(lang, set()).update(found)
        return word_scores.word_scores(words, source)

    word_scores.release_word_lists()
    with mock.patch.object(detector, "word_scores", recorded):
        batch = _weigh(probes)  # lists built here (`word_list`), as a cold run builds them
    weighed = time.perf_counter()
    with mock.patch.object(detector, "word_scores", _reference_scores):
        reference = _weigh(probes)
    referenced = time.perf_counter()
    differ = [i for i, (a, b) in enumerate(zip(batch, reference, strict=True)) if a != b]
    frequencies = word_frequencies(asked, word_list)
    wrong = [
        (lang, word, found, wordfreq.word_frequency(word, lang))
        for lang, found_words in frequencies.items()
        for word, found in found_words.items()
        if found != wordfreq.word_frequency(word, lang)
    ]
    return {
        "texts": len(texts),
        "pairs": sum(len(words) for words in asked.values()),
        "languages": sorted(asked),
        "detection_mismatches": len(differ),
        "frequency_mismatches": len(wrong),
        "examples": [[texts[i], batch[i], reference[i]] for i in differ[:EXAMPLES]]
        + [list(w) for w in wrong[:EXAMPLES]],
        "seconds": {
            "probe": round(probed - started, 2),
            "weigh_batch_with_list_builds": round(weighed - probed, 2),
            "weigh_wordfreq_reference": round(referenced - weighed, 2),
        },
    }


def main(texts_file: Path, results: Path) -> dict[str, Any]:
    """Evaluate the distinct texts of `texts_file` (column `text`); write `results` (JSON)."""
    texts = pl.read_parquet(texts_file)["text"].drop_nulls().unique().sort()
    texts = texts.filter(texts.str.contains(r"\p{L}")).to_list()
    measured = {
        "command": f"python -m bench.evaluate_words {texts_file} {results}",
        "python": platform.python_version(),
        "wordfreq": version("wordfreq"),
        "polars": version("polars"),
        **evaluate_words(texts),
    }
    measured["against_targets"] = {k: measured[k] == v for k, v in TARGETS.items()}
    results.write_text(json.dumps(measured, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return measured


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m bench.evaluate_words TEXTS.parquet RESULTS.json")
    shown = main(Path(sys.argv[1]), Path(sys.argv[2]))
    sys.stdout.write(json.dumps({k: v for k, v in shown.items() if k != "examples"}, indent=2))
