"""`clawrec view RUN`: render the run as one self-contained report.html (evaluator/report.py)."""

from __future__ import annotations

from pathlib import Path

import click

from clawrec.errors import UsageError, check_creatable
from evaluator.errors import EvaluatorError, RunDirError
from evaluator.report import write_report
from rundir.records import REPORT


@click.command("view")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the page (default: RUN/report.html); links to the run's files stay relative.")
def view(run_dir: Path, out: Path | None) -> int:
    """Render RUN as one HTML page: manifest summary, verdict (verdict.json), diagnosis (diagnosis.json), the
    video, and a timeline of the five layers on the run clock (actions, screenshot thumbnails, HTTP requests with
    the caught one highlighted, agent messages). Page-derived text is escaped. Prints the file written."""
    target = out if out is not None else run_dir / REPORT
    if out is not None:
        check_creatable(out, f"--out {out}")
        if out.is_file() and out.suffix.lower() not in (".html", ".htm"):  # e.g. a typo naming a recorded file
            raise UsageError(f"--out {out}: exists and is not an HTML page; refusing to overwrite it")
    elif target.is_dir():
        raise UsageError(f"{target}: is a folder; cannot write the report there")
    try:
        path = write_report(run_dir, out)
    except (EvaluatorError, RunDirError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{target}: cannot write the report ({exc.strerror or exc})") from None
    click.echo(str(path))
    return 0
