import pandas as pd

from jaxpitfalls.report.captions import StudyCaption

STUDY = {"base": {"layers": 4, "hidden": 64}, "sweep": {"layers": [12, 24], "hidden": []},
         "points": [{"layers": 12, "hidden": 1024}], "measure": {"repeats": 6, "budget_s": 20}}
ENVIRONMENT = {"jax": "0.10.2", "jaxlib": "0.10.2", "equinox": "0.13.8", "optax": "0.2.8", "backend": "gpu",
               "device_count": 2, "device_kind": "H100", "cpu_model": "Xeon", "cpu_count": 16,
               "xla_flags": "", "python": "3.11.7", "git_commit": "0123456789abcdef", "git_dirty": True}


def test_the_caption_names_the_configuration_without_empty_sweeps(tmp_path):
    text = StudyCaption("tree_at", STUDY, str(tmp_path / "missing.csv")).configuration
    assert text == ("base layers=4, hidden=64; one-axis sweeps: layers in [12, 24]; "
                    "extra points: layers=12, hidden=1024; measured with repeats=6, budget_s=20.")


def test_the_caption_reads_the_environment_only_when_rendered(tmp_path):
    table = tmp_path / "environment.csv"
    caption = StudyCaption("tree_at", STUDY, str(table))
    assert repr(caption) == f"StudyCaption({table})"  # what logs show: nothing read, nothing missing
    pd.DataFrame([ENVIRONMENT]).to_csv(table, index=False)
    text = caption.environment
    assert text.startswith("JAX 0.10.2 (jaxlib 0.10.2), Equinox 0.13.8, optax 0.2.8; backend gpu on 2 × H100")
    assert "XLA flags none" in text and "git commit 0123456789 with uncommitted changes." in text


def test_the_caption_says_what_a_figure_shows():
    from jaxpitfalls.studies.dispatch import report

    caption = StudyCaption("dispatch", STUDY, "unused.csv")
    assert caption.figure("overhead_vs_leaves") == report.FIGURES["overhead_vs_leaves"]
