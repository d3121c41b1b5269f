"""The batched engine against langdetect on every distinct real text (`bench eval engine`).

`flows.stages.batch_langdetect.detect_langs_batch` must give each text
exactly what `langdetect.detect_langs` gives it with `DetectorFactory.seed = 0`:
the same languages in the same order with the same probabilities (floats
equal with `==`), or the same `LangDetectException`. This runs both over
every distinct text of the real data in `derived/` and `zh_release_notes/`
(all English rulings, all foreign card texts and flavor texts, every line of
the Chinese release notes) plus generated odd texts (`odd_texts`), counts
the texts whose answers differ (target 0) and measures the CPU time per text
of each, in this one process (target: the engine at least 10x below).
"""

from __future__ import annotations

import gzip
import platform
import random
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import polars as pl
import typer
from langdetect import DetectorFactory, detect_langs
from langdetect.lang_detect_exception import LangDetectException
from langdetect.language import Language

from flows.stages.batch_langdetect import detect_langs_batch

#: Targets of issue 24.
TARGETS = {"mismatches": 0, "cpu_ratio_at_least": 10.0}
#: Mismatching texts listed in the results.
EXAMPLES = 10
#: Odd texts met in dumps and at langdetect's edges (its cleaning rules' quirks).
ODD_TEXTS: tuple[str, ...] = (
    "",
    " ",
    "   ",
    ".",
    "7",
    "{E}",
    "{T}",
    "{2}{W}{W}",
    "CMC 2F/E 1/3",
    "CMC 3 — 2/2",
    "1/3 — 2/2 · 7",
    "2024-06-07",
    "07/06/2024",
    "7 juin 2024",
    "2024年5月15日",
    "此文件最近更新日期：2024 年 5 月 15 日",
    "a",
    "Vol",
    "Haste",
    "Piétinement",
    "ENERGY",
    "ENERGY COUNTERS AREN'T MANA.",
    "CMC MTG WotC FAQ",
    "McDONALD's iPhone",
    "http://example.com",
    "see https://scryfall.com/card/kld/1?x=1&y=2#z for more",
    "mail rules@wizards.com please",
    "a.b-c_d@e-f.g.h and more words",
    "^^^ [[]] __ `` привет",
    "ΑΒΓ abc δεζ",
    "能量指示物是玩家可具有的一种指示物。它们没有与任何特定的永久物相关联。",
    "能量指示物是玩家可具有的一種指示物。",
    "エネルギー・カウンターはプレイヤーが持つカウンターです。",
    "에너지 카운터는 플레이어가 가질 수 있는 카운터의 일종입니다.",
    "مرحبا بالعالم، هذه بطاقة سحرية",
    "این یک کارت است",
    "שלום עולם",
    "Привет world 世界 こんにちは",
    "If 牙長獣の仔 leaves the battlefield, you can't pay any {E}.",
    "Vie\u0302\u0323t Nam ca\u0301c ba\u0323n",
    "Việt Nam các bạn ắ ạ ỹ",
    "ș ț Ș Ț românește",
    "a\u00a0b\u00abc\u00bb d\u00b0",
    "— – … ‘ ’ “ ”",
    "tab\there\nnew line\r\nend",
    "a\x00b",
    "lone \ud800 surrogate",
    "ǅemal ǈubljana",
    "ⒶⒷⒸ ⓐⓑⓒ",
)


def odd_texts(rulings: list[str], seed: int) -> list[str]:
    """ODD_TEXTS, and real rulings made odd: all caps, long (past langdetect's 10,000
    characters, a URL across that edge), with URLs and mail, in runs of spaces."""
    rng = random.Random(seed)
    chosen = rng.sample(rulings, min(200, len(rulings)))
    long = " ".join(rng.sample(rulings, min(120, len(rulings))))
    made = [
        *(text.upper() for text in chosen[:50]),
        *(f"{text} http://example.com/{i}" for i, text in enumerate(chosen[50:100])),
        *(f"{text} mail{i}@example.com" for i, text in enumerate(chosen[100:150])),
        *(text.replace(" ", "   ") for text in chosen[150:200]),
        long[:12_000],
        long[:9_990] + " http://example.com/edge " + long[:200],
        "x" * 12_000,
        "能" * 12_000,
    ]
    return [*ODD_TEXTS, *made]


#: The real rulings, in the real data folder.
RULINGS = Path("derived/mtgjson_v5_rulings.jsonl")


