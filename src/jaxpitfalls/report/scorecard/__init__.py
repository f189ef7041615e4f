"""The report a run renders: the scorecard (each claim's number, its interval, its size against the write-up's), the
tally, the claims' figure, the study sections, the HTML report's landing page and captions, and
docs/results/claims.md."""
