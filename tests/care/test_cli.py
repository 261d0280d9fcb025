import pytest


@pytest.mark.parametrize("name", ["doctor", "defrag", "digest"])
def test_each_care_command_has_help_with_an_example(runner, name):
    from souveraine.cli import cli

    result = runner.invoke(cli, [name, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output and "--json" in result.output and "--memory" in result.output
