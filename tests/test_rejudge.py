"""A reference judged again from the tables it keeps (across_runs/reference/rejudge.py), on the smoke run laid out as a
snapshot: the code that made it finds every verdict unchanged, and a verdict published otherwise is shown
changed, first; and a run judged as if it had measured less (across_runs/reference/thinned.py) on what the cut kept."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from jaxpitfalls.across_runs.reference import reference, rejudge, scorecard_read, thinned
from jaxpitfalls.report.scorecard.scorecard import VERDICT_MARK

pytestmark = pytest.mark.workflow


def test_a_snapshot_judged_again_by_the_code_that_made_it_changes_nothing(smoke_run, tmp_path):
    snapshot = tmp_path / "snapshot"
    for kept, source in reference.kept_files(smoke_run).items():
        (snapshot / kept).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(smoke_run / source, snapshot / kept)
    table = rejudge.rejudged(snapshot)
    assert set(table.study) == {"dispatch", "tree_at", "extraction", "generation"}
    assert not table.changed.any() and "absent" not in set(table.published), table[table.changed]

    report = snapshot / "report.md"
    (study, claim), verdict = next(iter(rejudge.published_verdicts(report.read_text()).items()))
    other = next(v for v in VERDICT_MARK if v != verdict)  # publish that claim with another verdict
    rows = report.read_text().splitlines()
    at = next(i for i, line in enumerate(rows) if line.startswith(f"| {study} ") and f"| {claim} " in line)
    rows[at] = rows[at].rstrip().rstrip("|").rsplit("|", 1)[0] + f"| {VERDICT_MARK[other]} |"
    report.write_text("\n".join(rows))
    again = rejudge.rejudged(snapshot)
    assert int(again.changed.sum()) == 1 and (again.iloc[0].published, again.iloc[0].now) == (other, verdict)


def test_a_run_judged_with_nothing_cut_changes_nothing_and_a_cut_one_on_what_it_kept(smoke_run, tmp_path):
    same = thinned.judged_thinned(smoke_run, tmp_path / "same", {})
    assert not same.changed.any() and "absent" not in set(same.published), same[same.changed]
    cut = thinned.judged_thinned(smoke_run, tmp_path / "cut", {"dispatch": thinned.Cut(rounds=2)})
    assert set(cut.study) == set(same.study)
    steps = pd.read_csv(tmp_path / "cut" / "tables" / "dispatch" / "steps.csv")
    per_process = steps[steps.process.astype(str) != "all"]
    assert not per_process.empty and (per_process.n_samples <= 2).all()


def test_a_snapshot_without_tables_or_with_an_older_scorecard_is_refused_saying_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="keeps no tables"):
        rejudge.rejudged(tmp_path)
    (tmp_path / "tables").mkdir()
    with pytest.raises(FileNotFoundError, match="keeps no tables"):
        rejudge.rejudged(tmp_path)
    older = "## Reproduction scorecard\n\n| study | claim | reproduced | magnitude |\n|:-|:-|:-|:-|\n"
    with pytest.raises(scorecard_read.UnreadableSnapshot, match="columns are"):
        scorecard_read.published_verdicts(older)
    odd = "## Reproduction scorecard\n\n| study | claim | verdict |\n|:-|:-|:-|\n| a | b | maybe |\n"
    with pytest.raises(scorecard_read.UnreadableSnapshot, match="'maybe'"):
        scorecard_read.published_verdicts(odd)


def test_a_snapshot_rendered_again_is_a_function_of_its_tables_and_says_which_verdicts_moved(smoke_run, tmp_path):
    """rejudge --write (across_runs/reference/rendered.py): the whole report, its figures and scorecard rendered from
    the kept tables, run summary and settings; every study's claims listed (one whose tables the snapshot lacks, as
    the GPU lease's extraction: not measured, saying so); a second render changes nothing; a verdict that moved
    since the run is refused until a reason is given, then said beside it."""
    from printed_intervals import derived_now, held, printed, table_triples

    from jaxpitfalls import registry
    from jaxpitfalls.across_runs.reference import rendered

    snapshot = tmp_path / "snapshot"
    for kept, source in reference.kept_files(smoke_run).items():
        (snapshot / kept).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(smoke_run / source, snapshot / kept)
    shutil.rmtree(snapshot / "tables" / "extraction")
    (snapshot / "manifest.json").write_text(json.dumps({"files": {
        f: {"sha256": reference.sha256(snapshot / f)} for f in reference.kept_files(smoke_run)
        if (snapshot / f).exists()}}))
    claims = rendered.render(snapshot)
    first = (snapshot / "report.md").read_text()
    assert set(claims) == set(registry.names())
    assert all(c["measured"] == rendered.NOT_RUN for c in claims["extraction"] if c["rule"])
    assert first.count("## Reproduction scorecard") == 1 and "## Study `extraction`" not in first
    now, rows = " ".join(derived_now(snapshot)), table_triples(snapshot)
    assert [(v, u, b) for v, u, b in printed(first)
            if not held(rows, v, u, b) and f"{v}{u} [{b[0]}, {b[1]}]" not in now] == []
    figures = {p: p.read_bytes() for p in (snapshot / "figures").rglob("*.png")}
    rendered.render(snapshot)
    assert (snapshot / "report.md").read_text() == first
    assert {p: p.read_bytes() for p in (snapshot / "figures").rglob("*.png")} == figures
    assert {"report.md", "scorecard.png"} <= reference.check(snapshot)["rejudged"]["files"].keys()

    manifest = json.loads((snapshot / "manifest.json").read_text())
    key = next(k for k, v in manifest["as_run"].items() if v == "reproduced")
    manifest["as_run"][key] = "not reproduced"  # as if the run had judged it otherwise
    (snapshot / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(rendered.MovedUnsaid, match=key.replace(".", r"\.")):
        rendered.render(snapshot)
    rendered.render(snapshot, "a rule changed")
    again = (snapshot / "report.md").read_text()
    assert "(was **no**)" in again and "The run itself judged it `no`; why it moved: a rule changed." in again
    (snapshot / "report.md").write_text(again + "edited by hand\n")
    with pytest.raises(reference.InvalidReference, match="changed"):
        reference.check(snapshot)
