"""Tools that read more than one run; they sit above the report, which renders one run."""
