import pytest

from souveraine.errors import ConfigError
from souveraine.inference.client import Client, Endpoint, InferenceError, check, endpoint_for
from souveraine.store.config import Config, validate
from tests.inference.fake_model import FakeModel, answer, closed_port_base, raw, slow, status


def client(base, *, timeout=2.0, retries=2, api_key="", sleeps=None):
    pauses = sleeps if sleeps is not None else []
    return Client(Endpoint(base, "tiny", api_key, timeout, retries), backoff=0.01, sleep=pauses.append)


def ask(c):
    return c.chat([{"role": "user", "content": "hello"}], max_tokens=5)


def test_a_normal_answer_speaks_the_protocol_exactly():
    with FakeModel([answer("Hello there.", model="tiny-q4")]) as server:
        reply = ask(client(server.base, api_key="s3cret"))
    assert (reply.content, reply.model, reply.prompt_tokens, reply.completion_tokens) == ("Hello there.", "tiny-q4", 12, 3)
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["json"] == {"model": "tiny", "messages": [{"role": "user", "content": "hello"}],
                               "temperature": 0.2, "stream": False, "max_tokens": 5}
    assert request["headers"]["Authorization"] == "Bearer s3cret"
    assert request["headers"]["Content-Type"] == "application/json"


def test_a_500_is_retried_with_backoff_then_succeeds():
    sleeps = []
    with FakeModel([status(500), status(503), answer("ok")]) as server:
        reply = ask(client(server.base, sleeps=sleeps))
    assert reply.content == "ok"
    assert len(server.requests) == 3
    assert sleeps == [0.01, 0.02]


def test_a_500_that_persists_fails_with_one_line_naming_the_endpoint():
    with FakeModel([status(500, "out of memory")]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base, retries=1))
    assert len(server.requests) == 2
    assert caught.value.code == "inference_failed"
    assert str(caught.value) == (
        f"the model endpoint {server.base} failed with HTTP 500: {{\"error\": {{\"message\": \"out of memory\"}}}} "
        "(2 tries); start the server, or set [inference] endpoint = \"\" (or pass --extractive) to use the extractive method")


def test_a_4xx_is_not_retried():
    with FakeModel([status(404, "model 'tiny' not found")]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base))
    assert len(server.requests) == 1
    assert caught.value.code == "inference_refused"
    assert "refused the request with HTTP 404" in str(caught.value) and "check [inference] model" in str(caught.value)


def test_an_endpoint_that_is_down_is_named_after_the_retries():
    base = closed_port_base()
    sleeps = []
    with pytest.raises(InferenceError) as caught:
        ask(client(base, retries=2, sleeps=sleeps))
    assert caught.value.code == "inference_down"
    assert str(caught.value).startswith(f"the model endpoint {base} is down (Connection refused; 3 tries); start the server")
    assert "\n" not in str(caught.value)
    assert sleeps == [0.01, 0.02]


def test_a_slow_endpoint_times_out():
    with FakeModel([slow(2.0)]) as server:
        with pytest.raises(InferenceError) as caught:
            ask(client(server.base, timeout=0.1, retries=1))
    assert caught.value.code == "inference_timeout"
    assert str(caught.value).startswith(
        f"the model endpoint {server.base} did not answer within 0.1 s (2 tries; raise [inference] timeout if the model is slow)")


def test_a_slow_answer_then_a_fast_one_is_a_retry_that_succeeds():
    with FakeModel([slow(2.0), answer("now")]) as server:
        assert ask(client(server.base, timeout=0.1, retries=1)).content == "now"


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
                 timeout=5, retries=0)
    assert endpoint_for(cfg, "reflection") == Endpoint("http://localhost:11434/v1", "qwen2.5:7b", "", 5.0, 0)
    assert endpoint_for(cfg, "archivist").model == "qwen2.5:0.5b"


def test_a_bad_endpoint_configuration_is_one_config_error():
    with pytest.raises(ConfigError, match=r"^\[inference\] endpoint is set but no model is named; set \[inference\] model \(or reflection_model\)$"):
        endpoint_for(config(endpoint="http://localhost:8080/v1"), "reflection")
    with pytest.raises(ConfigError, match="is not an http"):
        endpoint_for(config(endpoint="localhost:8080", model="m"), "reflection")


def test_check_reports_each_task():
    with FakeModel([answer("ready")]) as server:
        rows = check(config(endpoint=server.base, model="tiny", reflection_model="witness"), backoff=0.01)
    assert [(r["task"], r["model"], r["ok"], r["answer"]) for r in rows] == [
        ("reflection", "witness", True, "ready"), ("archivist", "tiny", True, "ready")]
    assert [r["json"]["model"] for r in server.requests] == ["witness", "tiny"]
    down = check(config(endpoint=closed_port_base(), model="tiny", retries=0))
    assert [(r["ok"], r["code"]) for r in down] == [(False, "inference_down")] * 2
    assert [r["method"] for r in check(config())] == ["extractive", "extractive"]
