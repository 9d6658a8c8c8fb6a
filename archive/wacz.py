"""WACZ 1.1 packaging with the field's own tool (`wacz` on PyPI): archive/ (the run's WARC), indexes/ (CDXJ, POST
bodies folded into the keys as cdxj-indexer makes them), pages/pages.jsonl (the run's top-level navigations) and
datapackage.json. `wacz validate` accepts what this writes; ReplayWeb.page and pywb open it."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

from archive.warc import Archive


def pages_of(archive: Archive) -> list[dict[str, Any]]:
    """The run's pages: the navigations the capture listed (replay info `pages`), else the first HTML document;
    each stamped with its recorded response's WARC-Date (wacz matches a page to its capture by URL and time)."""
    urls = [p["url"] for p in archive.info.get("pages", []) if p.get("url")]
    if not urls:
        urls = [e.url for e in archive.exchanges if e.method == "GET" and 200 <= e.status < 300
                and "html" in e.header("content-type").lower()][:1]
    titles = {p.get("url"): p.get("title") for p in archive.info.get("pages", [])}
    out: list[dict[str, Any]] = []
    for url in dict.fromkeys(urls):
        ex = next((e for e in archive.exchanges if e.url == url and e.method == "GET" and 200 <= e.status < 300),
                  None)
        if ex is not None:
            ts = ex.date.strftime("%Y-%m-%dT%H:%M:%SZ")
            out.append({"id": f"p{len(out)}", "url": url, "ts": ts, "title": titles.get(url) or url})
    return out


def write_wacz(warc: Path, archive: Archive, out: Path, title: str = "clawrec run") -> tuple[int, str]:
    """Package `warc` as `out`; returns (exit code of wacz create, its output)."""
    from wacz.main import main as wacz_main  # imported here: frictionless takes ~1 s to import

    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="clawrec-wacz-") as tmp:
        pages = Path(tmp) / "pages.jsonl"
        lines = [{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}] + pages_of(archive)
        pages.write_text("".join(json.dumps(line) + "\n" for line in lines))
        args = ["create", str(warc), "-o", str(out), "--title", title]
        if len(lines) > 1:
            args += ["-p", str(pages)]
        with contextlib.redirect_stdout(buf):
            code = wacz_main(args) or 0
    return code, buf.getvalue()


def validate_wacz(path: Path) -> tuple[int, str]:
    """`wacz validate -f PATH`: (exit code, its output)."""
    from wacz.main import main as wacz_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = wacz_main(["validate", "-f", str(path)]) or 0
    return code, buf.getvalue()
