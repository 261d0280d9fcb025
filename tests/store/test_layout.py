import pytest

from souveraine.store import layout


@pytest.mark.parametrize("path, append_only", [
    ("journal/2026/11/2026-11-30.md", True),
    ("system/metacognition/subconscious.md", True),
    ("inbox/sent.md", True),
    ("inbox/pending.md", False),
    ("chronicle/ada.md", True),
    ("reference/reports/unit.md", True),
    ("reference/work/unit/develop.md", False),
    ("memories/x.md", False),
    ("journalist.md", False),
])
def test_append_only_regions(path, append_only):
    assert layout.is_append_only(path) is append_only


def test_extra_globs_from_config():
    assert layout.is_append_only("notes/log.md", ["notes/*.md"])
    assert not layout.is_append_only("notes/deep/log.md", ["notes/*.md"])
    assert layout.is_append_only("notes/deep/log.md", ["notes/**"])


def test_weights_follow_the_cloister():
    assert layout.weight("system/persona/identity.md") == layout.PINNED
    assert layout.weight("archive/2025.md") == layout.QUERYABLE
    assert layout.weight("reference/decisions/x.md") == layout.PROGRESSIVE
    assert layout.weight("memories/x.md") == layout.ON_DEMAND
    assert layout.weight("elsewhere.md") is None
