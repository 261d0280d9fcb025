"""The warm recall server (`souveraine serve`): real processes, real Unix sockets, real git.

One server is started for the module and asked by the real command line; its answers are
compared with the same command run in its own process, the server out of the way.
"""

import json
import os
import socket
import stat
import subprocess
import sys
import time

import pytest

from souveraine.recall import semantic, server, warm
from tests.recall.conftest import APPRENTICES, age_scan, edit_out_of_sight, journal_turns
from tests.support import ROOT, copy_memory, isolated_session

needs_model = pytest.mark.skipif(not semantic.available(),
                                 reason=f"the sentence encoder is not installed ({semantic.INSTALL})")

TURNS = APPRENTICES


def _environ() -> dict:
    return {k: v for k, v in os.environ.items() if k not in (warm.OFF, "SOUVERAINE_NOW")}


def cli(memory_root, *args, served=True, **env):
    """The real command line in its own process; ``served=False`` keeps it off any server."""
    environ = _environ()
    if not served:
        environ["SOUVERAINE_NO_SERVER"] = "1"
    return subprocess.run([sys.executable, str(ROOT / "bin" / "souveraine"), "--memory", str(memory_root), *args],
                          capture_output=True, text=True, env={**environ, **env}, cwd=ROOT)


def _write(memory, turns) -> None:
    journal_turns(memory, turns)


def _config(memory, line: str) -> None:
    config = memory.root / "souveraine.toml"
    text = config.read_text()
    config.write_text(text.replace("[recall]\n", f"[recall]\n{line}\n") if "[recall]\n" in text
                      else f"{text}\n[recall]\n{line}\n")


def _ping(root):
    return warm.talk(root, {"op": "ping"}, 5)


def _served(root) -> int:
    return _ping(root)["served"]


@pytest.fixture(scope="module")
def warm_memory(memory_template, tmp_path_factory):
    """A memory with a few turns and its server, started as a user's first recall starts it:
    by itself where the sentence encoder is installed ("auto"), else by `serve --background`."""
    with isolated_session(tmp_path_factory):
        memory = copy_memory(memory_template[0], tmp_path_factory.mktemp("served") / "memory",
                             config_from=memory_template[1])
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("SOUVERAINE_NOW", "2026-11-30T12:00:00+00:00")
            _write(memory, TURNS)
        first = cli(memory.root, "recall", "apprentices", "--json")
        assert first.returncode == 0, first.stderr
        if semantic.available():
            deadline = time.monotonic() + 30
            while _ping(memory.root) is None:
                assert time.monotonic() < deadline, "recall started no server in the background"
                time.sleep(0.05)
        else:
            assert warm.read_record(memory.root) is None        # nothing to warm: no server started
            assert cli(memory.root, "serve", "--background").returncode == 0
        try:
            yield memory
        finally:
            server.stop(memory.root)


QUERIES = [
    ["recall", "Which apprentices has Karim trained?", "--json"],
    ["recall", "bank loan", "--limit", "2"],
    ["recall", "croissant", "--context", "1"],
    ["recall", "the oven in August", "--json"],
    ["recall", "--since", "2026-05", "--until", "2026-07", "training"],
    ["recall", "zeppelin"],
]


