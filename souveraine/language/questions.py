"""What kind of thing a question asks for: "Who covered her shift?" a person, "Where did they
spend the summer?" a place. English only; a question that asks for neither asks for "".

Read by recall, which raises the turns that name such a thing (recall/kinds.py).
"""

import re

_PERSON = re.compile(r"""(?:^|[,;]\s*|\b(?:and|or)\s+)(?:who|whom|whose)\b
    | \b(?:which|what)\s+(?:\w+\s+)?(?:people|person|friends?|visitors?|guests?|colleagues?|apprentices?
        |patients?|employees?|staff|teachers?|students?|neighbou?rs?|relatives?|doctors?|nurses?|clients?)\b""",
                     re.IGNORECASE | re.VERBOSE)
_PLACE = re.compile(r"""(?:^|[,;]\s*|\b(?:and|or)\s+)where\b
    | \b(?:which|what)\s+(?:\w+\s+)?(?:cities|city|towns?|countries|country|places?|villages?|islands?)\b""",
                    re.IGNORECASE | re.VERBOSE)


def asks_for(text: str) -> str:
    """"person", "place" or "" for what ``text`` asks about (a person first when it asks both)."""
    text = (text or "").strip()
    if _PERSON.search(text):
        return "person"
    if _PLACE.search(text):
        return "place"
    return ""
