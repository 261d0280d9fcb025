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


def test_a_config_is_read_again_whenever_its_text_changes(tmp_path):
    path, cache = tmp_path / "souveraine.toml", tmp_path / "config.json"
    path.write_text(MINIMAL)
    assert config.load(path, cache)["subconscious"]["n1_enabled"] is False
    path.write_text(MINIMAL.replace("n1_enabled = false", "n1_enabled = true "))     # same size, same second
    assert config.load(path, cache)["subconscious"]["n1_enabled"] is True
    path.write_text(MINIMAL.replace("inbox_enabled = false", "inbox_enabled = 'no'"))
    with pytest.raises(ConfigError, match="inbox_enabled"):
        config.load(path, cache)


def test_the_checked_table_is_kept_between_processes_for_the_same_text_only(tmp_path, monkeypatch):
    import json

    path, cache = tmp_path / "souveraine.toml", tmp_path / "config.json"
    path.write_text(MINIMAL)
    config.load(path, cache)
    kept = json.loads(cache.read_text())
    assert kept["text"] == MINIMAL and kept["data"]["archivist"]["threshold"] == 0.7
    kept["data"]["archivist"]["threshold"] = 0.25            # what another process would find there
    cache.write_text(json.dumps(kept))
    monkeypatch.setattr(config, "_loaded", {})
    assert config.load(path, cache)["archivist"]["threshold"] == 0.25
    monkeypatch.setattr(config, "_loaded", {})
    monkeypatch.setattr(config, "_schema_mark", lambda: "another version")
    assert config.load(path, cache)["archivist"]["threshold"] == 0.7      # another schema: read again
    cache.write_text("{not json")
    monkeypatch.setattr(config, "_loaded", {})
    assert config.load(path, cache)["archivist"]["threshold"] == 0.7
    assert json.loads(cache.read_text())["schema"] == "another version"   # and written anew


def test_each_load_is_a_copy_its_caller_may_change(tmp_path):
    path = tmp_path / "souveraine.toml"
    path.write_text(MINIMAL)
    first = config.load(path)
    first["laws"]["append_only"].append("x/")
    first["git"]["lock_timeout"] = 0.1
    second = config.load(path)
    assert "x/" not in second["laws"]["append_only"] and second["git"]["lock_timeout"] != 0.1


def test_a_memory_keeps_its_checked_config_in_its_cache_folder(memory, monkeypatch):
    monkeypatch.setattr(config, "_loaded", {})              # as in a new process
    assert Memory(memory.root).config["project"]["id"]
    assert not (memory.root / ".souveraine" / "config.json").exists()      # no folder made for a cache
    (memory.root / ".souveraine").mkdir(exist_ok=True)
    monkeypatch.setattr(config, "_loaded", {})
    assert Memory(memory.root).config["project"]["id"]
    assert (memory.root / ".souveraine" / "config.json").is_file()
