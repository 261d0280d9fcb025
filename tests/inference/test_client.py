import json
import time

import pytest

from souveraine.errors import ConfigError
from souveraine.inference.client import Client, Endpoint, InferenceError, budget, check, endpoint_for, server_error
from souveraine.store.config import Config, validate
from tests.inference.fake_model import FakeModel, answer, closed_port_base, endless, raw, slow, status, trickle


def client(base, *, timeout=2.0, retries=2, api_key="", sleeps=None, context=8192):
    pauses = sleeps if sleeps is not None else []
    return Client(Endpoint(base, "tiny", api_key, timeout, retries, context), backoff=0.01, sleep=pauses.append)


def ask(c, **kwargs):
    return c.chat([{"role": "user", "content": "hello"}], max_tokens=5, **kwargs)


def test_a_streamed_answer_speaks_the_protocol_exactly():
    with FakeModel([answer("Hello there, friend.", model="tiny-q4", pieces=4)]) as server:
        reply = ask(client(server.base, api_key="s3cret"))
    assert (reply.content, reply.model, reply.finish_reason) == ("Hello there, friend.", "tiny-q4", "stop")
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["json"] == {"model": "tiny", "messages": [{"role": "user", "content": "hello"}],
                               "temperature": 0.2, "stream": True, "max_tokens": 5}
    assert request["headers"]["Authorization"] == "Bearer s3cret"
    assert request["headers"]["Content-Type"] == "application/json"


def test_a_server_that_does_not_stream_is_read_whole():
    body = {"model": "m", "choices": [{"message": {"content": "whole"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 1}}
    with FakeModel([raw(json.dumps(body).encode())]) as server:
        reply = ask(client(server.base))
    assert (reply.content, reply.prompt_tokens, reply.finish_reason) == ("whole", 40, "stop")


@pytest.mark.parametrize("streamed", [True, False])
def test_an_answer_cut_at_max_tokens_is_refused(streamed):
    step = answer("The Bramley apple trees will be pruned every", finish="length")
    if not streamed:
        body = {"choices": [{"message": {"content": "The Bramley apple"}, "finish_reason": "length"}]}
        step = raw(json.dumps(body).encode())
    with FakeModel([step]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base))
    assert caught.value.code == "inference_truncated"
    assert str(caught.value).startswith(f"the model tiny at {server.base} was cut at max_tokens (5) before it finished")


def test_a_500_is_retried_with_backoff_then_succeeds():
    sleeps = []
    with FakeModel([status(500), status(503), answer("ok")]) as server:
        reply = ask(client(server.base, sleeps=sleeps))
    assert reply.content == "ok"
    assert len(server.requests) == 3
    assert sleeps == [0.01, 0.02]


def test_a_500_that_persists_fails_with_one_line_naming_the_endpoint_and_the_servers_message():
    with FakeModel([status(500, "out of memory")]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base, retries=1))
    assert len(server.requests) == 2
    assert caught.value.code == "inference_failed"
    assert str(caught.value) == (
        f"the model endpoint {server.base} failed with HTTP 500: out of memory "
        "(2 tries); start the server, or set [inference] endpoint = \"\" (or pass --extractive) to use the extractive method")


def test_a_4xx_is_not_retried_and_names_what_to_check():
    with FakeModel([status(404, "model 'tiny' not found", code="model_not_found")]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base))
    assert len(server.requests) == 1
    assert caught.value.code == "inference_refused"
    assert str(caught.value) == (f"the model endpoint {server.base} refused the request with HTTP 404 model_not_found: "
                                 "model 'tiny' not found; check [inference] model ('tiny') and that the endpoint "
                                 "is a base URL ending in /v1")


