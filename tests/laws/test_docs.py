from souveraine.laws.breach import RULES
from souveraine.store.conventions import TYPES
from tests.support import ROOT


def test_every_rule_and_type_is_documented():
    laws = (ROOT / "docs" / "LAWS.md").read_text()
    for code in RULES:
        assert f"`{code}`" in laws, code
    for kind in TYPES:
        assert f"`{kind}`" in laws, kind
