"""wake: order, budget, privacy, stability, schema and viewports, on a lived-in memory."""

import json
import re

import pytest

from souveraine.identity import catalog
from souveraine.wake import now
from tests.support import assert_clean
from tests.wake.conftest import CONSTITUTIVE_TEXT, PRIVATE_TEXT, SECRET_FILE, SECRET_PHRASE

HEADINGS = ["Who you are", "What shaped you", "Pinned", "Synthesized essence", "Inner voice",
            "Surfacing now", "At work", "Recent memory", "On demand"]


def headings(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, re.MULTILINE)


def test_sections_come_in_their_order(wake, lived):
    text = wake().stdout
    assert text.startswith("# Wake — ada\n\nBandwidth high · model default · budget 20,000 tokens.\n")
    assert headings(text) == HEADINGS
    assert "\x1b" not in text
    assert_clean(lived.root)


def test_what_shaped_you_is_constitutive_first_with_dates_and_witnesses(wake):
    data = wake.json()
    shaped = [(item["tier"], item["text"]) for item in data["shaped_by"]]
    assert shaped == [("constitutive", CONSTITUTIVE_TEXT),
                      ("foundational", "Short answers serve Bea best."),
                      ("foundational", "Check the tests before saying done."),
                      ("foundational", "This project keeps its laws in git.")]
    first = data["shaped_by"][0]
    assert first["created"] == "2026-01-05" and first["attesters"][0].startswith("did:key:z6Mk")
    text = wake().stdout
    assert f"- **constitutive** · 2026-01-05 (elevated {first['elevated']}) · witnessed by `{first['attesters'][0]}`" in text
    assert data["you"]["effective_expression"]["walls"] == ["I do not leave a friend alone", "No 'done' without tests"]
    assert data["you"]["effective_expression"]["register"] == "brief and warm"


def test_pinned_files_persona_first_state_last_never_the_journal(wake):
    system = wake.json()["system"]
    paths = [item["path"] for item in system]
    assert paths[:2] == ["system/persona/identity.md", "system/persona/principles.md"]
    assert paths[-3:] == ["system/conventions.md", "system/", "system/state.md"]
    assert "system/human/prefs/communication.md" in paths and "system/human/identity.md" in system[-2]["unwritten"]
    assert "system/persona/effective.md" not in paths
    assert not any(p.startswith(("journal/", "system/synthesized/", "system/metacognition/")) for p in paths)
    text = wake().stdout
    assert "### Who I am · `system/persona/identity.md`" in text and "\n#### Scope\n" in text


def test_inner_voice_tail_recent_memory_and_totals(wake):
    data = wake.json()
    assert [t["text"] for t in data["inner_voice"]] == [
        "thought number 4", "thought number 5", "remember the blue door", "thought number 6", "thought number 7"]
    assert [r["created"][:10] for r in data["memory"]["recent"]] == ["2026-02-07", "2026-02-06", "2026-02-05"]
    assert data["memory"]["total"] == {"all": 9, "episodic": 5, "foundational": 3, "constitutive": 1}
    assert data["synthesized"][0]["through"] == "2026-02-07"


def test_two_runs_are_byte_identical(wake, lived):
    assert wake().stdout_bytes == wake().stdout_bytes
    cached = wake().stdout_bytes
    (lived.cache / catalog.CACHE).unlink()
    assert wake().stdout_bytes == cached                 # a rebuilt catalog gives the same bytes
    assert wake("--json").stdout_bytes == wake("--json").stdout_bytes
    assert wake("--bandwidth", "low", "--shared").stdout_bytes == wake("--bandwidth", "low", "--shared").stdout_bytes


