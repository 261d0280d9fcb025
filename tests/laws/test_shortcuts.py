"""What a replay does not read still cannot hide a breach.

A replay reads only each changed file's new blob: an old version is proven a prefix by
hashing (Repo.grows), frontmatter inside the proven prefix is not parsed again, and text
is searched for key material on its bytes. Each test commits, without hooks, a breach in
exactly the part one of those shortcuts skips, and the replay must still find it.
"""

import random
import subprocess
import sys

import pytest

from souveraine.laws import frontmatter, history, keys
from souveraine.laws.repo import Repo
from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, write
from tests.support import git

SEED_HEX = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"


def _replayed(root) -> list[tuple[str, str, str]]:
    """(commit subject, path, rule) of every breach a replay of the whole history finds."""
    subjects = dict(line.split(" ", 1) for line in git(root, "log", "--format=%H %s").splitlines())
    _, found = history.judge(Repo(root), ["HEAD"])
    return [(subjects[b.commit], b.path, b.rule) for b in found]


def _commit(root, message) -> None:
    assert commit_all(root, message, "--no-verify").returncode == 0


@pytest.mark.parametrize("change", [
    lambda text: "X" + text[1:] + "\nA later turn.\n",            # same length and more: its first byte changed
    lambda text: text[:-2] + "!\n" + "\nA later turn.\n",         # its last committed byte changed, then grown
    lambda text: text[:-1],                                       # cut by one byte
    lambda text: text.replace("\n", "\r\n") + "\nA later turn.\n",
])
def test_an_append_only_file_rewritten_anywhere_is_caught(memory, change):
    write(memory.root, DAY, change(DAY_TEXT))
    _commit(memory.root, "chore(journal): a later turn")
    assert ("chore(journal): a later turn", DAY, "append_only_rewrite") in _replayed(memory.root)


def test_an_honest_append_over_many_commits_is_not_blamed(memory):
    for n in range(4):
        write(memory.root, DAY, f"\n## 1{n}:00:00 · user · session `s2`\n\nTurn {n}.\n", mode="a")
        _commit(memory.root, f"chore(journal): turn {n}")
    assert _replayed(memory.root) == []


def test_the_breach_is_worded_from_the_old_text_read_only_then(memory):
    write(memory.root, DAY, DAY_TEXT.replace("Good morning to you.", "Hello to you.") + "\nMore.\n")
    _commit(memory.root, "chore(journal): more")
    _, found = history.judge(Repo(memory.root), ["HEAD"])
    assert [b.message for b in found] == [
        f"{DAY}: append-only, but this change changes its committed text at line 18; "
        "restore the committed text and append a correction entry instead"]


def test_a_frontmatter_broken_in_a_file_that_also_grows_is_caught(memory):
    write(memory.root, "people/ana.md", "---\ndescription: Ana\ntags:\n  - person\n---\n# Ana\n")
    _commit(memory.root, "feat(memory): meet ana")
    write(memory.root, "people/ana.md", "---\ndescription: Ana: the sailor\ntags:\n  - person\n---\n# Ana\n\nMore.\n")
    _commit(memory.root, "feat(memory): more about ana")
    assert _replayed(memory.root) == [("feat(memory): more about ana", "people/ana.md", "bad_frontmatter")]


def test_a_block_broken_before_is_not_blamed_for_an_append(memory):
    write(memory.root, "people/bo.md", "---\ntitle: [x\n---\n# Bo\n")
    _commit(memory.root, "feat(memory): meet bo")
    for n in range(2):
        write(memory.root, "people/bo.md", f"\nLine {n}.\n", mode="a")
        _commit(memory.root, f"feat(memory): bo, line {n}")
    assert _replayed(memory.root) == [("feat(memory): meet bo", "people/bo.md", "bad_frontmatter")]


def test_a_block_whose_closing_fence_grows_is_judged_again(memory):
    write(memory.root, "people/cy.md", "---\ndescription: Cy\n---")
    _commit(memory.root, "feat(memory): meet cy")
    write(memory.root, "people/cy.md", "---\ndescription: Cy\n--- x\nk: [x\n---\n# Cy\n")
    _commit(memory.root, "feat(memory): more about cy")
    assert ("feat(memory): more about cy", "people/cy.md", "bad_frontmatter") in _replayed(memory.root)


