"""The soak's sites for one segment: the demo sites and the factory's generated sites, each served by its own
`clawrec ... serve --log` process with its own request log, and what reached them that must not (a terminal request).

Why a log per segment: a soak spans segments (`CLAWREC_SOAK_DIR`), and each segment serves the sites on new ports;
a terminal request is recognised by the URLs it was served on, so each log is read with its own segment's URLs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEMO_TASKS = ("travel-flight-oneway", "jobs-apply-analyst", "shop-trail-order", "social-status-update",
              "social-share-post")
FACTORY_SEED = 2024  # bench/factory.py's: the soak's generated sites are the first N of that bench's


def demo_specs() -> list[Path]:
    return [REPO / "specs" / "demo" / f"{t}.yaml" for t in DEMO_TASKS]


def factory_specs(gen: Path) -> list[Path]:
    index = json.loads((gen / "index.json").read_text(encoding="utf-8"))
    return [gen / s["spec"] for s in index["sites"]]


def generate(gen: Path, count: int) -> None:
    """The factory's sites, once per soak (a resumed segment serves the same files: the bench pins each spec)."""
    if count and not (gen / "index.json").exists():
        subprocess.run([sys.executable, "-m", "clawrec.cli", "factory", "generate", str(gen), "--seed",
                        str(FACTORY_SEED), "--count", str(count)], cwd=REPO, check=True, stdout=subprocess.DEVNULL)


def _start(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, dict[str, str]]:
    proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", *argv], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    try:
        return proc, json.loads(line)
    except ValueError:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        raise RuntimeError(f"clawrec {' '.join(argv[:2])} did not start: {(err or line).strip()[-300:]}") from None


@contextlib.contextmanager
def serving(out: Path, seg: int, env: dict[str, str], gen: Path | None) -> Iterator[dict[str, Any]]:
    """Serve the demo sites (and `gen`'s, if any) for segment `seg`; yields {urls, logs: {demo, factory}}."""
    procs: list[subprocess.Popen] = []
    urls: dict[str, str] = {}
    logs = {"demo": out / f"sites-{seg}.jsonl", "factory": out / f"factory-sites-{seg}.jsonl" if gen else None}
    try:
        proc, demo = _start(["sites", "serve", "--log", str(logs["demo"])], env)
        procs.append(proc)
        urls.update(demo)
        if gen is not None:
            proc, made = _start(["factory", "serve", str(gen), "--log", str(logs["factory"])], env)
            procs.append(proc)
            urls.update(made)
        yield {"urls": urls, "demo_urls": demo, "logs": {k: str(v) if v else None for k, v in logs.items()}}
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def terminal_reached(served: dict[str, Any]) -> list[dict[str, Any]]:
    """Terminal requests in one segment's logs: for the demo sites, any request a demo spec's intercept rule names
    (URL and method); for the factory's, the site's own `terminal` event (its server decides, from its truth)."""
    from taskspec.load import load_spec
    from taskspec.match import could_match
    from taskspec.placeholders import fill

    rules = []
    for spec in demo_specs():
        for rule in load_spec(spec).intercept:
            rules.append(dataclasses.replace(rule, url=fill(rule.url, served["demo_urls"], strict=False))
                         if rule.url else rule)
    hits = []
    for rec in _records(served["logs"]["demo"]):
        url = rec.get("url") or ""
        if rec.get("method") and any(could_match(r, rec["method"], url) for r in rules):
            hits.append({"method": rec["method"], "url": url})
    for rec in _records(served["logs"].get("factory")):
        if rec.get("event") == "terminal":
            hits.append({"factory_site": rec.get("factory_site"), "event": "terminal"})
    return hits


def _records(path: str | None) -> list[dict[str, Any]]:
    if not path or not Path(path).exists():
        return []
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