def rulings_file(real_dir: Path) -> Path:
    """`real_dir`'s RULINGS for an eval command; a missing file ends the command with
    one `error:` line and exit code 1."""
    rulings = real_dir / RULINGS
    if not rulings.is_file():
        typer.echo(f"error: {rulings} not found; pass --real with the real data folder", err=True)
        raise typer.Exit(1)
    return rulings


def real_texts(real_dir: Path) -> dict[str, list[str]]:
    """Every distinct real text by source, each list sorted (not empty texts only: all)."""
    rulings = pl.read_ndjson(real_dir / RULINGS)["comment"]
    with gzip.open(real_dir / "derived" / "mtgjson_v5_foreign_cards.jsonl.gz") as packed:
        cards = pl.read_ndjson(packed.read(), infer_schema_length=None)
    notes = sorted((real_dir / "zh_release_notes" / "text").glob("*.txt"))
    lines = {line for path in notes for line in path.read_text(encoding="utf-8").splitlines()}
    return {
        "english_rulings": _distinct(rulings),
        "foreign_card_texts": _distinct(cards["text"]),
        "foreign_flavor_texts": _distinct(cards["flavor_text"]),
        "zh_release_notes_lines": sorted(lines),
    }


def _distinct(texts: pl.Series) -> list[str]:
    return texts.drop_nulls().unique().sort().to_list()


Outcome = list[tuple[str, float]] | tuple[str, str, str]


def outcome(answer: list[Language] | LangDetectException) -> Outcome:
    """An answer as comparable values: (language, probability) pairs, or the error's
    class, code and message."""
    if isinstance(answer, LangDetectException):
        return type(answer).__name__, str(answer.code), str(answer)
    return [(language.lang, language.prob) for language in answer]


def langdetect_outcome(text: str) -> Outcome:
    """What `langdetect.detect_langs(text)` gives (DetectorFactory.seed must be 0)."""
    try:
        return outcome(detect_langs(text))
    except LangDetectException as exc:
        return outcome(exc)


def evaluate_engine(real_dir: Path, sample: int | None = None, seed: int = 0) -> dict[str, Any]:
    """Run both over every distinct text (or a seeded `sample` of them); the results (JSON-ready).

    Returns:
        texts (by source), mismatches (count, by source, examples), the CPU
        seconds and milliseconds per text of each, their ratio, the targets.
    """
    DetectorFactory.seed = 0
    sources = real_texts(real_dir)
    sources["odd"] = odd_texts(sources["english_rulings"], seed)
    source_of = {text: name for name, texts in reversed(sources.items()) for text in texts}
    texts = sorted(source_of)
    if sample is not None:
        texts = sorted(random.Random(seed).sample(texts, min(sample, len(texts))))
    started = time.process_time()
    engine = [outcome(answer) for answer in detect_langs_batch(texts)]
    engine_cpu = time.process_time() - started
    started = time.process_time()
    reference = [langdetect_outcome(text) for text in texts]
    langdetect_cpu = time.process_time() - started
    pairs = enumerate(zip(engine, reference, strict=True))
    wrong = [i for i, (mine, theirs) in pairs if mine != theirs]
    return {
        "command": "python -m bench eval engine",
        "python": platform.python_version(),
        "langdetect": version("langdetect"),
        "numpy": version("numpy"),
        "sample": sample,
        "seed": seed,
        "texts": len(texts),
        "texts_by_source": {name: len(set(t) & set(texts)) for name, t in sources.items()},
        "no_features": sum(isinstance(o, tuple) for o in reference),
        "mismatches": len(wrong),
        "mismatches_by_source": {
            name: sum(source_of[texts[i]] == name for i in wrong) for name in sources
        },
        "examples": [
            {"text": texts[i][:300], "engine": engine[i], "langdetect": reference[i]}
            for i in wrong[:EXAMPLES]
        ],
        "cpu_seconds": {"engine": round(engine_cpu, 2), "langdetect": round(langdetect_cpu, 2)},
        "cpu_ms_per_text": {
            "engine": round(1000 * engine_cpu / len(texts), 4),
            "langdetect": round(1000 * langdetect_cpu / len(texts), 4),
        },
        "cpu_ratio": round(langdetect_cpu / engine_cpu, 1),
        "targets": TARGETS,
        "against_targets": {
            "mismatches_0": not wrong,
            "cpu_ratio_at_least_10": langdetect_cpu >= TARGETS["cpu_ratio_at_least"] * engine_cpu,
        },
    }
