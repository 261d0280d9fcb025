"""A memory per test, copied from one made by init once: init with its hooks costs a second here."""

import shutil

import pytest

from souveraine.laws import install
from souveraine.store.memory import Memory
from tests.support import git

DAY = "journal/2026/01/2026-01-05.md"
DAY_TEXT = """---
type: journal
date: 2026-01-05
description: What was said and witnessed on Monday 5 January 2026.
tags:
  - journal
---
# Monday 5 January 2026

## 09:00:00 · user · session `s1`

Good morning.

^t090000u1a2b

## 09:00:05 · assistant · session `s1`

Good morning to you.

^t090005a3c4d
"""


@pytest.fixture(scope="session")
def made(tmp_path_factory):
    from souveraine.bootstrap import init

    home = tmp_path_factory.mktemp("made-home")
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.org\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        root = init(tmp_path_factory.mktemp("made") / "memory", identity="ada").root
        with Memory(root).change("chore(journal): a day of turns") as change:
            change.write(DAY, DAY_TEXT)
    return root


@pytest.fixture
def memory(made, tmp_path):
    """A memory made by init, with one journal day (DAY) committed, and its hooks installed."""
    root = tmp_path / "memory"
    shutil.copytree(made, root, symlinks=True)
    install.install(root)
    git(root, "status", "--porcelain")  # the copy's index has other inodes: refresh it once
    return Memory(root)
