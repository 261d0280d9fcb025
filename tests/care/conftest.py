"""A deliberately degraded memory: one planted problem for each of doctor's checks."""

from pathlib import Path

import pytest

from tests.support import copy_memory, git, isolated_session

UNRELATED = {
    "Sourdough": "Feed the starter flour and water, fold the dough, bake in a covered pot.",
    "Taxes": "The accountant files quarterly returns; receipts go in the shoebox.",
    "Bicycle": "Chain lubrication every month; tyre pressure sixty psi; brake pads worn.",
    "Garden": "Tomatoes planted along the fence; basil beside them; compost turned weekly.",
    "Astronomy": "Jupiter rises early in winter; telescope collimation before viewing.",
    "Music": "Practising scales on piano; Chopin nocturne memorised halfway through.",
    "Plumbing": "Kitchen faucet washer replaced; shutoff valve under sink sticks.",
    "Travel": "Passport renewal due; train tickets booked through Lyon station.",
    "Chess": "Sicilian defence opening lines; endgame rook technique studied.",
    "Languages": "Spanish vocabulary flashcards reviewed; subjunctive mood practised.",
}

PLANTED = {
    "domains/broken.md": "---\ndescription: [never closed\ntags: x\n---\n# Broken\n\nText.\n",
    "domains/cooking.md": ("---\ntags:\n  - cooking\n---\n# Cooking\n\nWhat I cook on weekdays, simply. See [[nowhere]],\n"
                           "[[notes]], [[cooking#No such heading]] and [[people/old/bob|Bob]].\n"),
    "domains/notes.md": "---\ndescription: Notes on domains.\n---\n# Notes\n\nSee [[cooking]] and [[everything]].\n",
    "reference/notes.md": "---\ndescription: Notes for reference.\n---\n# Notes\n\nSee [[huge]].\n",
    "domains/everything.md": "---\ndescription: Everything at once.\n---\n# Everything\n\n"
                             + "".join(f"## {title}\n\n{text}\n\n" for title, text in UNRELATED.items()),
    "reference/huge.md": "---\ndescription: A large note.\n---\n# Huge\n\n" + ("A paragraph that goes on and on.\n\n" * 900),
    "people/old/bob.md": "---\ndescription: Bob, the neighbour.\n---\n# Bob\n\nBob lends tools.\n",
    "people/carol.md": "---\ndescription: Carol, a colleague.\n---\n# Carol\n\nCarol reviews the drafts.\n",
    "people.md": "---\ndescription: Everyone.\n---\n# People\n\n## Dave\n\nDave plays chess.\n\n## Erin\n\nErin bakes.\n",
    "system/synthesized/essence.md": "---\ndescription: The essence so far.\nthrough: 2026-01-01\n---\n# Essence\n\nCalm.\n",
    "journal/2026/03/2026-03-01.md": ("---\ntype: journal\ndate: 2026-03-01\ndescription: What was said on 1 March 2026.\n---\n"
                                      "# Sunday 1 March 2026\n\n## 09:00:00 · user\n\nHello.\n\n^t090000u1234\n"),
}


def degrade(root: Path) -> None:
    """Plant every problem doctor looks for, committed (by hand, as a person would) without the hooks."""
    for rel, text in PLANTED.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    with (root / "system/human/prefs/communication.md").open("a") as f:
        f.write("\n- 2026-11-30 14:32 user said hello\n- 2026-11-30 14:33 assistant answered\n- 2026-11-30 14:40 user left\n")
    with (root / "system/project/conventions.md").open("a") as f:
        f.write("\n## Workflow\n\n1. ORIENT: read the state.\n2. DEVELOP: always run the tests.\n")
    with (root / "souveraine.toml").open("a") as f:
        f.write("\n[doctor]\nsystem_token_budget = 500\n")
    git(root, "add", "-A")
    git(root, "rm", "-rq", ".skills/souveraine")
    git(root, "commit", "-q", "--no-verify", "-m", "docs: notes written by hand")
    git(root, "mv", "people/old/bob.md", "people/bob.md")
    git(root, "commit", "-q", "--no-verify", "-m", "refactor: bob moves up")
    hooks = Path(git(root, "rev-parse", "--absolute-git-dir").strip()) / "hooks"
    (hooks / "commit-msg").unlink()


@pytest.fixture(scope="session")
def degraded_template(tmp_path_factory, memory_template):
    root = tmp_path_factory.mktemp("degraded") / "memory"
    with isolated_session(tmp_path_factory):
        copy_memory(memory_template[0], root)
        degrade(root)
    return root


@pytest.fixture
def degraded(degraded_template, tmp_path):
    return copy_memory(degraded_template, tmp_path / "degraded")


@pytest.fixture(scope="session")
def degraded_findings(degraded_template):
    """doctor's findings on the degraded memory, audited once for read-only tests."""
    from souveraine.care import doctor
    from souveraine.store.memory import Memory

    return doctor.doctor(Memory(degraded_template))
