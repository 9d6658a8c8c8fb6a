"""annotate on a real run of the jobs site's Django-admin-like formset page (sites/jobs/admin.py): a program types
a title, picks a team, writes one note and presses "Save and continue editing"; the spec's `expect` keeps those and
leaves out the management fields, the `__prefix__` template row, the button's name and the CSRF field."""

from __future__ import annotations

import yaml

from sites.server import serve_sites
from tests.record.helpers import clawrec, playwright_agent

STEPS = """
await page.fill("#id_title", "Senior Data Analyst")
await page.select_option("#id_team", "data")
await page.fill("#id_note_set-0-text", "Remote friendly")
async with page.expect_navigation():
    await page.click("input[name=_continue]")
"""


def test_annotate_keeps_formset_plumbing_out_of_expect(tmp_path):
    with serve_sites(sites=["jobs"]) as served:
        url = served.urls["jobs"] + "admin/postings/add/"
        spec = tmp_path / "admin-posting.yaml"
        spec.write_text(f"version: 1\nid: admin-posting\ninstruction: Add the posting Senior Data Analyst for the "
                        f"Data team with the note Remote friendly.\nstart_url: {url}\n")
        run = tmp_path / "run"
        res = clawrec("run", str(spec), "--agent", "command", "--agent-cmd", playwright_agent(tmp_path, STEPS),
                      "--headless", "--no-judge", "--run-dir", str(run))
        assert res.returncode == 0, res.stderr
        posted = [r for r in served.records() if r["method"] == "POST" and r["path"] == "/admin/postings/add/"]
        assert len(posted) == 1 and "note_set-TOTAL_FORMS=2" in posted[0]["body"]
    out = tmp_path / "specs" / "admin-posting.yaml"
    res = clawrec("annotate", str(run), "--out", str(out))
    assert res.returncode == 0, res.stderr
    text = out.read_text()
    data = yaml.safe_load(text)
    assert data["intercept"][0]["url"].endswith("admin/postings/add/")
    assert {k: v for k, v in data["expect"].items() if v} == {
        "title": "Senior Data Analyst", "team": "data", "note_set-0-text": "Remote friendly"}
    for field in ("note_set-TOTAL_FORMS", "note_set-INITIAL_FORMS", "note_set-MAX_NUM_FORMS", "_continue",
                  "note_set-__prefix__-text", "csrfmiddlewaretoken"):
        assert field not in data["expect"] and field in text, field  # left out, and named in the comment