@pytest.mark.parametrize("args", QUERIES)
def test_the_command_line_through_the_server_answers_as_in_process(warm_memory, args):
    before = _served(warm_memory.root)
    through = cli(warm_memory.root, *args, "--no-semantic")
    assert _served(warm_memory.root) == before + 1, through.stderr        # the server answered it
    alone = cli(warm_memory.root, *args, "--no-semantic", served=False)
    assert (through.returncode, through.stdout, through.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    if "--json" in args:
        assert json.loads(through.stdout)


def test_the_lean_path_asks_the_server_too(warm_memory):
    before = _served(warm_memory.root)
    through = cli(warm_memory.root, "recall", "bank loan", "--json", "--limit", "3")
    assert through.returncode == 0 and _served(warm_memory.root) == before + 1
    assert json.loads(through.stdout)[0]["snippet"].startswith("the «bank» has finally approved the «loan»")


def test_an_agents_tool_call_is_answered_by_the_server_too(warm_memory):
    call = ["tools", "--call", "souveraine_recall"]
    arguments = json.dumps({"query": "croissant dough", "limit": 3, "semantic": False})
    before = _served(warm_memory.root)
    through = subprocess.run([sys.executable, str(ROOT / "bin" / "souveraine"), *call], input=arguments,
                             capture_output=True, text=True, cwd=ROOT,
                             env={**_environ(), "SOUVERAINE_MEMORY": str(warm_memory.root)})
    assert through.returncode == 0 and _served(warm_memory.root) == before + 1, through.stderr
    alone = subprocess.run([sys.executable, str(ROOT / "bin" / "souveraine"), *call], input=arguments,
                           capture_output=True, text=True, cwd=ROOT,
                           env={**_environ(), "SOUVERAINE_MEMORY": str(warm_memory.root), warm.OFF: "1"})
    assert json.loads(through.stdout) == json.loads(alone.stdout) and json.loads(through.stdout)["hits"]


LIST_MODULES = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
from souveraine.cli import main
main(sys.argv[1:])
"""


def test_a_recall_through_the_server_imports_no_model_nor_click(warm_memory):
    before = _served(warm_memory.root)
    done = subprocess.run([sys.executable, "-c", LIST_MODULES, "--memory", str(warm_memory.root), "recall", "van",
                           "--json"], capture_output=True, text=True, cwd=ROOT, env=_environ())
    assert done.returncode == 0 and _served(warm_memory.root) == before + 1
    found = {name.split(".")[0] for name in json.loads(done.stderr.strip().splitlines()[-1])}
    assert "_socket" in found
    assert not found & {"click", "torch", "numpy", "sentence_transformers", "transformers", "git", "typing", "socket"}


@needs_model
def test_with_vectors_the_server_answers_as_in_process(warm_memory, invoke):
    question = ["recall", "Which apprentices has Karim trained?", "--limit", "3", "--json", "--semantic"]
    before = _served(warm_memory.root)
    through = cli(warm_memory.root, *question)
    assert through.returncode == 0 and _served(warm_memory.root) == before + 1
    alone = invoke(*question[:-1], "--semantic", memory_root=warm_memory.root)      # this process, its own model
    assert json.loads(through.stdout) == json.loads(alone.output)
    found = {(h["path"], h["block"]) for h in json.loads(through.stdout)}
    assert len([p for p, _ in found if p.startswith("journal/")]) >= 2


@needs_model
def test_the_server_computes_missing_vectors_ahead(warm_memory):
    deadline = time.monotonic() + 60
    while _ping(warm_memory.root)["vectors"] != "ready" or _ping(warm_memory.root)["filling"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    from souveraine.recall import index

    conn, _ = index.fresh(warm_memory)
    try:
        assert semantic.missing(conn, semantic.location(warm_memory)) == []
    finally:
        conn.close()


def test_a_request_passes_on_only_the_commands_options(warm_memory):
    answer = warm.talk(warm_memory.root, {"op": "recall", "code": warm.code_mark(), "text": "van", "progress": 1})
    assert (answer["ok"], answer["code"]) == (False, "usage") and "progress" in answer["message"]
    assert warm.talk(warm_memory.root, {"op": "recall", "code": warm.code_mark(), "text": "van"})["hits"]


def test_the_socket_is_the_users_alone(warm_memory):
    path = warm.read_record(warm_memory.root)["socket"]
    assert len(path.encode()) < 108
    assert stat.S_ISSOCK(os.lstat(path).st_mode) and stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.lstat(os.path.dirname(path)).st_mode) == 0o700


def test_a_second_server_for_the_same_memory_is_refused(warm_memory):
    done = cli(warm_memory.root, "serve")
    assert done.returncode == 1
    assert done.stderr.startswith("souveraine: a recall server already runs for this memory (pid ")
    assert len(done.stderr.strip().splitlines()) == 1
    status = json.loads(cli(warm_memory.root, "serve", "--status", "--json").stdout)
    assert status["running"] and status["pid"] == warm.read_record(warm_memory.root)["pid"]


@pytest.fixture
def quiet_memory(memory):
    """A memory of its own without sentence vectors (no model to load: its server is quick)."""
    _write(memory, TURNS[:4])
    _config(memory, "semantic = false")
    return memory


def test_a_dead_servers_socket_is_removed_and_recall_runs_itself(quiet_memory):
    root = quiet_memory.root
    path = warm.socket_path(root)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)
    dead.close()                                    # a socket file no one listens on: a server killed
    (root / ".souveraine" / warm.RECORD).write_text(json.dumps({"socket": path, "pid": 999999, "code": "x"}))
    done = cli(root, "recall", "croissant", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)
    assert not os.path.exists(path) and warm.read_record(root) is None
    assert done.stdout == cli(root, "recall", "croissant", "--json", served=False).stdout


def test_idle_it_exits_and_cleans_its_socket(quiet_memory):
    root = quiet_memory.root
    process = subprocess.Popen([sys.executable, str(ROOT / "bin" / "souveraine"), "--memory", str(root), "serve",
                                "--idle", "0.02"], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while _ping(root) is None:
            assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
            time.sleep(0.05)
        path = warm.read_record(root)["socket"]
        assert json.loads(cli(root, "recall", "croissant", "--json").stdout)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert not os.path.exists(path) and warm.read_record(root) is None
    assert "exits after 0.02 minutes" in process.stderr.read()


def test_stop_ends_it_and_without_a_server_status_says_so(quiet_memory):
    root = quiet_memory.root
    assert cli(root, "serve", "--background", "--idle", "5").returncode == 0
    pid = warm.read_record(root)["pid"]
    stopped = cli(root, "serve", "--stop", "--json")
    assert json.loads(stopped.stdout)["stopped"] and warm.read_record(root) is None
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().split()[2] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    status = cli(root, "serve", "--status")
    assert (status.returncode, status.stderr) == (0, "no recall server runs for this memory\n")


def test_a_long_runtime_folder_falls_back_to_a_short_path(tmp_path, monkeypatch):
    deep = tmp_path / ("x" * 120)
    deep.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    path = warm.socket_path(tmp_path)
    assert len(path) <= warm.SOCKET_ROOM and path.endswith(".sock")
    assert path == warm.socket_path(tmp_path)                       # the same memory, the same place


@needs_model
def test_index_vectors_computes_what_is_missing_once(quiet_memory, invoke):
    first = json.loads(invoke("index", "--vectors", "--json", memory_root=quiet_memory.root).output)["vectors"]
    assert first["computed"] >= 4 and first["held"] >= first["computed"]
    _write(quiet_memory, TURNS[4:5])
    again = json.loads(invoke("index", "--vectors", "--json", memory_root=quiet_memory.root).output)["vectors"]
    assert again["computed"] == 1 and again["held"] == first["held"] + 1


def test_the_server_scans_the_work_tree_before_a_query_would(quiet_memory):
    root = quiet_memory.root
    path = edit_out_of_sight(quiet_memory)
    assert cli(root, "serve", "--background", "--idle", "5").returncode == 0
    try:
        age_scan(root, 10)                  # a query would scan in 10 s; the server's lead is longer
        assert _ping(root)["scans"] == 0
        deadline = time.monotonic() + 20
        while _ping(root)["scans"] == 0:    # a request wakes it to look again
            assert time.monotonic() < deadline, "the server did not scan ahead"
            time.sleep(0.05)
        from souveraine.recall import index

        assert index.scan_due(quiet_memory) > index.SCAN_SECONDS - 60, "scanned just now, not by a query"
        before = _served(root)
        through = cli(root, "recall", "zeppelin", "--json")
        assert _served(root) == before + 1
        assert [hit["path"] for hit in json.loads(through.stdout)] == [path]
        assert through.stdout == cli(root, "recall", "zeppelin", "--json", served=False).stdout
    finally:
        server.stop(root)
