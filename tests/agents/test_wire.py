"""The MCP server's own stdio over pipes: no threads, the wire kept apart from stray output."""

import json
import subprocess
import sys

from tests.support import ROOT

ECHO = """
import anyio, os, sys
sys.path.insert(0, {root!r})
from souveraine.agents import wire

async def main():
    async with wire.pipes() as ends:
        if ends is None:
            print("not pipes", file=sys.stderr)
            return
        lines, sink = ends
        async for line in lines:
            os.system("echo stray; echo stray too >&1")       # a hook's output, as a child writes it
            print("a print", flush=True)
            await sink.write(str(len(line)) + " " + line)
            await sink.flush()
    print("restored", flush=True)           # fd 1 is the wire again once served

anyio.run(main)
"""


def _echo(text: str, **streams) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", ECHO.format(root=str(ROOT))], input=text, text=True,
                          capture_output=True, timeout=60, **streams)


def test_lines_come_back_whole_and_stray_output_goes_to_stderr():
    long = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"text": "é" * 300_000}},
                      ensure_ascii=False)         # a line over asyncio's 64 KiB
    done = _echo(f'{{"id": 1}}\n{long}\n')
    assert done.returncode == 0, done.stderr
    first, second, restored = done.stdout.split("\n", 2)
    assert first == '10 {"id": 1}'
    assert second == f"{len(long) + 1} {long}"
    assert restored == "restored\n"
    assert done.stderr.count("stray") == 4 and done.stderr.count("a print") == 2


def test_a_file_on_stdin_is_left_to_the_sdk(tmp_path):
    requests = tmp_path / "requests.jsonl"
    requests.write_text('{"id": 1}\n')
    with requests.open() as given:
        done = subprocess.run([sys.executable, "-c", ECHO.format(root=str(ROOT))], stdin=given, text=True,
                              capture_output=True, timeout=60)
    assert done.returncode == 0 and "not pipes" in done.stderr
