import json
from datetime import date, datetime

import pytest

from souveraine.care import digest, doctor, links
from souveraine.store import journal
from tests.support import assert_clean, git

TURNS = [
    (date(2026, 3, 2), "09:15:00", "user", "I had lunch with Alice Martin today. She wants to learn #pottery this spring."),
    (date(2026, 3, 2), "09:15:30", "assistant", "Noted. Shall I remind you to ask Bob about the kiln?"),
    (date(2026, 3, 4), "18:00:00", "user", "Bob fixed the kiln at last. Alice said the glaze cracked; a bob of clay was left."),
    (date(2026, 3, 8), "20:00:00", "user", "Cooking tonight: a risotto. Monday I start the new job."),
    (date(2026, 3, 9), "08:00:00", "user", "Next week: Alice again, and #pottery."),
]
BOB = "---\ntype: person\nname: Bob\ndescription: Bob, the neighbour with a kiln.\n---\n# Bob\n\nBob lends tools.\n"
COOKING = "---\ndescription: What I cook.\n---\n# Cooking\n\nWeeknight dinners.\n"


def write_turns(memory, turns):
    days: dict[str, str] = {}
    for day, at, role, text in turns:
        rel = journal.day_path(day)
        body = days.get(rel, journal.header(day))
        moment = datetime.combine(day, datetime.strptime(at, "%H:%M:%S").time())
        block = journal.block_id(moment, role, text, "s1", journal.block_ids(body))
        days[rel] = body + journal.render(moment, role, text, "s1", block)
    with memory.change("chore(journal): turns for the digest") as change:
        for rel, text in days.items():
            change.write(rel, text)
        change.write("people/bob.md", BOB)
        change.write("domains/cooking.md", COOKING)


@pytest.fixture
def week(memory):
    write_turns(memory, TURNS)
    return memory


