"""Entry point of the installed git hooks: ``python -m souveraine.laws HOOK [ARGS]``.

Kept free of Click and GitPython so a hook costs little more than the interpreter.
"""

import sys

from souveraine.laws.hooks import main

sys.exit(main(sys.argv[1:]))
