"""A run's results as tables: aggregate, job checks, environments, run summary, bundle."""
