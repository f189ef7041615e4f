"""The contract: everything a study implements and everything it calls, so that a study imports only this,
the harness, the models, the data and the base modules. What it implements: the spec and claim types
(interface.py), its typed settings (settings.py), the verdicts its claims return (verdicts.py). What it calls:
the judging engine (judging.py) and its interval rules (decisions.py), the table helpers (tables.py), the figure
helpers (figures.py) and how configurations are named (naming.py). The registry, above the studies, finds
them; the plan, the config check, the report and the jobs read a study only through the registry."""
