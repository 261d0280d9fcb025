"""A week of conversation — 160 turns, Monday to Friday — through persist and surface, as an
agent's loop runs them, asserting what the subconscious judged: the ledger, the inbox's
timing (a Thursday promise surfaces on Thursday, not before), the memories written from
promises and claims, and the corrections landed in system/ as diffs."""

from datetime import datetime

from souveraine.store import notes
from souveraine.tempos import inbox, innervoice, ledger
from souveraine.tempos.persist import persist
from souveraine.tempos.surface import surface
from souveraine.tempos.transcripts import Exchange
from tests.support import assert_clean, git

MON, TUE, WED, THU, FRI = "2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"

# (day, time, user, assistant, tool calls) — the turns that matter; small talk fills the rest.
SCRIPT = [
    (MON, "09:10", "Morning! Busy week ahead.", "Morning! What's first on the list?", ()),
    (MON, "09:12", "Never schedule meetings before 10am.", "Understood, nothing before ten.", ()),
    (MON, "09:15", "The residence form for the câmara has to go in this week.",
     "I'll remind you on Thursday to send the form.", ()),
    (MON, "09:20", "My dentist is on Friday at 9.", "Good to know. I'll remind you the day before.", ()),
    (MON, "09:25", "Can you look up the renewal terms for the car insurance?",
     "I'll look up the renewal terms for the car insurance and tell you what I find.", ()),
    (MON, "09:30", "Good point. Lena arrives in Lisbon on Friday.", "Noted for next time.", ()),
    (MON, "09:40", "What's the weather usually like in Lisbon in March?",
     "Mild: highs around 16 to 17°C, some rain, long sunny spells.", ()),
    (MON, "09:45", "When does the lease end?", "The landlord is Mr. Okonkwo; he usually replies quickly.", ()),
    (MON, "10:30", "Can you commit the changelog?", "I'll commit the changelog after the review.", ()),
    (MON, "11:00", "And the school?", "I'll draft the email to the school tonight.", ()),
    (TUE, "09:05", "No, my sister is Lea, not Leah.", "Sorry about that — Lea it is.", ()),
    (TUE, "09:10", "Please don't use emoji.", "Understood.", ()),
    (TUE, "09:30", "Any news on the insurance?",
     "As promised, here is what I found for the renewal: the premium goes up 8%, and you can switch "
     "without a fee until the 20th.", ()),
    (TUE, "10:00", "Zé da Mouraria's number is 218 865 436.", "Saved: Zé da Mouraria, 218 865 436.", ()),
    (TUE, "11:00", "Review's done, go ahead.", "Committed the changelog.", ("Bash git commit -m 'docs: changelog'",)),
    (WED, "09:00", "Actually we moved the launch to March.", "Okay — March it is.", ()),
    (WED, "09:30", "I'm really into birdwatching these days.", "Lovely hobby! The Tagus estuary is great for it.", ()),
    (WED, "10:00", "How many people fit in the venue?", "80 seated, about 120 standing.", ()),
    (THU, "08:40", "Good morning.",
     "Morning! It's Thursday — time to send the residence form to the câmara.", ()),
    (THU, "09:00", "Thanks. Anything else today?",
     "Reminder: your dentist appointment is tomorrow at 9:00.", ()),
    (FRI, "18:00", "Lena just landed!", "Wonderful — enjoy the weekend together.", ()),
]

SMALL_TALK = [
    ("How do I exit vim?", "Esc, then :q and Enter."),
    ("What's 15% of 340?", "51."),
    ("Thanks!", "You're welcome."),
    ("Is it going to rain later?", "Light showers after 16:00."),
    ("Can you recommend a podcast on history?", "The Rest Is History is a good start."),
    ("What's a good name for a sourdough starter?", "Bready Mercury."),
    ("ok", "👍 Anything else?"),
    ("How long should I rest the steak?", "Five minutes, loosely covered."),
    ("Which is cheaper, the bus or the train to Porto?", "The bus: €12 against €25."),
    ("Translate 'obrigado' please.", "'Thank you' (said by a man)."),
    ("What year did the earthquake hit Lisbon?", "1755."),
    ("Should I bring a jacket tonight?", "Yes, it drops to 11°C."),
    ("Quick one: is the pharmacy open on Sunday?", "Yes, until 13:00."),
    ("lol", "😄"),
    ("Who wrote Blindness?", "José Saramago."),
    ("How far is Sintra from here?", "About 25 km, 40 minutes by train."),
    ("Cool.", "Glad it helps."),
    ("What's the plural of cactus?", "Cacti."),
    ("Can I freeze cooked rice?", "Yes, within an hour of cooking."),
    ("Is 3pm OK for a call?", "Works for me."),
]


