"""batch_langdetect: langdetect's `detect_langs` (seed 0) for many texts, the same answers."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy
import pytest
from langdetect import DetectorFactory, detect_langs, detector_factory
from langdetect.lang_detect_exception import LangDetectException

from bench.evaluate_engine import ODD_TEXTS, langdetect_outcome, odd_texts, outcome, real_texts
from flows.stages import batch_langdetect, batch_trials
from flows.stages.batch_langdetect import (
    LANGUAGES,
    NGRAM_ROWS,
    PROFILE,
    clean_text,
    detect_langprobs,
    detect_langs_batch,
    extract_ngrams,
)
from tests.conftest import REAL_DATA, needs_real_data

ENGLISH = "Energy counters are a kind of counter that a player may have. They're not associated with any specific permanents."
FRENCH = "Au début du combat pendant votre tour, vous pouvez payer"


@pytest.fixture(autouse=True)
def seeded() -> Iterator[None]:
    """langdetect seeded as the product seeds it (`detector.py`), for the reference answers."""
    before, DetectorFactory.seed = DetectorFactory.seed, 0
    yield
    DetectorFactory.seed = before


def _langdetects_factory() -> DetectorFactory:
    """langdetect's own global factory (`detect_langs` uses it), loaded."""
    detector_factory.init_factory()
    return detector_factory._factory


def test_profiles_are_langdetects_own() -> None:
    # the engine loads the profiles with a factory of its own: the same languages in the
    # same order, the same n-grams and floats as the factory `detect_langs` uses
    factory = _langdetects_factory()
    assert tuple(factory.langlist) == LANGUAGES and len(LANGUAGES) == 55
    assert list(NGRAM_ROWS) == list(factory.word_lang_prob_map)
    assert (numpy.array(list(factory.word_lang_prob_map.values())) == PROFILE).all()


def _engine(texts: list[str], batch_size: int = batch_langdetect.BATCH_SIZE) -> list[object]:
    return [outcome(answer) for answer in detect_langs_batch(texts, batch_size)]


@pytest.mark.parametrize("text", ODD_TEXTS, ids=[repr(t)[:40] for t in ODD_TEXTS])
def test_an_odd_text_gets_langdetects_answer(text: str) -> None:
    assert _engine([text]) == [langdetect_outcome(text)]


def test_odd_texts_made_from_rulings_get_langdetects_answers() -> None:
    rulings = [ENGLISH, FRENCH, "Vol", "Keep track of how many energy counters each player has."]
    texts = odd_texts(rulings * 60, seed=3)
    assert len(texts) > 250 and max(map(len, texts)) == 12_000
    assert _engine(texts) == [langdetect_outcome(text) for text in texts]


def test_a_text_without_features_gets_langdetects_error() -> None:
    [answer] = detect_langs_batch(["{2} — 1/3"])
    assert isinstance(answer, LangDetectException)
    with pytest.raises(LangDetectException, match=r"^No features in text\.$") as raised:
        detect_langs("{2} — 1/3")
    assert (answer.code, str(answer)) == (raised.value.code, str(raised.value))


def test_languages_are_langdetects_in_its_order() -> None:
    [answer] = detect_langs_batch([ENGLISH])
    assert [(a.lang, a.prob) for a in answer] == [(a.lang, a.prob) for a in detect_langs(ENGLISH)]
    assert (
        answer[0].lang == "en" and len(LANGUAGES) == 55 and LANGUAGES[:3] == ("pl", "gu", "zh-tw")
    )


def test_the_whole_vector_and_the_texts_without_features() -> None:
    probabilities, featured = detect_langprobs([ENGLISH, "", "7", FRENCH])
    assert featured.tolist() == [True, False, False, True]
    assert probabilities.shape == (4, 55) and not probabilities[1:3].any()
    assert abs(probabilities[0].sum() - 1) < 1e-9
    assert LANGUAGES[int(probabilities[3].argmax())] == "fr"


def test_cleaning_and_ngrams_are_langdetects() -> None:
    texts = [*ODD_TEXTS, ENGLISH, FRENCH, ENGLISH.upper(), "MtG ABc aBC Ab", "x" * 12_000]
    rows, counts = extract_ngrams([clean_text(text) for text in texts])
    ngram_of = dict(enumerate(NGRAM_ROWS))
    found = iter(ngram_of[row] for row in rows.tolist())
    for text, count in zip(texts, counts.tolist(), strict=True):
        detector = _langdetects_factory().create()
        detector.append(text)
        detector.cleaning_text()
        assert clean_text(text) == detector.text
        assert [next(found) for _ in range(count)] == detector._extract_ngrams(), text


def test_results_do_not_depend_on_the_batch() -> None:
    texts = [ENGLISH, FRENCH, "Vol", "Haste", "CMC 2F/E 1/3", "", "能量指示物", *ODD_TEXTS[:20]]
    alone = [answer for text in texts for answer in _engine([text])]
    assert [_engine(texts, batch_size) for batch_size in (1, 7, 64)] == [alone] * 3
    assert _engine(texts[::-1]) == alone[::-1]
    assert _engine([]) == []


@pytest.mark.parametrize("slots", [1, 2, 3, 300])
def test_each_slot_is_normalized_by_pythons_left_to_right_sum(slots: int) -> None:
    # numpy's reduction must add each slot's 55 numbers in order, whatever the slots
    rng = numpy.random.default_rng(slots)
    prob = rng.random((slots, 55))  # sums that pairwise summation rounds otherwise, mostly
    batch = batch_trials._Batch(PROFILE)
    batch.add(batch_trials.Block(numpy.arange(slots), numpy.ones(slots, dtype=int), numpy.zeros(1)))
    batch.prob = prob.copy()
    batch._normalize()
    assert batch.prob.tolist() == [[p / sum(row) for p in row] for row in prob.tolist()]


def test_few_accepted_words_in_the_window_read_on_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a window of 5 words often has fewer than 5 accepted: the slow path runs often
    monkeypatch.setattr(batch_trials, "_WINDOW", 5)
    texts = [ENGLISH, FRENCH, "Vol", "Haste", "CMC 2F/E 1/3", "Piétinement", "能量指示物"]
    assert _engine(texts) == [langdetect_outcome(text) for text in texts]


def test_langdetects_own_detector_where_sum_is_not_left_to_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = [ENGLISH, FRENCH, "", "Vol", "CMC 2F/E 1/3"]
    batched = _engine(texts)
    monkeypatch.setattr(batch_langdetect, "_SUM_CHANGED", (3, 11))  # as on Python 3.12
    assert _engine(texts) == batched == [langdetect_outcome(text) for text in texts]


#: Real texts compared (a fixed sample, odd ones added): the CI's share of `bench eval engine`.
SAMPLE = 3000


@needs_real_data
def test_real_texts_get_langdetects_answers() -> None:
    sources = real_texts(REAL_DATA)
    rng = random.Random(24)
    texts = [
        *rng.sample(sources["english_rulings"], 900),
        *rng.sample(sources["foreign_card_texts"], 900),
        *rng.sample(sources["foreign_flavor_texts"], 600),
        *rng.sample(sources["zh_release_notes_lines"], SAMPLE - 2400),
        *odd_texts(sources["english_rulings"], seed=24),
    ]
    reference = [langdetect_outcome(text) for text in texts]
    assert sum(isinstance(r, tuple) for r in reference) >= 10  # LangDetectException: some
    assert _engine(texts) == reference
