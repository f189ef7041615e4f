"""The published calibration: its page (docs/results/calibration.md) and what its run timed
(docs/results/calibration/). `publish RUN` after make calibrate; `publish-pyperf RUN` after make calibrate-pyperf
(pyperf's pairs are timed apart, and calibration runs read the published ones); `rejudge [--write]` estimates the
lockstep rows again from the kept jobs, draws the null histories again and renders the page by this checkout's
rules, so that a change of estimating or judging is published without timing again.
"""

from __future__ import annotations

import argparse
import difflib
import json
import shutil
import tempfile
from pathlib import Path

from ...results import write_dir_atomically, write_text
from . import calibration
from .timed import PYPERF, SETTINGS, drawn_now, draws_nulls, estimated_now, read

PAGE, TIMED, REFERENCE = "calibration.md", "calibration", "reference"  # under the docs folder


def publish(run: str | Path, docs: str | Path = "docs/results") -> None:
    """Put a calibration run's page and what it timed in place of the published ones; a run missing either is refused
    before anything is replaced."""
    run, docs = Path(run), Path(docs)
    kept = run / "results" / "calibration"
    if read(kept).null_outcomes is None and draws_nulls(kept):
        raise FileNotFoundError(f"{kept} holds no drawn null histories (kept by an older checkout): run the "
                                "calibration rule again, or publish and `jaxpitfalls calibration rejudge --write`")
    page = (run / "reports" / PAGE).read_text()
    write_dir_atomically(docs / TIMED, lambda tmp: shutil.copytree(kept, tmp, dirs_exist_ok=True,
                                                                    ignore=shutil.ignore_patterns(".*")))
    write_text(docs / PAGE, page)


def publish_pyperf(run: str | Path, docs: str | Path = "docs/results") -> list[str]:
    """Put a `make calibrate-pyperf` run's pairs in place of the published calibration's, kept as timed apart, with
    its page rendered again from them; nothing is replaced where the pairs do not fit the calibration or the page
    cannot be rendered. Returns the page's changed lines."""
    run, docs = Path(run), Path(docs)
    pairs = json.loads((run / "results" / "pyperf" / "pairs.json").read_text())
    if not pairs:
        raise ValueError(f"{run}/results/pyperf/pairs.json holds no pair: compare.pyperf.pairs is at least 1")
    timed = {(pair["config_id"], pair["mode"], pair["variant"]) for pair in pairs}
    configs = {job["config_id"] for job in read(docs / TIMED).jobs}
    if len(timed) != 1 or next(iter(timed))[0] not in configs:
        raise ValueError(f"pyperf timed {sorted(timed)}, not one callable of a configuration the published "
                         "calibration's lockstep timed: time the pairs with the calibration's preset")
    settings = json.loads((docs / TIMED / SETTINGS).read_text())
    _, mode, variant = next(iter(timed))
    settings["compare"]["pyperf"] = settings["compare"].get("pyperf", {}) | {
        "callable": f"{mode}/{variant}", "pairs": len(pairs), "published": True}
    rendered = {}

    def fill(tmp: str) -> None:
        shutil.copytree(docs / TIMED, tmp, dirs_exist_ok=True)
        (Path(tmp) / PYPERF).write_text(json.dumps(pairs))
        (Path(tmp) / SETTINGS).write_text(json.dumps(settings, indent=1))
        rendered["page"] = _rendered(Path(tmp), docs)  # a page that cannot be rendered replaces nothing

    write_dir_atomically(docs / TIMED, fill)
    page = (docs / PAGE).read_text()
    write_text(docs / PAGE, rendered["page"])
    return changed_lines(page, rendered["page"])


def _rendered(kept: Path, docs: Path) -> str:
    """The page rendered by this checkout's rules from the calibration kept at `kept` and the reference snapshot its
    run read (under `docs`)."""
    timed = read(kept)
    reference = docs / REFERENCE / timed.reference if timed.reference else None
    if reference is not None and not reference.is_dir():
        raise FileNotFoundError(f"the calibration read the reference {timed.reference}, which {docs / REFERENCE} "
                                "no longer holds: run the calibration rule again on the published reference")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / PAGE
        calibration.write(timed, str(page), str(reference or ""))
        return page.read_text()


def _judged_again(docs: Path, out: Path, redraw: bool) -> tuple[str, bool]:
    """The published calibration in `out`, estimated (and `redraw`: drawn) again, its page; whether a table changed."""
    changed = estimated_now(docs / TIMED, out)
    if redraw:
        changed = drawn_now(out) or changed
    return _rendered(out, docs), changed


def rejudged(docs: str | Path = "docs/results") -> str:
    """The published page as this checkout renders it, its null histories as kept (`rejudge` draws them again)."""
    with tempfile.TemporaryDirectory() as tmp:
        return _judged_again(Path(docs), Path(tmp), redraw=False)[0]


def changed_lines(old: str, new: str) -> list[str]:
    """The page's lines that change (a unified diff without context)."""
    return list(difflib.unified_diff(old.splitlines(), new.splitlines(), "published", "now", lineterm="", n=0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jaxpitfalls calibration", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    where = argparse.ArgumentParser(add_help=False)  # after the subcommand, as `jaxpitfalls calibration` passes it
    where.add_argument("--docs", default="docs/results", help="the folder holding the published page, "
                       "calibration and reference (default: docs/results)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("publish", parents=[where], help="a calibration run's page and what it timed, published"
                        ).add_argument("run")
    commands.add_parser("publish-pyperf", parents=[where],
                        help="a calibrate-pyperf run's pairs published, the page rendered again").add_argument("run")
    rejudging = commands.add_parser("rejudge", parents=[where],
                                    help="the published page rendered again by this checkout's rules")
    rejudging.add_argument("--write", action="store_true", help="write the page so (docs/results/calibration.md)")
    args = parser.parse_args(argv)
    docs = Path(args.docs)
    if args.command == "publish":
        publish(args.run, docs)
        print(f"published {args.run}'s calibration: {docs / PAGE}, {docs / TIMED}/")
        return 0
    if args.command == "publish-pyperf":
        lines = publish_pyperf(args.run, docs)
        print("\n".join([*lines, f"published {args.run}'s pyperf pairs: {docs / TIMED / PYPERF}, {docs / PAGE}"]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        now, changed = _judged_again(docs, Path(tmp), redraw=True)
        lines = changed_lines((docs / PAGE).read_text(), now)
        print("\n".join(lines) if lines else f"no line of {docs / PAGE} changes")
        if args.write and changed:  # the tables the page was rendered from, put in place
            write_dir_atomically(docs / TIMED, lambda out: shutil.copytree(tmp, out, dirs_exist_ok=True))
            print(f"wrote {docs / TIMED}/")
    if args.write and lines:
        write_text(docs / PAGE, now)
        print(f"wrote {docs / PAGE}")
    return 0
