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
from souveraine.store import layout
from souveraine.language.patterns import lazy

FILES = {
    "workflow": layout.PREFS_WORKFLOW,
    "communication": layout.PREFS_COMMUNICATION,
    "topics": layout.PREFS_TOPICS,
    "identity": layout.HUMAN_IDENTITY,
    "project": layout.PROJECT_CONVENTIONS,
    "project-do-not": layout.PROJECT_DO_NOTS,
    "conventions": layout.CONVENTIONS,
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

_ONE_OFF = lazy(
    r"\b(?:the other (?:one|file)|(?:this|that|these|those) (?:one|version|file|paragraph|chart|link|recipe|photo|word|"
    r"time)|for this one|try again|redo|go back to|send it again|again\b|ignore (?:that|it|this)|my bad|oops|hold on|"
    r"make it (?:shorter|longer|bolder|blue|friendlier|a bit)|shorten|never ?mind|typo|i meant|not quite|wrong (?:\w+)|"
    r"option (?:one|two|three|\d)|let's (?!always|never)|today|tonight|tomorrow|this week|right now|not now|"
    r"in the photo|the first (?:one|version)|that's (?:wrong|not what)|not what i|i'll think|i'm not sure|"
    r"the (?:first|second|third|last) (?:one|paragraph|version|file|sentence))\b|^(?:thanks|great|perfect|lol|ok|"
    r"okay|cool|yes|yep|nope|no worries|hmm|ah|wait)\b[^,]*$|^(?:wait|hmm|ah|oh)\b")
_DURABLE = lazy(
    r"\b(?:always|never|ever|from now on|going forward|in future|any ?more|every time|don't|do not|stop|avoid|skip|"
    r"no (?:more|need)|i(?: prefer|'d rather| would rather| like| love| hate| care| follow| want| don't like)|when you|(?:keep|leave) (?:\w+ ){0,2}(?:to|for|free|unsent|as)|"
    r"i'm (?:really |getting (?:really )?)?(?:into|learning|interested|studying|curious|obsessed|hooked|mad about|"
    r"passionate|fascinated)|i've (?:gotten|got) into|bores? me|can't stand|(?:sick|tired) of|"
    r"not (?:interested|into)|keep me (?:posted|updated)|obsession|call me|write to me|my pronouns|"
    r"we(?:'ve| have)? (?:use|decided|squash|dropped|moved|target|have|renamed|switched|changed|migrated|upgraded|"
    r"replaced|agreed|adopted)|must|need (?:a|an)\b|only happen|is called|are called|(?:name|spelling) is|"
    r"lower ?case|upper ?case|"
    r"is now|now,? not|, not \w+|rather than|instead of|please\b|one \w+ per)\b|^(?:use|keep|put|save|add|give|"
    r"write|address|group|block|do|check|include|send|let|tag|link|file|one|all|each|every|talk|speak|reply|"
    r"answer|respond|ask me|batch|name|format|sign|round|spell)\b")
_FACT_ABOUT_ME = lazy(
    r"\b(?:i(?:'m| am) (?:a|an|allergic|diabetic|vegetarian|vegan|pescatarian|left-handed|right-handed|from|based|"
    r"married|single|pregnant|colou?r-blind|actually \d+|\d+)|i (?:live|work|grew up|was born|moved to|speak|"
    r"don't drink|do not drink|don't eat|have a \w+ allergy|have an? allergy)|my (?:name|surname)|"
    r"my (?:sister|brother|mum|mom|mother|dad|father|son|daughter|partner|wife|husband|mother-in-law|father-in-law)"
    r"(?: \w+)? (?:is|'s|lives|works) (?!coming|going|visiting)|we (?:have (?:two|three|a|an|\d) \w+ now|live)|"
    r"we have (?:two|three|four|five|one|a|an|\d+) (?:kids|children|sons|daughters|cats|dogs|grandchildren|grandkids)|"
    r"i said \w+|my \w+ lessons? (?:are|is))\b")
_LEXICON = {
    "communication": r"emoji|answers?|apologi[sz]|call me|write to me|spelling|bullet|paragraph|formal|casual|"
                     r"sugar-coat|straight|great question|metric|imperial|units|24-hour|euros|dollars|buddy|explain|"
                     r"pronouns|address \w+|disclaimers?|enthusiasm|tone|ending every answer|in (?:portuguese|english|"
                     r"french|spanish|german)(?! always)|language|jargon|short|brief|verbose|polite|exclamation|dear|"
                     r"reasoning|tables|plain text|decimals?|comma|unsure|as an ai|(?:first|full|last) name|nickname|"
                     r"american|british|question|talk to me|speak to me|recommend|sentences|words|sign off",
    "topics": r"into\b|interested|obsession|bring up|talk to me about|politics|recommendations|music|follow|learning|"
              r"studying|curious|care (?:a lot )?about|anything (?:to do with|about|related)|diets?|birdwatching|"
              r"baking|ceramics|formula|films?|hearing about|updated on|posted on|transfers|mention|discuss|stuff is "
              r"welcome|tiles|weight|obsess|bores? me|boring|can't stand|scores|fan of|news about|hear about",
    "workflow": r"schedul|meetings?|calendar|book(?:ing)?|flights?|layovers?|red-eye|drafts?|review|options|"
                r"summar|invoices?|pay\b|bills|reminders?|remind|shopping list|focus time|emails?|trains?|calls?|"
                r"pickup|invites?|invitations?|mornings?|afternoons?|evenings?|pings?|total cost|compare|plan trips|"
                r"batch|errands|appointments?|travel time|card|mb way|check with|"
                r"weekly|free for|unsent|ask me|before (?:deleting|sending|booking|buying|paying|spending)|delet",
    "identity": r"sister|brother|mum|mom|mother|father|dad|son|daughter|partner|wife|husband|nurse|doctor|"
                r"translator|live|born|grew up|allerg|vegetarian|vegan|pescatarian|diabetic|left-handed|colou?r-blind|"
                r"birthday|speak|drink|jobs?|part-time|work from home|cats?|dogs?|name is|surname|lessons|"
                r"hour behind|years old|i'm \d+|actually \d+|kids?|children|grandchildren|grandkids|twins",
    "project": r"repo|branch|main\b|push|merge|tests?|api|endpoints?|openapi|deploy|staging|server|release|launch|"
               r"demo|beta|deadline|sprint|pilot|budget|client|product|tech lead|owner|owns|infrastructure|postgres|"
               r"mysql|python|target|dependenc|commit|log|module|functions?|deprecation|tabs|spaces|mobile app|squash|"
               r"code|ci\b|gitlab|github|pnpm|npm|frontend|backend|window|renamed|database|db\b|pipeline|stack",
    "conventions": r"memories/|people/|journal|reference/|tags?\b|#\w+|note's title|notes? (?:for|under)|the memory|"
                   r"a memory|one memory|memory per|save a contact|properties|link every|link a|dates in memories|"
                   r"new memory|one file|passwords in|its own note|people (?:notes|files?)|under \w+/|files? (?:by|per)|"
                   r"(?:memory|recipe|note) files?",
}
_LEXICON = {name: lazy(rf"\b(?:{pattern})") for name, pattern in _LEXICON.items()}
_DO_NOT = lazy(r"^(?:please )?(?:never|don't|do not|no (?!need))\b|\bnever\b")


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
    stated = re.match(r"^(?:no|nope|actually|correction)?[,.:;!—\s-]*(?:the|our|we|all|each|every)\b", line) and (
        re.search(r"\b(?:now|not|no longer|any ?more|from now on|always|never|must|need|needs|only|every|each|per|"
                  r"starting|starts)\b", line)
        or re.match(r"^(?:all|each|every)\b", line))
    if not (_DURABLE.search(line) or about_me or stated or re.search(r"\bnot \w+", line) and
            re.match(r"^(?:no|actually|correction)\b", line)):
        return None
    if re.match(r"^i(?:'ll| will)\b", line):
        return None
    target = _target(line, bool(about_me))
    if target is None:
        return None
    path = FILES["project-do-not"] if target == "project" and _DO_NOT.search(line) else FILES[target]
    return Correction(target, text.strip(), path)


def human_file(text: str) -> str | None:
    """The file outside the project a rule's words point to (the human's prefs and identity, the
    memory's conventions), or None when they point to the project or nowhere."""
    line = normal(text or "")
    if not line.strip():
        return None
    scores = _scores(line, bool(_FACT_ABOUT_ME.search(line)))
    target = _best(scores)
    return FILES[target] if target and target != "project" and scores[target] > scores["project"] else None


def _target(line: str, about_me: bool) -> str | None:
    return _best(_scores(line, about_me))


def _scores(line: str, about_me: bool) -> dict[str, float]:
    scores = {name: len(pattern.findall(line)) for name, pattern in _LEXICON.items()}
    if re.search(r"\b(?:commit|repo|code)\b", line):
        scores["project"] += 1
    if re.search(r"\bmemor(?:y|ies)\b|\bnotes? under\b", line):
        scores["conventions"] += 1.5
    if re.search(r"\baddress \w+|\bwhen you (?:explain|write|answer|reply|talk|speak|give|suggest|summari[sz]e|"
                 r"describe|list|send me)\b", line):
        scores["communication"] += 1.5
    if re.search(r"(?<![\w#])#\w", line):                       # a tag: how the memory is kept
        scores["conventions"] += 1
    if re.search(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b", line):
        scores["workflow"] += 1                                   # weekdays in the plural, once however many
    if re.search(r"\b(?:the (?:product|client|deploy|build|repo|api|database|release|sprint|pipeline|server)|"
                 r"our (?:code|repo|api|app|product|team|sprint|release))\b", line):
        scores["project"] += 1
    if about_me:
        scores["identity"] += 1.5
    if re.search(r"\b(?:we|our|the (?:repo|api|client|project|sprint|product|team|demo|release))\b", line):
        scores["project"] += 0.5
    return scores


def _best(scores: dict[str, float]) -> str | None:
    best = max(scores, key=lambda name: (scores[name], -list(scores).index(name)))
    return best if scores[best] > 0 else None


def apply(change, correction: Correction, source: str, label: str, now: datetime) -> dict:
    """Amend the system/ file and record the drift, inside an open change."""
    from souveraine.tempos import facts, ledger

    rule = facts.finish(facts._person(_strip_lead(correction.text), facts._PERSON), now, times=False)
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
    return (f"---\ntype: {kind}\ndescription: \"{description}\"\ntags:\n  - system\n  - {kind}\n---\n# {title}\n\n"
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
