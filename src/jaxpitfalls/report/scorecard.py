"""The report's claims sections, the part a reader acts on: what to do (each study's advice for how its claims
came out), the scorecard (claim, the write-up's number, ours, verdict) with its tally, and how each claim was
judged (rule, whole measurement, magnitude). The markdown report and the HTML landing page both read them."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..contract.verdicts import CHECKED, INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, UNSTABLE
from .magnitude import RULE as MAGNITUDE_RULE
from .magnitude import magnitude
from .markdown import table

VERDICT_MARK = {REPRODUCED: "yes", NOT_REPRODUCED: "**no**", INCONCLUSIVE: INCONCLUSIVE,
                NOT_TESTABLE: NOT_TESTABLE, UNSTABLE: UNSTABLE, NOT_MEASURED: NOT_MEASURED, CHECKED: CHECKED}



def _advice(claim: dict[str, Any]) -> str:
    """The claim's advice for how it came out here ('' where it has none for that outcome)."""
    advice = claim["advice"]
    if advice is None or claim["verdict"] in (NOT_MEASURED, CHECKED):
        return ""
    return {REPRODUCED: advice.reproduced, NOT_REPRODUCED: advice.not_reproduced}.get(
        claim["verdict"], advice.inconclusive)


FINDINGS_PER_STUDY = 4  # sentences; every claim's advice is in the judging table


