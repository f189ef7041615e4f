"""Published results: a run's snapshot, which one is published, the README's numbers filled from it, and a snapshot
judged again by this checkout's rules (or as if it had measured less)."""
