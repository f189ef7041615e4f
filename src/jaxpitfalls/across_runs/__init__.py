"""Tools that read more than one run: comparing two runs, a release history, the calibration of the measuring
engine, and publishing a reference snapshot. They sit above the report, which renders one run."""