def test_json_schema_keys_and_types(wake):
    data = wake.json()
    assert wake("--format", "json").stdout == wake("--json").stdout
    assert list(data) == ["schema", "identity", "model", "bandwidth", "shared", "you", "shaped_by", "system",
                          "synthesized", "inner_voice", "surfacing", "waiting", "memory", "on_demand", "at_work",
                          "presence", "budget", "you_remember"]
    assert data["schema"] == "souveraine-wake/1"
    assert set(data["you"]) == {"handle", "did", "status", "effective_expression", "expression"}
    assert {k: type(v) for k, v in data["you"]["effective_expression"].items()} == {
        "register": str, "walls": list, "subagents": list, "wake_text": str}
    assert all(set(i) == {"id", "path", "tier", "created", "elevated", "attesters", "text", "memory_id", "content",
                          "elevated_at"} for i in data["shaped_by"])
    assert all({"path", "title", "text"} <= set(i) for i in data["system"])
    assert all(set(i) == {"at", "urgency", "text", "line"} for i in data["inner_voice"])
    assert all(set(i) == {"id", "at", "urgency", "text"} for i in data["surfacing"])
    assert isinstance(data["waiting"], int)
    assert all(set(i) == {"id", "path", "created", "tier", "visibility", "description"} for i in data["memory"]["recent"])
    assert set(data["memory"]["total"]) == {"all", "episodic", "foundational", "constitutive"}
    assert all(set(i) == {"path", "kind", "description", "how"} for i in data["on_demand"])
    assert set(data["budget"]) == {"limit", "used", "max_chars", "chars", "left_out"}
    assert data["budget"]["max_chars"] is None and data["budget"]["chars"] is None
    assert data["budget"]["limit"] == 20000 and 0 < data["budget"]["used"] <= 20000 and data["budget"]["left_out"] == []


# -- the budget ----------------------------------------------------------------------------

CUT_ORDER = ["memory", "at_work", "inner_voice", "synthesized", "system", "on_demand", "surfacing", "system", "shaped_by"]


def left_out(data: dict) -> list[str]:
    return [entry["section"] for entry in data["budget"]["left_out"]]


def test_over_budget_parts_go_in_reverse_priority_and_the_wake_says_what_and_how(wake):
    full = wake.json()["budget"]["used"]
    order = list(dict.fromkeys(CUT_ORDER))
    seen = []
    for budget in range(full - 20, 0, -40):
        data = wake.fitted(budget)
        if data is None:
            break
        assert data["budget"]["used"] <= budget
        seen.append(left_out(data))
        assert seen[-1] == sorted(seen[-1], key=order.index)
        assert len(seen) < 2 or set(seen[-2]) <= set(seen[-1])
    assert seen[0] in (["memory"], ["memory", "at_work"])
    assert "shaped_by" in seen[-1]
    text = wake("--budget", str(full - 20)).stdout
    assert headings(text)[-1] == "Left out"
    assert re.search(r"\n- \d recent memor(y|ies): `souveraine recall WORDS`, or the newest files in `memories/<year>/` "
                     r"\(names start with their date\)\n", text)


def test_cut_order_keeps_identity_and_constitutive_to_the_last(wake):
    full = wake.json()["budget"]["used"]
    fits = None
    for budget in range(full, 0, -25):
        data = wake.fitted(budget)
        if data is None:
            break
        fits = data
    assert [i["tier"] for i in fits["shaped_by"]] == ["constitutive"]
    assert fits["you"]["effective_expression"]["walls"]
    assert fits["system"] == [] and fits["memory"]["recent"] == [] and fits["inner_voice"] == [] and fits["at_work"] == []
    assert set(left_out(fits)) == {"memory", "at_work", "inner_voice", "synthesized", "system", "on_demand", "surfacing",
                                   "shaped_by"}
    text = wake("--budget", str(fits["budget"]["limit"])).stdout
    assert CONSTITUTIVE_TEXT in text and "`system/state.md`" in text


def test_identity_alone_over_budget_is_refused_with_advice(wake):
    result = wake("--budget", "40", code=1)
    assert result.stdout == ""
    assert re.fullmatch(r"souveraine: who you are and your constitutive memories alone need [\d,]+ tokens, over this "
                        r"wake's budget of 40 \(model default\); raise wake_share or context_limit in \[models.default\] "
                        r"or pass --budget, and keep the identity to indexes \(doctor: move detail to reference/, keep "
                        r"system/ small\)\n", result.stderr)
    failed = json.loads(wake("--budget", "40", "--json", code=1).stdout)
    assert failed["error"] == "wake_over_budget"


