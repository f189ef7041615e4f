"""Comparing runs: this run against a baseline run's results, sides timed in lockstep, their verdicts over fresh
processes, false alarms across rows, and the gate."""