def test_a_key_appended_to_a_grown_file_is_found_at_its_line(memory):
    write(memory.root, DAY, f"\nfor safekeeping:\nseed = {SEED_HEX}\n", mode="a")
    _commit(memory.root, "chore(journal): a turn")
    _, found = history.judge(Repo(memory.root), ["HEAD"])
    line = DAY_TEXT.count("\n") + 3
    assert [b.message.split(" — ")[0] for b in found] == [f"{DAY}:{line}: an ed25519 key under 'seed'"]


def test_a_key_cut_across_the_old_end_is_found(memory):
    write(memory.root, "notes/n.md", "some text\nseed = " + SEED_HEX[:30])
    _commit(memory.root, "docs(notes): half")
    write(memory.root, "notes/n.md", SEED_HEX[30:] + "\n", mode="a")
    _commit(memory.root, "docs(notes): the rest")
    assert _replayed(memory.root) == [("docs(notes): the rest", "notes/n.md", "private_key")]


def test_a_key_kept_in_a_rewritten_file_is_reported_once(memory):
    write(memory.root, "notes/k.md", f"first\nseed: {SEED_HEX}\n")
    _commit(memory.root, "docs(notes): k")
    write(memory.root, "notes/k.md", f"changed\nseed: {SEED_HEX}\n")
    _commit(memory.root, "docs(notes): k changed")
    assert _replayed(memory.root) == [("docs(notes): k", "notes/k.md", "private_key")]


@pytest.mark.parametrize("name", ["ſeed", "ſecret", "ed25519_sK", "SIGNING_KEY"])
def test_a_key_name_spelled_with_characters_that_fold_to_letters_is_found(memory, name):
    write(memory.root, "notes/odd.md", f"·\n{name}: {SEED_HEX}\n")
    _commit(memory.root, "docs(notes): odd")
    assert _replayed(memory.root) == [("docs(notes): odd", "notes/odd.md", "private_key")]


@pytest.mark.parametrize("name", ["ſeed", "ßecret", "SECREẗ", "ed25519_sK", "private_key", "task", "ask"])
def test_the_byte_screen_finds_what_the_text_search_finds(name):
    text = f"·é\n{name}: {SEED_HEX}\n"
    assert [f.what for f in keys.find(text.encode(), "notes/odd.md")] == [f.what for f in keys._text(text, "notes/odd.md")]


def test_every_character_folding_into_a_trigger_is_screened():
    """The byte screen (keys._maybe) sends a text to the case-folded search whenever one of the
    characters whose folding can spell part of a trigger is there: all of them, for this Python's Unicode."""
    words = (*keys._TRIGGERS, "sk")
    for code in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= code < 0xE000:
            continue
        folded = chr(code).casefold()
        if not any(ord(c) < 128 for c in folded):
            continue
        fits = any(all(w[j] == folded[at + j] for j in range(len(w)) if 0 <= at + j < len(folded))
                   for w in words for at in range(-len(w) + 1, len(folded)))
        if fits:
            assert any(screened in chr(code).encode() for screened in keys._FOLDS_INTO_TRIGGERS), hex(code)


def test_the_byte_screen_never_misses_a_trigger_the_folded_search_sees():
    rng = random.Random(7)
    pieces = ["seed", "SEED", "ſ", "ß", "ẗ", "ẞ", "K", "k", "s", "sk", "_", "-", " ", "a", "·", "é", "secre", "priv",
              "ﬁ", "İ", "signing", "\n", "b3BlbnNzaC1rZXktdjE", "e", "d", "ask"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        if keys._triggered(text):
            assert keys._maybe(text.encode()), text


def test_the_simple_frontmatter_reading_accepts_only_what_the_flat_read_accepts():
    from tests.laws.test_frontmatter import MEMORY_BLOCK, TRICKY

    assert frontmatter.simple(MEMORY_BLOCK.encode())
    rng = random.Random(3)
    pieces = ["k", "key", ":", " ", "  ", "- ", "  - ", "'", "''", '"', "\\", "#", " #", "[]", "[", "{", "!", "&", "*",
              "a", "é", "\t", "\x07", "\u2028", "\ufeff", "\n", "x: y", "-", "?", "%", "@", "`", "|", ">", ",", "tier"]
    blocks = [b.encode() for b in TRICKY]
    for _ in range(30000):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(0, 4))]
        blocks.append(("---\n" + "\n".join(lines) + "\n---\n").encode())
    accepted = [b for b in blocks if frontmatter.simple(b)]
    assert all(frontmatter._flat(b) for b in accepted), [b for b in accepted if not frontmatter._flat(b)][:3]
    assert len(accepted) > 100


