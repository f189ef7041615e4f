"""A run's results as tables: each study's results flattened (aggregate), what a job recorded beside its timings,
which environments compare, the run summary and the results bundle."""
