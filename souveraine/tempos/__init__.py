"""The tempos: persist (N+1), surface, reflect (N+25), archive (N+100), digest."""
