"""Souveraine: an agent's long-term memory as a git repository of Markdown files."""

__version__ = "0.1.0"
