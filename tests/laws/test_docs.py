from souveraine.laws.breach import RULES
from souveraine.store.conventions import SCOPES, TYPES
from tests.support import ROOT


def test_every_rule_type_and_scope_is_documented():
    laws = (ROOT / "docs" / "LAWS.md").read_text()
    for code in RULES:
        assert f"`{code}`" in laws, code
    for word in (*TYPES, *SCOPES):
        assert f"`{word}`" in laws, word
