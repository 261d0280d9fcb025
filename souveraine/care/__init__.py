"""Care of the memory: doctor audits, defrag reshapes, digest distils, rules keep corrections."""
