"""A direct run (no Prefect, `run.run_direct`) with each step of its main thread timed.

Usage: python bench/steps.py RAW_DIR OUTPUT_DIR STEPS_JSON [--languages-here]

Writes STEPS_JSON: {step (module.function): seconds}, summed over the step's
calls, plus "total". The parse batches and the language detection run in
worker threads and processes: their time is what the steps around them
wait (`results_of`), under "waiting for parse and languages"; "languages"
is the detection's own wall time, from its first text handed to the probes
to its last probe back (`pools.probe_in_workers`). `--languages-here`
detects in the run's process, without the language pool (issue 24's
question: does one process now do it faster than the pool?).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from flows.processes import pools
from flows.run import DirectRunner, run_direct


class TimedRunner(DirectRunner):
    """`DirectRunner` that adds each main-thread step's wall seconds to `seconds`."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds: dict[str, float] = defaultdict(float)

    def call(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return super().call(step, *args, **kwargs)
        finally:
            if threading.current_thread() is threading.main_thread():
                name = f"{step.__module__.removeprefix('flows.')}.{step.__name__}"
                self.seconds[name] += time.perf_counter() - started


def timed_probes(seconds: dict[str, float]) -> Callable[..., Iterator[Any]]:
    """`pools.probe_in_workers`, adding its wall seconds (first call to last probe) to
    seconds["languages"]."""
    probe = pools.probe_in_workers

    def timed(*args: Any, **kwargs: Any) -> Iterator[Any]:
        started = time.perf_counter()
        yield from probe(*args, **kwargs)
        seconds["languages"] = round(seconds.get("languages", 0) + time.perf_counter() - started, 2)

    return timed


if __name__ == "__main__":
    if "--help" in sys.argv or len(sys.argv) < 4:
        sys.stdout.write(__doc__ or "")
        sys.exit(0 if "--help" in sys.argv else 2)
    raw, output, results = (Path(arg) for arg in sys.argv[1:4])
    if "--languages-here" in sys.argv[4:]:
        pools.PARALLEL_MIN_TEXTS = sys.maxsize  # every text probed in the run's process
    languages: dict[str, float] = {}
    pools.probe_in_workers = timed_probes(languages)  # type: ignore[assignment]
    runner, started = TimedRunner(), time.perf_counter()
    run_direct(raw, output, processes=os.cpu_count() or 1, runner=runner)
    total = time.perf_counter() - started
    steps = {name: round(s, 2) for name, s in runner.seconds.items()}
    steps["waiting for parse and languages"] = round(total - sum(runner.seconds.values()), 2)
    steps |= languages
    steps["total"] = round(total, 2)
    results.write_text(json.dumps(steps, indent=2) + "\n", encoding="utf-8")
