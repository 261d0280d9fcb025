"""The subconscious's judgements, one by one: facts, closures, corrections, unanswered questions."""

from datetime import datetime

import pytest

from souveraine.tempos import closures, corrections, facts, innervoice, promises
from souveraine.tempos.answered import unanswered
from souveraine.tempos.innervoice import Thought

NOW = datetime(2026, 12, 1, 10, 0)   # Tuesday


def fact(assistant, user):
    return facts.statement(promises.find(assistant)[0], user, NOW)


def test_a_fact_is_one_self_contained_sentence_with_absolute_dates():
    assert fact("I'll remember the new date.", "Good point. The dentist moved to Thursday.") == \
        "The dentist moved to Thursday (2026-12-03)."
    assert fact("Noted!", "Thanks! Lena arrives in Lisbon on Friday.") == "Lena arrives in Lisbon on Friday (2026-12-04)."
    assert fact("I'll remember that your sister is Lea.", "ok") == "The user's sister is Lea."
    assert fact("I'll remember that you take your tea green.", "ok") == "The user takes their tea green."
    assert fact("Noted!", "My sister keeps my keys.") == "The user's sister keeps their keys."
    assert fact("Saved: Zé da Mouraria, 218 865 436.", "Zé da Mouraria's number is 218 865 436.") == \
        "Zé da Mouraria's number is 218 865 436."
    assert fact("Got it.  I'll keep that in mind.", "I'm vegetarian but I eat fish.") == \
        "The user is vegetarian but the user eats fish."


def test_nothing_to_keep_is_said_as_nothing():
    assert fact("Noted.", "ok thanks!") == ""
    assert fact("I'll remember that.", "Can you help me?") == ""


def test_claims_of_having_saved_are_found_with_their_content():
    [claim] = promises.find("I've saved that as a convention.")
    assert claim.claimed and claim.kind == "save"
    [claim] = promises.find("Saved: Zé da Mouraria, 218 865 436")
    assert claim.claimed and claim.content == "Zé da Mouraria, 218 865 436"
    assert promises.find("I saved the file yesterday.") == []
    assert promises.find("Marta recorded it; the link is in the invite.") == []


@pytest.mark.parametrize("answer, content", [
    ("Memory updated ✅ Dentist: Dr. Silva, Thursdays.", "Dentist: Dr. Silva, Thursdays"),
    ("Budget rule — saved as a convention.", "Budget rule"),
    ("Put Ngozi's new address (Rua do Sol 4) in your contacts.", ""),
    ("I have it noted.", ""),
    ("Right, I've jotted that down.", ""),
    ("✅ Saved: the boiler code is 7731.", "the boiler code is 7731"),
    ("Done — noted in your profile.", ""),
    ("Fixed in memory: the vet is on Rua da Paz.", "the vet is on Rua da Paz"),
    ("I've put Maya's pick-up (15:40) in your notes.", ""),
])
def test_claims_said_as_labels_tails_and_places_keep_only_the_fact(answer, content):
    [claim] = promises.find(answer)
    assert claim.claimed and claim.content == content


@pytest.mark.parametrize("answer", [
    "That was saved as part of the old profile.", "I noted that last week, so it's there.",
    "I have it noted in the draft.", "Not saved yet — I'll do it once you confirm.",
])
def test_past_drafted_and_pending_saves_are_no_claims(answer):
    assert not [p for p in promises.find(answer) if p.claimed]


def test_a_dated_promise_knows_its_due_time():
    [promise] = promises.find("I'll remind you on Thursday to send the form.", now=NOW)
    assert promise.due.day.isoformat() == "2026-12-03"
    [promise] = promises.find("The dentist is on the 15th. I'll remind you the day before.", now=NOW)
    assert promise.due.day.isoformat() == "2026-12-14"
    assert promises.find("I'll commit it.", now=NOW)[0].due is None


OPEN = ["I'll remind you the day before the dentist.",
        "I'll look up the renewal terms for the car insurance and tell you what I find."]


@pytest.mark.parametrize("answer, closes", [
    ("As promised, here is what I found for the renewal: the premium goes up 8%.", 1),
    ("Reminder: your dentist appointment is tomorrow at 9:00.", 0),
    ("Lunch sounds good. Enjoy!", None),
    ("Should I look at the renewal or the dentist first?", None),
    ("I still don't have the renewal terms — the insurer hasn't replied.", None),
])
def test_an_answer_closes_the_one_commitment_it_fulfils(answer, closes):
    assert closures.which(OPEN, answer) == closes


