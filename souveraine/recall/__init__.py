"""Recall: find anything the memory holds, ranked by relevance, recency and tier.

``search.recall`` is the entry point; ``index`` keeps the SQLite FTS5 cache fresh,
``sources`` turns files into documents, ``dates`` reads date phrases, ``query`` builds
safe FTS5 queries, ``rank`` scores. See docs/RECALL.md.
"""
