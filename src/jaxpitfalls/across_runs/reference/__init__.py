"""Published results: run snapshots, which one is published, the README's numbers from it."""
