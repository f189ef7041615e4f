"""The contract between the studies and the rest of the workflow: what a study implements (its spec, claims,
settings, protocols and judged verdicts) and what the plan, the config check, the jobs and the report read of
it, with the registry that finds the studies. It sits below both, so the report depends on the contract and
never on a study's package; the studies sit above the report's helpers they judge with."""
