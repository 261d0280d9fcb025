"""A run of commits judged by the laws: what `verify` and the remote's guard both replay.

The commits come in chunks; while one chunk is judged, git lists the next one's changes and
reads its blobs in another thread (git runs in its own process, so on two cores the replay
costs about the larger of git's share and the judging, not their sum).
"""

import queue
import threading
from collections.abc import Callable, Iterator

from souveraine.laws import rules
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo
from souveraine.laws.snapshot import Snapshot, commits

CHUNK = 200     # commits read at once: a small first wait, two chunks' blobs in memory at most


def judge(repo: Repo, revs: list[str], progress: Callable[[int, int], None] | None = None) -> tuple[int, list[Breach]]:
    """(commits judged, breaches) for the commits ``revs`` select (`git log` arguments), oldest first."""
    total = _count(repo, revs) if progress else 0
    done, found = 0, []
    for chunk in _read_ahead(repo, revs):
        for snapshot in chunk:
            found += rules.judge(snapshot, extra=rules.extra_globs(snapshot))
        done += len(chunk)
        if progress:
            progress(done, total)
    return done, found


def _read_ahead(repo: Repo, revs: list[str]) -> Iterator[list[Snapshot]]:
    """The chunks of snapshots with their blobs read, the next one read while this one is judged."""
    ready: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def read() -> None:
        try:
            for chunk in commits(repo, revs, chunk=CHUNK):
                rules.prefetch(chunk, [n for n in map(rules.config_name, chunk) if n])
                ready.put(chunk)
                if stop.is_set():
                    return
        except BaseException as exc:        # raised again where the chunks are judged
            ready.put(exc)
            return
        ready.put(None)

    reader = threading.Thread(target=read, name="verify-read-ahead", daemon=True)
    reader.start()
    try:
        while (item := ready.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        try:                    # a reader waiting to hand over a chunk no one wants: let it end
            ready.get_nowait()
        except queue.Empty:
            pass


def _count(repo: Repo, revs: list[str]) -> int:
    return int(repo.out("rev-list", "--count", *revs, "--").strip() or 0)
