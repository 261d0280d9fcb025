"""One client for OpenAI-compatible endpoints: Ollama, vLLM, llama.cpp's server, Bifrost.

``POST {base}/chat/completions`` with ``"stream": true`` and a ``max_tokens`` each task
chooses; the answer is the streamed ``choices[0].delta.content`` (or, from a server that
does not stream, ``choices[0].message.content``). One deadline bounds the whole call,
retries included, and the stream is read against it: when we leave, the connection
closes and a llama.cpp server stops generating. An answer cut at ``max_tokens``
(``finish_reason: length``) is refused, never used. 5xx answers and refused or dropped
connections are retried with a doubling backoff while time remains; a timeout is retried
only against a remote host (a local server that was too slow is still busy). Every
failure is one line naming the endpoint, the server's own message and what to do.
There is no default endpoint: with none configured, the tempos use their extractive
methods (souveraine.inference.extractive).
"""

import json
import re
import time
from dataclasses import dataclass, replace

from souveraine.errors import ConfigError, SouveraineError

TASKS = ("reflection", "archivist")
# The model answered, but not something a tempo can use: the tempo keeps its extractive result.
ANSWER_FAILURES = ("inference_truncated", "inference_bad_reply")
CHARS_PER_TOKEN = 3.0   # a transcript with block ids and times tokenizes densely; prompts are sized with this
_FIX = "start the server, or set [inference] endpoint = \"\" (or pass --extractive) to use the extractive method"
_CONTEXT_WORDS = ("exceed", "too long", "too many", "larger than", "maximum context", "context length")


_WORD = re.compile(r"\S\s")


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
    context: int = 8192

    @property
    def url(self) -> str:
        return self.base.rstrip("/") + "/chat/completions"

    @property
    def local(self) -> bool:
        """True when the server runs on this machine or its private network."""
        import ipaddress
        from urllib.parse import urlsplit

        host = (urlsplit(self.base).hostname or "").lower()
        if host == "localhost" or host.endswith((".localhost", ".local", ".lan", ".internal")):
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return "." not in host      # a bare host name is on the local network
        return address.is_loopback or address.is_private or address.is_link_local

    def to_dict(self) -> dict:
        return {"endpoint": self.base, "model": self.model, "timeout": self.timeout, "retries": self.retries,
                "context": self.context}


@dataclass(frozen=True)
class Reply:
    content: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None

    def to_dict(self) -> dict:
        return {"content": self.content, "model": self.model, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "finish_reason": self.finish_reason}


@dataclass(frozen=True)
class Budget:
    """What one task may send and receive: the prompt's characters and the answer's tokens."""

    prompt_chars: int
    max_tokens: int


# The answer each task writes: a witness is three short sections; a synthesis is longer.
ANSWER_TOKENS = {"reflection": 600, "archivist": 1500}


