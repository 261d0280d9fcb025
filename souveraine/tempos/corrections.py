"""Corrections and preferences the user states, routed to the system/ file each belongs to.

"Never schedule meetings before 10am" is how the human works (prefs/workflow.md); "Stop
using emoji" how they want to be spoken to (prefs/communication.md); "I'm into
birdwatching" what they care about (prefs/topics.md); "No, my sister is Lea, not Leah"
who they are (human/identity.md); "Actually we moved the launch to March" the project
(project/conventions.md, or project/do-nots.md for a prohibition); "Put recipes in
memories/recipes" how this memory is kept (conventions.md). "No, the other file", "make it
shorter" or "thanks, perfect" correct this turn only: nothing to keep.

``read`` decides (a deterministic reading: cues of durability, then the lexicon of each
file); ``apply`` appends the rule to its file as one line linked to the turn — creating
the file with its properties when it is missing, striking through a line the correction
contradicts — and records the drift in ledger/drift.md, all inside the persist's commit,
so ``git show`` reads as the story of the correction.
"""

import re
from dataclasses import dataclass
from datetime import datetime

from souveraine.language.words import normal

FILES = {
    "workflow": "system/human/prefs/workflow.md",
    "communication": "system/human/prefs/communication.md",
    "topics": "system/human/prefs/topics.md",
    "identity": "system/human/identity.md",
    "project": "system/project/conventions.md",
    "project-do-not": "system/project/do-nots.md",
    "conventions": "system/conventions.md",
}
_DESCRIPTIONS = {
    "workflow": ("human", "How the human likes work to be done: scheduling, tools, habits."),
    "communication": ("human", "How the human wants to be spoken and written to."),
    "topics": ("human", "What the human cares about, and what to leave alone."),
    "identity": ("human", "Who the human is: names, family, home, work, health."),
    "project": ("project", "The project's conventions — naming, style, commits, reviews."),
    "project-do-not": ("project", "What never to do in this project, and why."),
    "conventions": ("conventions", "How this memory is kept — where things go and how they are written."),
}

_ONE_OFF = re.compile(
    r"\b(?:the other (?:one|file)|this one|that one|for this one|this time|try again|redo|go back to|send it again|"
    r"make it (?:shorter|longer|bolder|blue)|never ?mind|typo|i meant the|not quite what i meant|wrong link|"
    r"option (?:one|two|three|\d)|let's go with|let's have|let's do it|today's|tonight|right now|not now|"
    r"in the photo|this version|the first (?:one|version)|for today)\b|^(?:thanks|great|perfect|lol|ok|no worries)\b")
_DURABLE = re.compile(
    r"\b(?:always|never|from now on|going forward|in future|any more|anymore|every time|don't|do not|stop|avoid|"
    r"please (?:use|keep|write|address|call|put|file|tag|link|skip)|i (?:prefer|'d rather|would rather|like|love|hate|"
    r"care|follow|don't like)|i'm (?:really )?(?:into|learning|interested)|not interested|skip|no need to|"
    r"keep me posted|use |call me|write to me|my pronouns|we use|we decided|we squash|we dropped|we moved|"
    r"must|only happen|is called|are called|is now|now,? not|the \w+ is \w+ now|put \w+ in|keep \w+ under|"
    r"tag |link every|file \w+ under|write dates|when you)\b")
_FACT_ABOUT_ME = re.compile(
    r"\b(?:i(?:'m| am) (?:a|an|allergic|diabetic|vegetarian|vegan|left-handed|right-handed|in|from|based|married|"
    r"single|pregnant)|i (?:live|work|was born|moved|speak|don't drink|do not drink|eat|have)|my (?:name|sister|brother|"
    r"mum|mom|mother|dad|father|son|daughter|partner|wife|husband|birthday|kids?|children|cat|dog|job|address)|"
    r"we have (?:two|three|a|an|\d)|i said \w+|my \w+ lessons?)\b")