@pytest.mark.parametrize("code,body", [
    # llama-cpp-python's server
    (400, {"error": {"message": "Requested tokens (9120) exceed context window of 8192", "type": "invalid_request_error",
                     "param": "messages", "code": "context_length_exceeded"}}),
    # llama.cpp's llama-server
    (400, {"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                     "type": "exceed_context_size_error"}}),
    # vLLM
    (400, {"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested "
                                         "5000 tokens in the messages.", "type": "BadRequestError", "code": 400}),
])
def test_a_context_length_error_keeps_the_servers_words_and_says_how_to_fix_it(code, body):
    with FakeModel([raw(json.dumps(body).encode(), code=code)]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base))
    message = str(caught.value)
    assert caught.value.code == "inference_context"
    assert len(server.requests) == 1
    assert (body.get("error") or body)["message"][:40] in message
    assert "start it with a larger one (llama.cpp --n_ctx 8192, Ollama num_ctx) and set [inference] context" in message
    assert "api_key" not in message and "\n" not in message


def test_a_long_error_body_keeps_its_message_not_120_characters_of_json():
    text = "prompt is too long for this deployment: " + "x" * 400
    message, code = server_error(json.dumps({"error": {"message": text, "code": "too_long"}}).encode())
    assert message == text[:299] + "…" and code == "too_long"
    assert server_error(b"<html>Bad Gateway</html>") == ("<html>Bad Gateway</html>", None)


def test_an_endpoint_that_is_down_is_named_after_the_retries():
    base = closed_port_base()
    sleeps = []
    with pytest.raises(InferenceError) as caught:
        ask(client(base, retries=2, sleeps=sleeps))
    assert caught.value.code == "inference_down"
    assert str(caught.value).startswith(f"the model endpoint {base} is down (Connection refused; 3 tries); start the server")
    assert "\n" not in str(caught.value)
    assert sleeps == [0.01, 0.02]


def test_a_slow_local_endpoint_times_out_once_without_retrying():
    with FakeModel([slow(2.0), answer("now")]) as server:
        started = time.monotonic()
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base, timeout=0.3, retries=2))
        spent = time.monotonic() - started
    assert caught.value.code == "inference_timeout"
    assert str(caught.value).startswith(f"the model endpoint {server.base} did not answer within 0.3 s (1 try); "
                                        "raise [inference] timeout")
    assert len(server.requests) == 1
    assert spent < 1.5


def test_a_server_trickling_bytes_cannot_stretch_the_deadline():
    body = json.dumps({"choices": [{"message": {"content": "x" * 200}, "finish_reason": "stop"}]}).encode()
    with FakeModel([trickle(body, 0.02)]) as server:
        started = time.monotonic()
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base, timeout=0.5, retries=0))
        spent = time.monotonic() - started
    assert caught.value.code == "inference_timeout"
    assert spent < 1.5    # each byte came in time; the whole (about 5 s) did not


def test_leaving_a_stream_at_the_deadline_closes_it_so_the_server_stops_generating():
    with FakeModel([endless(gap=0.02)]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base, timeout=0.4, retries=0))
        assert caught.value.code == "inference_timeout"
        assert server.wait_abandoned() == 1


def test_a_probe_returns_at_the_first_words_and_leaves():
    with FakeModel([endless(word="ready ", gap=0.02)]) as server:
        reply = ask(client(server.base, timeout=5), probe=True)
        assert reply.content == "ready"
        assert server.wait_abandoned() == 1


def test_a_remote_endpoint_may_retry_a_timeout_within_the_deadline():
    endpoint = Endpoint("https://models.example.org/v1", "m")
    assert not endpoint.local
    assert all(Endpoint(base, "m").local for base in ("http://localhost:11434/v1", "http://127.0.0.1:8080/v1",
                                                      "http://192.168.1.20:8000/v1", "http://gpu-box:8000/v1",
                                                      "http://[::1]:8080/v1", "http://studio.local:1234/v1"))