def test_the_line_by_line_fence_finds_what_the_character_by_character_one_found():
    import re

    before = re.compile(rb"\A(?:\xef\xbb\xbf)?---[ \t]*\r?\n(.*?\n)??-{3,}[ \t]*(?:\r?\n|\Z)", re.DOTALL)
    rng = random.Random(5)
    pieces = [b"-", b"---", b"----", b"\n", b"\r\n", b" ", b"\t", b"a", b"k: v", b"\xef\xbb\xbf", b"#"]
    matched = 0
    for _ in range(50000):
        data = b"---" + b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        old, new = before.match(data), frontmatter._BLOCK.match(data)
        assert (old is None) == (new is None), data
        if old:
            matched += 1
            assert (old.group(0), old.group(1) or b"") == (new.group(0), new.group(1) or b""), data
    assert matched > 1000


def test_a_blob_is_proven_a_prefix_by_its_hash_in_either_object_format(tmp_path):
    for form in ("sha1", "sha256"):
        root = tmp_path / form
        subprocess.run(["git", "init", "-q", f"--object-format={form}", str(root)], check=True)
        ids = {}
        for name, data in (("old", b"one\ntwo\n"), ("grown", b"one\ntwo\nthree\n"), ("other", b"one\nTWO\nthree\n"),
                           ("empty", b"")):
            ids[name] = subprocess.run(["git", "-C", str(root), "hash-object", "-w", "--stdin"], input=data,
                                       capture_output=True, check=True).stdout.decode().strip()
        repo = Repo(root)
        repo.read([], [ids["old"], ids["empty"]])
        assert repo.size(ids["old"]) == 8 and ids["old"] not in repo._objects
        assert repo.grows(ids["old"], b"one\ntwo\nthree\n")
        assert repo.grows(ids["old"], b"one\ntwo\n")
        assert not repo.grows(ids["old"], b"one\nTWO\nthree\n")
        assert not repo.grows(ids["old"], b"one\n")
        assert repo.grows(ids["empty"], b"anything")
        assert ids["old"] not in repo._objects   # proven without reading it


def test_a_memory_seen_as_plainly_episodic_is_one_the_witness_rules_pass():
    """witness.plainly_episodic skips integrity.check: only where check would find nothing."""
    from souveraine.identity import integrity
    from souveraine.laws import witness
    from tests.laws.test_frontmatter import MEMORY_BLOCK

    rng = random.Random(11)
    lines = MEMORY_BLOCK.strip("-\n").split("\n")
    extra = ["tier: foundational", "tier: constitutive", "tier: Episodic", "tier: 'episodic'", "tier: episodic # x",
             "attesters:", "  - did:key:z6Mk", "elevated: '2020-01-01'", "tier: [episodic]", "tier: !!str episodic",
             "k: !tag x", "tier: ''", "tier:", "tier: episodic", "x: a: b", "tags: [a, b]"]
    bodies = ["A plain memory.\n", "## Attestations\n\n```json\n{}\n```\n", "Text.\n\n## Attestations\n"]
    passed = 0
    for _ in range(3000):
        chosen = [line for line in lines if not line.startswith("tier") and rng.random() < 0.8]
        chosen[rng.randint(0, len(chosen)):0] = rng.sample(extra, rng.randint(0, 2))
        text = "---\n" + "\n".join(chosen) + "\n---\n" + rng.choice(bodies)
        if witness.plainly_episodic(text.encode()):
            passed += 1
            assert integrity.check("memories/2020/m.md", text, lambda p: None, ()) == [], text
    assert passed > 300


