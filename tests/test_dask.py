"""Scale-out: the seeds on a local Dask cluster of 2 worker processes give the same tables."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from flows.prefect_flow import rulings_flow, run_on_dask
from schemas import TABLE_MODELS
from tests.conftest import SEED_DIR


class _Collect(logging.Handler):
    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.flow
def test_dask_run_equals_the_single_process_run(prefect_harness: None, tmp_path: Path) -> None:
    local = rulings_flow(raw_dir=SEED_DIR, output_dir=tmp_path / "local")
    nanny_warnings = _Collect(logging.WARNING)
    logging.getLogger("distributed.nanny").addHandler(nanny_warnings)
    try:
        on_dask = run_on_dask(SEED_DIR, tmp_path / "dask", workers=2)
    finally:
        logging.getLogger("distributed.nanny").removeHandler(nanny_warnings)
    assert nanny_warnings.messages == []  # no "Worker process still alive ..., killing"
    assert on_dask["rows"] == local["rows"] and on_dask["rows"]["rulings"] == 36
    assert on_dask["work"] == local["work"]
    for name in TABLE_MODELS:
        for ext in ("parquet", "jsonl"):
            file = f"{name}.{ext}"
            assert (Path(on_dask["snapshot"]) / file).read_bytes() == (
                Path(local["snapshot"]) / file
            ).read_bytes(), file
    assert not (tmp_path / "dask" / "state" / "parts").exists()
