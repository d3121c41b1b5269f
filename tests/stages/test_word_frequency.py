"""word_frequency: wordfreq's `word_frequency` from frames, equal to wordfreq's own floats."""

from __future__ import annotations

import math
import random
import sys
import unicodedata

import polars as pl
import pytest
import wordfreq

from bench.corpus import load_foreign_cards
from flows.stages import detector, word_scores
from flows.stages.word_frequency import (
    OWN_TOKEN_CHARACTERS,
    is_own_token,
    is_plain_language,
    word_frequencies,
    word_list,
)
from tests.conftest import REAL_DATA, needs_real_data

#: Every language the weighing scores (wordfreq's, without the CJK ones).
LANGUAGES = sorted(detector._WORDFREQ_LANGUAGES)

#: Words at wordfreq's edges: apostrophes (French elision, English contractions, curly),
#: hyphens, non-NFC letters, capitals, Turkish dotted and dotless i, Romanian and Turkish
#: s/t with comma or cedilla, Greek final sigma, Arabic marks and tatweel, Serbian
#: Cyrillic, digits (smashed to zeros, years), CJK, symbols, nothing, words in no list.
ODD_WORDS = (
    "l'arc", "qu'un", "d'heure", "aujourd'hui", "can't", "don't", "don’t", "o'clock", "'tis",
    "first-strike", "peut-être", "pré-requis", "e\u0301nergie", "natu\u0308rlich", "Énergie",
    "ENERGY", "Energy", "i\u0307stanbul", "İstanbul", "istanbul", "ıs", "hakkında", "kişinin",
    "kișinin", "acelaşi", "același", "ţară", "țară", "λέξις", "λέξισ", "νερό", "كَلِمَة",
    "الحمــــــد", "схваташ", "культуры", "зелёный", "ёлка", "2024", "1999", "abc12", "x2",
    "7", "3.14", "能量", "エネルギー", "에너지", "{t}", "@s", "tod@s", "", " ", "-", "'",
    "zzqxvj", "qwrtzplk", "ßtraße", "straße", "ﬁn", "ǆ", "ǅemal", "ǳ", "ﬀ", "x\u200dy",
)  # fmt: skip


def _real_words() -> list[str]:
    """Distinct words (`detector.written_words`, case-folded) of a fixed sample of real texts in every
    language of the real data: foreign card texts and English rulings."""
    foreign = (
        load_foreign_cards(REAL_DATA)
        .select("language", "text")
        .drop_nulls()
        .unique()
        .sort("language", "text")
        .group_by("language", maintain_order=True)
        .agg(pl.col("text").shuffle(seed=7).head(40))
        .explode("text")["text"]
    )
    rulings = pl.read_ndjson(REAL_DATA / "derived" / "mtgjson_v5_rulings.jsonl")["comment"]
    english = rulings.unique().sort().sample(60, seed=7)
    words = [
        word
        for text in [*foreign, *english]
        for word in map(str.casefold, detector.written_words(text))
    ]
    return sorted(set(words))


@pytest.fixture(scope="module")
def real_words() -> list[str]:
    return _real_words()


def _wordfreq(words: list[str], lang: str) -> dict[str, float]:
    return {word: wordfreq.word_frequency(word, lang) for word in words}


@needs_real_data
@pytest.mark.parametrize("lang", LANGUAGES)
def test_real_and_odd_words_get_wordfreqs_floats(lang: str, real_words: list[str]) -> None:
    words = [*real_words, *ODD_WORDS]
    assert len(real_words) > 2000
    try:
        expected = _wordfreq(words, lang)
        found = word_frequencies({lang: words}, word_list)[lang]
    finally:
        wordfreq.get_frequency_dict.cache_clear()  # ~40 MB a language: not all of them at once
        wordfreq.get_frequency_list.cache_clear()
    assert found == expected  # floats compared with ==, word by word
    assert sum(freq > 0 for freq in found.values()) > 20  # real words are found in every list
    assert all(found[word] == 0.0 for word in ("zzqxvj", "qwrtzplk", "", "-"))


