"""Long multi-session conversations with planted facts, and the questions that find them.

A seeded generator: sessions spread over months, each a run of user and assistant turns of
everyday chatter that keeps using the same people, places and words as the facts (so a
fact is never the only turn holding its words), with facts planted here and there: names,
places, dates, preferences, plans, and minds changed later (the question then wants the
later turn). ``ingest`` writes the turns into a memory's journal exactly as persist does,
through store.journal, in one commit.
"""

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from souveraine.store import journal
from souveraine.store.memory import Memory

PEOPLE = ["Clara", "Malik", "Ines", "Tomasz", "Yuki", "Ana", "Olu", "Sven", "Priya", "Luca", "Noor", "Jonas"]
RELATIVES = ["sister", "brother", "cousin", "aunt", "uncle", "niece"]
CITIES = ["Lyon", "Porto", "Gdansk", "Kyoto", "Valencia", "Tallinn", "Bergen", "Bologna", "Ghent", "Lisbon", "Nantes", "Utrecht"]
PROJECTS = ["billing", "search", "onboarding", "mobile", "payments", "analytics"]
APPOINTMENTS = ["dentist appointment", "eye exam", "vet visit for the cat", "haircut", "car service", "passport interview"]
DRINKS = ["genmaicha", "rooibos", "mint tea", "chai", "hot chocolate", "yerba mate"]
BOOKS = ["The Dispossessed", "Middlemarch", "Piranesi", "The Remains of the Day", "Stoner", "Station Eleven"]
THEMES = ["forgiveness", "exile", "memory", "duty", "solitude", "starting over"]
GIFTS = ["fountain pen", "ceramic teapot", "hiking backpack", "vinyl record", "board game", "silk scarf"]
LANGUAGES = ["Rust", "Go", "Haskell", "Elixir", "Kotlin", "Zig"]
FIXTURES = ["kitchen tap", "boiler", "shower drain", "radiator", "toilet cistern", "washing machine hose"]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December"]

FILLER_USER = [
    "Can you help me plan the week? The {project} project has a review on Thursday.",
    "I had coffee with {person} this morning, we talked about the {project} deadline.",
    "My {relative} called about the weekend, nothing important really.",
    "The weather in {city} looks grim this week, rain every day.",
    "I want to cook something new tonight, maybe a curry with lentils.",
    "Remind me why the tests on the {project} service keep failing?",
    "I read a short article about {lang} and memory safety, interesting stuff.",
    "We should think about the holiday soon, prices are going up.",
    "The plumber never called back about the quote, annoying.",
    "I went for a run along the river, about eight kilometres.",
    "{person} sent me a photo from {city}, it looked lovely.",
    "Do you think I should buy a new book or finish the ones I have?",
    "My birthday list is getting long, I keep adding things.",
    "Coffee is not helping today, I am still tired.",
    "The team meeting ran long again, we argued about the roadmap.",
    "I need to renew my library card before the end of the month.",
    "Can you summarise what we decided about the budget spreadsheet?",
    "I started learning a few phrases in Portuguese for fun.",
    "The cat knocked a glass off the table again.",
    "{person} recommended a podcast about architecture in {city}.",
    "Let's draft an email to the landlord about the heating.",
    "My {relative} wants to visit in the spring, I need to tidy the spare room.",
    "I fixed a bug in the {project} importer, it was a timezone issue.",
    "What's a good stretch for a stiff neck after a long day at the desk?",
]
FILLER_ASSISTANT = [
    "Sure. Let's list what matters most this week and put the review first.",
    "That sounds like a good conversation; did you agree on next steps?",
    "Glad it was nothing serious. Anything you'd like to prepare for the weekend?",
    "Rain all week is tough. Maybe plan indoor things for the evenings.",
    "A lentil curry is a great choice: onions, garlic, ginger, tomatoes, spices.",
    "Flaky tests often come from shared state or time; let's look at the fixtures.",
    "It's a good read. Ownership rules take some getting used to.",
    "Booking early usually helps. Do you have dates in mind?",
    "You could send a short reminder; people often forget.",
    "Eight kilometres is a solid run. How did your knees feel?",
    "What a nice surprise. Have you been there yourself?",
    "Finishing one first might feel good; which one is closest to done?",
    "We can sort the list by priority whenever you like.",
    "Maybe a short walk and some water would help more than coffee.",
    "Long meetings are draining. Was anything decided in the end?",
    "Noted. Most libraries let you renew online now.",
    "We agreed to keep the spreadsheet simple and review it monthly.",
    "Obrigado! Portuguese pronunciation is tricky but fun.",
    "Cats do love gravity experiments.",
    "Sounds worth a listen on your next commute.",
    "Here's a draft: polite, clear about the dates, asking for a visit.",
    "A visit in spring sounds lovely; the spare room can wait a bit.",
    "Timezones are a classic source of bugs; good catch.",
    "Try slow neck rolls and a doorway chest stretch, thirty seconds each.",
]


