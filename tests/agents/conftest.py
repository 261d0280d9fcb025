"""The agents' tests get copies of one memory made by init per session: init is the slow part."""

import shutil

import pytest


@pytest.fixture(scope="session")
def template(tmp_path_factory):
    from souveraine.bootstrap import init

    base = tmp_path_factory.mktemp("agents-template")
    home = base / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.org\n"
                                     "[init]\n\tdefaultBranch = main\n")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("HOME", home), ("XDG_CONFIG_HOME", home / ".config"),
                            ("GIT_CONFIG_GLOBAL", home / ".gitconfig"), ("GIT_CONFIG_NOSYSTEM", "1")):
            patch.setenv(name, str(value))
        init(base / "memory", identity="ada")
    return base


@pytest.fixture
def memory(template, tmp_path, isolated):
    """A fresh memory with identity ada: a copy of the session's, its hooks installed again (they name their folder)."""
    from souveraine.laws import install
    from souveraine.store.memory import Memory

    root = shutil.copytree(template / "memory", tmp_path / "memory", symlinks=True)
    if (template / "home" / ".config").is_dir():
        shutil.copytree(template / "home" / ".config", isolated / ".config", dirs_exist_ok=True)
    install.install(root)
    return Memory(root)


@pytest.fixture
def witnesses(memory):
    """Two witnesses of other projects (their keys held here, in the test), in covenant with ``memory``."""
    import uuid

    from souveraine.identity import covenants, keys

    pair = [keys.Keypair(bytes(range(32))), keys.Keypair(bytes(range(1, 33)))]
    for handle, witness in zip(("wit", "wit2"), pair):
        covenants.add(memory, did=witness.did, keys={witness.key_id: witness.public},
                      project_id=str(uuid.uuid4()), handle=handle)
    return pair
