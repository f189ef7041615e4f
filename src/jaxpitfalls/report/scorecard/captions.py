"""The HTML report's captions on a study's configuration and environment. Snakemake renders them long after the job
ran, so the param is a `StudyCaption` that reads the environment when printed (unhashed, so no reruns)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def _assignments(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def describe_configuration(study: dict[str, Any]) -> str:
    """The base configuration, the sweep axes that have values, extra points and the measurement settings."""
    sweeps = "; ".join(f"{axis} in {values}" for axis, values in study["sweep"].items() if values)
    points = "; ".join(_assignments(p) for p in study.get("points", []))
    return (f"base {_assignments(study['base'])}; one-axis sweeps: {sweeps or 'none'}"
            + (f"; extra points: {points}" if points else "")
            + f"; measured with {_assignments(study['measure'])}.")


def describe_environment(env: pd.Series) -> str:
    """Library versions, backend and devices, CPU, XLA flags, Python, git commit."""
    commit = str(env["git_commit"])[:10] or "none (not run from a git checkout)"
    dirty = " with uncommitted changes" if str(env["git_dirty"]) == "True" else ""
    return (f"JAX {env['jax']} (jaxlib {env['jaxlib']}), Equinox {env['equinox']}, optax {env['optax']}; "
            f"backend {env['backend']} on {env['device_count']} × {env['device_kind']} device(s); "
            f"CPU {env['cpu_model']} ({env['cpu_count']} cores); XLA flags {env['xla_flags'] or 'none'}; "
            f"Python {env['python']}; git commit {commit}{dirty}.")


@dataclass(frozen=True, repr=False)
class StudyCaption:
    """A study's figures, configuration and `environment.csv`, described when the caption is rendered."""
    name: str
    study: dict[str, Any]
    environment_table: str

    def __repr__(self) -> str:
        return f"StudyCaption({self.environment_table})"

    def figure(self, figure: str) -> str:
        """What the figure shows, as the study's report module says; an undescribed figure is an error."""
        from ... import registry

        described = registry.report(self.name).FIGURES
        if figure not in described:
            raise KeyError(f"study {self.name!r} describes no figure {figure!r} (it has {', '.join(described)})")
        return described[figure]

    @property
    def configuration(self) -> str:
        return describe_configuration(self.study)

    @property
    def environment(self) -> str:
        import pandas as pd  # here, not at the top: the Snakefile imports this module on every invocation

        from ..tables.environments import TEXT_COLUMNS

        return describe_environment(pd.read_csv(self.environment_table, keep_default_na=False,
                                                dtype=TEXT_COLUMNS).iloc[0])
