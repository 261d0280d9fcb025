"""verify's record and the witness: the standing is re-checked whenever the witness's files move."""

import pytest

from souveraine.laws import verified
from souveraine.laws import verify as module
from tests.identity.conftest import request, sign_as
from tests.support import git


@pytest.fixture
def witnessed(covenanted, tmp_path):
    """ada with one memory witnessed by bea, verified once (so on record)."""
    ada, bea = covenanted
    memory_id = ada.remember("Witnessed once.", "--identity", "ada")
    attestation = sign_as(bea, tmp_path, memory_id, "foundational", request(ada, memory_id, "foundational")["content_sha256"])
    ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(attestation))
    report = module.verify(ada.memory)
    assert (report.breaches, report.witnessed) == ([], 1)
    assert verified.load(ada.root).commit == ada.head()
    return ada


def test_a_covenant_deleted_behind_the_hooks_is_found_by_the_routine_verify(witnessed):
    ada = witnessed
    git(ada.root, "rm", "-q", "covenants/bea.md")
    git(ada.root, "commit", "-q", "--no-verify", "-m", "chore(covenant): tidy")
    report = module.verify(ada.memory)
    assert report.judged == 1
    assert {b.rule for b in report.breaches} == {"covenant", "witness"}
    assert {b.commit for b in report.breaches if b.rule == "witness"} == {ada.head()}
    assert [b.to_dict() for b in module.verify(ada.memory).breaches] == [b.to_dict() for b in report.breaches]


def test_a_plain_new_memory_leaves_the_witness_on_record(witnessed, monkeypatch):
    ada = witnessed
    (ada.root / "memories" / "2026-12-01-by-hand.md").write_text("---\ntier: episodic\ndescription: by hand\n---\nBy hand.\n")
    git(ada.root, "add", "-A")
    git(ada.root, "commit", "-q", "-m", "feat(memory): by hand")
    monkeypatch.setattr(module, "at", lambda *a, **k: pytest.fail("the witness was re-checked"))
    report = module.verify(ada.memory)
    assert (report.judged, report.breaches, report.witnessed) == (1, [], 1)
