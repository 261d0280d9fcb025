"""Each exchange a hook delivers is persisted once, by the id its source gave it.

Claude Code may fire Stop again for the same prompt (a retry, a hook that blocked, the same
hook wired in two settings files), with or without ``last_assistant_message``; Codex names
its turns; Gemini's AfterAgent names nothing, so its prompt and answer stand for an id.
``persist_once`` takes a lock of its own, looks the id up in ``.souveraine/receipts.json``,
and persists only an exchange it has not seen; the id is written once persist holds the
exchange safe. When the lock cannot be had, the exchange is persisted anyway: twice is
better than lost. The receipts are a cache: the newest 2,000 are kept, and losing them
loses only the memory of which hooks already fired.
"""

import json
from contextlib import ExitStack

from souveraine.errors import LockTimeout
from souveraine.store import clock, lock
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

FILE = "receipts.json"
LIMIT = 2000


def persist_once(memory: Memory, exchange, **options):
    """``persist`` the exchange unless one with its id already was; then ``duplicate`` is true."""
    from souveraine.tempos import persist

    if not exchange.id:
        return persist.persist(memory, exchange, **options)
    with ExitStack() as guard:
        try:
            guard.enter_context(lock.locked(memory.cache / "receipts.lock", timeout=30, what="the hook receipts"))
        except LockTimeout:
            return persist.persist(memory, exchange, **options)
        seen = load(memory)
        if exchange.id in seen:
            return persist.PersistResult(duplicate=True)
        result = persist.persist(memory, exchange, **options)
        seen[exchange.id] = clock.now().isoformat()
        _save(memory, seen)
        return result


def load(memory: Memory) -> dict[str, str]:
    try:
        data = json.loads((memory.cache / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def _save(memory: Memory, seen: dict[str, str]) -> None:
    newest = dict(list(seen.items())[-LIMIT:])
    atomic_write(memory.cache / FILE, json.dumps(newest, indent=0) + "\n")
