"""A fake OpenAI-compatible model server on 127.0.0.1: the protocol, exactly, and its failures.

``with FakeModel([answer("hi"), status(500), ...]) as server:`` serves the scripted
replies in order (the last one repeats) at ``server.base`` (…/v1) and records every request.
"""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def answer(content: str, model: str = "tiny", prompt_tokens: int = 12) -> dict:
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764547200, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 3, "total_tokens": prompt_tokens + 3}}
    return {"status": 200, "body": json.dumps(body).encode()}


def status(code: int, text: str = "boom") -> dict:
    return {"status": code, "body": json.dumps({"error": {"message": text}}).encode()}


def raw(body: bytes, code: int = 200) -> dict:
    return {"status": code, "body": body}


def slow(seconds: float, then: dict | None = None) -> dict:
    return {**(then or answer("late")), "delay": seconds}


class FakeModel:
    def __init__(self, script: list[dict]):
        self.script = list(script)
        self.requests: list[dict] = []
        self._stop = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                fake.requests.append({"path": self.path, "headers": dict(self.headers),
                                      "json": json.loads(self.rfile.read(length) or b"null")})
                self._reply(fake._next())

            def do_GET(self):
                fake.requests.append({"path": self.path, "headers": dict(self.headers), "json": None})
                self._reply(fake._next())

            def _reply(self, step):
                if step.get("delay") and fake._stop.wait(step["delay"]):
                    return
                try:
                    self.send_response(step["status"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(step["body"])))
                    self.end_headers()
                    self.wfile.write(step["body"])
                except OSError:
                    pass  # the client gave up first

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _next(self) -> dict:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

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
