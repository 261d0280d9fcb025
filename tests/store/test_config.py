import pytest

from souveraine.errors import ConfigError
from souveraine.store import config
from souveraine.store.memory import Memory

MINIMAL = """
[project]
id = "x"
[subconscious]
n1_enabled = false
inbox_enabled = false
[reflection]
enabled = false
[archivist]
enabled = false
"""


def test_every_key_has_a_default():
    data = config.defaults()
    assert data["reflection"]["message_interval"] == 25
    assert data["schedule"]["digest"] == "0 9 * * 1"
    assert data["models"] == {}


def test_the_template_is_the_full_mode(memory):
    cfg = memory.config
    assert cfg["subconscious"]["n1_enabled"] is True
    assert cfg.model()["context_limit"] == 200000


def test_minimal_mode_loads(tmp_path):
    path = tmp_path / "souveraine.toml"
    path.write_text(MINIMAL)
    cfg = config.load(path)
    assert cfg["subconscious"]["n1_enabled"] is False
    assert cfg["archivist"]["threshold"] == 0.7


@pytest.mark.parametrize("text, expected", [
    ("[reflection]\nmessage_interval = 'often'\n", "'reflection.message_interval' must be an integer, not a string ('often')"),
    ("[reflection]\nevery = 3\n", "unknown key 'every' in [reflection]"),
    ("[nonsense]\na = 1\n", "unknown section [nonsense]"),
    ("[subconscious]\nn1_enabled = 1\n", "'subconscious.n1_enabled' must be true/false"),
    ("[models.small]\ncontext_limit = 'big'\n", "'models.small.context_limit' must be an integer"),
    ("[privacy]\nnever_share = [1]\n", "'privacy.never_share' must be a list of strings"),
    ("[project\n", "not valid TOML"),
])
def test_config_errors_name_file_and_key(tmp_path, text, expected):
    path = tmp_path / "souveraine.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        config.load(path)
    assert str(path) in str(err.value)
    assert expected in str(err.value)
    assert "\n" not in str(err.value)


def test_bad_config_exits_3_with_one_line(memory, invoke):
    (memory.root / "souveraine.toml").write_text("[reflection]\nmessage_interval = 'x'\n")
    result = invoke("status")
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1
    assert "message_interval" in result.stderr


def test_integers_are_accepted_where_numbers_are_expected(tmp_path):
    path = tmp_path / "souveraine.toml"
    path.write_text("[models.m]\narchivist_threshold = 1\n")
    assert config.load(path).model("m")["archivist_threshold"] == 1.0


def test_unknown_model_is_named(memory):
    with pytest.raises(ConfigError, match=r"no model 'gpt' .* add a \[models.gpt\] table"):
        memory.config.model("gpt")


def test_memory_found_by_walking_up(memory, tmp_path, monkeypatch):
    deep = memory.root / "people" / "x"
    deep.mkdir()
    assert Memory.find(cwd=deep).root == memory.root
    monkeypatch.setenv("SOUVERAINE_MEMORY", str(memory.root))
    assert Memory.find(cwd=tmp_path).root == memory.root


def test_not_a_memory_exits_3(tmp_path, runner):
    from souveraine.cli import cli

    result = runner.invoke(cli, ["--memory", str(tmp_path), "status"])
    assert result.exit_code == 3
    assert "is not a memory" in result.stderr and "souveraine init" in result.stderr


def test_json_errors_are_json(tmp_path, runner):
    import json

    from souveraine.cli import cli

    result = runner.invoke(cli, ["--memory", str(tmp_path), "status", "--json"])
    assert json.loads(result.stdout) == {"ok": False, "error": "not_a_memory", "message": result.stderr.split(": ", 1)[1].strip()}
