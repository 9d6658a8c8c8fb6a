"""`clawrec view RUN`: render the run as report.html (evaluator/report.py), optionally side by side with its
reference (the alignment `clawrec diagnose` uses)."""

from __future__ import annotations

from pathlib import Path

import click

from clawrec.commands.diagnose import find_spec
from clawrec.errors import UsageError, check_creatable
from clawrec.unfinished import finalize_if_dead
from evaluator.diagnose import diagnose
from evaluator.errors import EvaluatorError, RunDirError
from evaluator.report import write_report
from evaluator.report_media import EMBED_LIMIT
from rundir.reader import RunDir
from rundir.records import REPORT


@click.command("view")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the page (default: RUN/report.html). Media not inlined go to a folder beside it "
                   "named like the page without its suffix (report.html -> report/).")
@click.option("--reference", type=click.Path(path_type=Path),
              help="A reference run: show both runs' aligned steps side by side (the alignment `clawrec diagnose` "
                   "uses), the divergence that explains the failure marked, and the failure category on top "
                   "(computed now; RUN/diagnosis.json is not written).")
@click.option("--embed/--no-embed", default=None,
              help=f"Inline the video and screenshots into the page as data (one file that opens anywhere), or copy "
                   f"them into the folder beside it. Default: inline when they total at most "
                   f"{EMBED_LIMIT // (1024 * 1024)} MB.")
def view(run_dir: Path, out: Path | None, reference: Path | None, embed: bool | None) -> int:
    """Render RUN as one HTML page a person debugs with: the failure category and cause on top, the verdict with
    evidence links, one collapsible row per step (an agent's tool call with the browser actions, requests,
    screenshots, console entries and result it caused; a person's action bursts) with filters and search, and a
    fixed media panel (video, lanes and film strip that seek, the step's before/after screenshots, the request
    panel). No network access; page-derived text is escaped. Prints the file written."""
    target = out if out is not None else run_dir / REPORT
    if out is not None:
        check_creatable(out, f"--out {out}")
        if out.is_file() and out.suffix.lower() not in (".html", ".htm"):  # e.g. a typo naming a recorded file
            raise UsageError(f"--out {out}: exists and is not an HTML page; refusing to overwrite it")
    elif target.is_dir():
        raise UsageError(f"{target}: is a folder; cannot write the report there")
    try:
        finalize_if_dead(run_dir, "view")
        run = RunDir(run_dir)
        diagnosis = ref = None
        if reference is not None:
            if not reference.is_dir():
                raise UsageError(f"--reference {reference}: not a run directory (no such directory)")
            ref = RunDir(reference)
            spec, _note = find_spec(run, None)
            diagnosis = diagnose(run, ref, spec, write=False)
        path = write_report(run, out, embed=embed, diagnosis=diagnosis, reference=ref)
    except (EvaluatorError, RunDirError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{target}: cannot write the report ({exc.strerror or exc})") from None
    click.echo(str(path))
    return 0
