"""A breach of the laws: which file (or ref), which rule, what to do instead."""

# Each rule's stable code, and what it keeps; docs/LAWS.md lists the same.
RULES = {
    "append_only_rewrite": "an append-only file's committed bytes are changed or cut",
    "append_only_delete": "an append-only file is deleted",
    "append_only_rename": "an append-only file is renamed or moved",
    "private_key": "private key material is committed",
    "bad_frontmatter": "a Markdown file's frontmatter does not parse",
    "witness": "a witnessed memory fails its witness checks, or a memory's properties are not plain (a YAML tag, a tier not one of the three)",
    "paid_receipt": "a memory carrying a paid witness receipt is deleted",
    "covenant": "a covenant holds a key its DID does not encode, or is rewritten or deleted instead of revoked",
    "identity": "an identity's id or keys are rewritten, or its shaped_by lists what did not shape it",
    "self_witness": "a covenant holds a DID or the project of this memory's own identities",
    "effective": "system/persona/effective.md differs from what the identities compose",
    "bad_message": "the commit message is not a Conventional Commit",
    "refactor_changes_content": "a refactor commit changes content instead of only moving it",
    "history_rewrite": "a pushed branch does not continue the remote's history",
    "history_loss": "a pushed deletion would drop commits no other branch keeps",
    "current_branch_delete": "a push deletes the branch the shared memory's HEAD names",
}


class Breach:
    __slots__ = ("path", "rule", "message", "commit")

    def __init__(self, path: str, rule: str, message: str, commit: str | None = None):
        self.path, self.rule, self.message, self.commit = path, rule, message, commit

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"Breach({self.path!r}, {self.rule!r}, commit={self.commit!r})"

    def to_dict(self) -> dict:
        return {"commit": self.commit, "path": self.path, "rule": self.rule, "message": self.message}