def test_a_commit_tool_call_closes_a_commit_promise():
    assert closures.which(["I'll commit the fix once the tests pass.", "I'll email Kofi."], "Done.",
                          ["git commit -m 'fix: parser'"]) == 0


@pytest.mark.parametrize("said, target, path", [
    ("Never schedule meetings before 10am.", "workflow", "system/human/prefs/workflow.md"),
    ("Please don't use emoji.", "communication", "system/human/prefs/communication.md"),
    ("I'm really into birdwatching these days.", "topics", "system/human/prefs/topics.md"),
    ("No, my sister is Lea, not Leah.", "identity", "system/human/identity.md"),
    ("Actually we moved the launch to March.", "project", "system/project/conventions.md"),
    ("Never push directly to main.", "project", "system/project/do-nots.md"),
    ("Put recipes in memories/recipes, not in the journal.", "conventions", "system/conventions.md"),
])
def test_corrections_find_their_file(said, target, path):
    found = corrections.read(said)
    assert (found.target, found.path) == (target, path)


@pytest.mark.parametrize("said", ["No, the other file.", "Thanks, that's perfect.", "What's the weather tomorrow?",
                                  "Actually, make it shorter.", "My daughter Mia was born on 2 May."])
def test_one_off_words_are_no_correction(said):
    assert corrections.read(said) is None


@pytest.mark.parametrize("user, assistant, missed", [
    ("What's the weather usually like in Lisbon in March?", "Mild: highs around 16 to 17°C.", False),
    ("How many people fit?", "80 seated.", False),
    ("Is the pharmacy open on Sunday?", "Yes, until 13:00.", False),
    ("When does the lease end?", "The landlord is Mr. Okonkwo.", True),
    ("Where should we eat on Saturday?", "What kind of food do you fancy?", True),
    ("Who should I cc?", "You're welcome!", True),
    ("Can you check the museum hours?", "I'll find out and get back to you.", False),
    ("How are you?", "Busy!", False),
])
def test_unanswered_questions_are_flagged_only_when_surely_missed(user, assistant, missed):
    assert bool(unanswered(user, assistant)) is missed


def test_the_live_inner_voice_drops_what_is_settled(memory):
    old = Thought(datetime(2026, 11, 30, 9, 0), "medium", 'The question "When?" may have gone unanswered.')
    fresh = Thought(datetime(2026, 12, 1, 9, 30), "medium", 'The question "Where?" may have gone unanswered.')
    kept = Thought(datetime(2026, 11, 29, 9, 0), "low", 'Kept: "I\'ll commit." (2026-11-29 08:00) — closed [[x]].')
    promise = Thought(datetime(2026, 11, 29, 9, 0), "medium", 'Unfulfilled promise: "x" — [[ledger/commitments#^c000001]]')
    other = Thought(datetime(2026, 11, 1, 9, 0), "high", "The witness key expires soon.")
    assert innervoice.live(memory, [old, fresh, kept, promise, other], NOW) == [fresh, other]


def test_a_local_model_settles_hard_cases_within_its_deadline(memory):
    from souveraine.store.memory import Memory
    from souveraine.tempos import judge
    from tests.inference.fake_model import FakeModel, answer, slow
    from tests.tempos.conversation import configure

    with FakeModel([answer("2"), answer(" None."), answer("yes"), answer("Probably the second one."),
                    slow(5.0, answer("1"))]) as server:
        configure(memory, "inference", endpoint=server.base, model="tiny")
        model = judge.client(Memory(memory.root))
        assert model.endpoint.timeout == judge.DEADLINE and model.endpoint.retries == 0
        assert judge.closure(model, OPEN, "Here you go.") == 1
        assert judge.closure(model, OPEN, "Here you go.") is None
        assert judge.answered(model, "When?", "Soon.") is True
        assert judge.closure(model, OPEN, "Here you go.") is ...      # not the strict format: the rules stand
        started = __import__("time").monotonic()
        assert judge.closure(model, OPEN, "Here you go.") is ...      # past the deadline: the rules stand
        assert __import__("time").monotonic() - started < judge.DEADLINE + 1
    system = server.requests[0]["json"]["messages"][0]["content"]
    assert "nothing else" in system and server.requests[0]["json"]["max_tokens"] == 4


def test_without_a_model_there_is_no_judge(memory):
    from souveraine.tempos import judge

    assert judge.client(memory) is None


def test_an_acknowledgement_keeps_the_users_fact_not_its_own_words():
    assert fact("Noted for next time.", "Good point. Lena arrives in Lisbon on Friday.") == \
        "Lena arrives in Lisbon on Friday (2026-12-04)."
    assert fact("Filing that away.", "The gate code is 4471.") == "The gate code is 4471."
