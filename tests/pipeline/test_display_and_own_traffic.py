"""`clawrec run --display :N` opens the browser on an existing display and leaves it running; the run's http.jsonl
holds the site's traffic and none of the recorder's own (the extension's channel socket and its worker)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pipeline.helpers import jsonl, manifest, run_cli, signup_cmd
from tests.pipeline.tinysite import TinySite, write_spec
from tests.recorder.xvfb import own_xvfb


def test_run_on_existing_display_logs_no_recorder_traffic(tmp_path, capsys):
    with own_xvfb() as (xvfb, display), TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd(),
                                  "--display", display, "--runs-dir", str(tmp_path / "runs")], capsys)
        assert code == 0, err
        assert xvfb.poll() is None, "the run stopped a display it did not start"
        assert site.posts("/api/signup") == []
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["status"] == "intercepted", m["stop_reason"]
    assert m["display"] == display and m["display_owned"] is False
    assert m["layers"]["video"]["duration"] > 0
    assert m["recorder"]["channel"]["events"] > 0  # the extension's socket did carry frames during the run

    records = jsonl(run_dir, "http.jsonl")
    own = f"chrome-extension://{m['extension_id']}/"
    assert not [r for r in records if str(r.get("url") or "").startswith(own)]
    assert not [r for r in records if r.get("type") == "websocket"], "the recorder's channel socket was logged"
    assert not [r for r in records if '"token"' in json.dumps(r)]
    assert any(r.get("type") == "request" and r["url"] == site.url + "api/signup" and r["intercepted"] == "blocked"
               for r in records)
    assert any(r.get("type") == "request" and r["url"] == site.url for r in records)


def test_display_with_headless_is_bad_input(tmp_path, capsys):
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", "true", "--headless",
                                  "--display", ":0", "--runs-dir", str(tmp_path / "runs")], capsys)
        assert code == 2 and len(err) == 1 and "--display :0" in err[0] and "headless" in err[0], err
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", "true",
                                  "--display", ":987", "--runs-dir", str(tmp_path / "runs")], capsys)
        assert code == 2 and len(err) == 1 and "--display" in err[0] and "no X server" in err[0], err
    assert not (tmp_path / "runs").exists()