def test_digest_distils_a_week_into_people_and_domains(week, invoke):
    journal_before = {p: week.path(p).read_bytes() for p in journal.days(week.root)}
    result = invoke("digest", "--week", "2026-W10", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["week"] == "2026-W10" and data["turns"] == 4
    assert data["people"] == ["Alice Martin", "Bob"]
    assert data["domains"] == ["Cooking", "Pottery"]
    assert data["notes"] == ["domains/cooking.md", "domains/pottery.md", "people/alice-martin.md", "people/bob.md"]
    assert git(week.root, "log", "-1", "--format=%s").strip() == "chore(digest): week 2026-W10"
    assert_clean(week.root)
    assert {p: week.path(p).read_bytes() for p in journal.days(week.root)} == journal_before
    alice = week.path("people/alice-martin.md").read_text()
    assert "name: Alice Martin" in alice
    assert "- 2026-03-02: The user had lunch with Alice Martin that day. [[journal/2026/03/2026-03-02#^t091500u" in alice
    assert "- 2026-03-04, the user: Alice said the glaze cracked. [[journal/2026/03/2026-03-04#^" in alice
    assert "Next week" not in alice   # 9 March is in the next week
    bob = week.path("people/bob.md").read_text()
    assert bob.startswith(BOB)
    assert bob.count("\n- 2026-03-0") == 2   # asked about the kiln; fixed it (a lower-case "bob" is no name)
    index = week.path("people/_index.md").read_text()
    assert "- [[people/alice-martin|Alice Martin]]" in index and "- [[people/bob|Bob]]" in index
    assert "- [[domains/pottery|Pottery]]" in week.path("domains/_index.md").read_text()
    assert "Cooking that evening: a risotto." in week.path("domains/cooking.md").read_text()
    assert [f.to_dict() for f in doctor.doctor(week)] == []


def test_every_line_of_the_digest_links_to_its_journal_block(week):
    result = digest.digest(week, "2026-W10")
    vault = links.Vault.of(week.root)
    checked = 0
    for path in result["notes"]:
        for link in vault.links(path):
            assert vault.resolve(link, path).ok, (path, link.raw)
            checked += link.target.startswith("journal/") and link.block is not None
    assert checked == result["bullets"] == 6


def test_a_second_digest_of_the_same_week_changes_nothing(week):
    digest.digest(week, "2026-W10")
    head = git(week.root, "rev-parse", "HEAD")
    again = digest.digest(week, "2026-W10")
    assert again["notes"] == [] and again["commit"] is None
    assert git(week.root, "rev-parse", "HEAD") == head


def test_digest_defaults_to_last_week(week, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-03-11T10:00:00+01:00")
    assert digest.digest(week)["week"] == "2026-W10"


def test_a_week_without_journal_is_nothing_to_digest(memory, invoke):
    result = invoke("digest", "--week", "2026-W01")
    assert result.exit_code == 0 and result.stdout == "2026-W01: nothing to digest\n"
    assert_clean(memory.root)


@pytest.mark.parametrize("week", ["2026-48", "2026-W54", "last"])
def test_a_week_that_is_not_an_iso_week_is_refused(invoke, week):
    result = invoke("digest", "--week", week)
    assert result.exit_code == 2
    assert result.stderr == f"souveraine: '{week}' is not an ISO week; give YYYY-Www, e.g. 2026-W48\n"


HARD = [
    (date(2026, 3, 2), "09:00:00", "user", "As promised, the Airflow logs. I called Inês about the cake; she's in."),
    (date(2026, 3, 2), "09:01:00", "assistant", "Then ask Tomás for the drill. Dr. Amara Okafor moved the appointment."),
    (date(2026, 3, 3), "10:00:00", "user", "Per [[people/alice]], the glaze needs a second firing."),
    (date(2026, 3, 3), "10:01:00", "assistant", "Lisbon is lovely in March. Dr. Silva agreed to the date."),
]


def test_digest_finds_people_not_sentence_openers_or_products(memory, invoke):
    write_turns(memory, HARD)
    data = json.loads(invoke("digest", "--week", "2026-W10", "--json").stdout)
    assert data["people"] == ["Alice", "Dr. Amara Okafor", "Dr. Silva", "Inês", "Tomás"]
    assert {"people/alice.md", "people/amara-okafor.md", "people/silva.md", "people/ines.md", "people/tomas.md"} <= set(data["notes"])
    assert not any(p in data["notes"] for p in ("people/as.md", "people/airflow.md", "people/dr.md", "people/in.md",
                                                "people/tom.md", "people/lisbon.md", "people/per.md"))
    ines = memory.read_text("people/ines.md")
    assert "- 2026-03-02: The user called Inês about the cake. [[journal/2026/03/2026-03-02#^" in ines
    assert "the glaze needs a second firing" in memory.read_text("people/alice.md")
    assert_clean(memory.root)


FIELD_TURNS = [
    (date(2026, 2, 16), "08:00:00", "user", "Fed the sourdough starter before work; it smells like apples."),
    (date(2026, 2, 16), "08:01:00", "assistant", "A sweet smell means the starter is healthy. Tomás would approve."),
    (date(2026, 2, 20), "19:00:00", "user", "Tomás came round. The loaves came out flat again, the dough was too wet."),
    (date(2026, 2, 25), "07:30:00", "user", "Tried a stiffer dough with the sourdough starter, much better loaves."),
    (date(2026, 3, 3), "09:00:00", "user", "Tomás says my loaves beat the bakery's. The starter is three months old now."),
    (date(2026, 3, 5), "18:30:00", "user", "Time for a good day: I baked two loaves for the neighbours."),
]


def test_digest_writes_a_note_for_a_field_the_journal_keeps_returning_to(memory, invoke):
    write_turns(memory, FIELD_TURNS)
    data = json.loads(invoke("digest", "--week", "2026-W10", "--json").stdout)
    detected = {f.casefold() for f in data["fields"]}
    assert detected & {"loaves", "starter", "sourdough starter", "dough"}, detected
    assert not detected & {"tomás", "time", "day", "work", "bakery's"}
    note = next(p for p in data["notes"] if p.startswith("domains/") and p != "domains/cooking.md")
    from souveraine.store import notes as store_notes

    read = store_notes.read(memory.path(note))
    assert read.get("type") == "domain" and read.get("tags") == ["domains"] and read.get("name") in data["fields"]
    lines = [l for l in read.body.splitlines() if l.startswith("- 2026-03-0")]
    assert lines and all("[[journal/2026/03/2026-03-0" in l for l in lines)
    assert f"[[{note[:-3]}|" in memory.read_text("domains/_index.md")
    assert_clean(memory.root)
    assert not [f for f in doctor.doctor(memory) if note in str(f)], "doctor finds fault with the field's note"
    print(memory.read_text(note))


def test_a_linked_person_reads_as_a_name_in_the_lines_persist_writes(memory, monkeypatch):
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:00+00:00")
    persist(memory, Exchange(user="[[people/alice]] will drive me to [[people/amara-okafor|Dr. Okafor]]'s clinic.",
                             assistant="Good, I'll note the drive."))
    alice = memory.read_text("people/alice.md")
    assert "Alice will drive the user" in alice
    assert "people/alice will" not in alice.casefold()


def test_a_titled_surname_is_the_known_person_of_that_full_name(memory, monkeypatch):
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:00+00:00")
    persist(memory, Exchange(user="Dr. Amara Okafor moved my appointment to 9 December.", assistant="Noted."))
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-12-01T09:00:00+00:00")
    result = persist(memory, Exchange(user="Dr. Okafor said I should take vitamin D every morning.", assistant="Noted."))
    assert result.people == ["people/amara-okafor.md"]
    assert "vitamin D" in memory.read_text("people/amara-okafor.md")
    assert not memory.exists("people/okafor.md")
    assert_clean(memory.root)


def test_a_link_with_an_alias_writes_to_the_note_it_links(memory, monkeypatch):
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:00+00:00")
    result = persist(memory, Exchange(user="Lunch with [[people/amara-okafor|Dr. Okafor]] on Friday.", assistant="Enjoy."))
    assert result.people == ["people/amara-okafor.md"]
    assert "Lunch with Dr. Okafor on Friday" in memory.read_text("people/amara-okafor.md")
    assert "[[people/amara-okafor|Dr. Okafor]]" in memory.read_text("people/_index.md")
    assert not memory.exists("people/dr-okafor.md")
    assert_clean(memory.root)


def test_a_full_name_joins_the_note_of_the_given_name_met_before(memory, monkeypatch):
    from souveraine.store import notes
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:00+00:00")
    persist(memory, Exchange(user="I had lunch with Tomás today, he starts at the bakery soon.", assistant="Lovely."))
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-12-01T09:00:00+00:00")
    result = persist(memory, Exchange(user="Tomás Silva called me about the bakery contract.", assistant="Good news."))
    assert result.people == ["people/tomas.md"]
    note = notes.parse(memory.read_text("people/tomas.md"))
    assert note["aliases"] == ["Tomás Silva"] and "bakery contract" in note.body
    result = persist(memory, Exchange(user="Tomás Ferreira is my new landlord.", assistant="Noted."))
    assert result.people == ["people/tomas-ferreira.md"], "a second surname is a second person"
    assert memory.read_text("people/_index.md").count("\n- [[people/") == 2
    assert "]]\n\n- [[" not in memory.read_text("people/_index.md"), "the index is one list"
    assert_clean(memory.root)


def test_a_given_name_with_an_accent_finds_the_full_name_met_before(memory, monkeypatch):
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:00+00:00")
    persist(memory, Exchange(user="Tomás Silva called me about the bakery contract.", assistant="Good."))
    result = persist(memory, Exchange(user="I had lunch with Tomás today.", assistant="Lovely."))
    assert result.people == ["people/tomas-silva.md"]
    persist(memory, Exchange(user="Dr. Inês Álvares moved my appointment to Friday.", assistant="Noted."))
    result = persist(memory, Exchange(user="Dr. Alvares says I should rest.", assistant="Noted."))
    assert result.people == ["people/ines-alvares.md"]
    assert not memory.exists("people/tomas.md") and not memory.exists("people/alvares.md")
