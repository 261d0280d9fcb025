"""Two devices, one memory: `sync` with any git remote, and the merge driver for append-only files.

See docs/SYNC.md.
"""
