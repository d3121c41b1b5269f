"""The benchmark's references: the floors (langdetect's and the engine's) and the naive loop.

`timing.run_benchmark` measures both after its cold run (see its module docstring).
"""

from __future__ import annotations

import re
import time
from contextlib import suppress
from pathlib import Path

from flows.disk.state import load_state


def time_floor(state_dir: Path, raw_dir: Path, cores: int) -> dict[str, float]:
    """The floors: the work no run can skip, with plain langdetect and with the engine.

    Each detects once each of a run's distinct texts that has a letter (its
    language cache) in one process: langdetect's `detect_langs` (seeded) one
    text at a time, then the product's engine (`batch_langdetect.detect_langprobs`,
    the same answers) over all of them; each CPU time is divided by `cores`,
    plus reading every file of `raw_dir` (wall).

    Returns:
        distinct_texts, langdetect_cpu_s, engine_cpu_s, read_files_s, cores,
        floor_s (langdetect's floor), engine_floor_s (seconds).
    """
    from langdetect import DetectorFactory, detect_langs
    from langdetect.lang_detect_exception import LangDetectException

    from flows.stages.batch_langdetect import detect_langprobs

    DetectorFactory.seed = 0
    texts = load_state(state_dir)["languages"]["text"]
    texts = texts.filter(texts.str.contains(r"\p{L}")).to_list()
    started = time.process_time()
    for text in texts:
        with suppress(LangDetectException):
            detect_langs(text)
    detect_cpu = time.process_time() - started
    started = time.process_time()
    detect_langprobs(texts)
    engine_cpu = time.process_time() - started
    started = time.perf_counter()
    for path in raw_dir.rglob("*.txt"):
        path.read_bytes()
    read_s = time.perf_counter() - started
    return {
        "distinct_texts": len(texts),
        "langdetect_cpu_s": round(detect_cpu, 2),
        "engine_cpu_s": round(engine_cpu, 2),
        "read_files_s": round(read_s, 2),
        "cores": cores,
        "floor_s": round(detect_cpu / cores + read_s, 2),
        "engine_floor_s": round(engine_cpu / cores + read_s, 2),
    }


def time_naive(raw_dir: Path, share: float, total_lines: int) -> dict[str, float]:
    """The naive reference on a slice of the dumps, scaled to the whole corpus by lines."""
    from langdetect import DetectorFactory, detect_langs
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    date_line = re.compile(r"^\s*\S.*?\s*[·・]\s*\w+\s*[:：]\s*\S+\s*$")
    paths = sorted(raw_dir.rglob("*.txt"))
    sample = paths[:: max(1, round(1 / share))]
    started = time.perf_counter()
    lines = calls = 0
    seen: dict[str, str] = {}
    for path in sample:
        body: list[str] = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            lines += 1
            if date_line.match(line) or line.startswith("CMC"):
                if body:
                    text = " ".join(body)
                    try:
                        seen.setdefault(text, detect_langs(text)[0].lang)
                    except LangDetectException:
                        seen.setdefault(text, "und")
                    calls += 1
                body = []
            elif line.strip():
                body.append(line)
    elapsed = time.perf_counter() - started
    return {
        "slice_files": len(sample),
        "slice_lines": lines,
        "slice_s": round(elapsed, 2),
        "langdetect_calls": calls,
        "scaled_s": round(elapsed * total_lines / max(1, lines), 2),
    }
