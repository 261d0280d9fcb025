"""Bad input, generated: every case gets one line naming what is wrong, a non-zero exit, no
traceback, nothing written outside the memory, and nothing already stored lost.

The kinds are the ones a fuzzer found: JSON nested deep, lone surrogates, invalid UTF-8
on stdin, zero or non-finite config numbers, folders given as files, links out of the
memory and loops, unbounded files, and text shaped like the journal's own headings.
Seeded, so a failure names a case that can be run again; more than 500 cases in all.
"""

import hashlib
import json
import os
import random
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from souveraine.store import journal
from tests.support import git

SEED = 16
SENTINEL = "root:x:0:0:sentinel-outside-the-memory"


def run(memory, *args, input=None):
    from souveraine.cli import cli

    return CliRunner().invoke(cli, ["--memory", str(memory.root), *args], input=input)


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (links not followed) and its bytes' hash."""
    out = {}
    for base, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            path = Path(base, name)
            rel = path.relative_to(folder).as_posix()
            out[rel] = ("link:" + os.readlink(path)) if path.is_symlink() else hashlib.sha1(path.read_bytes()).hexdigest()
    return out


class Cases:
    """Run cases against one memory; collect every failure with the case that made it."""

    def __init__(self, memory, outside: Path):
        self.memory, self.outside = memory, outside
        self.failures: list[str] = []
        self.count = 0
        self.head = git(memory.root, "rev-parse", "HEAD")
        self.turns = self._turns()
        self.before_outside = fingerprint(outside)

    def _spooled(self) -> int:
        folder = self.memory.root / ".souveraine" / "spool"
        return len(os.listdir(folder)) if folder.is_dir() and not folder.is_symlink() else 0

    def _turns(self) -> list[tuple[str, str]]:
        return [(t.role, t.text) for t in journal.turns(self.memory.root)]

    def refused(self, name: str, *args, input=None, code: int | None = None, committed: bool = False) -> None:
        """The command must fail in one line, without a traceback, writing nothing."""
        self.count += 1
        spooled = self._spooled()
        done = run(self.memory, *args, input=input)
        problems = self._problems(done)
        if done.exit_code == 0 or (code is not None and done.exit_code != code):
            problems.append(f"exit {done.exit_code}")
        if not committed and git(self.memory.root, "rev-parse", "HEAD") != self.head:
            problems.append("a commit was made")
        if self._spooled() != spooled:
            problems.append("the spool changed")
        if problems:
            self.failures.append(f"{name}: {'; '.join(problems)}: {done.output[-300:]!r}")

    def quiet(self, name: str, *args, input=None) -> str:
        """A reading command must not crash nor show what lies outside the memory."""
        self.count += 1
        done = run(self.memory, *args, input=input)
        problems = self._problems(done, lines=None)
        if done.exit_code not in (0, 1):
            problems.append(f"exit {done.exit_code}")
        if problems:
            self.failures.append(f"{name}: {'; '.join(problems)}: {done.output[-300:]!r}")
        return done.output

    def _problems(self, done, lines: int | None = 1) -> list[str]:
        problems = []
        if "Traceback" in done.output or "unexpected" in done.stderr:
            problems.append("a traceback or an unexpected error")
        if done.exception is not None and not isinstance(done.exception, SystemExit):
            problems.append(f"raised {type(done.exception).__name__}")
        if SENTINEL in done.output:
            problems.append("read a file outside the memory")
        if lines is not None and done.exit_code != 0 and len(done.stderr.strip().splitlines()) != lines:
            problems.append(f"{len(done.stderr.strip().splitlines())} lines on stderr")
        return problems

    def check(self, at_least: int) -> None:
        if fingerprint(self.outside) != self.before_outside:
            self.failures.append("something was written outside the memory")
        kept = self._turns()
        if kept[:len(self.turns)] != self.turns:
            self.failures.append("a turn already stored was lost")
        assert not self.failures, "\n".join(self.failures[:20]) + f"\n({len(self.failures)} of {self.count} cases)"
        assert self.count >= at_least


@pytest.fixture
def cases(memory, tmp_path, invoke):
    assert invoke("persist", "--user", "Olá, Inês — what did Tomás say?", "--assistant", "That he'd come Friday.").exit_code == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(SENTINEL + "\n")
    return Cases(memory, outside)


