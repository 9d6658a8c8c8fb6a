"""One notion of "the same site" (evaluator/same_site.py) for the payload judge, diagnose and consistency: a real
application started per run answers on another loopback port each time, so the reference's pages and the agent's
differ only by port; none of the three may call that a divergence, and all three still see another path or another
host."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from evaluator.consistency import pair
from evaluator.diagnose import diagnose
from evaluator.payload_judge import judge_payload
from evaluator.same_site import page_key, same_site, site_of
from rundir.reader import RunDir

FIX = Path(__file__).resolve().parents[1] / "diagnose" / "fixtures" / "reference"
REF_ORIGIN = "http://127.0.0.1:40001"


def _app_run(dest: Path, origin: str, path_change: tuple[str, str] | None = None) -> Path:
    """The contact reference as a real application's run: no `sites` in its manifest (nothing names the port), its
    URLs served from `origin`."""
    shutil.copytree(FIX, dest)
    for f in dest.glob("*.json*"):
        text = f.read_text().replace(REF_ORIGIN, origin)
        if path_change:
            text = text.replace(*path_change)
        f.write_text(text)
    manifest = json.loads((dest / "manifest.json").read_text())
    manifest.pop("sites")
    (dest / "manifest.json").write_text(json.dumps(manifest))
    return dest


def test_another_local_port_is_the_same_page_for_all_three(tmp_path):
    ref = _app_run(tmp_path / "reference", "http://127.0.0.1:40001")
    agent = _app_run(tmp_path / "agent", "http://localhost:40777")
    d = diagnose(agent, ref)
    assert d.first is None and d.divergence is None and {r.status for r in d.rows} == {"same"}
    navs = [r for r in d.rows if r.agent.type == "navigate"]
    assert [r.agent.target for r in navs] == ["http://localhost:40777/", "http://localhost:40777/contact"]
    assert [r.reference.target for r in navs] == ["http://127.0.0.1:40001/", "http://127.0.0.1:40001/contact"]
    p = pair(RunDir(agent), RunDir(ref))
    assert (p.score, p.divergences, p.payload_differences) == (1.0, [], [])
    verdict = judge_payload(RunDir(agent), None, RunDir(ref))
    assert verdict.verdict == "PASS", verdict.to_dict()


def test_another_path_or_host_is_still_another_page(tmp_path):
    ref = _app_run(tmp_path / "reference", "http://127.0.0.1:40001")
    agent = _app_run(tmp_path / "agent", "http://127.0.0.1:40777", ("/contact", "/kontakt"))
    d = diagnose(agent, ref)
    assert d.divergence is not None and d.divergence["agent_url"] == "http://127.0.0.1:40777/kontakt"
    assert pair(RunDir(agent), RunDir(ref)).score < 1.0
    assert same_site("http://127.0.0.1:1", "http://localhost:2") == (
        True, "loopback origins http://127.0.0.1:1 and http://localhost:2 differ only by port (local sites get "
              "random ports)")
    assert same_site("https://shop.example:443", "https://shop.example:8443") == (False, None)
    assert same_site("http://127.0.0.1:1", "https://127.0.0.1:1")[0] is False
    assert site_of("https://shop.example/a?b") == "https://shop.example"
    assert page_key("http://[::1]:9/a/b?q=1#x") == page_key("http://127.0.0.1:10/a/b") == "http://{loopback}/a/b"
