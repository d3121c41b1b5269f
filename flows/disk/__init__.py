"""Everything that touches raw/, the output dir or the state: reading, writing, locking.

`raw` reads raw/ (never writes it); `snapshot` writes and publishes snapshots
and `latest`; `state` reads the state of earlier runs and `generation` writes
the next one; `catalog` reads and caches the card catalog; `lock` keeps one
run at a time per output dir; `paths` names every path under the output dir;
`files` writes files whole; `cache_keys` says what shapes each cache.
"""