# -- generators -------------------------------------------------------------------------------

def deep_json(rng: random.Random) -> str:
    depth = rng.choice([1_000, 5_000, 20_000, 100_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}"), ('[{"x":', "}]")])
    inner = opener * depth + "1" + closer * depth
    where = rng.choice(["alone", "tool_calls", "user", "extra"])
    if where == "alone":
        return inner
    if where == "tool_calls":
        return json.dumps({"user": "hi", "assistant": "ok"})[:-1] + f', "tool_calls": [{inner}]}}'
    if where == "user":
        return '{"assistant": "ok", "user": ' + inner + "}"
    return '{"assistant": "ok", "meta": ' + inner + "}"


def surrogate(rng: random.Random) -> str:
    return chr(rng.randint(0xD800, 0xDFFF))


def text_with(rng: random.Random, bad: str) -> str:
    words = rng.choice(["Olá Inês", "Tomás asked about the deploy", "ok", "Привет", "東京で会いましょう", "a\nb\nc"])
    cut = rng.randint(0, len(words))
    return words[:cut] + bad + words[cut:]


BAD_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3", b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\xbc",
            b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80"]


def bad_bytes(rng: random.Random, text: str) -> bytes:
    data = text.encode("utf-8")
    cut = rng.randint(0, len(data))
    return data[:cut] + rng.choice(BAD_UTF8) + data[cut:]


# -- the cases --------------------------------------------------------------------------------

def test_persist_refuses_bad_stdin_and_bad_arguments(cases):
    rng = random.Random(SEED)
    for n in range(40):
        cases.refused(f"deep json {n}", "persist", input=deep_json(rng), code=2)
    for n in range(40):
        field = rng.choice(["user", "assistant", "session"])
        record = {"user": "hi", "assistant": "ok", field: text_with(rng, surrogate(rng))}
        cases.refused(f"surrogate in {field} {n}", "persist", input=json.dumps(record), code=2)
    for n in range(15):
        call = text_with(rng, surrogate(rng)).replace("\n", " ")   # a tool call keeps its first line only
        record = {"user": "hi", "assistant": "ok", "tool_calls": [call]}
        cases.refused(f"surrogate in a tool call {n}", "persist", input=json.dumps(record), code=2)
    for n in range(40):
        text = json.dumps({"user": rng.choice(["Olá", "hi", "Inês"]), "assistant": "ok"}, ensure_ascii=False)
        cases.refused(f"invalid utf-8 {n}", "persist", input=bad_bytes(rng, text), code=2)
    for n in range(30):
        option = rng.choice(["--user", "--assistant", "--session"])
        args = {"--user": "hi", "--assistant": "ok", "--session": None}
        args[option] = text_with(rng, surrogate(rng))
        argv = [x for k, v in args.items() if v is not None for x in (k, v)]
        cases.refused(f"surrogate in {option} {n}", "persist", *argv, code=2)
    broken = ["", "   ", "{", "[]", "null", "42", '"text"', '{"user": "hi"}', '{"assistant": ""}', '{"assistant": 3}',
              '{"assistant": "ok", "at": "yesterday-ish"}', '{"assistant": "ok", "tool_calls": "ls"}',
              '{"assistant": "ok", "session": "a`b"}', '{"assistant": "ok", "unknown": 1}', '{"assistant": "ok",}',
              '\ufeff{"assistant": "ok"', '{"assistant": "ok", "at": 12}', '{"assistant": ["ok"]}']
    for n, text in enumerate(broken):
        cases.refused(f"broken json {n}", "persist", input=text, code=2)
    cases.check(180)


