"""The measurement protocol every study shares: compile guard, interleaved timing, statistics, provenance."""
