"""`clawrec archive RUN [--wacz OUT.wacz]`: a run's web archive (RUN/archive.warc.gz) packaged as WACZ 1.1."""

from __future__ import annotations

from pathlib import Path

import click

from clawrec.errors import ClawrecError, UsageError


@click.command("archive")
@click.argument("run", type=click.Path(file_okay=False, path_type=Path))
@click.option("--wacz", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the WACZ (default: RUN/archive.wacz).")
def archive(run: Path, out: Path | None) -> int:
    """Package RUN's archive.warc.gz (a run made with --archive) as a WACZ: the WARC, a CDXJ index (POST bodies in
    the keys, as cdxj-indexer makes them), pages/pages.jsonl from the run's navigations, datapackage.json. The
    result passes `wacz validate` and opens in ReplayWeb.page and pywb. Prints the WACZ's path."""
    from archive.source import SourceError, open_source
    from archive.wacz import write_wacz
    from archive.warc import ARCHIVE

    warc = run / ARCHIVE
    try:
        got = open_source(run)
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    out = out or run / "archive.wacz"
    if out.exists() and out.is_dir():
        raise UsageError(f"--wacz {out}: is a directory")
    code, output = write_wacz(warc, got, out, title=f"clawrec run {run.name}")
    if code != 0 or not out.is_file():
        raise ClawrecError(f"wacz create failed for {warc}: {output.strip().splitlines()[-1:] or code}")
    click.echo(str(out))
    return 0