def test_remember_refuses_bad_text_and_paths_outside_a_file(cases):
    rng = random.Random(SEED + 1)
    for n in range(40):
        cases.refused(f"remember - invalid utf-8 {n}", "remember", "-", input=bad_bytes(rng, "Tomás likes tea"), code=2)
    for n in range(25):
        cases.refused(f"remember surrogate {n}", "remember", text_with(rng, surrogate(rng)), code=2)
    folders = ["system/human", "system/project", "people", "domains", "system/human/prefs"]
    for n in range(50):
        base = rng.choice(folders)
        to = rng.choice([f"{base}/", f"{base}//", f"{base}/.md", f"{base}/.hidden", f"{base}/prefs.md/",
                         f"{base}/prefs.md/x", f"{base}/a.md/b.md", "../outside/x", "/etc/passwd",
                         f"{base}/../../../outside/x", "journal/2026/x", "system/human/prefs/"])
        cases.refused(f"remember --to {to!r} {n}", "remember", "Tomás likes tea", "--to", to)
    for n in range(10):
        cases.refused(f"inbox add surrogate {n}", "inbox", "add", text_with(rng, surrogate(rng)), code=2)
    assert not (cases.memory.root / "system" / "human" / ".md").exists()
    cases.check(120)


def test_config_numbers_that_divide_are_refused_by_name(cases):
    config = cases.memory.root / "souveraine.toml"
    original = config.read_text()
    values = ["0", "-1", "0.0", "-0.5", "nan", "inf", "-inf"]
    for key in ("chars_per_token", "context_limit"):
        for value in values:
            if key == "context_limit" and value in ("0.0", "-0.5", "nan", "inf", "-inf"):
                continue   # an integer key: a float is a type error, refused too
            config.write_text(original + f"\n[models.default]\n{key} = {value}\n")
            for command in (("status",), ("wake",), ("recall", "Tomás"), ("doctor",)):
                cases.refused(f"{key} = {value}: {command[0]}", *command, code=3)
    for value in ("nan", "inf"):
        config.write_text(original.replace("[inference]", f"[inference]\ntimeout = {value}", 1))
        cases.refused(f"timeout = {value}", "status", code=3)
    config.write_text(original)
    cases.check(30)


def test_user_given_files_are_read_bounded(cases, tmp_path):
    memory_id = run(cases.memory, "remember", "Inês keeps her word").output.strip()
    cases.head = git(cases.memory.root, "rev-parse", "HEAD")
    cases.turns = cases._turns()
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 50_000 + "]" * 50_000)
    utf8 = tmp_path / "latin1.json"
    utf8.write_bytes(b'{"attester": "In\xeas"}')
    for source in ("/dev/zero", "/dev/urandom", str(tmp_path), str(tmp_path / "missing.json"), str(deep), str(utf8)):
        cases.refused(f"elevate --attestation {source}", "elevate", memory_id, "--tier", "foundational",
                      "--attestation", source)
        cases.refused(f"witness verify {source}", "witness", "verify", source)
    for source in ("/dev/zero", str(tmp_path)):
        cases.refused(f"covenant add --card {source}", "covenant", "add", "--card", source)
    cases.refused("elevate --attestation - (deep)", "elevate", memory_id, "--tier", "foundational",
                  "--attestation", "-", input="{" * 100_000)
    cases.check(14)


def test_links_out_of_the_memory_and_loops_are_never_followed(cases):
    root, outside = cases.memory.root, cases.outside
    (root / "journal" / "2020" / "01").mkdir(parents=True, exist_ok=True)
    links = {"people/root.md": outside / "passwd", "memories/evil.md": outside / "passwd",
             "system/human/evil.md": outside / "passwd", "journal/2020/01/2020-01-02.md": outside / "passwd",
             "domains/outside": outside, "people/etc": Path("/etc"),
             "domains/x.md": Path("y.md"), "domains/y.md": Path("x.md"), "domains/self": Path("."),
             "system/loop.md": Path("loop.md")}
    for rel, target in links.items():
        os.symlink(target, root / rel)
    cases.before_outside = fingerprint(outside)
    for words in ("root", "sentinel", "outside", "passwd", "Tomás", "x"):
        cases.quiet(f"recall {words}", "recall", words)
        cases.quiet(f"recall {words} --json", "recall", words, "--json")
    for command in (("wake",), ("status",), ("doctor",), ("doctor", "--json"), ("digest",), ("index",), ("surface",),
                    ("inbox", "list"), ("events",), ("why", "x")):
        cases.quiet(" ".join(command), *command)
    found = json.loads(run(cases.memory, "doctor", "--json").output)
    named = {f["path"] for f in (found["findings"] if isinstance(found, dict) else found) if f["check"] == "link-out"}
    assert {"people/root.md", "memories/evil.md", "system/human/evil.md", "journal/2020/01/2020-01-02.md",
            "domains/outside", "people/etc", "domains/x.md", "domains/y.md", "system/loop.md"} <= named
    for rel in ("people/root.md", "system/loop.md", "domains/outside/passwd"):
        cases.refused(f"remember --to {rel}", "remember", "Tomás likes tea", "--to", rel)
    assert run(cases.memory, "persist", "--user", "Still here?", "--assistant", "Yes.").exit_code == 0
    assert [t.text for t in journal.turns(root)][-2:] == ["Still here?", "Yes."]
    cases.check(25)


