"""Parties for the witness: each a real memory made by init, with its own key folder."""

import json
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from souveraine.identity import covenants, keys
from souveraine.store.memory import Memory
from tests.support import assert_clean, git


OUTSIDER = keys.Keypair(bytes(range(32)))


@dataclass
class Party:
    """One project: a memory, and the user config folder where its private keys live."""

    memory: Memory
    config: Path

    @property
    def root(self) -> Path:
        return self.memory.root

    def run(self, *args, input=None, code=0, clean=True):
        """Run a command as this party; assert its exit code, and a clean git status after it."""
        from souveraine.cli import cli

        result = CliRunner().invoke(cli, ["--memory", str(self.root), *args], input=input,
                                    env={"XDG_CONFIG_HOME": str(self.config)}, catch_exceptions=False)
        assert code is None or result.exit_code == code, (result.stdout, result.stderr)
        if clean:
            assert_clean(self.root)
        return result

    def json(self, *args, input=None):
        return json.loads(self.run(*args, "--json", input=input).stdout)

    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def remember(self, text: str, *extra) -> str:
        return self.run("remember", text, *extra).stdout.strip()


def make_party(tmp_path: Path, monkeypatch, name: str, handle: str) -> Party:
    from souveraine.bootstrap import init

    config = tmp_path / f"{name}-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    root = init(tmp_path / name, identity=handle).root
    return Party(Memory(root), config)


@pytest.fixture(scope="session")
def templates(tmp_path_factory):
    """ada's and bea's projects made once per session (init is the slow part); tests get copies."""
    base = tmp_path_factory.mktemp("parties")
    home = base / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.org\n")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("HOME", home), ("GIT_CONFIG_GLOBAL", home / ".gitconfig"), ("GIT_CONFIG_NOSYSTEM", "1")):
            patch.setenv(name, str(value))
        ada = make_party(base, patch, "a", "ada")
        bea = make_party(base, patch, "b", "bea")
        card = base / "bea.card.json"
        card.write_text(bea.run("identity", "export", clean=False).stdout)
        shutil.copytree(ada.root, base / "a-cov", symlinks=True)
        Party(Memory(base / "a-cov"), ada.config).run("covenant", "add", "--card", str(card))
        shutil.copytree(ada.root, base / "a-wit", symlinks=True)
        covenants.add(Memory(base / "a-wit"), did=OUTSIDER.did, keys={OUTSIDER.key_id: OUTSIDER.public},
                      project_id=str(uuid.uuid4()), handle="wit")
    return base


def copy_party(templates: Path, tmp_path: Path, source: str, name: str, config: Path | None = None) -> Party:
    """A copy of a template project and its key folder (hooks reinstalled: they name their folder)."""
    from souveraine.laws import install

    root = shutil.copytree(templates / source, tmp_path / name, symlinks=True)
    config = shutil.copytree(templates / f"{source[0]}-config", config or tmp_path / f"{name}-config", dirs_exist_ok=True)
    install.install(root)
    return Party(Memory(root), config)


@pytest.fixture
def memory(templates, tmp_path, isolated, request):
    """The suite's fresh memory with identity ada (a copy of one made by init); her key in the test's home.

    A test that also asks for ``outsider`` gets the copy that has a covenant ('wit') with it.
    """
    source = "a-wit" if "outsider" in request.fixturenames else "a"
    return copy_party(templates, tmp_path, source, "memory", isolated / ".config").memory


@pytest.fixture
def outsider():
    """A witness of another project (no memory of its own here), in covenant 'wit' with ``memory``."""
    return OUTSIDER


@pytest.fixture
def ada(templates, tmp_path, monkeypatch):
    """The subject: project A, identity ada; the process's key folder is hers."""
    party = copy_party(templates, tmp_path, "a", "a")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(party.config))
    return party


@pytest.fixture
def bea(templates, tmp_path):
    """The witness: project B, identity bea, with her own key folder."""
    return copy_party(templates, tmp_path, "b", "b")


@pytest.fixture
def covenanted(templates, tmp_path, monkeypatch, bea):
    """ada (with a covenant with bea, entered from bea's card) and bea."""
    ada = copy_party(templates, tmp_path, "a-cov", "a")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(ada.config))
    return ada, bea


def sign_as(party: Party, tmp_path: Path, memory_id: str, tier: str, content_sha256: str, *extra) -> Path:
    """The witness signs in its own memory; returns the attestation file."""
    out = party.run("witness", "sign", "--memory-id", memory_id, "--tier", tier,
                    "--content-sha256", content_sha256, *extra).stdout
    path = tmp_path / f"att-{uuid.uuid4().hex[:8]}.json"
    path.write_text(out)
    return path


def request(party: Party, memory_id: str, tier: str) -> dict:
    """What the subject sends its witness: the output of attest-bytes --json."""
    return party.json("attest-bytes", memory_id, "--tier", tier)
