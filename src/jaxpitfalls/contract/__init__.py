"""The contract: everything a study implements and calls, so a study imports only this, the harness, models, data
and base modules. Everything else reads a study through the registry."""

