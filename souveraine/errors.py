"""The exceptions every part of Souveraine raises; the CLI turns each into one line.

Exit codes are stable: 0 ok, 1 refused or findings, 2 usage, 3 not a memory or bad config.
Each error may carry a machine-readable ``code`` (``attester_self_witness_forbidden``…)
that ``--json`` output reports as is.
"""


class SouveraineError(Exception):
    """Something went wrong; the message says what and what to do."""

    exit_code = 1
    code = "error"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        if code:
            self.code = code

    @property
    def message(self) -> str:
        return str(self)


class Refused(SouveraineError):
    """A law or a check refused the operation; nothing was changed."""

    code = "refused"


class UsageError(SouveraineError):
    """The command was called with input it cannot take."""

    exit_code = 2
    code = "usage"


class NotAMemory(SouveraineError):
    """No memory where one was expected."""

    exit_code = 3
    code = "not_a_memory"


class ConfigError(SouveraineError):
    """souveraine.toml is missing a value, has a wrong type or an unknown key."""

    exit_code = 3
    code = "bad_config"


class LockTimeout(SouveraineError):
    """Another command held the memory's lock for too long."""

    code = "locked"


class GitError(SouveraineError):
    """The git binary failed or is missing."""

    code = "git_failed"


class NoteError(SouveraineError):
    """A note could not be read: its frontmatter does not parse."""

    code = "bad_frontmatter"
