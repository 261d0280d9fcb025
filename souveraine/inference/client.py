"""One client for OpenAI-compatible endpoints: Ollama, vLLM, llama.cpp's server, Bifrost.

``POST {base}/chat/completions`` with ``"stream": false``; the answer is
``choices[0].message.content``. Timeouts, 5xx answers and refused or dropped connections
are retried with a doubling backoff; anything else fails at once. Every failure is one
line naming the endpoint and what to do. There is no default endpoint: with none
configured, the tempos use their extractive methods (souveraine.inference.extractive).
"""

import json
import socket
import time
from dataclasses import dataclass

from souveraine.errors import ConfigError, SouveraineError

TASKS = ("reflection", "archivist")
_FIX = "start the server, or set [inference] endpoint = \"\" (or pass --extractive) to use the extractive method"


class InferenceError(SouveraineError):
    """The model endpoint is down, too slow, or answered something that is not a chat completion."""

    code = "inference_failed"


@dataclass(frozen=True)
class Endpoint:
    base: str
    model: str
    api_key: str = ""
    timeout: float = 60
    retries: int = 2

    @property
    def url(self) -> str:
        return self.base.rstrip("/") + "/chat/completions"

    def to_dict(self) -> dict:
        return {"endpoint": self.base, "model": self.model, "timeout": self.timeout, "retries": self.retries}


@dataclass(frozen=True)
class Reply:
    content: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def to_dict(self) -> dict:
        return {"content": self.content, "model": self.model, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


def endpoint_for(config, task: str) -> Endpoint | None:
    """The endpoint and model a task uses (``reflection`` or ``archivist``), or None when none is set."""
    section = config["inference"]
    base = section["endpoint"].strip()
    if not base:
        return None
    if not base.startswith(("http://", "https://")):
        raise ConfigError(f"[inference] endpoint '{base}' is not an http(s) URL; give a base URL like http://localhost:11434/v1")
    model = section[f"{task}_model"] or section["model"]
    if not model:
        raise ConfigError(f"[inference] endpoint is set but no model is named; set [inference] model (or {task}_model)")
    return Endpoint(base, model, section["api_key"], float(section["timeout"]), max(0, section["retries"]))


class Client:
    """Chat with one endpoint. ``sleep`` and ``backoff`` are the retry pacing (seconds, doubling)."""

    def __init__(self, endpoint: Endpoint, *, backoff: float = 0.5, sleep=time.sleep):
        self.endpoint = endpoint
        self.backoff = backoff
        self.sleep = sleep
        self._opener = None

    def chat(self, messages: list[dict], *, temperature: float = 0.2, max_tokens: int | None = None) -> Reply:
        payload = {"model": self.endpoint.model, "messages": messages, "temperature": temperature, "stream": False}
        if max_tokens:
            payload["max_tokens"] = max_tokens
        body = self._post(json.dumps(payload).encode("utf-8"))
        return self._reply(body)

    def ask(self, system: str, user: str, **kwargs) -> str:
        """One question with a system prompt; the answer's text."""
        return self.chat([{"role": "system", "content": system}, {"role": "user", "content": user}], **kwargs).content

    def _post(self, data: bytes) -> bytes:
        tries = self.endpoint.retries + 1
        for attempt in range(tries):
            try:
                return self._send(data)
            except _Retryable as exc:
                if attempt + 1 == tries:
                    raise InferenceError(f"{exc.why(self.endpoint, tries)}; {_FIX}", exc.code) from None
                self.sleep(self.backoff * 2 ** attempt)
        raise AssertionError("unreachable")

    def _send(self, data: bytes) -> bytes:
        # Imported here: urllib.request costs tens of milliseconds, and persist imports this module.
        import urllib.error
        import urllib.request
        from http.client import HTTPException

        if self._opener is None:
            # Local endpoints are reached directly: a proxy from the environment must not see the memory.
            self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        request = urllib.request.Request(self.endpoint.url, data=data, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.endpoint.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            detail = _first_line(exc.read())
            if exc.code >= 500:
                raise _Retryable("status", f"HTTP {exc.code}: {detail}") from None
            raise InferenceError(f"the model endpoint {self.endpoint.base} refused the request with HTTP {exc.code}"
                                 f" ({detail}); check [inference] model and api_key", "inference_refused") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise _Retryable("timeout") from None
            if isinstance(reason, OSError):
                raise _Retryable("down", reason.strerror or str(reason)) from None
            raise InferenceError(f"the model endpoint {self.endpoint.base} cannot be reached ({reason}); {_FIX}",
                                 "inference_down") from None
        except (TimeoutError, socket.timeout):
            raise _Retryable("timeout") from None
        except (ConnectionError, HTTPException, OSError) as exc:
            raise _Retryable("down", str(exc) or type(exc).__name__) from None

    def _reply(self, body: bytes) -> Reply:
        try:
            data = json.loads(body)
            message = data["choices"][0]["message"]
            content = message["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise InferenceError(f"the model endpoint {self.endpoint.base} answered something that is not a chat "
                                 f"completion (no choices[0].message.content in '{_first_line(body)}'); check that "
                                 "it is an OpenAI-compatible base URL ending in /v1", "inference_bad_reply") from None
        if not isinstance(content, str) or not content.strip():
            raise InferenceError(f"the model endpoint {self.endpoint.base} answered with no text (model "
                                 f"{self.endpoint.model}); try another model or pass --extractive", "inference_bad_reply")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return Reply(content.strip(), str(data.get("model") or self.endpoint.model),
                     usage.get("prompt_tokens"), usage.get("completion_tokens"))


class _Retryable(Exception):
    def __init__(self, kind: str, detail: str = ""):
        super().__init__(kind)
        self.kind = kind
        self.detail = detail

    @property
    def code(self) -> str:
        return {"timeout": "inference_timeout", "down": "inference_down"}.get(self.kind, "inference_failed")

    def why(self, endpoint: Endpoint, tries: int) -> str:
        attempts = f"{tries} tries" if tries > 1 else "1 try"
        if self.kind == "timeout":
            return f"the model endpoint {endpoint.base} did not answer within {endpoint.timeout:g} s ({attempts}; raise [inference] timeout if the model is slow)"
        if self.kind == "down":
            return f"the model endpoint {endpoint.base} is down ({self.detail}; {attempts})"
        return f"the model endpoint {endpoint.base} failed with {self.detail} ({attempts})"


def _first_line(body: bytes | str, limit: int = 120) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    line = next((part.strip() for part in text.splitlines() if part.strip()), "") or "an empty body"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def check(config, *, backoff: float = 0.5) -> list[dict]:
    """Ping each task's endpoint with a tiny chat; one row per task, failures reported, not raised."""
    rows = []
    for task in TASKS:
        endpoint = endpoint_for(config, task)
        if endpoint is None:
            rows.append({"task": task, "endpoint": "", "model": "", "ok": True, "method": "extractive"})
            continue
        row = {"task": task, **endpoint.to_dict(), "method": "model"}
        started = time.monotonic()
        try:
            reply = Client(endpoint, backoff=backoff).chat(
                [{"role": "user", "content": "Answer with the single word: ready"}], max_tokens=8, temperature=0)
            row.update(ok=True, answer=reply.content[:80], served_by=reply.model)
        except InferenceError as exc:
            row.update(ok=False, error=exc.message, code=exc.code)
        row["seconds"] = round(time.monotonic() - started, 3)
        rows.append(row)
    return rows
