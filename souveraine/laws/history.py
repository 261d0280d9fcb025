"""A run of commits judged by the laws: what `verify` and the remote's guard both replay.

The commits come in chunks; while one chunk is judged, git lists the next one's changes and
reads its blobs in another thread (git runs in its own process, so on two cores the replay
costs about the larger of git's share and the judging, not their sum).
"""

import queue
import threading
from collections.abc import Callable, Iterator

from souveraine.laws import appendonly, rules
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo
from souveraine.laws.snapshot import Snapshot, commits

CHUNK = 200     # commits read at once: a small first wait, two chunks' blobs in memory at most


def judge(repo: Repo, revs: list[str], progress: Callable[[int, int], None] | None = None) -> tuple[int, list[Breach]]:
    """(commits judged, breaches) for the commits ``revs`` select (`git log` arguments), oldest first."""
    total = _count(repo, revs) if progress else 0
    done, found = 0, []
    with repo.kept_open():
        for chunk, configs in _read_ahead(repo, revs):
            for snapshot, config in zip(chunk, configs):
                found += rules.judge(snapshot, extra=appendonly.globs(snapshot.repo.blob(config)) if config else ())
            done += len(chunk)
            if progress:
                progress(done, total)
    return done, found


def _read_ahead(repo: Repo, revs: list[str]) -> Iterator[tuple[list[Snapshot], list[str | None]]]:
    """The chunks of snapshots with their blobs read, and where each one's laws are (``_Configs``),
    the next chunk read while this one is judged."""
    ready: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    configs = _Configs()

    def read() -> None:
        try:
            for chunk in commits(repo, revs, chunk=CHUNK):
                names = [configs.of(snapshot) for snapshot in chunk]
                rules.prefetch(chunk, [n for n in names if n])
                ready.put((chunk, names))
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


class _Configs:
    """The souveraine.toml in force for each commit of a replay (its first parent's), named by
    its blob id when the replay saw it: followed through each commit's own changes, so the
    file is read once per version instead of once per commit; else by ``parent:souveraine.toml``."""

    def __init__(self):
        self._after: dict[str, str | None] = {}     # commit -> its souveraine.toml's blob (None: none)

    def of(self, snapshot: Snapshot) -> str | None:
        parent = snapshot.parents[0] if snapshot.parents else None
        if parent is None:
            before = None
        elif parent in self._after:
            before = self._after[parent]
        else:
            before = rules.config_name(snapshot)
        after = before
        for entry in snapshot.diffs[0] if snapshot.diffs else ():
            if entry.path == rules.CONFIG:
                after = entry.new
        if snapshot.commit:
            self._after[snapshot.commit] = after
        return before


def _count(repo: Repo, revs: list[str]) -> int:
    return int(repo.out("rev-list", "--count", *revs, "--").strip() or 0)