@pytest.mark.parametrize("body", [
    b"<html><body>It works!</body></html>",
    b'{"object": "list", "data": []}',
    b'{"choices": []}',
    b'{"choices": [{"message": {"role": "assistant"}}]}',
    b'{"choices": [{"text": "completion, not chat"}]}',
])
def test_nonsense_is_refused_with_one_line(body):
    with FakeModel([raw(body)]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base))
    assert caught.value.code == "inference_bad_reply"
    assert str(caught.value).startswith(f"the model endpoint {server.base} answered something that is not a chat completion")
    assert len(server.requests) == 1


def test_an_empty_answer_is_nonsense_too():
    with FakeModel([answer("   ")]) as server:
        with pytest.raises(InferenceError, match="answered with no text") as caught:
            ask(client(server.base))
    assert caught.value.code == "inference_bad_reply"


def config(**inference):
    return Config(validate({"inference": inference}))


def test_no_endpoint_means_no_model_and_no_cloud_default():
    assert endpoint_for(config(), "reflection") is None
    assert endpoint_for(config(model="qwen"), "archivist") is None


def test_each_task_chooses_its_model():
    cfg = config(endpoint="http://localhost:11434/v1", model="qwen2.5:7b", archivist_model="qwen2.5:0.5b",
                 timeout=5, retries=0, context=4096)
    assert endpoint_for(cfg, "reflection") == Endpoint("http://localhost:11434/v1", "qwen2.5:7b", "", 5.0, 0, 4096)
    assert endpoint_for(cfg, "archivist").model == "qwen2.5:0.5b"


def test_each_task_fits_the_servers_context():
    for context in (512, 2048, 8192, 32768):
        for task in ("reflection", "archivist"):
            sized = budget(Endpoint("http://localhost:1/v1", "m", context=context), task)
            assert sized.prompt_chars / 3 + sized.max_tokens <= context * 0.9 + 1
            assert sized.max_tokens >= min(300, context // 4)


def test_a_bad_endpoint_configuration_is_one_config_error():
    with pytest.raises(ConfigError, match=r"^\[inference\] endpoint is set but no model is named; set \[inference\] model \(or reflection_model\)$"):
        endpoint_for(config(endpoint="http://localhost:8080/v1"), "reflection")
    with pytest.raises(ConfigError, match="is not an http"):
        endpoint_for(config(endpoint="localhost:8080", model="m"), "reflection")
    with pytest.raises(ConfigError, match="context = 256 is too small"):
        endpoint_for(config(endpoint="http://localhost:8080/v1", model="m", context=256), "reflection")


def test_check_sends_each_task_a_prompt_as_large_as_its_largest():
    with FakeModel([answer("ready")]) as server:
        rows = check(config(endpoint=server.base, model="tiny", reflection_model="witness", context=4096), backoff=0.01)
    assert [(r["task"], r["model"], r["ok"], r["answer"]) for r in rows] == [
        ("reflection", "witness", True, "ready"), ("archivist", "tiny", True, "ready")]
    for row, request in zip(rows, server.requests):
        sent = sum(len(m["content"]) for m in request["json"]["messages"])
        assert request["json"]["model"] == row["model"]
        assert request["json"]["max_tokens"] == row["max_tokens"]
        assert row["prompt_chars"] - 300 <= sent <= row["prompt_chars"] + 300
        assert sent > 8000


def test_check_reports_a_server_too_small_for_the_tempos():
    small = {"error": {"message": "Requested tokens (7000) exceed context window of 2048", "code": "context_length_exceeded"}}
    with FakeModel([raw(json.dumps(small).encode(), code=400)]) as server:
        rows = check(config(endpoint=server.base, model="tiny"), backoff=0.01)
    assert [(r["ok"], r["code"]) for r in rows] == [(False, "inference_context")] * 2
    down = check(config(endpoint=closed_port_base(), model="tiny", retries=0))
    assert [(r["ok"], r["code"]) for r in down] == [(False, "inference_down")] * 2
    assert [r["method"] for r in check(config())] == ["extractive", "extractive"]
