"""The report's images and video, so that it opens anywhere: inlined as data URIs (a small run: one file to move
or mail), or copied into a folder beside the page (`report.html` + `report/`) when they are too big to inline.
Never a link back into the run directory (the report used to break once moved).

Each file is registered once under a short key; the page refers to keys (`data-m`) and its script sets the
sources from one map, so a screenshot shown in three places is stored once.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import shutil
from pathlib import Path
from urllib.parse import quote

from evaluator.errors import EvaluatorError


class ReportError(EvaluatorError):
    """The report cannot be written where asked (its media folder would replace something else)."""

MARKER = ".clawrec-report"
EMBED_LIMIT = 25 * 1024 * 1024  # bytes of media inlined by default; above it, a folder beside the page
MIME = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".mp4": "video/mp4", ".webm": "video/webm"}


class Media:
    """The media of one report. `embed`: True inline, False folder, None inline when small enough."""

    def __init__(self, out: Path, embed: bool | None, limit: int = EMBED_LIMIT) -> None:
        self.out = out
        self.folder = out.with_suffix("") if out.suffix else out.with_name(out.name + "_files")
        self.embed = embed
        self.limit = limit
        self.files: dict[str, Path] = {}      # key -> source file
        self._keys: dict[Path, str] = {}

    def key(self, path: Path | None, prefix: str = "m") -> str | None:
        """Register a file (once) and return its key; None if there is no such file."""
        if path is None or not path.is_file():
            return None
        path = path.resolve()
        if path not in self._keys:
            k = f"{prefix}{len(self._keys)}"
            self._keys[path] = k
            self.files[k] = path
        return self._keys[path]

    @property
    def total(self) -> int:
        return sum(p.stat().st_size for p in self.files.values())

    @property
    def inline(self) -> bool:
        return self.embed if self.embed is not None else self.total <= self.limit

    def _name(self, key: str, path: Path) -> str:
        return f"{key}{path.suffix.lower()}"

    def sources(self) -> dict[str, str]:
        """key -> what an <img>/<video> src should be (a data URI, or a link relative to the page)."""
        if self.inline:
            out = {}
            for k, p in self.files.items():
                mime = MIME.get(p.suffix.lower()) or mimetypes.guess_type(p.name)[0] or "application/octet-stream"
                out[k] = f"data:{mime};base64,{base64.b64encode(p.read_bytes()).decode('ascii')}"
            return out
        rel = self.folder.name
        return {k: f"{quote(rel)}/{quote(self._name(k, p))}" for k, p in self.files.items()}

    def check_folder(self) -> None:
        """Refuse to replace a folder that is not an earlier report's media (a recorded layer named by mistake)."""
        if not self.inline and self.files and self.folder.exists() and not (self.folder / MARKER).is_file():
            raise ReportError(f"{self.folder}: exists and is not a report's media folder; refusing to replace it "
                              "(choose another --out, or --embed)")

    def write_folder(self) -> Path | None:
        """Copy the media beside the page (hard links when the file system allows); None when inlined."""
        if self.inline or not self.files:
            return None
        tmp = self.folder.with_name(self.folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for k, p in self.files.items():
            dst = tmp / self._name(k, p)
            try:
                os.link(p, dst)
            except OSError:
                shutil.copyfile(p, dst)
        (tmp / MARKER).write_text("media of the report beside this folder (clawrec view); safe to delete\n")
        if self.folder.exists():
            shutil.rmtree(self.folder)
        os.replace(tmp, self.folder)
        return self.folder
