"""Each run's private copy of the MV3 extension: its own config.json (the action channel's port and token) and so
its own extension id, which the interceptor uses to tell the recorder's service worker from the page's."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

EXTENSION_DIR = Path(os.environ.get("CLAWREC_EXTENSION_DIR") or Path(__file__).resolve().parent.parent / "extension")


def unpacked_extension_id(path: Path) -> str:
    """Chromium's id for an unpacked extension: sha256 of its absolute path, first 32 hex digits mapped to a-p.
    Lets the interceptor tell the recorder's own service worker (chrome-extension://<id>/) from the page's."""
    digest = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def private_copy(source: Path, into: Path, port: int, token: str) -> tuple[Path, str]:
    """(the copy's folder, its extension id): `source` copied to `into/extension` with this run's config.json."""
    ext = into / "extension"
    shutil.copytree(source, ext, ignore=shutil.ignore_patterns("README.md", "config.json"))
    (ext / "config.json").write_text(json.dumps({"port": port, "token": token}))
    return ext, unpacked_extension_id(ext)
