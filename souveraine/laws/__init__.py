"""The laws: append-only history, commit conventions, no key material, witnessed roots.

The same checks serve two callers: git hooks (on each commit, push) and `verify`
(over the whole history).
"""