def test_a_cache_folder_linked_outside_is_refused_by_every_command(cases):
    root, outside = cases.memory.root, cases.outside
    cache = root / ".souveraine"
    if cache.exists():
        shutil.rmtree(cache)
    os.symlink(outside, cache)
    cases.before_outside = fingerprint(outside)
    for command in (("persist", "--user", "hi", "--assistant", "ok"), ("recall", "Tomás"), ("remember", "x y"),
                    ("status",), ("wake",), ("doctor",), ("doctor", "--fix"), ("index",), ("persist", "--flush"),
                    ("inbox", "add", "x")):
        cases.refused(" ".join(command), *command, code=3)
    os.unlink(cache)
    cases.check(10)


# -- text shaped like the journal's own headings ----------------------------------------------

SHAPES = ["## 12:00:00 · assistant", "## 12:00:00 · user · session `x`", "^t120000aabcd", "^t120000u0000-2",
          "\\## 09:15:00 · tool", "\\\\^abc", "## 23:59:59 · reflection", "##12:00:00 · user", "^", "## 1:00:00 · user",
          "# 12:00:00 · user", "  ## 12:00:00 · user", "^not-a-block id"]


def shaped_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 7)):
        parts.append(rng.choice(SHAPES + ["Olá, Inês.", "Tomás said so.", "", "plain words", "\\", "\\\\x"]))
    sep = rng.choice(["\n", "\n\n"])
    return sep.join(parts).strip("\n") or "x"


def test_the_journal_reads_back_exactly_the_turns_given(cases):
    rng = random.Random(SEED + 2)
    at = datetime(2026, 11, 30, 14, 32, 5)
    for n in range(300):     # the format itself, many shapes
        texts = [shaped_text(rng) for _ in range(rng.randint(1, 3))]
        day = journal.header(at.date()) + "".join(
            journal.render(at, "user", text, None, journal.block_id(at, "user", text, None, {str(i)})) for i, text in
            enumerate(texts))
        got = [t.text for t in journal.parse(day, "journal/2026/11/2026-11-30.md")]
        cases.count += 1
        if got != [t.strip("\n") for t in texts]:
            cases.failures.append(f"format case {n}: {texts!r} read back as {got!r}")
    given = []
    for n in range(12):      # and through persist, as an agent would send them
        user, answer = shaped_text(rng), shaped_text(rng)
        given += [user, answer]
        cases.count += 1
        done = run(cases.memory, "persist", "--user", user, "--assistant", answer, "--no-commit")
        if done.exit_code != 0:
            cases.failures.append(f"persist case {n}: exit {done.exit_code}: {done.output!r}")
    assert run(cases.memory, "persist", "--flush").exit_code == 0
    kept = [t.text for t in journal.turns(cases.memory.root)][len(cases.turns):]
    if kept != given:
        cases.failures.append(f"persisted {len(given)} texts, read back {len(kept)}: {kept[:4]!r}")
    cases.check(312)


def test_an_unforeseen_error_is_one_line_and_debug_shows_where(memory, monkeypatch):
    import souveraine.status

    def broken(*args, **kwargs):
        raise KeyError("bandwidth\nsecond line")

    monkeypatch.setattr(souveraine.status, "status", broken)
    done = run(memory, "status")
    assert done.exit_code == 1
    assert done.stderr.startswith("souveraine: unexpected KeyError: ") and done.stderr.count("\n") == 1
    assert "run again with --debug" in done.stderr
    as_json = run(memory, "status", "--json")
    assert json.loads(as_json.stdout)["error"] == "internal"
    with pytest.raises(KeyError):
        from souveraine.cli import cli

        CliRunner().invoke(cli, ["--debug", "--memory", str(memory.root), "status"], catch_exceptions=False)
