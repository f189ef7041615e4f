"""A benchmark of your own in one file of plain callables (docs/your-own-code.md), treated as a study."""
