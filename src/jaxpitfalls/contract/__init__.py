"""The contract: everything a study implements and calls (spec and claim types, settings, verdicts, judging
rules, table and figure helpers, naming), so a study imports only this, the harness, models, data and base
modules. Everything else reads a study through the registry."""