# -- a rewritten file is searched for keys only where it differs from its version before ------


def _windows(monkeypatch) -> list:
    """The windows keys.changed gave during a replay (so a test knows the shortcut was taken)."""
    taken, changed = [], keys.changed
    monkeypatch.setattr(keys, "changed", lambda *a: taken.append(changed(*a)) or taken[-1])
    return taken


def _long_note(n=120) -> str:
    return "---\ndescription: a long note\n---\n" + "".join(f"Line {i}: nothing secret here, only words.\n" for i in range(n))


def test_a_key_written_into_the_middle_of_a_rewritten_file_is_caught(memory, monkeypatch):
    text = _long_note()
    write(memory.root, "notes/long.md", text)
    _commit(memory.root, "docs(notes): long")
    lines = text.split("\n")
    lines[3] = "Line 0 said otherwise."                      # two regions differ: one window from the first to the last
    lines[60:61] = ["kept for later:", f"signing_key: {SEED_HEX}"]
    write(memory.root, "notes/long.md", "\n".join(lines))
    _commit(memory.root, "docs(notes): long, rewritten")
    taken = _windows(monkeypatch)
    _, found = history.judge(Repo(memory.root), ["HEAD"])
    assert [b.message.split(" — ")[0] for b in found] == ["notes/long.md:62: an ed25519 key under 'signing_key'"]
    assert taken and taken[-1] is not None and taken[-1][1] < len(text) - 1000


def test_a_key_whose_name_was_already_there_and_whose_value_changes_is_caught(memory, monkeypatch):
    text = _long_note()
    placeholder = SEED_HEX[:40] + "g" * 24                  # not hex: no key yet
    write(memory.root, "notes/long.md", text + f"seed: {placeholder}\n" + text)
    _commit(memory.root, "docs(notes): a placeholder")
    write(memory.root, "notes/long.md", text + f"seed: {SEED_HEX}\n" + text)   # only its last 24 characters differ
    taken = _windows(monkeypatch)
    _commit(memory.root, "docs(notes): the placeholder filled")
    assert _replayed(memory.root) == [("docs(notes): the placeholder filled", "notes/long.md", "private_key")]
    assert any(taken)


@pytest.mark.parametrize("first", ["", "A new first line.\n"])    # grown, or rewritten
def test_a_key_the_version_before_held_elsewhere_is_not_reported_again(memory, first):
    text = _long_note()
    write(memory.root, "notes/long.md", f"seed: {SEED_HEX}\n" + text)
    _commit(memory.root, "docs(notes): with a key")
    write(memory.root, "notes/long.md", f"{first}seed: {SEED_HEX}\n" + text + f"again, seed: {SEED_HEX}\nmore\n" + text)
    _commit(memory.root, "docs(notes): the same key twice")
    assert _replayed(memory.root) == [("docs(notes): with a key", "notes/long.md", "private_key")]


def test_the_changed_window_finds_what_the_whole_file_finds():
    """keys.new given the version before (the window) against keys.new reading it all, on random edits."""
    rng = random.Random(13)
    import base64

    secret = base64.b64encode(bytes.fromhex(SEED_HEX)).decode()
    pieces = [f"seed: {SEED_HEX}\n", f"private_key = \"{secret}\"\n", "-----BEGIN PRIVATE KEY-----\nMC4CAQAw\n",
              "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n", "b3BlbnNzaC1rZXktdjE\n",
              f"ed25519_sk: 0x{SEED_HEX}\n", "a line of words\n", "ask the task\n", "seed\n", "é ſ ß\n",
              "x" * 300 + "\n", f"{SEED_HEX}\n", "sk: " + "z" * 44 + "\n"]
    windowed = 0
    for _ in range(3000):
        old = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))).encode()
        at, cut = rng.randint(0, len(old)), rng.randint(0, 400)
        new = old[:at] + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))).encode()[:rng.randint(0, 500)] \
            + old[at + cut:]
        whole = keys.new(new, [old], "notes/x.md")
        window = keys.new(new, [old], "notes/x.md", like=old)
        assert [(f.what, f.line, f.value) for f in window] == [(f.what, f.line, f.value) for f in whole], (old, new)
        windowed += keys.changed(old, new, "notes/x.md") is not None
    assert windowed > 600


