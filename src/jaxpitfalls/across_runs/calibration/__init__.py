"""The comparisons' statistics checked against known truths (`make calibrate`), pyperf beside the lockstep."""
