"""Open a replay source: a run directory (its archive.warc.gz), a .warc.gz / .warc file, or a .wacz (every WARC
under archive/ in it, in name order)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from archive.warc import ARCHIVE, Archive, read_warc


class SourceError(ValueError):
    """The source is not an archive this can read (the message names the file)."""


def open_source(source: str | Path) -> Archive:
    path = Path(source)
    if path.is_dir():
        path = path / ARCHIVE
        if not path.is_file():
            raise SourceError(f"{source}: no {ARCHIVE} in this run directory (record it with --archive)")
    if not path.is_file():
        raise SourceError(f"{source}: no such file or run directory")
    try:
        if path.suffix == ".wacz":
            return _read_wacz(path)
        return read_warc(path)
    except (OSError, zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise SourceError(f"{source}: not a readable web archive ({exc})") from exc


def _read_wacz(path: Path) -> Archive:
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if n.startswith("archive/") and ".warc" in n)
        if not names:
            raise SourceError(f"{path}: a WACZ with no archive/*.warc.gz")
        exchanges, info = [], {}
        for name in names:
            with z.open(name) as fh:
                got = read_warc(fh)
            exchanges += got.exchanges
            info = info or got.info
    for i, ex in enumerate(exchanges):
        ex.order = i
    return Archive(exchanges, info)