def findings(claims: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """What to do, per study: the advice of its claims for the verdicts they reached on this run, at most
    FINDINGS_PER_STUDY sentences: the claims its spec names for its whole picture (`picture`, in that order),
    else decided claims (yes or no) first (the markdown report and the HTML report's landing page both open
    with it)."""
    out = {}
    for study, rows in claims.items():
        picture = sorted((c for c in rows if c.get("picture") is not None), key=lambda c: c["picture"])
        ordered = picture or sorted(rows, key=lambda c: c["verdict"] not in (REPRODUCED, NOT_REPRODUCED))
        said = [text for text in map(_advice, ordered) if text][:FINDINGS_PER_STUDY]
        out[study] = " ".join(said) if said else "nothing decided on this run."
    return out


FINDINGS_INTRO = ("Per study, the advice of the claims that make its picture (its main effect, where the effect "
                  "stops, what it costs) for how they came out on this run (at most "
                  f"{FINDINGS_PER_STUDY}; every claim's advice is in \"How each claim was judged\"). A claim this run "
                  "could not decide advises only what holds either way.")


def findings_section(claims: dict[str, list[dict[str, Any]]]) -> str:
    lines = ["## What to do", "", FINDINGS_INTRO, ""]
    lines += [f"- **{study}**: {text}" for study, text in findings(claims).items()]
    return "\n".join([*lines, ""])


def tally(claims: dict[str, list[dict[str, Any]]]) -> str:
    """`59 claims of the source write-ups: 20 yes, 3 **no**, ...; 2 beyond them: 1 yes, 1 **no**`: the
    scorecard's verdicts counted, the write-ups' claims apart from ours beside them (Claim.beyond), and those
    judged at a structure smaller than the write-up's (`supporting`) apart from the rest, since they support a
    claim without reproducing it; a claim that restates another's measurement is named, not counted again (one
    measurement, one verdict)."""
    def counted(rows: list[dict[str, Any]], restated: bool = True) -> str:
        counts = pd.Series([VERDICT_MARK[c["verdict"]] for c in rows if not c.get("restates")],
                           dtype=object).value_counts()
        restating = [f"{c['key']} restates {c['restates']}" for c in rows if c.get("restates")]
        said = ", ".join(f"{n} {m}" for m, n in counts.items())
        return f"{said} ({'; '.join(restating)}: one measurement, counted once)" if restating and restated else said

    every = [c for cs in claims.values() for c in cs]
    theirs, ours = [c for c in every if not c["beyond"]], [c for c in every if c["beyond"]]
    supporting = [c for c in theirs if c.get("supporting")]
    rest = [c for c in theirs if not c.get("supporting")]
    apart = (f"; of them, {len(supporting)} judged at a structure smaller than the write-up's (supporting only: "
             f"{counted(supporting, False)}), the other {len(rest)} at it or untimed ({counted(rest, False)})"
             ) if supporting else ""
    return f"{len(theirs)} claims of the source write-ups: {counted(theirs)}{apart}" + (
        f"; {len(ours)} beyond them: {counted(ours)}" if ours else "")


def _short(measured: str) -> str:
    """The measurement's first clause: its headline number, the rest is in the judging table. Clauses end at a
    "; " outside brackets: one inside a parenthesis would cut the cell mid-text."""
    depth = 0
    for i, char in enumerate(measured):
        depth += (char in "([") - (char in ")]")
        if depth == 0 and measured.startswith("; ", i):
            return measured[:i]
    return measured


def scorecard_section(claims: dict[str, list[dict[str, Any]]], figure: str | None = None) -> str:
    """The compact scorecard (claim, the write-up's number, ours, verdict) and, where given, the figure of
    every ratio beside the write-up's on one axis."""
    rows = [{"study": s, "claim": c["claim"], "write-up": c["write_up"], "ours": _short(c["measured"]),
             "verdict": _mark(c)} for s, cs in claims.items() for c in cs]
    shown = [f"![Each claim's ratio here (95% interval) beside the write-up's]({figure})", ""] if figure else []
    return "\n".join(["## Reproduction scorecard", "",
                      f"{tally(claims)}. `yes`: the effect holds here in the "
                      "write-up's direction by its rule (next section); `inconclusive`: the interval straddles "
                      "the rule's threshold (more samples may decide it, or only another design where its row "
                      "says so); `not testable`: the largest effect this hardware can show is below what the "
                      "claim needs or no wider than the interval, so no verdict "
                      "here could be trusted (the bound is given); `unstable`: worker "
                      "processes reached opposite verdicts; `checked`: every job checks it (a guard that fails "
                      "the job, or a method the harness follows) instead of timing it; `not measured`: no run of "
                      "this workflow judges it (why is given).",
                      "", *shown, table(pd.DataFrame(rows)), ""])


RESTATED = " (= "  # after a verdict: the claim whose measurement this one restates, `yes (= slowed_cached)`


def _mark(claim: dict[str, Any]) -> str:
    """The verdict as the scorecard shows it; a claim restating another's measurement names it."""
    mark = VERDICT_MARK[claim["verdict"]]
    return f"{mark}{RESTATED}{claim['restates']})" if claim.get("restates") else mark


UNCOMPARED = "not compared: the claim is not testable here (the measurement gives the bound)"


def _sizes(c: dict[str, Any], here: str) -> list[tuple[str, str]]:
    """Each number of a claim beside ours with its magnitude verdict; where the claim is not testable here, its
    first number (the one its verdict rests on) is shown, not judged: a size this hardware cannot reach says
    nothing of the write-up's."""
    sizes = [magnitude(n, o, here) for n, o in zip(c["numbers"], c.get("ours", ()), strict=True)]
    if c["verdict"] == NOT_TESTABLE and sizes:
        sizes[0] = (sizes[0][0], UNCOMPARED)
    return sizes


def judging_section(claims: dict[str, list[dict[str, Any]]], here: dict[str, str]) -> str:
    """How each claim was judged: the rule, the whole measurement (per process where they differ), and the
    write-up's numbers beside ours with the magnitude verdict (`here`: each study's device, device_here)."""
    rows = []
    for s, cs in claims.items():
        for c in cs:
            sizes = _sizes(c, here[s])
            rows.append({"study": s, "claim": c["key"], "rule": c["rule"], "measured here": c["measured"],
                         "write-up vs ours": "; ".join(n for n, _ in sizes),
                         "magnitude": "; ".join(v for _, v in sizes), "advice": _advice(c)})
    return "\n".join(["## How each claim was judged", "",
                      "The rule each verdict follows, everything it measured, where the write-up gives a number "
                      f"the two side by side in one unit with a judgement of size ({MAGNITUDE_RULE}), and the "
                      "claim's advice for its verdict.", "",
                      table(pd.DataFrame(rows)), ""])
