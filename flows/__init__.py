"""ruling-dumps: multilingual Magic: The Gathering ruling dumps to clean, validated tables.

`flows.stages` holds the pure stages (polars frames in, polars frames out);
`flows.rulings_flow` is the only module that imports Prefect; `schemas` is the
data contract.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ruling-dumps")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"
