"""The HTML report's captions: the configuration, the environment, and what each figure shows, as rendered."""

from pathlib import Path
from types import SimpleNamespace

import jinja2
import pandas as pd
import pytest

from jaxpitfalls import registry
from jaxpitfalls.report.scorecard.captions import StudyCaption

ROOT = Path(__file__).resolve().parents[1]

STUDY = {"base": {"layers": 4, "hidden": 64}, "sweep": {"layers": [12, 24], "hidden": []},
         "points": [{"layers": 12, "hidden": 1024}], "measure": {"rounds": 6, "budget_s": 20}}
ENVIRONMENT = {"jax": "0.10.2", "jaxlib": "0.10.2", "equinox": "0.13.8", "optax": "0.2.8", "backend": "gpu",
               "device_count": 2, "device_kind": "H100", "cpu_model": "Xeon", "cpu_count": 16,
               "xla_flags": "", "python": "3.11.7", "git_commit": "0123456789abcdef", "git_dirty": True}


def test_the_caption_names_the_configuration_without_empty_sweeps(tmp_path):
    text = StudyCaption("tree_at", STUDY, str(tmp_path / "missing.csv")).configuration
    assert text == ("base layers=4, hidden=64; one-axis sweeps: layers in [12, 24]; "
                    "extra points: layers=12, hidden=1024; measured with rounds=6, budget_s=20.")


def test_the_caption_reads_the_environment_only_when_rendered(tmp_path):
    table = tmp_path / "environment.csv"
    caption = StudyCaption("tree_at", STUDY, str(table))
    assert repr(caption) == f"StudyCaption({table})"  # what logs show: nothing read, nothing missing
    pd.DataFrame([ENVIRONMENT]).to_csv(table, index=False)
    text = caption.environment
    assert text.startswith("JAX 0.10.2 (jaxlib 0.10.2), Equinox 0.13.8, optax 0.2.8; backend gpu on 2 × H100")
    assert "XLA flags none" in text and "git commit 0123456789 with uncommitted changes." in text


@pytest.mark.parametrize("study", registry.names())
def test_every_figure_caption_says_what_it_shows_in_the_rendered_template(study, tmp_path):
    """workflow/report/figure.rst as Snakemake renders it (jinja2), for every figure a study draws."""
    template = jinja2.Environment().from_string((ROOT / "workflow" / "report" / "figure.rst").read_text())
    table = tmp_path / "environment.csv"
    pd.DataFrame([ENVIRONMENT]).to_csv(table, index=False)
    caption = StudyCaption(study, STUDY, str(table))
    figures = registry.report(study).FIGURES
    assert figures
    for figure, description in figures.items():
        text = template.render(snakemake=SimpleNamespace(
            wildcards=SimpleNamespace(study=study, figure=figure), params=SimpleNamespace(caption=caption)))
        assert f"Figure ``{figure}`` of study ``{study}``:\n{description} Error bars" in text
        assert len(description.split()) >= 5
        assert "**Configuration**: base layers=4, hidden=64" in text and "backend gpu on 2 × H100" in text
    with pytest.raises(KeyError, match="describes no figure 'no_such_figure'"):
        caption.figure("no_such_figure")
