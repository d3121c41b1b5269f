"""ruling-dumps: multilingual Magic: The Gathering ruling dumps to clean, validated tables.

`flows.run` is the run: one sequence of steps, run by Prefect
(`flows.prefect_flow`) or directly. Its steps are pure transforms on polars
frames (`flows.stages`) and the reads and writes of raw/, the output dir and
the state (`flows.disk`); worker processes, the orphan watcher and Ctrl-C
are `flows.processes`. `schemas` is the data contract. `flows.cli` is the
command line. The map: docs/architecture.md.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ruling-dumps")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"
