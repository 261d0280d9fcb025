"""Durability: concurrent agents, kill -9 at random moments, a model that never answers.

    python bench/crash.py concurrency [--agents 8] [--persists 100] [--recalls 4]
    python bench/crash.py crash [--trials 300] [--seed 1]
    python bench/crash.py slow-model [--runs 5]
    python bench/crash.py all [--json]

Every command is the real binary in its own process, against a memory made by the real
init in a temporary folder. docs/DURABILITY.md reports the figures.
"""

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BIN = [sys.executable, str(ROOT / "bin" / "souveraine")]


# -- a memory to break -------------------------------------------------------------------

def environment(tmp: Path) -> dict:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.org\n[init]\n\tdefaultBranch = main\n")
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}
    for name in ("SOUVERAINE_MEMORY", "SOUVERAINE_NOW", "SOUVERAINE_DEBUG"):
        env.pop(name, None)
    return env


def new_memory(tmp: Path, env: dict, name: str = "memory") -> Path:
    root = tmp / name
    done = subprocess.run([*BIN, "init", str(root), "--identity", "bench"], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"init failed: {done.stderr}")
    return root


def souveraine(root: Path, env: dict, *args: str, input: str | None = None, timeout: float = 600):
    return subprocess.run([*BIN, "--memory", str(root), *args], env=env, capture_output=True, text=True,
                          input=input, timeout=timeout)


def journal_texts(root: Path) -> list[str]:
    from souveraine.store import journal

    return [t.text for t in journal.turns(root)]


# -- concurrency ---------------------------------------------------------------------------

def concurrency(agents: int = 8, persists: int = 100, recalls: int = 4) -> dict:
    """``agents`` processes persist ``persists`` exchanges each while ``recalls`` loops run recall."""
    with tempfile.TemporaryDirectory(prefix="souveraine-concurrency-") as scratch:
        tmp = Path(scratch)
        env = environment(tmp)
        root = new_memory(tmp, env)
        latencies: list[float] = []
        outcomes: dict[str, int] = {"committed": 0, "kept": 0, "failed": 0}
        errors: list[str] = []
        lock = threading.Lock()
        stop = threading.Event()

        def agent(a: int) -> None:
            for k in range(persists):
                start = time.perf_counter()
                done = souveraine(root, env, "persist", "--user", f"agent {a} asks question {k}",
                                  "--assistant", f"agent {a} answers question {k}", "--session", f"agent{a}", "--json")
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed)
                    if done.returncode != 0:
                        outcomes["failed"] += 1
                        errors.append(done.stderr.strip()[-300:])
                    elif json.loads(done.stdout).get("kept"):
                        outcomes["kept"] += 1
                    else:
                        outcomes["committed"] += 1

        def recall(r: int) -> int:
            n = 0
            while not stop.is_set():
                souveraine(root, env, "recall", ["question", "answers", "agent", "asks"][r % 4], "--json")
                n += 1
            return n

        recall_threads = [threading.Thread(target=recall, args=(r,)) for r in range(recalls)]
        agent_threads = [threading.Thread(target=agent, args=(a,)) for a in range(agents)]
        started = time.perf_counter()
        for thread in recall_threads + agent_threads:
            thread.start()
        for thread in agent_threads:
            thread.join()
        wall = time.perf_counter() - started
        stop.set()
        for thread in recall_threads:
            thread.join()
        flushed = souveraine(root, env, "persist", "--flush", "--json")
        texts = journal_texts(root)
        expected = [f"agent {a} asks question {k}" for a in range(agents) for k in range(persists)]
        counts = {text: texts.count(text) for text in expected}
        fsck = subprocess.run(["git", "-C", str(root), "fsck", "--full"], capture_output=True, text=True)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True)
        latencies.sort()
        return {
            "agents": agents, "persists_each": persists, "recall_loops": recalls,
            "turns_kept_once": sum(1 for c in counts.values() if c == 1),
            "turns_expected": len(expected),
            "turns_missing": sum(1 for c in counts.values() if c == 0),
            "turns_twice": sum(1 for c in counts.values() if c > 1),
            "outcomes": outcomes, "flush_exit": flushed.returncode,
            "p50_ms": round(statistics.median(latencies) * 1000),
            "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1] * 1000),
            "max_ms": round(latencies[-1] * 1000),
            "wall_s": round(wall, 1),
            "fsck_ok": fsck.returncode == 0, "clean": status.stdout == "",
            "errors": errors[:3],
        }


# -- the command line ---------------------------------------------------------------------

def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("concurrency", "crash", "slow-model", "all"))
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--persists", type=int, default=100)
    parser.add_argument("--recalls", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    figures = {}
    if options.part in ("concurrency", "all"):
        figures["concurrency"] = concurrency(options.agents, options.persists, options.recalls)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
