"""The report a run renders: scorecard, tally, figure, study sections, HTML landing page and captions, claims page."""
