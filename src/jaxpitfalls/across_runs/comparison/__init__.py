"""Comparing runs: against a baseline run, or sides timed in lockstep; and the gate."""
