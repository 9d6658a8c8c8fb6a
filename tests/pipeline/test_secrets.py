"""Secrets never reach a run file (docs/howto/secrets.md): a page sends every kind of secret (headers, query, JSON, form,
a cookie, OTP and card inputs), the spec reads the password from the environment, marks card, CVC and a member
id secret and has a `pin` user field it does not mark (secret by its name), and the agent echoes the password and
the member id to its stdout and stderr; it also says the one-time code the page shows in agent.jsonl before and
after typing it into an `autocomplete=one-time-code` input, and types a new password given on its command line
(the manifest's agent_cmd) into an `autocomplete=new-password` input (typed secrets: run secrets from then on,
earlier files scrubbed at finalize). After `clawrec run` and `clawrec view`, no file of the run directory or the
report holds any value, while the site's own log shows the agent really used them and the judge still reads the
payload's other fields."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import zstandard

from clawrec.cli import main
from tests.loopback_site import Answer, LoopbackSite
from tests.pipeline.helpers import jsonl, manifest

AGENT = Path(__file__).resolve().parent / "agent_scripts" / "secrets_agent.py"
PASSWORD = "Env-Pw-9Qz!x3"
OTP = "482913"
PAGE_SECRETS = {"QT": "qtok-Hf81Lm2", "RT": "rtok-Pq02Zx9", "HK": "hkey-Aa17Wc4", "HT": "htok-Kk93Rr5",
                "BT": "bearer-Yy44Tt8", "VS": "vsec-Ee55Ss1", "JK": "jkey-Nn66Bb2", "JP": "913577",
                "JS": "csec-Oo88Vv3", "JT": "jtok-Ii99Uu6", "FP": "fpwd-Gg11Hh7", "FPIN": "804216"}
COOKIE = "ck-Zz12Yy3"
USER = {"card": "4111111111111111", "cvc": "7364", "member_id": "M-55821-ZZ"}
PIN = "60418"  # a user field named `pin`, in no `secrets:` list
NEW_PASSWORD = "NewPw-Tt51x"  # on the agent's command line, typed into a new-password input

PAGE = """<!doctype html><html><body><h1>Sign in</h1>
<p id="hint">Your one-time code is %(OTP)s</p>
<label for="u">User</label><input id="u" name="username">
<label for="p">Password</label><input id="p" name="f1" type="password">
<label for="o">Code</label><input id="o" name="f2" autocomplete="one-time-code">
<label for="c">Card</label><input id="c" name="f3" autocomplete="cc-number">
<label for="v">CVC</label><input id="v" name="f4" autocomplete="cc-csc">
<label for="m">Member</label><input id="m" name="member">
<label for="n">New password</label><input id="n" name="f5" autocomplete="new-password">
<button id="go" type="button">Go</button><p id="status"></p>
<script>
const S = %(SECRETS)s;
const v = (id) => document.getElementById(id).value;
document.getElementById('go').addEventListener('click', async () => {
  const j = {'content-type': 'application/json'};
  await fetch('/api/probe?access_token=' + S.QT + '&refresh_token=' + S.RT + '&q=ok', {headers: {
    'X-Api-Key': S.HK, 'X-Auth-Token': S.HT, 'Authorization': 'Bearer ' + S.BT, 'X-Vendor-Secret': S.VS}});
  await fetch('/api/json', {method: 'POST', headers: j, body: JSON.stringify({api_key: S.JK, pin: S.JP,
    nested: {client_secret: S.JS}, token: S.JT, otp: v('o'), card_number: v('c'), cvc: v('v'), note: 'hello'})});
  await fetch('/api/form', {method: 'POST', body: new URLSearchParams({username: v('u'), password: v('p'),
    passwd: S.FP, pin: S.FPIN, code: v('o'), member: v('m')})});
  try {
    await fetch('/api/submit', {method: 'POST', headers: j, body: JSON.stringify({username: v('u'),
      password: v('p'), otp: v('o'), card_number: v('c'), cvc: v('v'), member: v('m'), plan: 'pro'})});
  } catch (e) {}
  document.getElementById('status').textContent = 'done';
});
</script></body></html>"""


class SecretSite(LoopbackSite):
    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        self.log.append({"method": method, "path": path, "headers": headers, "body": body.decode(errors="replace")})
        if path != "/":
            return 200, b"{}", {"content-type": "application/json"}
        page = (PAGE % {"OTP": OTP, "SECRETS": json.dumps(PAGE_SECRETS)}).encode()
        return 200, page, {"content-type": "text/html", "set-cookie": f"sid={COOKIE}; Path=/"}


def _spec(folder: Path, url: str) -> Path:
    path = folder / "secret-probe.yaml"
    path.write_text(f"""version: 1
