"""Published results: a run's snapshot, which one is published, the README's numbers from it, and a snapshot judged
again."""