def test_known_values() -> None:
    found = word_frequencies({"en": ["the", "energy", "can't", "first-strike"]}, word_list)["en"]
    assert found == {w: wordfreq.word_frequency(w, "en") for w in found}
    assert found["the"] == 0.0537  # 3 significant digits, as wordfreq rounds
    assert 0 < found["first-strike"] < min(found["energy"], wordfreq.word_frequency("strike", "en"))
    tr = word_frequencies({"tr": ["İstanbul", "istanbul", "ıstanbul"]}, word_list)["tr"]
    assert tr == {w: wordfreq.word_frequency(w, "tr") for w in tr}
    assert tr["İstanbul"] == tr["istanbul"] > 0


@pytest.mark.parametrize("lang", ["en", "ru", "tr", "ro", "ar"])
def test_word_list_is_wordfreqs_dict(lang: str) -> None:
    table = word_list(lang)
    assert table["word"].is_sorted() and table["word"].n_unique() == table.height
    frequency = {b: wordfreq.cB_to_freq(-b) for b in table["bucket"].unique().to_list()}
    rebuilt = {w: frequency[b] for w, b in zip(*table.get_columns(), strict=True)}
    try:
        assert rebuilt == wordfreq.get_frequency_dict(lang, "best")
    finally:
        wordfreq.get_frequency_dict.cache_clear()
        wordfreq.get_frequency_list.cache_clear()


def test_own_tokens_are_their_own_tokenization() -> None:
    # the rule is_own_token applies: every plain language, words of any own-token letters
    plain = [lang for lang in LANGUAGES if is_plain_language(lang)]
    assert {"en", "fr", "ru", "el", "tr", "ro"} <= set(plain)
    assert not {"ar", "fa", "he", "hi", "sh"} & set(plain)  # NFKC, marks, transliteration
    letters = sorted(OWN_TOKEN_CHARACTERS)
    assert {"a", "é", "ё", "ж", "λ", "ı", "i"} <= set(letters) and len(letters) > 600
    assert not {"ș", "ş", "ț", "ţ", "ς", "ß", "'", "-", "A", "\u0301", "ǅ"} & set(letters)
    rng = random.Random(7)
    words = [*letters, *("".join(rng.choices(letters, k=rng.randint(2, 12))) for _ in range(3000))]
    for lang in plain:
        assert [w for w in words if wordfreq.lossy_tokenize(w, lang) != [w]] == [], lang
        assert all(is_own_token(word, lang) for word in words)
    # none is the second character of a canonical composition (NFC never joins two of them)
    seconds = {
        chr(int(parts[1], 16))
        for code in range(sys.maxunicode + 1)
        if len(parts := unicodedata.decomposition(chr(code)).split()) == 2
        and not parts[0].startswith("<")
    }
    assert not seconds & OWN_TOKEN_CHARACTERS


def test_other_words_are_tokenized() -> None:
    for word, lang in [("l'arc", "fr"), ("first-strike", "en"), ("kişinin", "tr"), ("şi", "ro")]:
        assert not is_own_token(word, lang)
    assert not is_own_token("energy", "ar") and not is_own_token("energy", "sh")


def test_scores_and_means_are_the_loops_floats() -> None:
    words = ["energy", "counters", "aren't", "mana", "energy", "zzqxvj"]
    scores = word_scores.word_scores({"en": words}, word_list)["en"]
    floor = 10**word_scores.UNKNOWN_WORD
    expected = {w: math.log10(max(wordfreq.word_frequency(w, "en"), floor)) for w in words}
    assert {w: scores[w] for w in words} == expected
    assert scores["zzqxvj"] == -8.0
    total = 0.0
    for word in words:  # the weighing's mean: left to right
        total += expected[word]
    assert word_scores.mean_score(words, scores) == total / len(words)
    assert word_scores.mean_score([], scores) == word_scores.UNKNOWN_WORD
