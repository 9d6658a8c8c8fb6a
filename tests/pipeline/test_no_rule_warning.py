"""A spec with no intercept rule blocks nothing: `clawrec run` says so in one warning line, and the site gets the
submission (its own log), so the warning is the truth."""

from __future__ import annotations

from pathlib import Path

from tests.pipeline.helpers import manifest, run_cli, signup_cmd
from tests.pipeline.tinysite import TinySite


def test_a_spec_without_rules_is_announced(tmp_path, capsys):
    with TinySite() as site:
        spec = tmp_path / "tiny-open.yaml"
        spec.write_text(f"""version: 1
id: tiny-open
category: daily
instruction: Sign me up for the Pro plan of the newsletter.
start_url: {site.url}
user: {{first_name: Alex, last_name: Doe, email: alex@example.com}}
limits: {{time_s: 60, steps: 20}}
""")
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd(), "--headless",
                                  "--no-judge", "--runs-dir", str(tmp_path / "runs")], capsys)
        assert code == 0, err
        warnings = [line for line in err if "warning" in line]
        assert warnings == [f"clawrec: warning: {spec.resolve()}: no intercept rule: nothing is blocked, "
                            "a submission reaches the site"], err
        assert len(site.posts("/api/signup")) == 1  # nothing was blocked: the site's own log has it
    assert manifest(Path(out[-1]))["status"] == "ok"
