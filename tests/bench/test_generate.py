"""The generated memories the benchmarks run on: deterministic, lawful, linked; and bench/run completes."""

import subprocess
import sys

import pytest

from bench import generate
from souveraine.care import links
from souveraine.laws.verify import verify
from souveraine.store.memory import Memory
from tests.support import ROOT, assert_clean, git

SMALL = generate.Shape(days=10, memories_per_day=4, people=12, synthesis_every=4, elevated_per_mille=200)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return generate.build(tmp_path_factory.mktemp("gen") / "memory", SMALL)


def test_one_commit_a_day_after_the_bootstrap_and_the_covenant(small):
    assert git(small.root, "rev-list", "--count", "HEAD").strip() == str(SMALL.days + 2)
    days = git(small.root, "log", "--format=%s", "HEAD").splitlines()
    assert days[0].startswith(f"chore(journal): {SMALL.end}")
    assert days[-2:] == ["feat(covenant): enter covenant with witness", "feat(init): bootstrap memory"]
    assert_clean(small.root)


def test_the_same_seed_gives_the_same_memory_and_history(small, tmp_path):
    again = generate.build(tmp_path / "again", SMALL)
    other = generate.build(tmp_path / "other", generate.Shape(**{**SMALL.__dict__, "seed": 2}))
    assert git(again.root, "rev-parse", "HEAD") == git(small.root, "rev-parse", "HEAD")
    assert git(other.root, "rev-parse", "HEAD^{tree}") != git(small.root, "rev-parse", "HEAD^{tree}")


def test_it_holds_what_a_life_writes(small):
    files = git(small.root, "ls-files").splitlines()
    assert sum(f.startswith("journal/2") for f in files) == SMALL.days
    assert small.stats["memories"] == sum(f.startswith("memories/2") for f in files) > 0
    assert sum(f.startswith("people/") for f in files) == SMALL.people + 1
    assert any(f.startswith("domains/work/") for f in files)
    assert len([f for f in files if f.startswith("system/synthesized/synthesis-")]) == 1
    assert [f for f in files if f.startswith("archive/synthesis-")]
    synthesis = next(f for f in files if f.startswith("system/synthesized/synthesis-"))
    assert f"through: '{SMALL.end}'" in (small.root / synthesis).read_text()


def test_elevated_memories_carry_real_signatures_that_verify(small):
    texts = [p.read_text() for p in (small.root / "memories").rglob("2*.md")]
    assert small.stats["elevated"] == sum("## Attestations" in t for t in texts) > 1
    assert sum("tier: constitutive" in t for t in texts) >= 1
    assert (small.root / "covenants" / "witness.md").exists()


def test_every_commit_passes_verify(small):
    report = verify(Memory(small.root))
    assert report.commits == SMALL.days + 2
    assert report.breaches == []


def test_a_forged_signature_is_a_breach(small, tmp_path):
    import shutil

    root = tmp_path / "forged"
    shutil.copytree(small.root, root)
    elevated = next(p for p in (root / "memories").rglob("2*.md") if "## Attestations" in p.read_text())
    text = elevated.read_text()
    signature = text.split('"signature": "')[1][:8]
    elevated.write_text(text.replace(signature, "AAAAAAAA" if signature != "AAAAAAAA" else "BBBBBBBB"))
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "chore(journal): forged")
    found = verify(Memory(root)).breaches
    assert {b.rule for b in found} == {"witness"}
    assert sum("does not verify for this memory" in b.message for b in found) == 2   # at its commit, and at HEAD


def test_every_wikilink_resolves(small):
    vault = links.Vault.of(small.root)
    found = [(path, link) for path in vault.notes for link in vault.links(path)]
    assert len(found) > 100
    assert [(path, link.raw) for path, link in found if not vault.resolve(link, path).ok] == []


def test_a_cached_memory_costs_nothing_the_second_time(tmp_path):
    shape = generate.Shape(days=2, memories_per_day=1, people=4)
    first = generate.cached(shape, cache=tmp_path)
    (first.root / "marker").write_text("kept")
    second = generate.cached(shape, cache=tmp_path)
    assert second.root == first.root and (second.root / "marker").exists()
    assert second.stats == first.stats


def test_bench_run_quick_completes_and_writes_its_table(tmp_path):
    output = tmp_path / "PERFORMANCE.md"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "run"), "--quick", "--repeat", "1",
                           "--cache", str(tmp_path / "cache"), "--output", str(output)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for path in ("CLI start-up", "hook-checked git commit", "persist per turn", "surface", "full index rebuild",
                 "index update after one turn", "recall query", "verify, whole history", "verify, ten new commits",
                 "doctor", "defrag --dry-run"):
        assert path in done.stdout and path in output.read_text()