def test_max_chars_cuts_in_the_same_order_and_counts_as_javascript_does(wake):
    full = len(wake().stdout)
    order = list(dict.fromkeys(CUT_ORDER))
    for cap in (full - 1, full - 600, full - 1500):
        data = wake.json("--max-chars", str(cap))
        text = wake("--max-chars", str(cap)).stdout
        assert len(text.encode("utf-16-le")) // 2 == data["budget"]["chars"] <= cap == data["budget"]["max_chars"]
        assert left_out(data) == sorted(left_out(data), key=order.index) and left_out(data)
        assert f"budget 20,000 tokens, {cap:,} characters." in text and headings(text)[-1] == "Left out"
    assert left_out(wake.json("--max-chars", str(full - 1))) == ["memory"]
    roomy = wake("--max-chars", str(full + 100)).stdout
    assert roomy == wake().stdout.replace("tokens.", f"tokens, {full + 100:,} characters.", 1)


def test_max_chars_below_who_you_are_is_refused(wake):
    result = wake("--max-chars", "300", code=1)
    assert re.fullmatch(r"souveraine: who you are and your constitutive memories alone need [\d,]+ characters, over "
                        r"this wake's cap of 300 \(--max-chars\); raise the cap, or keep the identity to indexes "
                        r"\(doctor: move detail to reference/, keep system/ small\)\n", result.stderr)
    assert "0 is not in the range x>=1" in wake("--max-chars", "0", code=2).stderr


def test_budget_comes_from_the_model(wake):
    data = wake.json("--model", "small")
    assert data["model"] == "small" and data["budget"]["limit"] == 4000
    assert wake("--model", "nope", code=3).stderr.startswith("souveraine: no model 'nope'")
    assert "must be a positive number" in wake("--budget", "0", code=2).stderr


# -- privacy and viewports -----------------------------------------------------------------

GUARDED = [("--bandwidth", "medium"), ("--bandwidth", "low"), ("--bandwidth", "minimal"), ("--shared",),
           ("--bandwidth", "high", "--shared")]


@pytest.mark.parametrize("args", GUARDED)
def test_private_and_never_share_stay_out_below_high_and_when_shared(wake, args):
    for output in (wake(*args).stdout, wake(*args, "--json").stdout):
        folded = output.casefold()
        assert PRIVATE_TEXT.casefold() not in folded and "diagnosis" not in folded
        assert SECRET_PHRASE not in folded and "elm street" not in folded and SECRET_FILE not in folded


def test_high_bandwidth_unshared_shows_everything(wake):
    text = wake().stdout
    assert "Bea told me about her diagnosis in confidence." in wake.json()["memory"]["recent"][0]["description"]
    assert "Ring at the blue door" in text and "Bea lives at 3 Elm Street." in text
    assert "remember the blue door" in text


VIEWS = {
    "high": HEADINGS,
    "medium": ["Who you are", "What shaped you", "Pinned", "Synthesized essence", "Surfacing now", "Recent memory",
               "On demand"],
    "low": ["Who you are", "What shaped you", "Pinned", "Synthesized essence", "Surfacing now", "Recent memory",
            "On demand"],
    "minimal": ["Presence"],
}


@pytest.mark.parametrize("bandwidth, surfaced", [("high", ["i000002"]), ("medium", ["i000002"]), ("low", []),
                                                 ("minimal", [])])
def test_every_bandwidth_level(wake, bandwidth, surfaced):
    data = wake.json("--bandwidth", bandwidth)
    text = wake("--bandwidth", bandwidth).stdout
    assert data["bandwidth"] == bandwidth and f"Bandwidth {bandwidth} ·" in text
    assert [i["id"] for i in data["surfacing"]] == surfaced
    assert headings(text) == VIEWS[bandwidth]
    if bandwidth == "minimal":
        assert text.endswith("## Presence\n\nada · waiting · 2 waiting\n")
        assert data["presence"]["presence"] == "waiting" and data["system"] == [] and data["shaped_by"] == []
        assert data["memory"]["recent"] == [] and data["inner_voice"] == [] and data["synthesized"] == []
    if bandwidth == "low":
        assert "## Surfacing now\n\nNothing urgent.\n" in text
        assert data["memory"]["recent"] == [] and data["memory"]["total"]["all"] == 9 and data["inner_voice"] == []
    if bandwidth == "medium":
        assert "- [surfacing: medium: Reply to Bea about the release]\n- (1 more waiting at lower urgency" in text
        assert data["inner_voice"] == [] and len(data["memory"]["recent"]) == 3
    if bandwidth == "high":
        assert "- [surfacing: medium: Reply to Bea about the release]\n- waiting · low · Tidy the notes folder\n" in text
        assert [p["kind"] for p in data["at_work"]] == ["commits"] and "- Recent commits:\n  - `" in text
        assert len(data["inner_voice"]) == 5 and data["inner_voice"][-1]["text"] == "thought number 7"


