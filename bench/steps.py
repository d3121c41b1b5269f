"""A direct run (no Prefect, `run.run_direct`) with each step of its main thread timed.

Usage: python bench/steps.py RAW_DIR OUTPUT_DIR STEPS_JSON

Writes STEPS_JSON: {step (module.function): seconds}, summed over the step's
calls, plus "total". The parse batches and the language detection run in
worker threads and processes: their time is what the steps around them
wait (`results_of`), under "waiting for parse and languages".
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


if __name__ == "__main__":
    runner, started = TimedRunner(), time.perf_counter()
    run_direct(Path(sys.argv[1]), Path(sys.argv[2]), processes=os.cpu_count() or 1, runner=runner)
    total = time.perf_counter() - started
    steps = {name: round(s, 2) for name, s in runner.seconds.items()}
    steps["waiting for parse and languages"] = round(total - sum(runner.seconds.values()), 2)
    steps["total"] = round(total, 2)
    Path(sys.argv[3]).write_text(json.dumps(steps, indent=2) + "\n", encoding="utf-8")