_LEXICON = {
    "communication": r"emoji|answers?|apologi[sz]|call me|write to me|spelling|bullet|paragraph|formal|sugar-coat|"
                     r"straight|great question|metric|imperial|units|24-hour|euros|dollars|buddy|explain|pronouns|"
                     r"address \w+|disclaimers?|enthusiasm|tone|ending every answer|in (?:portuguese|english|french|"
                     r"spanish|german)|language|words|jargon|short|shorter|brief|verbose|polite",
    "topics": r"into|interested|obsession|bring up|talk to me about|politics|recommendations|music|follow|learning|"
              r"care (?:a lot )?about|anything (?:to do with|about)|diets?|birdwatching|baking|ceramics|formula",
    "workflow": r"schedul|meetings?|calendar|book(?:ing)?|flights?|layovers?|drafts?|review|options|summary|"
                r"invoices?|pay bills|bills|remind|shopping list|focus time|emails?|trains?|calls?|pickup|invites?|"
                r"morning|afternoon|evening|pings?|total cost|compare|send|plan trips|batch",
    "identity": r"sister|brother|mum|mom|mother|father|dad|son|daughter|partner|wife|husband|nurse|doctor|live|born|"
                r"allergic|vegetarian|vegan|diabetic|left-handed|birthday|speak|drink|jobs?|work part-time|cats?|dogs?|"
                r"name is|lessons|azores|hour behind|moved",
    "project": r"repo|branch|main|push|merge|tests?|api|deploy|staging|server|release|launch|deadline|pilot|budget|"
               r"client|tech lead|postgres|mysql|python|dependenc|commit messages|log|module|tabs|spaces|mobile app|"
               r"squash|code|ci\b",
    "conventions": r"memories/|people/|journal|reference/|tag |#\w+|note's title|notes? (?:for|under)|the memory|"
                   r"save a contact|properties|link every|dates in memories|new memory|one file|passwords in",
}
_LEXICON = {name: re.compile(rf"(?:{pattern})") for name, pattern in _LEXICON.items()}
_DO_NOT = re.compile(r"^(?:please )?(?:never|don't|do not|no (?!need))\b|\bnever\b")


@dataclass(frozen=True)
class Correction:
    target: str      # a key of FILES without the do-not split: workflow, communication, topics, identity, project…
    text: str        # the user's words
    path: str        # the system/ file it amends

    def to_dict(self) -> dict:
        return {"target": self.target, "text": self.text, "path": self.path}


def read(text: str) -> Correction | None:
    """The durable correction or preference in a user's message, or None."""
    from souveraine.language import speech

    if not text or not text.strip():
        return None
    line = normal(text)
    if speech.is_question(text) and not re.search(r"\b(?:please|always|never|don't)\b", line):
        return None
    if _ONE_OFF.search(line) and not re.search(r"\b(?:always|never|from now on|going forward)\b", line):
        return None
    about_me = _FACT_ABOUT_ME.search(line)
    if not (_DURABLE.search(line) or about_me or re.search(r"\bnot \w+\b.*[.!]?$", line) and
            re.match(r"^(?:no|actually|correction)\b", line)):
        return None
    target = _target(line, bool(about_me))
    if target is None:
        return None
    path = FILES["project-do-not"] if target == "project" and _DO_NOT.search(line) else FILES[target]
    return Correction(target, text.strip(), path)


def _target(line: str, about_me: bool) -> str | None:
    scores = {name: len(pattern.findall(line)) for name, pattern in _LEXICON.items()}
    if about_me:
        scores["identity"] += 1.5
    if re.search(r"\b(?:we|our|the (?:repo|api|client|project))\b", line):
        scores["project"] += 0.5
    if "memor" in line or "note" in line and "/" in line:
        scores["conventions"] += 1
    best = max(scores, key=lambda name: (scores[name], -list(scores).index(name)))
    return best if scores[best] > 0 else None


def apply(change, correction: Correction, source: str, label: str, now: datetime) -> dict:
    """Amend the system/ file and record the drift, inside an open change."""
    from souveraine.tempos import facts, ledger

    rule = facts.finish(facts._person(_strip_lead(correction.text), facts._PERSON), now)
    full = change.memory.path(correction.path)
    existing = full.read_text(encoding="utf-8") if full.exists() else _new_file(correction)
    body = _struck(existing, correction.text, now)
    lead = "" if body.endswith("\n") else "\n"
    line = f"- {rule} ({label}, {source})"
    if line.split(" (")[0] in body:
        return {"path": correction.path, "line": None}
    change.write(correction.path, body + lead + line + "\n")
    entry = ledger.add(change, "drift", rule, correction.target, source)
    return {"path": correction.path, "line": line, "drift": entry.to_dict() if entry else None}


def _strip_lead(text: str) -> str:
    return re.sub(r"^(?:no|nope|actually|correction|sorry|well|ok|okay)[,.:;!—\s-]+", "", text.strip(), flags=re.I)


def _new_file(correction: Correction) -> str:
    kind, description = _DESCRIPTIONS[correction.target if correction.path != FILES["project-do-not"] else "project-do-not"]
    title = correction.path.rsplit("/", 1)[-1][:-3].replace("-", " ").capitalize()
    return (f"---\ntype: {kind}\ndescription: {description}\ntags:\n  - system\n  - {kind}\n---\n# {title}\n\n"
            "One line each, newest last, with a link to where it was said.\n\n")


def _struck(text: str, said: str, now: datetime) -> str:
    """Strike through an earlier line the correction contradicts ("…, not Leah" strikes the line saying Leah)."""
    gone = re.search(r"\bnot ([\w'’-]+(?: [\w'’-]+)?)", said)
    if not gone:
        return text
    word = gone[1]
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("- ") and not line.startswith("- ~~") and re.search(rf"\b{re.escape(word)}\b", line) \
                and not re.search(rf"\bnot {re.escape(word)}\b", line):
            lines[i] = f"- ~~{line[2:]}~~ (corrected {now:%Y-%m-%d})"
    return "\n".join(lines)