def exchanges():
    """Each day's scripted turns, with small talk between them: 80 exchanges, 160 turns."""
    talk = iter(SMALL_TALK * 4)
    out = []
    for day, time, user, assistant, tools in SCRIPT:
        out.append((day, time, user, assistant, tools))
        hour, minute = map(int, time.split(":"))
        for k in range(1, 4 if day != FRI else 2):
            filler = next(talk)
            out.append((day, f"{hour + (minute + 5 * k) // 60:02d}:{(minute + 5 * k) % 60:02d}", *filler, ()))
    return out


def test_a_week_of_conversation(memory, monkeypatch):
    hooks = memory.root / ".git" / "no-hooks"   # the laws have their own suite; 160 commits stay quick here
    hooks.mkdir()
    git(memory.root, "config", "core.hooksPath", str(hooks))
    start = git(memory.root, "rev-parse", "HEAD").strip()
    script = exchanges()
    assert len(script) * 2 >= 150
    surfaced = []
    for day, time, user, assistant, tools in script:
        now = f"{day}T{time}:00+00:00"
        monkeypatch.setenv("SOUVERAINE_NOW", now)
        for item in surface(memory).surfaced:
            surfaced.append((day, item.text))
        persist(memory, Exchange(user=user, assistant=assistant, tool_calls=list(tools), session="week",
                                 at=datetime.fromisoformat(now)))
        if (day, time) == (WED, "09:00"):
            drafted = next(e for e in ledger.entries(memory, "commitments") if "school" in e.text)
            ledger.settle(memory, drafted.id, "dropped", "Ana wrote it herself")

    # The ledger: what was kept closed itself, by the right answer; one was dropped by hand.
    status = {e.text: e for e in ledger.entries(memory, "commitments")}
    assert status["I'll look up the renewal terms for the car insurance and tell you what I find."].status == "closed"
    assert status["I'll commit the changelog after the review."].status == "closed"
    assert status["I'll remind you on Thursday to send the form."].status == "closed"
    assert status["I'll remind you on Thursday to send the form."].due == THU
    assert status["I'll remind you the day before."].status == "closed"
    assert status["I'll remind you the day before."].due == THU
    dropped = status["I'll draft the email to the school tonight."]
    assert (dropped.status, dropped.note) == ("dropped", "Ana wrote it herself")
    renewal = status["I'll look up the renewal terms for the car insurance and tell you what I find."]
    assert TUE in renewal.ended

    # The inbox: the undated promise surfaced at once; the Thursday ones waited for Thursday.
    days_of = lambda words: [day for day, text in surfaced if words in text]  # noqa: E731
    assert days_of("look up the renewal terms") == [MON]
    assert days_of("remind you on Thursday to send the form") == [THU]
    assert days_of("remind you the day before") == [THU]
    assert days_of("draft the email to the school tonight") == [TUE]   # due Monday evening; the next turn was Tuesday
    assert not [i for i in inbox.read(memory, inbox.PENDING).items if "Due " in i.text]

    # Memories: one self-contained sentence each, absolute dates, from a promise and from a claim.
    bodies = [notes.read(p).body.strip() for p in sorted((memory.root / "memories").rglob("*.md"))]
    assert "Lena arrives in Lisbon on Friday (2026-12-04)." in bodies
    assert "Zé da Mouraria's number is 218 865 436." in bodies

    # Corrections: each in its file, as a diff since the week began, and in the drift ledger.
    diff = git(memory.root, "diff", start, "HEAD", "--", "system/")
    assert "+- Never schedule meetings before 10am. (2026-11-30, [[journal/2026/11/2026-11-30#^t0912" in diff
    assert "+- The user's sister is Lea, not Leah. (2026-12-01, " in diff
    assert "+- Please don't use emoji. (2026-12-01, " in diff
    assert "+- We moved the launch to March. (2026-12-02, " in diff
    assert "+- The user is really into birdwatching these days. (2026-12-02, " in diff
    files = git(memory.root, "diff", "--name-only", start, "HEAD", "--", "system/").split()
    assert {"system/human/prefs/workflow.md", "system/human/identity.md", "system/human/prefs/communication.md",
            "system/project/conventions.md", "system/human/prefs/topics.md"} <= set(files)
    drift = {e.label for e in ledger.entries(memory, "drift")}
    assert drift == {"workflow", "identity", "communication", "project", "topics"}

    # The inner voice: the missed question was flagged once, and is no longer live on Friday.
    voice = (memory.root / "system/metacognition/subconscious.md").read_text()
    flagged = [line for line in voice.splitlines() if "may have gone unanswered" in line]
    assert len(flagged) == 1 and "When does the lease end?" in flagged[0]
    live = innervoice.live(memory, innervoice.parse(voice))
    assert not [t for t in live if "may have gone unanswered" in t.text]
    assert not [t for t in live if "Unfulfilled promise" in t.text]
    assert_clean(memory.root)
