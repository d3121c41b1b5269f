"""The benchmark's warm pairs: each from the cold runs' outputs, the same dumps changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import timing
from bench.parse_cpu import measure_batches
from flows.disk.raw import load_raw_dumps
from flows.stages.decode import hash_dumps


def _entry(n: int) -> str:
    return f"2024-06-07 · source : wotc\nBenchmark change {n}: a new ruling appended.\n"


def test_each_warm_pair_starts_from_the_cold_outputs_with_the_same_dumps_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    for n in range(4):
        (raw / f"{n:03}.txt").write_text(f"dump {n}\n", encoding="utf-8")
    outputs = (tmp_path / "output", tmp_path / "direct")
    for out in outputs:
        out.mkdir()
        (out / "state.json").write_text("cold", encoding="utf-8")
    monkeypatch.setattr(timing, "WARM_PAIRS", 3)
    seen = []
    for changed in timing._warm_states(raw, outputs, 0.5):  # every 2nd dump: 000 and 002
        seen.append(
            (
                changed,
                [sorted((p.name, p.read_text()) for p in out.iterdir()) for out in outputs],
                {p.name: p.read_text(encoding="utf-8") for p in sorted(raw.iterdir())},
            )
        )
        for out in outputs:  # what a run writes: the next pair must not see it
            (out / "state.json").write_text("warm", encoding="utf-8")
            (out / "snapshot.parquet").write_text("new", encoding="utf-8")
    cold = [[("state.json", "cold")], [("state.json", "cold")]]
    dumps = {
        "000.txt": "dump 0\n" + _entry(0),
        "001.txt": "dump 1\n",
        "002.txt": "dump 2\n" + _entry(1),
        "003.txt": "dump 3\n",
    }
    assert seen == [(2, cold, dumps)] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["direct", "output", "raw"]  # no copy


def test_the_warm_target_is_read_on_the_median_of_the_pairs() -> None:
    walls = [(10.0, 9.0), (11.5, 9.0), (9.5, 9.0), (12.0, 8.0), (9.0, 9.25)]
    pairs = [{"warm": {"wall_s": w}, "unchanged": {"wall_s": u}} for w, u in walls]
    assert timing._differences(pairs, "wall_s") == [1.0, 2.5, 0.5, 4.0, -0.25]
    assert timing._median_difference(pairs, "wall_s") == 1.0


def test_the_cost_of_a_batch_is_measured_only_with_two_batches_or_more(tmp_path: Path) -> None:
    for n in range(3):
        (tmp_path / f"{n}.txt").write_text(
            f"Rulings for card {n}\n07 juin 2024 · source : wotc\nRuling {n}.\n", encoding="utf-8"
        )
    hashed = hash_dumps(load_raw_dumps(tmp_path))
    two = measure_batches(hashed, 2)
    one = measure_batches(hashed, 5)
    assert (two["batches"], one["batches"]) == (2, 1)
    assert isinstance(two["overhead_per_batch_cpu_s"], float)
    assert one["overhead_per_batch_cpu_s"] is None
