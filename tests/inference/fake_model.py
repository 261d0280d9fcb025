"""A fake OpenAI-compatible model server on 127.0.0.1: the protocol, exactly, and its failures.

``with FakeModel([answer("hi"), status(500), ...]) as server:`` serves the scripted
replies in order (the last one repeats) at ``server.base`` (…/v1) and records every request.
A request with ``"stream": true`` gets server-sent events (``data: {chunk}`` … ``data: [DONE]``),
as llama.cpp, Ollama and vLLM send them; ``server.abandoned`` counts the streams the client
left before their end.
"""

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def answer(content: str, model: str = "tiny", prompt_tokens: int = 12, finish: str = "stop", pieces: int = 3,
           gap: float = 0.0) -> dict:
    """A chat completion: one JSON body, or ``pieces`` streamed chunks ``gap`` seconds apart."""
    return {"status": 200, "content": content, "model": model, "prompt_tokens": prompt_tokens, "finish": finish,
            "pieces": pieces, "gap": gap}


def endless(word: str = "tick ", gap: float = 0.05) -> dict:
    """A stream that never finishes: a model generating until the client leaves."""
    return {"status": 200, "content": None, "word": word, "gap": gap, "model": "tiny", "prompt_tokens": 12}


def status(http: int, text: str = "boom", **fields) -> dict:
    return {"status": http, "body": json.dumps({"error": {"message": text, **fields}}).encode()}


def raw(body: bytes, code: int = 200, kind: str = "application/json") -> dict:
    return {"status": code, "body": body, "kind": kind}


def slow(seconds: float, then: dict | None = None) -> dict:
    return {**(then or answer("late")), "delay": seconds}


def trickle(body: bytes, gap: float) -> dict:
    """A body sent one byte every ``gap`` seconds: each read is quick, the whole is not."""
    return {"status": 200, "body": body, "trickle": gap}


def completion(content: str, model: str, prompt_tokens: int, finish: str) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764547200, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 3, "total_tokens": prompt_tokens + 3}}


def chunk(model: str, delta: dict, finish: str | None = None) -> bytes:
    data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1764547200, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(data).encode() + b"\n\n"


class FakeModel:
    def __init__(self, script: list[dict]):
        self.script = list(script)
        self.requests: list[dict] = []
        self.abandoned = 0
        self._stop = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"null")
                fake.requests.append({"path": self.path, "headers": dict(self.headers), "json": request})
                self._reply(fake._next(), bool(isinstance(request, dict) and request.get("stream")))

            def do_GET(self):
                fake.requests.append({"path": self.path, "headers": dict(self.headers), "json": None})
                self._reply(fake._next(), False)

            def _reply(self, step, streaming):
                if step.get("delay") and fake._stop.wait(step["delay"]):
                    return
                try:
                    if "body" in step:
                        self._body(step)
                    elif streaming:
                        self._stream(step)
                    else:
                        body = completion(step["content"] or "", step["model"], step["prompt_tokens"], step.get("finish", "stop"))
                        self._body({"status": 200, "body": json.dumps(body).encode()})
                except OSError:
                    fake.abandoned += 1   # the client gave up first
                self.close_connection = True

            def _body(self, step):
                self.send_response(step["status"])
                self.send_header("Content-Type", step.get("kind", "application/json"))
                self.send_header("Content-Length", str(len(step["body"])))
                self.end_headers()
                if step.get("trickle"):
                    for byte in step["body"]:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        if fake._stop.wait(step["trickle"]):
                            return
                else:
                    self.wfile.write(step["body"])

            def _stream(self, step):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                model = step["model"]
                self._send(b": ping\n\n" + chunk(model, {"role": "assistant"}))
                if step["content"] is None:
                    while not fake._stop.wait(step["gap"]):
                        self._send(chunk(model, {"content": step["word"]}))
                    return
                text, n = step["content"], max(1, step["pieces"])
                size = -(-len(text) // n) or 1
                for i in range(0, max(len(text), 1), size):
                    self._send(chunk(model, {"content": text[i:i + size]}))
                    if step["gap"] and fake._stop.wait(step["gap"]):
                        return
                self._send(chunk(model, {}, step["finish"]) + b"data: [DONE]\n\n")
                self._send(b"")

            def _send(self, data: bytes):
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _next(self) -> dict:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def wait_abandoned(self, count: int = 1, seconds: float = 2.0) -> int:
        """The number of abandoned streams, once ``count`` are seen or ``seconds`` pass."""
        end = time.monotonic() + seconds
        while self.abandoned < count and time.monotonic() < end:
            time.sleep(0.02)
        return self.abandoned

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()


def closed_port_base() -> str:
    """A base URL nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
