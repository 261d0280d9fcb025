"""Patterns written in the source are compiled once per machine: their programs are kept in the
user's cache, read back by later processes, and never trusted over re's own compile when new."""

import os
import re
import subprocess
import sys

from souveraine.language import patterns

SOURCES = [(r"(?P<who>[A-Z]\w+) (?:said|says) (\d+)", 0), (r"^- \[(\d{4}-\d\d-\d\d)\]", re.M),
           (r"\bcafé\b", re.I), (rb"\A---[ \t]*\r?\n", 0), (r"[\x00-\x09\x0b-\x1f\u2028\ud800-\udfff]", 0)]
SCRIPT = f"""
import re, sys
from souveraine.language import patterns
found = sum(key in patterns._programs() for key in {SOURCES!r})
for source, flags in {SOURCES!r}:
    compiled = patterns.compile(source, flags)
    assert compiled == re.compile(source, flags) and compiled.groupindex == re.compile(source, flags).groupindex
assert patterns.compile(r"(?P<who>[A-Z]\\w+) (?:said|says) (\\d+)").search("then Inês said 42")["who"] == "Inês"
print(found)
"""


def _run(cache) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _file(cache):
    (found,) = (cache / "souveraine").iterdir()
    return found


def test_a_pattern_compiled_once_is_read_back_by_the_next_process_and_is_re_s_own(tmp_path):
    assert _run(tmp_path) == "0"          # the first process compiles them, and keeps them at exit
    kept = _file(tmp_path)
    assert kept.name.startswith(f"patterns-{sys.implementation.cache_tag}-")
    written = kept.stat().st_mtime_ns
    assert _run(tmp_path) == str(len(SOURCES))     # the next finds them all, and writes nothing
    assert kept.stat().st_mtime_ns == written


def test_a_damaged_or_foreign_cache_is_compiled_again_as_if_absent(tmp_path):
    _run(tmp_path)
    kept = _file(tmp_path)
    for damage in (b"", b"\x00garbage", kept.read_bytes()[:100]):
        kept.write_bytes(damage)
        assert _run(tmp_path) == "0"
        assert _run(tmp_path) == str(len(SOURCES))


def test_in_process_a_hit_is_equal_to_re_compile(monkeypatch):
    monkeypatch.setattr(patterns, "_cache", {})
    monkeypatch.setattr(patterns, "_added", True)     # no save at exit from the test process
    for source, flags in SOURCES:
        first = patterns.compile(source, flags)
        assert (source, flags) in patterns._cache
        again = patterns.compile(source, flags)
        assert first == again == re.compile(source, flags) and again is not first
    monkeypatch.setitem(patterns._cache, ("x+", 0), ("not", "a", "program"))
    assert patterns.compile("x+") == re.compile("x+")     # an entry _sre refuses is compiled again