@dataclass
class Line:
    at: datetime
    role: str
    text: str
    session: str
    fact: str | None = None          # the key of the fact this turn plants


@dataclass
class Question:
    text: str
    fact: str                        # the key of the planted turn it should find
    kind: str


@dataclass
class Conversation:
    lines: list[Line]
    questions: list[Question]
    end: date
    targets: dict[str, tuple[str, str]] = field(default_factory=dict)   # fact -> (path, block id)


def generate(sessions: int = 60, turns_per_session: int = 30, span_days: int = 540, seed: int = 7,
             end: date = date(2026, 11, 30)) -> Conversation:
    """A conversation of ``sessions`` sessions over ``span_days`` days before ``end``."""
    rng = random.Random(seed)
    days = sorted(rng.sample(range(span_days), sessions), reverse=True)
    plans = _plan_facts(rng, sessions)
    lines, questions, planted_days = [], [], {}
    for number, back in enumerate(days):
        day = end - timedelta(days=back)
        at = datetime.combine(day, datetime.min.time()) + timedelta(hours=rng.randint(8, 20))
        session = f"s{number:03d}"
        planted = plans.get(number, [])
        slots = sorted(rng.sample(range(turns_per_session // 2), min(len(planted), turns_per_session // 2)))
        for pair in range(turns_per_session // 2):
            fact = planted[slots.index(pair)] if pair in slots else None
            exchange = fact(day) if fact is not None else _filler(rng)
            user, reply, key = exchange[:3]
            speaker = exchange[3] if len(exchange) > 3 else "user"     # whose turn plants the fact
            at += timedelta(seconds=rng.randint(20, 240))
            lines.append(Line(at, "user", user, session, key if speaker == "user" else None))
            at += timedelta(seconds=rng.randint(5, 60))
            lines.append(Line(at, "assistant", reply, session, key if speaker == "assistant" else None))
            if key:
                planted_days[key] = day
    for ask in plans["questions"]:
        questions.append(ask(planted_days))
    return Conversation(lines, questions, end)


def _filler(rng: random.Random) -> tuple[str, str, None]:
    """Everyday chatter; the reply mostly answers the question (sometimes it drifts)."""
    n = rng.randrange(len(FILLER_USER))
    reply = FILLER_ASSISTANT[n] if rng.random() < 0.8 else rng.choice(FILLER_ASSISTANT)
    return _fill(rng, FILLER_USER[n]), reply, None


def _fill(rng: random.Random, template: str) -> str:
    return template.format(person=rng.choice(PEOPLE), relative=rng.choice(RELATIVES), city=rng.choice(CITIES),
                           project=rng.choice(PROJECTS), lang=rng.choice(LANGUAGES))


def _plan_facts(rng: random.Random, sessions: int) -> dict:
    """Which session plants which fact, and the questions; a fact is a function of its day."""
    plans: dict = {"questions": []}
    pools = {name: rng.sample(pool, len(pool)) for name, pool in {
        "people": PEOPLE, "relatives": RELATIVES, "cities": CITIES, "projects": PROJECTS,
        "appointments": APPOINTMENTS, "drinks": DRINKS, "books": BOOKS, "themes": THEMES,
        "gifts": GIFTS, "languages": LANGUAGES, "fixtures": FIXTURES}.items()}
    makers = [_colleague, _relative_moved, _appointment, _preference, _book, _gift, _plumber, _answer]
    count = 0
    for i in range(max(1, sessions * 2 // 3)):
        maker = makers[i % len(makers)]
        n = i // len(makers)
        if n >= 6:
            break
        fact, ask = maker(pools, n, f"f{count}")
        plans.setdefault(rng.randrange(sessions), []).append(fact)
        plans["questions"].append(ask)
        count += 1
    for n in range(min(6, max(1, sessions // 6))):
        first, later, ask = _changed_mind(pools, n, f"f{count}")
        early = rng.randrange(max(1, sessions - 2))
        plans.setdefault(early, []).append(first)
        plans.setdefault(rng.randrange(early + 1, sessions), []).append(later)
        plans["questions"].append(ask)
        count += 1
    for n in range(min(len(PROJECTS), max(1, sessions // 8))):
        updates, ask = _status(pools, n, f"f{count}")
        picks = sorted(rng.sample(range(sessions), len(updates)))
        for session, update in zip(picks, updates):
            plans.setdefault(session, []).append(update)
        plans["questions"].append(ask)
        count += 1
    return plans


def _status(pools, n, key):
    """The same plan restated as it moves: only the latest statement answers."""
    project = pools["projects"][n]
    months = [MONTH_NAMES[(3 * n + k * 2) % 12] for k in range(3)]
    updates = [lambda day, m=m, last=(k == 2): (f"The {project} release is now planned for {m}.",
                                                  "Noted, I'll keep that in mind.", key if last else None)
               for k, m in enumerate(months)]
    return updates, lambda days: Question(f"When is the {project} release planned?", key, "latest")


def _colleague(pools, n, key):
    person, project, city = pools["people"][n], pools["projects"][n], pools["cities"][n]
    return (lambda day: (f"By the way, the new colleague on the {project} project is called {person}; "
                         f"she moved over from the office in {city}.",
                         f"Nice, welcome to {person}! New people often bring fresh ideas.", key),
            lambda days: Question(f"What's the name of the new colleague on the {project} project?", key, "name"))


def _relative_moved(pools, n, key):
    relative, person, city = pools["relatives"][n], pools["people"][-1 - n], pools["cities"][-1 - n]
    return (lambda day: (f"Big news: my {relative} {person} finally moved to {city}, "
                         "into a flat near the old harbour.",
                         "That's a big step! Moving is exhausting but exciting.", key),
            lambda days: Question([f"Where does my {relative} live now?", f"Where did my {relative} move to?",
                                   f"Which city is my {relative} living in?"][n % 3], key, "place"))


def _appointment(pools, n, key):
    what = pools["appointments"][n]

    def fact(day):
        when = day + timedelta(days=9)
        return (f"I booked the {what} for {when:%A} {when.day} {when:%B}, at ten in the morning.",
                "Booked, good. Want me to remind you the day before?", key)
    short = what.split(" for ")[0]
    return fact, lambda days: Question([f"When is my {short}?", f"What day did I book for the {short}?",
                                        f"When's the {short} booked?"][n % 3], key, "date")


def _preference(pools, n, key):
    drink = pools["drinks"][n]
    topics = ["in the afternoon", "after dinner", "when I work late", "on cold days", "before bed", "at the office"]
    return (lambda day: (f"Honestly I prefer {drink} to coffee {topics[n]}; it keeps me calm.",
                         f"{drink.capitalize()} is a lovely choice.", key),
            lambda days: Question(f"What do I like to drink instead of coffee {topics[n]}?", key, "preference"))


def _book(pools, n, key):
    book, theme = pools["books"][n], pools["themes"][n]
    return (lambda day: (f"I finished {book} last night. The ending about {theme} stayed with me for hours.",
                         "Endings like that linger. What struck you most?", key),
            lambda days: Question([f"How did I feel about the ending of {book}?", f"Did I finish reading {book}?",
                                   f"What stays with me about {book}?"][n % 3], key, "book"))


def _gift(pools, n, key):
    person, gift = pools["people"][n + 6] if n + 6 < len(pools["people"]) else pools["people"][n], pools["gifts"][n]
    return (lambda day: (f"For {person}'s birthday I want to give a {gift}; they mentioned wanting one twice.",
                         "A thoughtful gift. Do you know their favourite colour?", key),
            lambda days: Question([f"What present was I going to get {person} for their birthday?",
                                   f"What was I planning to give {person}?",
                                   f"Gift ideas for {person}'s birthday?"][n % 3], key, "gift"))


ANSWERS = [
    ("What's the wifi password at the cabin?", "It's pinecone42, written on the fridge door.", "What is the cabin wifi password?"),
    ("How long should the sourdough proof overnight?", "About twelve hours in the fridge, then an hour out.", "How long does the sourdough proof?"),
    ("Which bin does the broken glass go in?", "The green one; wrap it in newspaper first.", "Where do I throw broken glass?"),
    ("What size are the bike's inner tubes?", "700x28c, with Presta valves.", "What inner tubes does my bike take?"),
    ("Who do I call if the boiler breaks at the flat?", "The agency's emergency line: Hendrik, 0612 448 190.", "Boiler broke, who do I call?"),
    ("When does the library close on Saturdays?", "At four; the café inside closes at three.", "What time does the library close on Saturday?"),
]


def _answer(pools, n, key):
    """A fact the assistant said: the question's words are in the turn before it."""
    asked, answer, question = ANSWERS[n % len(ANSWERS)]
    return (lambda day: (asked, answer, key, "assistant"),
            lambda days: Question(question, key, "answer"))


def _plumber(pools, n, key):
    fixture = pools["fixtures"][n]
    return (lambda day: (f"The plumber finally came and fixed the {fixture}; it cost {80 + 15 * n} euros.",
                         "Good to have that sorted.", key),
            lambda days: Question(f"What did the plumber fix in {days[key]:%B %Y}?", key, "dated"))


PURPOSES = ["the side project", "work", "the game jam"]
TRIPS = ["summer holiday", "winter break", "spring trip"]


def _changed_mind(pools, n, key):
    if n % 2 == 0:
        purpose = PURPOSES[n // 2 % len(PURPOSES)]
        first_lang, later_lang = pools["languages"][n], pools["languages"][n + 1]
        first = lambda day: (f"For {purpose} I think I'll learn {first_lang}, the tutorials look good.",
                             f"{first_lang} is a fine choice.", None)
        later = lambda day: (f"I changed my mind about {purpose}: I'm going to learn {later_lang} instead of {first_lang}.",
                             f"{later_lang} it is, then.", key)
        return first, later, lambda days: Question(
            f"Which programming language did I finally pick for {purpose}?", key, "changed")
    trip = TRIPS[n // 2 % len(TRIPS)]
    first_city, later_city = pools["cities"][n + 2], pools["cities"][n + 3]
    first = lambda day: (f"For the {trip} we're leaning towards {first_city}.",
                         f"{first_city} sounds great.", None)
    later = lambda day: (f"Change of plans: the {trip} will be in {later_city} after all, not {first_city}.",
                         f"{later_city} it is!", key)
    return first, later, lambda days: Question(f"Where are we going for the {trip} in the end?", key, "changed")


# -- writing it into a memory ------------------------------------------------------------


def day_texts(lines: list[Line], existing: dict[str, str] | None = None) -> tuple[dict[str, str], dict[int, tuple[str, str]]]:
    """Each day file's new text, and where each line landed (index -> (path, block id))."""
    texts = dict(existing or {})
    taken: dict[str, set[str]] = {}
    placed = {}
    for i, line in enumerate(lines):
        rel = journal.day_path(line.at.date())
        if rel not in texts:
            texts[rel] = journal.header(line.at.date())
        ids = taken.setdefault(rel, journal.block_ids(texts[rel]))
        block = journal.block_id(line.at, line.role, line.text, line.session, ids)
        ids.add(block)
        texts[rel] += journal.render(line.at, line.role, line.text, line.session, block)
        placed[i] = (rel, block)
    return texts, placed


def ingest(memory: Memory, conversation: Conversation) -> None:
    """Write the turns into the journal as persist does, in one commit; note the targets."""
    existing = {rel: memory.read_text(rel) for rel in {journal.day_path(l.at.date()) for l in conversation.lines}
                if memory.exists(rel)}
    texts, placed = day_texts(conversation.lines, existing)
    with memory.change("chore(journal): ingest a generated conversation") as change:
        for rel, text in texts.items():
            change.write(rel, text)
    for i, line in enumerate(conversation.lines):
        if line.fact:
            conversation.targets[line.fact] = placed[i]
