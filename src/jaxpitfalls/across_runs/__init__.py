"""Tools that read more than one run: comparisons, release histories, calibration, reference snapshots. They sit
above the report, which renders one run."""