id: secret-probe
instruction: Sign in with my account and confirm.
start_url: {url}
user:
  username: alex
  password: {{env: CLAWREC_TEST_PASSWORD}}
  card: "{USER['card']}"
  cvc: "{USER['cvc']}"
  member_id: {USER['member_id']}
  pin: "{PIN}"
secrets: [card, cvc, member_id]
limits: {{time_s: 90, steps: 50}}
intercept:
  - url: "{url}api/submit"
    method: POST
expect: {{plan: pro, username: alex}}
""")
    return path


def _found(folder: Path, values: list[str]) -> list[tuple[str, str]]:
    """(file, value) for every value present in any file under `folder` (short digit strings as whole numbers)."""
    hits = []
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".zst":  # the DOM layer (rundir/domfile.py): its JSON lines, decompressed
            data = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True).read()
        for value in values:
            pattern = rb"(?<![0-9])" + re.escape(value.encode()) + rb"(?![0-9])"
            if re.search(pattern, data):
                hits.append((str(path.relative_to(folder)), value))
    return hits


def test_no_secret_reaches_the_run_directory_or_the_report(tmp_path, capsys, monkeypatch):
    with SecretSite() as site:
        spec = _spec(tmp_path, site.url)
        monkeypatch.setenv("CLAWREC_TEST_PASSWORD", PASSWORD)
        code = main(["run", str(spec), "--agent", "command", "--agent-cmd", f"{sys.executable} {AGENT} {NEW_PASSWORD}",
                     "--headless", "--runs-dir", str(tmp_path / "runs")])
        out, err = capsys.readouterr()
        assert code == 0, err
        run_dir = Path(out.strip().splitlines()[-1])
        report = tmp_path / "report.html"
        assert main(["view", str(run_dir), "--out", str(report)]) == 0
        assert main(["judge", str(run_dir)]) == 0
    # The agent really used every value (the site's own log is the truth) ...
    form = next(r for r in site.log if r["path"] == "/api/form")
    assert "Env-Pw-9Qz%21x3" in form["body"] and OTP in form["body"] and USER["member_id"] in form["body"]
    probe = next(r for r in site.log if r["path"].startswith("/api/probe"))
    assert probe["headers"].get("X-Api-Key") == PAGE_SECRETS["HK"] and COOKIE in probe["headers"].get("Cookie", "")
    assert not [r for r in site.log if r["path"] == "/api/submit"]
    # ... and no file of the run, nor the report, holds any of them.
    values = [PASSWORD, "Env-Pw-9Qz%21x3", OTP, COOKIE, *PAGE_SECRETS.values(), *USER.values(), PIN, NEW_PASSWORD]
    assert _found(run_dir, values) == [] and _found(tmp_path / "report.html", values) == []  # noqa
    assert manifest(run_dir)["status"] == "intercepted"
    assert ("dom.jsonl.zst", "Sign in") in _found(run_dir, ["Sign in"])  # the DOM layer holds the page
    # What the agent printed (each value cut in two by a flush) is in its logs redacted, next to the hash that proves
    # it printed the very value.
    for log_name in ("agent.stdout.log", "agent.stderr.log"):
        printed = (run_dir / log_name).read_text()
        for name, value in (("password", PASSWORD), ("member_id", USER["member_id"])):
            assert f"echo {name}=[redacted] sha256={hashlib.sha256(value.encode()).hexdigest()}\n" in printed, printed
    # The judge still reads the payload's other fields.
    caught = jsonl(run_dir, "interceptions.jsonl")[0]
    assert caught["body"]["plan"] == "pro" and caught["body"]["username"] == "alex"
    assert caught["body"]["password"] == caught["body"]["otp"] == "[redacted]"
    assert json.loads((run_dir / "verdict.json").read_text())["verdict"] == "PASS"
    # The agent got its task file outside the run directory, and it is gone.
    task_file = Path(re.search(r"task file (\S+)", (run_dir / "agent.stdout.log").read_text())[1])
    assert run_dir not in task_file.parents and not task_file.exists()
    assert json.loads((run_dir / "task.json").read_text())["user"]["password"] == "[redacted]"
    assert json.loads((run_dir / "task.json").read_text())["user"]["pin"] == "[redacted]"
    # The agent said the code before and after typing it (agent.jsonl keeps the lines, not the value).
    said = [m["content"] for m in jsonl(run_dir, "agent.jsonl") if "the code is" in str(m.get("content"))]
    assert said == ["the code is [redacted] (typing it)", "the code is [redacted] (typed)"], said


def test_missing_environment_variable_is_one_line_naming_the_spec_line(tmp_path, capsys, monkeypatch):
    spec = _spec(tmp_path, "http://127.0.0.1:9/")
    monkeypatch.delenv("CLAWREC_TEST_PASSWORD", raising=False)
    code = main(["run", str(spec), "--agent", "command", "--agent-cmd", "true", "--headless",
                 "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [f"clawrec: {spec}:7: user.password: environment variable CLAWREC_TEST_PASSWORD "
                                 "is not set"]
    assert not (tmp_path / "runs").exists()


def test_validate_names_bad_secret_declarations(tmp_path, capsys):
    spec = tmp_path / "bad-secrets.yaml"
    spec.write_text("version: 1\nid: bad-secrets\ninstruction: x\nstart_url: http://127.0.0.1:9/\n"
                    "user:\n  password: {env: 1BAD}\n  pin: {env: A, default: b}\nsecrets: [password, nope]\n")
    assert main(["validate", str(spec)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{spec}:6: user.password.env: '1BAD' is not an environment variable name",
                   f"{spec}:7: user.pin: an environment value is written {{env: NAME}} (one key, a string)",
                   f"{spec}:8: secrets.1: user has no field 'nope'"]


class _SayingAgent:
    """An in-process agent (the claude adapter's path: messages through ctx.log) that repeats a marked value in a
    message and then fails with it in its exception."""

    name = "saying"

    async def run(self, ctx):
        email = ctx.task.user["email"]
        ctx.log("assistant", f"I will sign up as {email}", typed={"email": email})
        raise RuntimeError(f"could not type {email}")


def test_in_process_agent_messages_and_errors_are_redacted(tmp_path):
    """agent.jsonl (written by the adapter, not read from a program), agent.error.log and the manifest's stop reason
    replace a marked value; the agent got it (its message is there, with the value replaced)."""
    from clawrec.api import run_task
    from tests.pipeline.tinysite import TinySite, write_spec

    with TinySite() as site:
        spec = write_spec(tmp_path, site, extra="secrets: [email]\n")
        outcome = run_task(str(spec), _SayingAgent(), headless=True, video=False, runs_dir=tmp_path / "runs",
                           judge=False)
    run_dir = outcome.run_dir
    assert outcome.status == "agent_error" and outcome.stop_reason.endswith("RuntimeError: could not type [redacted]")
    said = [r for r in jsonl(run_dir, "agent.jsonl") if r["role"] == "assistant"]
    assert [(r["content"], r["typed"]) for r in said] == [("I will sign up as [redacted]", {"email": "[redacted]"})]
    assert "RuntimeError: could not type [redacted]" in (run_dir / "agent.error.log").read_text()
    assert _found(run_dir, ["alex@example.com"]) == []
