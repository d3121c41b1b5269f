"""Pure stages: plain functions on polars frames; no disk, no processes, no Prefect.

A raw line goes through `decode` (bytes to numbered lines), `parse` (line
kinds, entries), `detector` and `language` (languages in context,
translations), `dumps` (each dump's results), `dedupe`
(rulings and their ids) and `tables` (the published tables, validated).
`reuse` decides what a run takes from the state. See docs/architecture.md.
"""
