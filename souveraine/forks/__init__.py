"""Parallel selves and workflow state: forks, system/state.md, the six-phase unit, triage."""