def budget(endpoint: "Endpoint", task: str) -> Budget:
    """The prompt and answer sizes of ``task`` that fit the server's context, with a tenth to spare."""
    answer = min(ANSWER_TOKENS[task], endpoint.context // 4)
    prompt_tokens = max(256, int(endpoint.context * 0.9) - answer)
    return Budget(int(prompt_tokens * CHARS_PER_TOKEN), answer)


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
    context = int(section["context"])
    if context < 512:
        raise ConfigError(f"[inference] context = {context} is too small for any task; give the server's context in tokens (e.g. 8192)")
    return Endpoint(base, model, section["api_key"], float(section["timeout"]), max(0, section["retries"]), context)


class Client:
    """Chat with one endpoint. ``sleep`` and ``backoff`` are the retry pacing (seconds, doubling)."""

    def __init__(self, endpoint: Endpoint, *, backoff: float = 0.5, sleep=time.sleep):
        self.endpoint = endpoint
        self.backoff = backoff
        self.sleep = sleep

    def chat(self, messages: list[dict], *, max_tokens: int, temperature: float = 0.2, probe: bool = False) -> Reply:
        """The model's whole answer, within ``endpoint.timeout`` seconds all told.

        ``probe`` returns at the first words (closing the stream stops the server): enough
        to know that the prompt fit and the model answers."""
        payload = {"model": self.endpoint.model, "messages": messages, "temperature": temperature,
                   "max_tokens": int(max_tokens), "stream": True}
        deadline = time.monotonic() + self.endpoint.timeout
        reply = self._post(json.dumps(payload).encode("utf-8"), deadline, probe)
        if reply.finish_reason == "length" and not probe:
            raise InferenceError(
                f"the model {self.endpoint.model} at {self.endpoint.base} was cut at max_tokens ({max_tokens}) before "
                "it finished; its unfinished answer is not used (try a model that answers more briefly, or pass --extractive)",
                "inference_truncated")
        if not reply.content.strip():
            raise InferenceError(f"the model endpoint {self.endpoint.base} answered with no text (model "
                                 f"{self.endpoint.model}); try another model or pass --extractive", "inference_bad_reply")
        return replace(reply, content=reply.content.strip())

    def ask(self, system: str, user: str, **kwargs) -> str:
        """One question with a system prompt; the answer's text."""
        return self.chat([{"role": "system", "content": system}, {"role": "user", "content": user}], **kwargs).content

    def _post(self, data: bytes, deadline: float, probe: bool) -> Reply:
        attempt = 0
        while True:
            try:
                return self._send(data, deadline, probe)
            except _Retryable as exc:
                attempt += 1
                pause = self.backoff * 2 ** (attempt - 1)
                retry = attempt <= self.endpoint.retries and time.monotonic() + pause < deadline
                if exc.kind == "timeout" and self.endpoint.local:
                    retry = False
                if not retry:
                    raise InferenceError(f"{exc.why(self.endpoint, attempt)}; {exc.fix}", exc.code) from None
                self.sleep(pause)

    def _send(self, data: bytes, deadline: float, probe: bool) -> Reply:
        from souveraine.inference.wire import Connection, Timeout, Dropped

        headers = {"Content-Type": "application/json", "Accept": "text/event-stream, application/json"}
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        try:
            with Connection(self.endpoint.url, deadline) as connection:
                status, kind, body = connection.post(data, headers)
                if status >= 400:
                    self._refuse(status, body.read_all())
                if "text/event-stream" in kind:
                    return self._stream(body, probe)
                return self._whole(body.read_all())
        except Timeout:
            raise _Retryable("timeout") from None
        except Dropped as exc:
            raise _Retryable("down", str(exc)) from None

    def _refuse(self, status: int, body: bytes) -> None:
        message, code = server_error(body)
        said = f"HTTP {status}" + (f" {code}" if code and str(code) != str(status) else "") + f": {message}"
        if status >= 500 and not _is_context(message, code):
            raise _Retryable("status", said)
        raise InferenceError(f"the model endpoint {self.endpoint.base} refused the request with {said}; "
                             f"{_hint(status, message, code, self.endpoint)}",
                             "inference_context" if _is_context(message, code) else "inference_refused")

    def _stream(self, body, probe: bool) -> Reply:
        pieces, model, finish, usage = [], None, None, {}
        for event in body.events():
            if event == "[DONE]":
                break
            chunk = self._json(event.encode("utf-8"))
            if isinstance(chunk.get("error"), (dict, str)):
                message, code = server_error(json.dumps(chunk).encode())
                raise InferenceError(f"the model endpoint {self.endpoint.base} failed while answering: {message}; "
                                     f"{_hint(500, message, code, self.endpoint)}",
                                     "inference_context" if _is_context(message, code) else "inference_failed")
            model = chunk.get("model") or model
            usage = chunk.get("usage") if isinstance(chunk.get("usage"), dict) else usage
            choice = _first_choice(chunk)
            if choice is None:
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta.get("content"), str):
                pieces.append(delta["content"])
            finish = choice.get("finish_reason") or finish
            if probe and _WORD.search("".join(pieces)):
                break
        else:
            if not probe and finish is None:
                raise _Retryable("down", "the stream ended before the answer did")
        return Reply("".join(pieces), str(model or self.endpoint.model), usage.get("prompt_tokens"),
                     usage.get("completion_tokens"), finish)

    def _whole(self, body: bytes) -> Reply:
        data = self._json(body)
        choice = _first_choice(data)
        content = (choice or {}).get("message", {}).get("content") if isinstance((choice or {}).get("message"), dict) else None
        if not isinstance(content, str):
            raise self._nonsense(body)
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return Reply(content, str(data.get("model") or self.endpoint.model), usage.get("prompt_tokens"),
                     usage.get("completion_tokens"), choice.get("finish_reason"))

    def _json(self, body: bytes) -> dict:
        try:
            data = json.loads(body)
        except ValueError:
            raise self._nonsense(body) from None
        if not isinstance(data, dict):
            raise self._nonsense(body)
        return data

    def _nonsense(self, body: bytes) -> InferenceError:
        return InferenceError(f"the model endpoint {self.endpoint.base} answered something that is not a chat "
                              f"completion (no choices[0].message.content in '{_first_line(body)}'); check that "
                              "it is an OpenAI-compatible base URL ending in /v1", "inference_bad_reply")


def _first_choice(data: dict) -> dict | None:
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return None


