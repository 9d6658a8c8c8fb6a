"""Serving a generated OUT: every origin of every site on its own loopback port, through sites/' server (one log,
the truth of what reached each site, with the generated servers' subgoal/distractor/terminal events)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, Iterator

from factory.app import apps_for


class FactoryError(ValueError):
    """OUT is not a generated folder (no index.json, unreadable): one line for the user."""


def read_index(out: Path) -> dict[str, Any]:
    path = out / "index.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FactoryError(f"{out}: no index.json (not made by `clawrec factory generate`)") from None
    except (OSError, ValueError) as exc:
        raise FactoryError(f"{path}: unreadable ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("sites"), list):
        raise FactoryError(f"{path}: sites: missing")
    return data


@contextlib.contextmanager
def serve_factory(out: Path, log_path: Path | None = None, ids: list[str] | None = None) -> Iterator[Any]:
    """`sites.server.serve_sites` over OUT's generated sites (all, or `ids`); yields its SitesServer."""
    from sites.server import serve_sites

    index = read_index(out)
    wanted = ids or [s["id"] for s in index["sites"]]
    apps, hosts = apps_for(out, wanted)
    with serve_sites(log_path=log_path, apps=apps, hosts=hosts) as server:
        yield server
