"""`clawrec record --vnc` on a site with no spec (hold mode by default), driven the way a remote person does it: a
noVNC client page in (headless) Chromium clicks and types in the remote canvas. Held requests are decided on the
control page (Allow), in the terminal (b) and by nobody (blocked at the timeout); Done ends the session. Then
`annotate` writes a spec from that run, `check-spec` accepts it against the run and a benign run, and `replay`
re-enacts the run until its terminal request is caught. The site's own log is the truth of what arrived."""

from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import urlsplit

from recorder.browser import find_chromium
from tests.pipeline.helpers import jsonl, manifest
from tests.record.helpers import REPO, StderrLines, clawrec, playwright_agent, wait_for
from tests.record.holdsite import HoldSite, center, write_spec

HOLD_TIMEOUT = 6.0


def test_record_vnc_hold_annotate_check_spec_replay(tmp_path):
    from playwright.sync_api import sync_playwright

    with HoldSite() as site:
        spec = write_spec(tmp_path, site)
        run = tmp_path / "ref"
        proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "record", str(spec), "--vnc", "--no-video",
                                 "--hold-timeout", str(HOLD_TIMEOUT), "--run-dir", str(run)], cwd=REPO,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = StderrLines(proc)
        try:
            vnc_url = err.wait(r"open the browser remotely: (\S+)").group(1)
            control_url = err.wait(r"task page and controls .*: (\S+)").group(1)
            assert "/clawrec.html?password=" in vnc_url  # noVNC inside our page (it says when the session ended)
            tunnel = err.wait(r"from another machine: ssh -L (\d+):127\.0\.0\.1:\1 -L (\d+):127\.0\.0\.1:\2 ")
            ports = {int(tunnel.group(1)), int(tunnel.group(2))}  # the person needs both pages: noVNC, task page
            assert ports == {urlsplit(vnc_url).port, urlsplit(control_url).port}, err.lines
            lite = vnc_url.replace("clawrec.html?", "vnc_lite.html?")
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(lite)
                page.wait_for_function("document.getElementById('status') && "
                                       "document.getElementById('status').textContent.startsWith('Connected')",
                                       timeout=30000)
                canvas = page.locator("canvas")
                box = wait_for(lambda: (b := canvas.bounding_box()) and b["width"] >= 1280 and b,
                               "the remote screen in the canvas")
                wait_for(lambda: any(r["path"] == "/" for r in site.log), "the start page")

                # Where the page starts on the remote screen (tabs, toolbar, info bars above it): click an empty
                # spot of the page and read the click's page coordinates back from actions.jsonl.
                page.mouse.click(box["x"] + 15, box["y"] + 600)
                first = wait_for(lambda: next((a for a in jsonl(run, "actions.jsonl") if a["type"] == "click"),
                                              None), "the calibration click in actions.jsonl")
                off_x, off_y = 15 - first["x"], 600 - first["y"]

                def click(block: str) -> None:
                    x, y = center(block)
                    page.mouse.click(box["x"] + off_x + x, box["y"] + off_y + y)

                click("name")
                page.keyboard.type("Alex Doe", delay=30)
                wait_for(lambda: any(a.get("type") in ("input", "change") and a.get("value") == "Alex Doe"
                                     for a in jsonl(run, "actions.jsonl")), "the typed name in actions.jsonl")
                # 1. the newsletter POST is held; the control page (a real browser) allows it: it arrives
                click("newsletter")
                err.wait(r"hold #1: POST \S+/api/newsletter")
                control = browser.new_page()
                control.goto(control_url)
                assert "alex@example.com" in control.locator("#user").inner_text()  # the user's details
                control.locator("#held-1 button.allow").click()
                wait_for(lambda: site.posts("/api/newsletter"), "the allowed POST at the site")
                # 2. the feedback POST is held and nobody answers: blocked at the timeout
                click("feedback")
                err.wait(r"hold #2: POST \S+/api/feedback")
                wait_for(lambda: any(h.get("by") == "timeout" for h in jsonl(run, "holds.jsonl")),
                         "the timeout decision", timeout=HOLD_TIMEOUT + 30)
                # 3. the signup POST (the terminal submission) is blocked with `b` in the terminal
                click("signup")
                err.wait(r"hold #3: POST \S+/api/signup")
                proc.stdin.write("b\n")
                proc.stdin.flush()
                err.wait(r"hold #3: blocked")
                wrapper = browser.new_page()  # the printed URL: noVNC inside clawrec.html
                wrapper.goto(vnc_url)
                wrapper.wait_for_selector("iframe#vnc")
                control.locator("#done").click()
                # the session ends: the page says so and names the run directory (not noVNC's bare Connect screen)
                wrapper.wait_for_selector("#ended", state="visible", timeout=60000)
                ended_text = wrapper.locator("#ended").inner_text()
                assert wrapper.locator("iframe#vnc").count() == 0
                out, _ = proc.communicate(timeout=60)
                browser.close()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0, "\n".join(err.lines)
        assert "The session ended" in ended_text and str(run) in ended_text, ended_text
        assert site.posts("/api/feedback") == [] and site.posts("/api/signup") == []
        m = manifest(run)
        assert m["status"] == "ok" and "Done" in m["stop_reason"], m["stop_reason"]
        holds = jsonl(run, "holds.jsonl")
        assert [(h["id"], h["decision"], h["by"]) for h in holds] == [
            (1, "allow", "page"), (2, "block", "timeout"), (3, "block", "terminal")]
        assert all(h["t"] >= h["held_t"] for h in holds)
        blocked = jsonl(run, "interceptions.jsonl")
        assert [(b["action"], b["url"].rsplit("/", 1)[1], b["held"]["by"]) for b in blocked] == [
            ("held_blocked", "feedback", "timeout"), ("held_blocked", "signup", "terminal")]
        token = control_url.rstrip("/").rsplit("/", 1)[1]  # the control page's key is in no run file
        assert not [p for p in run.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
        assert not [a for a in jsonl(run, "actions.jsonl") if "/" + token in str(a.get("url"))]
        clicks = [a for a in jsonl(run, "actions.jsonl") if a["type"] == "click"]
        assert [a["target"].get("id") for a in clicks][-4:] == ["name", "newsletter", "feedback", "signup"]
        assert all(isinstance(a["x"], (int, float)) and a["target"].get("selector") for a in clicks)

        # annotate → a spec whose rule catches the signup; check-spec runs on the reference before writing
        out_spec = tmp_path / "specs" / "hold-signup.yaml"
        res = clawrec("annotate", str(run), "--out", str(out_spec))
        assert res.returncode == 0, res.stderr
        assert f"check-spec: {run} (reference): 1 match(es) -- OK" in res.stderr, res.stderr
        assert "/api/signup" in out_spec.read_text()

        # a benign run: the replay of the first two clicks only (name + newsletter), under the new spec
        benign = tmp_path / "benign"
        res = clawrec("run", str(out_spec), "--agent", "command", "--agent-cmd", playwright_agent(tmp_path, BENIGN),
                      "--headless", "--no-judge", "--run-dir", str(benign))
        assert res.returncode == 0, res.stderr
        res = clawrec("check-spec", str(out_spec), str(run), "--benign", str(benign))
        assert res.returncode == 0, res.stdout + res.stderr
        assert f"{run} (reference): 1 match(es) -- OK" in res.stdout and f"{benign} (benign): 0 match(es) -- OK" \
            in res.stdout

        # replay re-enacts the person's run until its terminal request is caught
        n_signup = len(site.posts("/api/signup"))
        replay = tmp_path / "replay"
        res = clawrec("run", str(out_spec), "--agent", "replay", "--from", str(run), "--headless", "--no-judge",
                      "--run-dir", str(replay))
        assert res.returncode == 0, res.stderr
        assert manifest(replay)["status"] == "intercepted"
        assert len(site.posts("/api/signup")) == n_signup == 0
        assert json.loads((replay / "interceptions.jsonl").read_text().splitlines()[0])["body"]["name"] == "Alex Doe"


BENIGN = """
await page.fill("#name", "Alex Doe")
async with page.expect_response("**/api/newsletter"):
    await page.click("#newsletter")
"""