# -- the laws in force come from the replay's own reading of souveraine.toml -----------------


def test_the_laws_in_force_follow_souveraine_toml_through_the_replay(memory):
    config = memory.root / "souveraine.toml"
    write(memory.root, "ledger/commitments.md", "# Commitments\n\n- one\n")
    _commit(memory.root, "docs(ledger): one")
    config.write_text(config.read_text() + '\n[laws]\nappend_only = ["ledger/commitments.md"]\n')
    _commit(memory.root, "chore(ledger): the ledger is append-only")
    write(memory.root, "ledger/commitments.md", "# Commitments\n\n- ONE\n")
    _commit(memory.root, "docs(ledger): rewritten under the law")
    lifted = config.read_text().replace('append_only = ["ledger/commitments.md"]', "append_only = []")
    config.write_text(lifted)
    write(memory.root, "ledger/commitments.md", "# Commitments\n\n- uno\n")
    _commit(memory.root, "docs(ledger): the law lifted and broken at once")
    write(memory.root, "ledger/commitments.md", "# Commitments\n\n- eins\n")
    _commit(memory.root, "docs(ledger): rewritten once the law is gone")
    expected = [("docs(ledger): rewritten under the law", "ledger/commitments.md", "append_only_rewrite"),
                ("docs(ledger): the law lifted and broken at once", "ledger/commitments.md", "append_only_rewrite")]
    assert _replayed(memory.root) == expected
    for since in ("HEAD~1", "HEAD~2", "HEAD~3"):    # the range's first parent's laws, read by name
        subjects = dict(line.split(" ", 1) for line in git(memory.root, "log", "--format=%H %s").splitlines())
        _, found = history.judge(Repo(memory.root), [f"{since}..HEAD"])
        assert [(subjects[b.commit], b.path, b.rule) for b in found] == [e for e in expected if e[0] in
                                                                        git(memory.root, "log", "--format=%s", f"{since}..HEAD")]


def test_a_replay_judges_alike_without_a_long_lived_cat_file(memory, monkeypatch):
    """Where git cannot keep one `cat-file --batch-command` open (before 2.36), each read starts its own."""
    from souveraine.laws import repo as repo_module

    write(memory.root, DAY, DAY_TEXT.replace("Good morning", "Bad morning") + "\nMore.\n")
    _commit(memory.root, "chore(journal): more")
    write(memory.root, "notes/k.md", f"seed: {SEED_HEX}\n")
    _commit(memory.root, "docs(notes): k")
    kept = _replayed(memory.root)
    monkeypatch.setattr(repo_module._Open, "ask", lambda self, *a: setattr(self, "usable", False))
    assert _replayed(memory.root) == kept and len(kept) == 2


def test_the_printable_classes_spelled_as_a_complement_hold_the_same_characters():
    """frontmatter's classes are written as what is not printable (cheap to compile); they must hold
    exactly the printable ranges store.notes.flat reads, less the characters named."""
    import re

    ranges = [(0x21, 0x7E), (0xA0, 0x2027), (0x202A, 0xD7FF), (0xE000, 0xFEFE), (0xFF00, 0xFFFD), (0x10000, 0x10FFFF)]
    edges = {c + d for lo, hi in ranges for c in (lo, hi) for d in (-1, 0, 1)} | set(range(0x100))
    edges |= set(range(0x100, 0x110000, 997))
    for chars in ("", ":", "#", "'", '"\\', "-?:,[]{}#&*!|>'\"%@`"):
        cls = re.compile(frontmatter._PRINTABLE_NO(chars) if chars else frontmatter._PRINTABLE)
        for code in sorted(edges):
            if 0 <= code <= 0x10FFFF:
                printable = any(lo <= code <= hi for lo, hi in ranges) and chr(code) not in chars
                assert (cls.fullmatch(chr(code)) is not None) == printable, (chars, hex(code))