def test_unknown_identity_is_a_usage_error(wake):
    assert "no identity 'zed' here" in wake("--identity", "zed", code=2).stderr


# -- a fresh memory ------------------------------------------------------------------------

def test_a_fresh_memory_wakes_small(invoke, memory):
    result = invoke("wake", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["identity"] == "ada" and data["shaped_by"] == [] and data["memory"]["total"]["all"] == 0
    assert data["budget"]["used"] < 1500
    assert headings(invoke("wake").stdout) == ["Who you are", "Pinned", "Surfacing now", "At work", "Recent memory",
                                               "On demand"]
    assert_clean(memory.root)


def test_a_memory_without_identity_still_wakes(tmp_path, runner):
    from souveraine.bootstrap import init
    from souveraine.cli import cli

    root = init(tmp_path / "bare").root
    result = runner.invoke(cli, ["--memory", str(root), "wake"], catch_exceptions=False)
    assert result.exit_code == 0
    assert "No identity is declared in this memory yet; `souveraine identity create HANDLE` makes one." in result.stdout


def test_tail_reads_the_end_of_a_long_file(tmp_path):
    path = tmp_path / "voice.md"
    path.write_text("".join(f"line {n}\n" for n in range(5000)))
    assert now.tail(path, 3, block=64).splitlines() == ["line 4997", "line 4998", "line 4999"]
    path.write_text("only\n")
    assert now.tail(path, 3).splitlines() == ["only"]


def test_one_oversized_pinned_note_is_cut_not_everything_else(lived, tmp_path):
    import shutil

    from souveraine.store.memory import Memory
    from souveraine.wake import wake as wake_of

    root = shutil.copytree(lived.root, tmp_path / "copy", symlinks=True)
    memory = Memory(root)
    before = wake_of(memory)
    kept = {p.section for p in before.parts}
    paragraph = "The ledger keeps every receipt of the orchard since 1998, line by line, with its date and its sum.\n\n"
    (root / "system" / "project" / "dump.md").write_text("# Everything\n\n" + paragraph * 950)    # about 96 KB
    cut = wake_of(memory)
    text = cut.markdown()
    assert {p.section for p in cut.parts} == kept                 # the essence, the inner voice, the memories stay
    assert {p.key for p in cut.parts if p.section == "system"} >= {p.key for p in before.parts if p.section == "system"}
    assert cut.used <= cut.limit
    [dump] = [p for p in cut.parts if p.key == "system/project/dump.md"]
    assert dump.data["cut"]["of"] > 90_000 and dump.data["cut"]["shown"] <= 0.25 * cut.limit * 4
    assert "_Cut here: " in dump.md and "the rest is in `system/project/dump.md`._" in dump.md
    assert [e["section"] for e in cut.to_dict()["budget"]["left_out"]] == ["cut"]
    assert "\n- the rest of 1 oversized pinned file: open `system/project/dump.md` (" in text


def test_pinned_headings_shift_under_their_title_never_in_code():
    from souveraine.wake.pinned import demote

    body = "# Plan\n\n```sh\n# install\n~~~\n# still code\n```\n\nSteps\n-----\n\n## Later\n"
    assert demote(body, 1) == "## Plan\n\n```sh\n# install\n~~~\n# still code\n```\n\n### Steps\n\n### Later\n"
    assert demote("# A\n## B\ntext\n", 2) == "### A\n#### B\ntext\n"


def test_a_cut_inside_code_closes_the_fence_it_opened():
    from souveraine.wake.budget import _at_a_line

    nested = "Intro.\n\n````md\n```\nnested\n```\nmore\n"
    assert _at_a_line(nested, len(nested)) == nested.rstrip() + "\n````"
    assert _at_a_line("Intro.\n\n~~~sh\nmake all\nmake test\n", 30) == "Intro.\n\n~~~sh\nmake all\n~~~"
    assert _at_a_line("Intro.\n\n```\ncode\n```\nAfter.\nMore.\n", 28) == "Intro.\n\n```\ncode\n```\nAfter."
