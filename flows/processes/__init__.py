"""Process control: worker pools, the orphan watcher, Ctrl-C, the kill-test hook.

`pools` starts the parse and language worker processes; `watcher` ends a
run's children with it, however it ends; `interrupt` handles Ctrl-C;
`hooks` pauses a run at a publish step for the kill tests.
"""
