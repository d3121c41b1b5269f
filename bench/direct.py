"""A whole run without Prefect, for the benchmark's orchestration share.

The same steps in the same sequence as the flow (`flows.run.run_steps`),
each called plainly by `run.DirectRunner`, langdetect in one process per core.

Usage: python bench/direct.py RAW_DIR OUTPUT_DIR
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from flows.run import run_direct

if __name__ == "__main__":
    run_direct(Path(sys.argv[1]), Path(sys.argv[2]), processes=os.cpu_count() or 1)
