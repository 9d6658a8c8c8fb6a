"""The policy's HTML rule (rundir/redact.py `redact_html`): the value of an `<input>` or `<meta>` named like a secret
(a CSRF token in a form an XHR answered, Rails' `<meta name="csrf-token">`) is redacted in any text a record holds,
whatever the attribute order and quoting; every other byte stays."""

from __future__ import annotations

from rundir.redact import Redactor, redact_html

PAGE = """<form method="post"><input type="hidden" name="csrfmiddlewaretoken" value="dj4ng0T0k3n">
<input name='quantity' value='2'><input value=r4ilsT0k type=hidden name=authenticity_token>
<meta content="m3t4T0k" name="csrf-token"><meta name="description" content="A shop">
<input data-name="csrf" name="note" value="keep me"><INPUT NAME="_token" VALUE="l4r4v3l"></form>"""


def test_secret_named_inputs_and_metas_lose_their_values_and_nothing_else_changes():
    out = redact_html(PAGE)
    for token in ("dj4ng0T0k3n", "r4ilsT0k", "m3t4T0k", "l4r4v3l"):
        assert token not in out
    assert '<input type="hidden" name="csrfmiddlewaretoken" value="[redacted]">' in out
    assert '<input value="[redacted]" type=hidden name=authenticity_token>' in out
    assert "<input name='quantity' value='2'>" in out and 'content="A shop"' in out and 'value="keep me"' in out
    assert out.replace("[redacted]", "") == PAGE.replace('"dj4ng0T0k3n"', '""').replace("r4ilsT0k", '""').replace(
        '"m3t4T0k"', '""').replace('"l4r4v3l"', '""')


def test_every_record_string_passes_it():
    """A response body kept as text (http.jsonl) and an agent's message holding page source."""
    rec = Redactor().record({"response": {"body": {"kind": "text", "value": PAGE}}, "content": [PAGE]})
    assert "dj4ng0T0k3n" not in str(rec) and "m3t4T0k" not in str(rec) and "keep me" in str(rec)
