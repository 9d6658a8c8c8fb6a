"""Diagnosis from the DOM layer (evaluator/dom_diagnosis.py) on a real run: an agent (agent_scripts/
dom_trouble_agent.py) types a name, clicks an aria-disabled button (which clears the name), clicks a button a promo overlay
covers (which opens a dialog) and stops; `clawrec diagnose` on the FAIL names each with its step and element, and the
headline says what the page showed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from clawrec.cli import main
from evaluator.diagnose import diagnose
from taskspec.load import load_spec
from tests.loopback_site import Answer, LoopbackSite

AGENT = Path(__file__).resolve().parents[1] / "pipeline" / "agent_scripts" / "dom_trouble_agent.py"
PAGE = b"""<!doctype html><html><body><h1>Checkout</h1>
<label>Name <input id="name" name="name"></label>
<div id="next" role="button" aria-disabled="true" tabindex="0">Next</div>
<button id="pay" type="button" style="margin-top:300px">Pay</button>
<div id="promo" style="position:fixed;left:0;top:150px;width:100%;height:80%;background:rgba(0,0,0,.4);z-index:10">
 Big sale!</div>
<div id="dlg" role="dialog" aria-modal="true" hidden style="position:fixed;top:40px;left:40px;z-index:20;
 background:#fff">Subscribe to our newsletter?</div>
<script>
document.getElementById('next').addEventListener('click', () => { document.getElementById('name').value = ''; });
document.getElementById('promo').addEventListener('click', () => { document.getElementById('dlg').hidden = false; });
</script></body></html>"""


class Site(LoopbackSite):
    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        return 200, PAGE, {"content-type": "text/html"}


def test_a_failed_run_names_what_the_page_showed(tmp_path, capsys):
    with Site() as site:
        spec = tmp_path / "dom-trouble.yaml"
        spec.write_text(f"version: 1\nid: dom-trouble\ninstruction: Pay for my order.\nstart_url: {site.url}\n"
                        f"limits: {{time_s: 60}}\nintercept:\n  - url: \"{site.url}api/pay\"\n    method: POST\n")
        code = main(["run", str(spec), "--agent", "command", "--agent-cmd", f"{sys.executable} {AGENT}",
                     "--headless", "--no-judge", "--runs-dir", str(tmp_path / "runs")])
        out, err = capsys.readouterr()
        assert code == 0, err
        run_dir = Path(out.strip().splitlines()[-1])
    diagnose(run_dir, None, load_spec(spec))  # no reference: the category from the verdict and the run
    diag = json.loads((run_dir / "diagnosis.json").read_text())
    assert diag["category"] == "never_submitted"
    found = {f["kind"]: f for f in diag["dom"]}
    assert set(found) == {"reset", "disabled", "covered", "modal"}, diag["dom"]
    assert found["reset"]["element"] == "input#name" and "typed 'Alex Doe'" in found["reset"]["summary"]
    assert found["disabled"]["element"] == 'div#next[role=button] "Next"'
    assert found["covered"]["element"] == 'button#pay "Pay"' and "overlay div#promo" in found["covered"]["summary"]
    assert found["modal"]["step"] is None and "modal open" in found["modal"]["summary"]
    for kind in ("reset", "disabled", "covered"):
        assert isinstance(found[kind]["step"], int) and isinstance(found[kind]["seq"], int)
        assert found[kind]["summary"].startswith(f"step {found[kind]['step']} (seq {found[kind]['seq']}): ")
    assert diag["headline"].endswith("; the page: " + found["reset"]["summary"])