def server_error(body: bytes) -> tuple[str, str | None]:
    """The message and code of an error body, in OpenAI's, vLLM's, Ollama's or llama.cpp's shape."""
    try:
        data = json.loads(body)
    except ValueError:
        return _first_line(body, 300), None
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, str):
        return _first_line(error, 300), None
    if not isinstance(error, dict):
        return _first_line(body, 300), None
    message = error.get("message") or error.get("detail") or json.dumps(error)
    code = error.get("code") or error.get("type")
    return _first_line(str(message), 300), (str(code) if code is not None else None)


def _is_context(message: str, code: str | None) -> bool:
    said = f"{message} {code or ''}".lower()
    if "context_length_exceeded" in said or "exceed_context" in said:
        return True
    return ("context" in said or "n_ctx" in said) and any(word in said for word in _CONTEXT_WORDS)


def _hint(status: int, message: str, code: str | None, endpoint: Endpoint) -> str:
    if _is_context(message, code):
        return (f"the prompt and answer do not fit the server's context: start it with a larger one (llama.cpp "
                f"--n_ctx 8192, Ollama num_ctx) and set [inference] context to match (now {endpoint.context})")
    if status in (401, 403):
        return "check [inference] api_key"
    if status == 404:
        return f"check [inference] model ('{endpoint.model}') and that the endpoint is a base URL ending in /v1"
    if status >= 500:
        return _FIX
    return "check [inference] model and endpoint, or pass --extractive"


class _Retryable(Exception):
    def __init__(self, kind: str, detail: str = ""):
        super().__init__(kind)
        self.kind = kind
        self.detail = detail

    @property
    def code(self) -> str:
        return {"timeout": "inference_timeout", "down": "inference_down"}.get(self.kind, "inference_failed")

    @property
    def fix(self) -> str:
        if self.kind == "timeout":
            return "raise [inference] timeout if the model is slow, or pass --extractive"
        return _FIX

    def why(self, endpoint: Endpoint, tries: int) -> str:
        attempts = f"{tries} tries" if tries > 1 else "1 try"
        if self.kind == "timeout":
            return f"the model endpoint {endpoint.base} did not answer within {endpoint.timeout:g} s ({attempts})"
        if self.kind == "down":
            return f"the model endpoint {endpoint.base} is down ({self.detail}; {attempts})"
        return f"the model endpoint {endpoint.base} failed with {self.detail} ({attempts})"


def _first_line(body: bytes | str, limit: int = 120) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    line = next((part.strip() for part in text.splitlines() if part.strip()), "") or "an empty body"
    return line if len(line) <= limit else line[: limit - 1] + "…"


_FILLER = ("We walked the orchard after lunch and counted the young trees again; two of the pear grafts "
           "took, the third did not, and the plan is to try again in February with fresh scions. ")


def probe_prompt(chars: int) -> list[dict]:
    """A chat as large as a task's largest: transcript-shaped lines, then a one-word question."""
    lines, size, n = [], 0, 0
    while size < chars - 200:
        line = f"[^t{n % 240000:06d}u{n % 9973:04x} · 2026-01-01 {n % 24:02d}:{n % 60:02d} · user] {_FILLER}"
        lines.append(line)
        size += len(line) + 2
        n += 1
    return [{"role": "system", "content": "You check that a long prompt fits. Answer with the single word: ready"},
            {"role": "user", "content": "\n\n".join(lines) + "\n\nAnswer with the single word: ready"}]


def check(config, *, backoff: float = 0.5) -> list[dict]:
    """Send each task's endpoint a prompt as large as the task's largest; one row per task,
    failures reported, not raised. Two tasks that would send the same are asked once."""
    rows, asked = [], {}
    for task in TASKS:
        endpoint = endpoint_for(config, task)
        if endpoint is None:
            rows.append({"task": task, "endpoint": "", "model": "", "ok": True, "method": "extractive"})
            continue
        sized = budget(endpoint, task)
        row = {"task": task, **endpoint.to_dict(), "method": "model", "prompt_chars": sized.prompt_chars,
               "max_tokens": sized.max_tokens}
        key = (endpoint, sized)
        if key not in asked:
            asked[key] = _probe(endpoint, sized, backoff)
        rows.append({**row, **asked[key]})
    return rows


def _probe(endpoint: Endpoint, sized: Budget, backoff: float) -> dict:
    started = time.monotonic()
    try:
        reply = Client(endpoint, backoff=backoff).chat(probe_prompt(sized.prompt_chars), max_tokens=sized.max_tokens,
                                                       temperature=0, probe=True)
        found = {"ok": True, "answer": reply.content[:80], "served_by": reply.model, "prompt_tokens": reply.prompt_tokens}
    except InferenceError as exc:
        found = {"ok": False, "error": exc.message, "code": exc.code}
    return {**found, "seconds": round(time.monotonic() - started, 3)}
