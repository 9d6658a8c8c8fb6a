"""The app corpus: each apps/NAME/app.json says how to install, seed and serve one application nobody here wrote.

Why a manifest per app and not code: installing (a venv with pinned packages), seeding (the app's own management
commands) and serving (the launcher in apps/_django/) are the same steps for every Django app; the manifest holds
what differs. Everything installed lives in .tools/apps/NAME/ ($CLAWREC_APPS_HOME overrides .tools/apps):
venv/, snapshot/ (the seeded state: database, search index, media, mail), instances/K/ (a run's copy) and
.version (the install's stamp: a hash of the manifest and the app's project files).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawrec.errors import UsageError

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "apps"
HOME_ENV = "CLAWREC_APPS_HOME"
PATH_ENV = "CLAWREC_APPS_PATH"  # more folders holding NAME/app.json (os.pathsep-separated): a user's own apps
KINDS = ("django", "command")  # command: any app started by its own commands (apps/_command/serve.py)


def home() -> Path:
    return Path(os.environ.get(HOME_ENV) or REPO / ".tools" / "apps")


@dataclass(frozen=True)
class AppDef:
    """One application of the corpus (apps/NAME/app.json)."""

    name: str
    kind: str
    what: str
    python: tuple[str, ...]
    settings: str
    setup: tuple[tuple[str, ...], ...]
    database: str
    mail: str | None
    uploads: str | None
    start_path: str
    source: Path = field(compare=False)
    # kind "command" only: Debian packages, named free ports, long-running start commands, the URL, extra env
    apt: tuple[str, ...] = ()
    ports: tuple[str, ...] = ()
    start: tuple[tuple[str, ...], ...] = ()
    url: str = ""
    env: tuple[tuple[str, str], ...] = ()
    # false: opt-in (too long for make test): `apps install NAME` / `make apps APPS=NAME`, not a bare `apps install`
    default: bool = True
    # kind "command": indexes of start commands a reset leaves running ({"argv": [...], "keep": true}), and the
    # manifest's "reset": {"run": [commands run by a reset], "keep_data": [data entries a reset does not copy back]}
    keep: tuple[int, ...] = ()
    reset: tuple[tuple[str, ...], ...] = ()
    keep_data: tuple[str, ...] = ()

    @property
    def root(self) -> Path:
        return home() / self.name

    @property
    def venv(self) -> Path:
        return self.root / "venv"

    @property
    def python_bin(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def snapshot(self) -> Path:
        return self.root / "snapshot"

    def stamp(self) -> str:
        """What an install is made of: the manifest and the app's project files (a change reinstalls)."""
        h = hashlib.sha256()
        for path in sorted(p for p in self.source.rglob("*")  # an app's README is not part of what it installs
                           if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".md"):
            h.update(str(path.relative_to(self.source)).encode() + b"\0" + path.read_bytes())
        launcher = CORPUS / ("_command" if self.kind == "command" else "_django") / "serve.py"
        h.update(launcher.read_bytes())
        return h.hexdigest()

    def installed(self) -> bool:
        stamp = self.root / ".version"
        return stamp.is_file() and stamp.read_text().strip() == self.stamp() and (self.snapshot / self.database).is_file()


def _load(path: Path) -> AppDef:
    try:
        doc: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: {exc}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: must be a JSON object")
    required = ("name", "kind", "start", "url", "database") if doc.get("kind") == "command" else \
        ("name", "kind", "python", "settings", "database")
    for key in required:
        if key not in doc:
            raise UsageError(f"{path}: {key}: missing")
    if doc["kind"] not in KINDS:
        raise UsageError(f"{path}: kind: unknown app kind {doc['kind']!r} (expected one of: {', '.join(KINDS)})")
    return AppDef(name=str(doc["name"]), kind=str(doc["kind"]), what=str(doc.get("what", "")),
                  python=tuple(str(p) for p in doc.get("python", [])), settings=str(doc.get("settings", "")),
                  setup=tuple(tuple(str(a) for a in step) for step in doc.get("setup", [])),
                  database=str(doc["database"]), mail=doc.get("mail"), uploads=doc.get("uploads"),
                  start_path=str(doc.get("start_path", "/")), source=path.parent,
                  apt=tuple(str(p) for p in doc.get("apt", [])), ports=tuple(str(p) for p in doc.get("ports", [])),
                  start=tuple(tuple(str(a) for a in _argv(cmd, path)) for cmd in doc.get("start", [])),
                  url=str(doc.get("url", "")), env=tuple((str(k), str(v)) for k, v in doc.get("env", {}).items()),
                  default=_flag(doc, "default", path),
                  keep=tuple(i for i, c in enumerate(doc.get("start", [])) if isinstance(c, dict) and c.get("keep")),
                  **_reset(doc, path))


def _argv(cmd: Any, path: Path) -> list:
    """A start command: an argv list, or {"argv": [...], "keep": true} (started once, left running by a reset)."""
    if isinstance(cmd, dict):
        if not isinstance(cmd.get("argv"), list) or not isinstance(cmd.get("keep", False), bool):
            raise UsageError(f"{path}: start: an object needs \"argv\": [...] and optionally \"keep\": true or false")
        return cmd["argv"]
    if not isinstance(cmd, list):
        raise UsageError(f"{path}: start: each command is a list or {{\"argv\": [...], \"keep\": true}}")
    return cmd


def _reset(doc: dict, path: Path) -> dict[str, tuple]:
    """The manifest's "reset" hook (kind command): commands a reset runs, data entries it leaves to them."""
    hook = doc.get("reset", {})
    run, kept = (hook.get("run", []), hook.get("keep_data", [])) if isinstance(hook, dict) else (None, None)
    if not isinstance(hook, dict) or not set(hook) <= {"run", "keep_data"} or not isinstance(kept, list) or \
            not isinstance(run, list) or not all(isinstance(c, list) for c in run):
        raise UsageError(f"{path}: reset: expected {{\"run\": [[command], ...], \"keep_data\": [entry, ...]}}")
    return {"reset": tuple(tuple(str(a) for a in c) for c in run), "keep_data": tuple(str(e) for e in kept)}


def _flag(doc: dict, key: str, path: Path) -> bool:
    value = doc.get(key, True)
    if not isinstance(value, bool):
        raise UsageError(f"{path}: {key}: must be true or false")
    return value


def folders() -> list[Path]:
    """Where apps are looked up: apps/ of this repository, then each folder of $CLAWREC_APPS_PATH."""
    extra = [Path(p).expanduser() for p in os.environ.get(PATH_ENV, "").split(os.pathsep) if p]
    for folder in extra:
        if not folder.is_dir():
            raise UsageError(f"{PATH_ENV}: {folder}: not a folder")
    return [CORPUS, *extra]


def apps() -> dict[str, AppDef]:
    """Every app of the corpus by name (folders with an app.json); a name defined twice is an error."""
    found: dict[str, AppDef] = {}
    for folder in folders():
        for path in sorted(folder.glob("*/app.json")):
            app = _load(path)
            if app.name in found:
                raise UsageError(f"{path}: name: app '{app.name}' is already defined in {found[app.name].source}")
            found[app.name] = app
    return found


def defaults() -> list[AppDef]:
    """The apps a bare `apps install` (and `make apps`) installs: all but the opt-in ones ("default": false)."""
    return [app for app in apps().values() if app.default]


def get(name: str) -> AppDef:
    corpus = apps()
    if name not in corpus:
        where = ", ".join(str(f) for f in folders())
        raise UsageError(f"unknown app '{name}' (the corpus in {where}: {', '.join(corpus) or 'none'})")
    return corpus[name]
