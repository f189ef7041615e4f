"""Comparing runs: against a baseline run's results, sides timed in lockstep, false alarms across rows, and the gate."""
