"""Which reference is published, and where the others went: a reader finds one result to trust.

A snapshot's manifest holds its status: `published` for exactly one, else `not published: <why>`. The others leave
the tree (`archive`); the index keeps the commit that holds each.

    jaxpitfalls reference publish docs/results/reference/<date>
    jaxpitfalls reference withhold docs/results/reference/<date> "why, in one line"
    jaxpitfalls reference archive docs/results/reference <commit>   (all but the published)
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd

from ...results import write_text

MANIFEST = "manifest.json"
INDEX = "README.md"
ARCHIVE = "archive.json"  # the rows of snapshots that left the tree, each with the commit that holds it
PUBLISHED = "published"
UNREVIEWED = "not published: not yet read against the write-ups (publish it, or say why not)"


def run_of_day(name: str) -> tuple[str, int]:
    """A snapshot's sort key: its date, then its run of that day (`-12` after `-9`; the first has no -N)."""
    date, _, n = name[:10], name[10:11], name[11:]
    return date, int(n) if n.isdigit() else 1


def manifests(out_root: Path) -> list[Path]:
    """Every snapshot's manifest under `out_root`, newest first."""
    return sorted(out_root.glob(f"*/{MANIFEST}"), key=lambda p: run_of_day(p.parent.name), reverse=True)


def published(out_root: str | Path) -> Path:
    """The one published snapshot under `out_root`: the result a reader is pointed to."""
    found = [p.parent for p in manifests(Path(out_root)) if json.loads(p.read_text()).get("status") == PUBLISHED]
    if len(found) != 1:
        raise ValueError(f"{out_root}: {len(found)} published snapshots, not one ({[p.name for p in found]})")
    return found[0]


def set_status(snapshot: str | Path, status: str) -> None:
    """Set a snapshot's status, `published` (superseding any other) or `not published: <why>`, and rewrite the index."""
    snapshot = Path(snapshot)
    if status != PUBLISHED and not status.startswith("not published: "):
        raise ValueError(f"a status is {PUBLISHED!r} or 'not published: <why>', not {status!r}")
    for path in manifests(snapshot.parent):
        m = json.loads(path.read_text())
        if path.parent == snapshot:
            m["status"] = status
        elif status == PUBLISHED and m.get("status") == PUBLISHED:
            m["status"] = f"not published: superseded by {snapshot.name}"
        else:
            continue
        path.write_text(json.dumps(m, indent=1) + "\n")
    write_index(snapshot.parent)


def _row(m: dict[str, Any], kept_at: str | None = None) -> dict[str, str]:
    """A snapshot's index row: where it is (here, or the commit holding it), its status, its run."""
    commit = (m.get("git") or {}).get("commit", "unknown")
    status = m.get("status", UNREVIEWED)
    where = f"[{m['date']}]({m['date']}/report.md)" if kept_at is None else f"{m['date']} (in git at `{kept_at}`)"
    return {"snapshot": where,
            "published": "**yes**" if status == PUBLISHED else f"no: {status.removeprefix('not published: ')}",
            "preset": f"`{m['preset']}`", "measured at commit": f"`{str(commit)[:10]}`",
            "wall time": f"{m['wall_seconds'] / 60:.0f} min",
            "yardstick": f"{m['yardstick_ms']:.2f} ms" if m.get("yardstick_ms") else "not recorded"}


def archive(out_root: str | Path, kept_at: str) -> list[str]:
    """Move every snapshot but the published one out of the tree, its manifest kept beside commit `kept_at`; returns
    their names."""
    out_root = Path(out_root)
    keep = published(out_root)
    kept = json.loads((out_root / ARCHIVE).read_text()) if (out_root / ARCHIVE).exists() else []
    gone = []
    for path in manifests(out_root):
        if path.parent != keep:
            kept.append(json.loads(path.read_text()) | {"kept_at": kept_at})
            shutil.rmtree(path.parent)
            gone.append(path.parent.name)
    write_text(out_root / ARCHIVE, json.dumps([{k: v for k, v in m.items() if k != "files"} for m in kept], indent=1)
               + "\n")
    write_index(out_root)
    return gone


def write_index(out_root: Path) -> None:
    """out_root/README.md: every snapshot's row, newest first."""
    here = [(json.loads(p.read_text()), None) for p in manifests(out_root)]
    kept = json.loads((out_root / ARCHIVE).read_text()) if (out_root / ARCHIVE).exists() else []
    every = sorted(here + [(m, m["kept_at"]) for m in kept], key=lambda mk: run_of_day(mk[0]["date"]), reverse=True)
    write_text(out_root / INDEX, "\n".join([
        "# Reference results", "",
        "Dated snapshots of whole runs (`make reference`): the report, its figures, the run summary, the environment "
        "and the tables, each file checked against the run's results bundle (`manifest.json`; tests/test_reference.py; "
        "a snapshot whose claims were judged again by later rules says so, across_runs/reference/rendered.py). One is "
        "published, the result to trust, which the README summarises, and only it is kept in the tree; each other says "
        "why it is not and which commit holds it: `git show <commit>:docs/reference/<date>/report.md` for those "
        "archived before the folder moved here, `docs/results/reference/<date>` after "
        "(across_runs/reference/published.py). `yardstick`: a fixed Python and numpy workload timed every round "
        "(harness/yardstick.py), the median over the run's timing jobs of each one's "
        "median: the machine's speed for Python (not for compiled code: a run on another CPU can differ in both).", "",
        pd.DataFrame([_row(m, at) for m, at in every]).to_markdown(index=False), ""]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jaxpitfalls reference", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("publish", help="make a snapshot the published one (the README's)").add_argument("snapshot")
    withhold = commands.add_parser("withhold", help="say in one line why a snapshot is not published")
    withhold.add_argument("snapshot")
    withhold.add_argument("reason", help="e.g. 'a VM 2-3.5x slower for Python (yardstick 0.6 ms against 0.26)'")
    archiving = commands.add_parser("archive", help="every snapshot but the published one out of the tree")
    archiving.add_argument("out_root")
    archiving.add_argument("kept_at", help="the commit that still holds them (commit them first)")
    args = parser.parse_args(argv)
    if args.command == "archive":
        print("\n".join(archive(args.out_root, args.kept_at)))
    else:
        set_status(args.snapshot, PUBLISHED if args.command == "publish" else f"not published: {args.reason}")
    return 0
