"""A benchmark of your own in one file of plain callables (docs/your-own-code.md): read without running it
(reader.py, expectations.py), seen by the workflow as a study (spec.py, report.py), timed by the protocol every
study follows (measure.py, signature.py). The registry hands out its parts under the name the config gives it."""
