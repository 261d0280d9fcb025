"""What a command's start imports: the hot paths stay lean (measured in bench/, never timed here)."""

import json
import subprocess
import sys

from tests.support import ROOT, souveraine

# Heavy libraries a command imports only where it uses them.
HEAVY = ("git", "ruamel", "markdown_it", "frontmatter", "yaml", "nacl", "apscheduler", "mcp", "pydantic",
         "anyio", "httpx", "regex", "pysbd")

# Runs the real CLI in this process, then prints the modules it imported, as JSON, on stderr.
RUN_AND_LIST = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
from souveraine.cli import main
main(sys.argv[1:])
"""


def imported(*args, env=None) -> set[str]:
    done = subprocess.run([sys.executable, "-c", RUN_AND_LIST, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def top(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_the_command_line_starts_without_any_heavy_library():
    assert not top(imported("--version")) & set(HEAVY)
    assert not top(imported("--help")) & set(HEAVY)


def test_a_recall_imports_neither_click_nor_a_heavy_library_nor_another_command(memory):
    for user, assistant in (("The deploy key rotated last night", "Rotate the deploy key monthly then"),
                            ("Which key opens the shed?", "The brass key, on the hook")):
        assert souveraine("--memory", str(memory.root), "persist", "--user", user, "--assistant", assistant,
                          "--session", "s1").returncode == 0
    assert souveraine("--memory", str(memory.root), "recall", "anything").returncode == 0   # builds the index
    found = imported("--memory", str(memory.root), "recall", "deploy key", "--json")
    assert "souveraine.recall.search" in found and "sqlite3" in found
    assert "souveraine.recall.diversity" in found       # hits were found and ranked: the whole path ran
    assert not top(found) & {*HEAVY, "click", "typing"}
    assert not top(found) & {"numpy", "tokenizers"}     # by words alone, in its own process: no vectors
    assert not found & {"dataclasses", "inspect"}       # records are plain classes (souveraine/record.py)
    assert not found & {"threading", "gzip", "souveraine.store.conventions"}    # used by writes, the lexicon reads zlib
    assert {m for m in found if m.startswith("souveraine.cli.")} == {"souveraine.cli.lean", "souveraine.cli.hits",
                                                                      "souveraine.cli.now"}
    assert "tomllib" not in found                       # the checked configuration is kept
    assert not {m for m in found if m.startswith(("souveraine.tempos", "souveraine.laws.", "souveraine.identity"))} \
        - {"souveraine.laws.inprocess"}
