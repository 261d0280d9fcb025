"""Language every tempo shares: sentences, words, date phrases, and how a sentence is said.

One module an idea, each imported on its own and lazily (``from souveraine.language import
sentences``), so a hot path pays only for what it reads:

- ``sentences`` — sentence boundaries with offsets, code and quotes masked (pysbd);
- ``words`` — the normal form, tokens and stems the heuristics compare;
- ``dates`` — date and time phrases found in text, resolved against a reference time;
- ``speech`` — questions, hypotheticals, negation, quoted or reported speech, code,
  the user's own requests;
- ``distil`` — a sentence as a line to keep: who, what, when (the first person named,
  relative dates made absolute, small talk and hedges dropped).
"""
