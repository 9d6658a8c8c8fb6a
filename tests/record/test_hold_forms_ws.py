"""Hold mode beyond non-GET requests: WebSocket sends (WebSocket and WebSocketStream) and GET form submissions wait
for the person's terminal answer (`clawrec record` on a private Xvfb; the page drives itself when the test's
WebSocket server tells it to). The site's own log and the WebSocket server's are the truth of what arrived; the
start URL has a query but is no form submission: not held. Then `annotate` turns the run into a spec for its last
blocked request (the GET form; and, on the run cut right after the last blocked frame, that frame) that `check-spec`
accepts against it (in-process, on the recorded files: no second browser)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from urllib.parse import quote

from clawrec.cli import main
from recorder.display import start_display
from taskspec.load import load_spec
from tests.pipeline.helpers import jsonl, manifest
from tests.record.helpers import REPO, StderrLines, cut_run, wait_for
from tests.record.holdsite import HoldSite, WsSite, write_spec


def test_hold_websocket_sends_and_get_forms(tmp_path, capsys):
    display = start_display()
    with HoldSite() as site, WsSite() as ws:
        spec = write_spec(tmp_path, site, "hold-forms", start_url=f"{site.url}forms?ws={quote(ws.url, safe='')}")
        run = tmp_path / "run"
        proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "record", str(spec), "--display", display.name,
                                 "--no-video", "--run-dir", str(run)], cwd=REPO,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = StderrLines(proc)

        def answer(line: str, said: str) -> None:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            err.wait(said)

        try:
            control_url = err.wait(r"task page and controls .*: (\S+)", timeout=120).group(1)
            err.wait(r"hold mode: ")  # the terminal decider listens from now on
            wait_for(lambda: ws.clients, "the page's WebSocket")
            # 1-3: three frames on one socket, all held; decided out of order, sent in order, the blocked one never
            ws.tell("go")
            for n in (1, 2, 3):
                err.wait(rf'hold #{n}: WEBSOCKET {ws.url}  n={n}, note=frame {n}')
            answer("a 3", r"hold #3: allowed")
            answer("b 2", r"hold #2: blocked")
            answer("a 1", r"hold #1: allowed")
            wait_for(lambda: len(ws.received) >= 2, "the allowed frames at the server")
            # 4-5: a WebSocketStream's writes, the same way
            ws.tell("stream")
            err.wait(rf'hold #4: WEBSOCKET {ws.url}  n=4, note=stream 4')
            answer("b", r"hold #4: blocked")
            err.wait(rf'hold #5: WEBSOCKET {ws.url}  n=5, note=stream 5')
            answer("a", r"hold #5: allowed")
            wait_for(lambda: len(ws.received) >= 3, "the allowed stream write at the server")
            # 6: a GET form submission is held and allowed: it arrives; its page submits 7, blocked: never arrives
            ws.tell("form")
            err.wait(r"hold #6: GET \S+/search\?q=first  q=first")
            answer("a", r"hold #6: allowed")
            err.wait(r"hold #7: GET \S+/search\?q=second  q=second")
            answer("b", r"hold #7: blocked")
            wait_for(lambda: len(jsonl(run, "interceptions.jsonl")) == 3, "the blocked form in interceptions.jsonl")
            with urllib.request.urlopen(urllib.request.Request(control_url + "done", data=b"{}", method="POST"),
                                        timeout=30) as resp:
                assert json.load(resp) == {"ok": True}
            proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
            display.stop()
    assert proc.returncode == 0, "\n".join(err.lines)
    assert [json.loads(m)["n"] for m in ws.received] == [1, 3, 5]
    paths = [r["path"] for r in site.log if r["method"] == "GET"]
    assert any(p.startswith("/forms?ws=") for p in paths)  # the start URL's query: no form, not held
    assert "/search?q=first" in paths and not [p for p in paths if "q=second" in p], paths
    assert manifest(run)["status"] == "ok"
    holds = jsonl(run, "holds.jsonl")
    assert sorted((h["id"], h["method"], h["decision"], h["by"]) for h in holds) == [
        (1, "WEBSOCKET", "allow", "terminal"), (2, "WEBSOCKET", "block", "terminal"),
        (3, "WEBSOCKET", "allow", "terminal"), (4, "WEBSOCKET", "block", "terminal"),
        (5, "WEBSOCKET", "allow", "terminal"), (6, "GET", "allow", "terminal"), (7, "GET", "block", "terminal")]
    assert all(h["t"] >= h["held_t"] for h in holds)
    blocked = jsonl(run, "interceptions.jsonl")
    assert [(b["action"], b["method"], b["held"]["id"], b["held"]["by"]) for b in blocked] == [
        ("held_blocked", "WEBSOCKET", 2, "terminal"), ("held_blocked", "WEBSOCKET", 4, "terminal"),
        ("held_blocked", "GET", 7, "terminal")]
    assert blocked[0]["body"] == {"n": 2, "note": "frame 2"} and blocked[0]["url"] == ws.url
    assert blocked[2]["query"] == {"q": "second"} and blocked[2]["resource_type"] == "Document"

    # annotate: the last blocked request, the GET form, is the top candidate; its query is its payload. Only a value
    # tells it from the allowed search (same URL, same field): check-spec says so, the spec's note names --equals q
    # The person blocked three different submissions (two frames, the form): annotate writes nothing and names the
    # --pick that says which one is final (exit 1, one line)
    out_spec = tmp_path / "specs" / "search.yaml"
    code, out, err = cli(capsys, "annotate", run, "--out", out_spec)
    assert code == 1 and not out_spec.exists(), err
    assert out.splitlines()[0].split()[1:4] == ["GET", f"{site.url}search?q=second", "[q]"], out
    assert "blocked by the person: interceptions.jsonl:3" in out.splitlines()[0]
    assert err.strip().splitlines()[-1] == (
        f"clawrec: {run}: the person blocked 3 different submissions (candidates 1, 2, 3): say which one is the "
        f"task's final submission, e.g. the last one blocked: clawrec annotate {run} --out {out_spec} --force "
        "--pick 1"), err
    code, out, err = cli(capsys, "annotate", run, "--out", out_spec, "--pick", "1")
    assert code == 1 and f"check-spec: {run} (reference): 2 match(es) -- FAIL" in err, err
    assert "other request(s) of the run (http.jsonl line(s)" in out_spec.read_text()
    assert "(--equals q would)" in out_spec.read_text()
    assert err.strip().splitlines()[-1].endswith(
        f"the value of q tells them apart: clawrec annotate {run} --out {out_spec} --force --pick 1 --equals q"), err
    code, out, err = cli(capsys, "annotate", run, "--out", out_spec, "--pick", "1", "--equals", "q", "--force")
    assert code == 0 and f"check-spec: {run} (reference): 1 match(es) -- OK" in err, err
    rule = load_spec(out_spec).intercept[0]
    assert (rule.url, rule.methods, rule.equals) == (f"{site.url}search", ("GET",), {"q": "second"})
    assert load_spec(out_spec).expect == {"q": "second"}
    form = next(n for n, r in enumerate(jsonl(run, "http.jsonl"), 1) if r.get("url", "").endswith("?q=second"))
    code, out, err = cli(capsys, "check-spec", out_spec)  # the spec's `reference:` is the run
    assert code == 0 and f"{run} (reference): 1 match(es) -- OK" in out, out + err
    assert f"http.jsonl:{form} GET {site.url}search?q=second" in out, out

    # the same run cut right after the last blocked frame (Done pressed then): that frame, never sent, is the top
    # candidate; a WebSocket rule (no method), checked against the frames sent and blocked on that socket
    cut = cut_run(run, tmp_path / "cut", blocked[1]["t"])
    out_spec = tmp_path / "specs" / "stream.yaml"
    code, out, err = cli(capsys, "annotate", cut, "--out", out_spec, "--pick", "1", "--equals", "n")
    assert code == 0, err
    assert out.splitlines()[0].split()[1:3] == ["WS", ws.url] and "interceptions.jsonl:2" in out.splitlines()[0]
    assert f"check-spec: {cut} (reference): 1 match(es) -- OK" in err and "interceptions.jsonl:2 WS" in err, err
    spec = load_spec(out_spec)
    assert spec.intercept[0].is_websocket and spec.intercept[0].methods == ()
    assert (spec.intercept[0].url, spec.intercept[0].equals) == (ws.url, {"n": 4})
    assert spec.expect == {"n": 4, "note": "stream 4"}
    code, out, err = cli(capsys, "check-spec", out_spec)
    assert code == 0 and f"{cut} (reference): 1 match(es) -- OK" in out, out + err


def cli(capsys, *args) -> tuple[int, str, str]:
    """`clawrec ARGS` in this process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err
