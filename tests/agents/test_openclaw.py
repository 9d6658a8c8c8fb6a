"""The OpenClaw adapter on its own: the real OpenClaw (npm, Node 24) attached to our Chromium, driven by the scripted
model server, runs to its normal end on a loopback form (the demo tasks through `clawrec run`, where the run stops
OpenClaw after the catch, are in test_openclaw_demo.py). Plus the setup errors, config, prompt and transcript
conversion, which need no OpenClaw run.

Two OpenClaw runs here, at once (~15-60 s: its start-up alone is ~7 s on an idle machine). The page server's own
log is the truth of what the browser sent.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from pathlib import Path

import pytest
from aiohttp import web

from clawrec.agents.base import AgentContext, AgentSetupError, TaskInfo
from clawrec.agents.openclaw import MASK, OpenClawAgent, build_prompt, keep_redacted, mask, secret_values
from clawrec.agents.output import READ_SIZE
from clawrec.agents.openclaw_config import INSTALL_HINT, build_config, reserved_port_block, resolve_provider
from clawrec.agents.openclaw_transcript import MAX_RESULT_CHARS, event_records
from recorder.browser import launch_browser
from rundir.records import AGENT, JsonlWriter, RunClock, read_jsonl
from rundir.redact import REDACTED, Redactor
from tests.support.model_script import History, Turn, steps
from tests.support.model_script import browser as call
from tests.support.model_server import ModelServer

USER = {"first_name": "Alex", "last_name": "Doe", "email": "alex@example.com"}
FILLER = " ".join(f"Clause {i}: applicants agree to the reading-room rules." for i in range(80))  # > 2.5 KB
PAGE = f"""<!doctype html><html><head><title>Library card</title></head><body>
<h1>Library card application</h1>
<form method="post" action="/apply" enctype="multipart/form-data">
  <label for="name">Full name</label> <input id="name" name="name">
  <label for="email">Email</label> <input id="email" name="email" type="email">
  <label for="doc">Proof of address</label> <input id="doc" name="doc" type="file">
  <button type="submit">Apply</button>
</form>
<p>{FILLER}</p>
</body></html>"""


class FormSite:
    """A one-form site on 127.0.0.1:0 (aiohttp in a thread); `posts` holds what /apply received, as parsed."""

    def __init__(self) -> None:
        self.posts: list[dict] = []
        self.received = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.port = 0

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def _apply(self, request: web.Request) -> web.Response:
        form = await request.post()
        self.posts.append({k: (v.file.read().decode(), v.filename) if hasattr(v, "file") else
                           v.decode() if isinstance(v, (bytes, bytearray)) else v for k, v in form.items()})
        self.received.set()
        return web.Response(text="<h1>Application received</h1>", content_type="text/html")

    def _serve(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_post("/apply", self._apply)
        runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(runner.setup())
        self._loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
        self.port = runner.addresses[0][1]
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())

    def __enter__(self) -> "FormSite":
        threading.Thread(target=self._serve, daemon=True).start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


def make_ctx(run_dir: Path, cdp_url: str, url: str, model: str, files: list[str] | None = None,
             clock: RunClock | None = None) -> tuple[AgentContext, JsonlWriter]:
    clock = clock or RunClock()
    writer = JsonlWriter(run_dir / AGENT, clock)
    task = TaskInfo(id="library-card", instruction="Apply for a library card for me.", start_url=url, user=USER,
                    files=files or [], limits={"time_s": 240, "steps": 30})
    ctx = AgentContext(cdp_url=cdp_url, task=task, run_dir=run_dir, model=model, options={"t0": clock.t0},
                       log=lambda role, content, **f: writer.write({"role": role, "content": content, **f}))
    return ctx, writer


def upload_path(h: History) -> str:
    match = re.search(r"(/tmp/openclaw/uploads/\S+)", h.messages[0].text)
    assert match, h.messages[0].text
    return match.group(1)


def form_script(url: str, with_upload: bool, name: str = "Alex Doe"):
    fill = [
        lambda h: call(action="act", kind="type", ref=h.find_ref("textbox", "Full name"), text=name),
        lambda h: call(action="act", kind="type", ref=h.find_ref("textbox", "Email"), text=USER["email"]),
    ]
    if with_upload:
        fill.append(lambda h: call(action="upload", paths=[upload_path(h)], ref=h.find_ref("button", "Proof")))
    return steps(call(action="navigate", url=url), call(action="snapshot"), *fill,
                 lambda h: call(action="act", kind="click", ref=h.find_ref("button", "Apply")),
                 Turn(text="I applied for the library card."))


def test_two_openclaw_runs_at_once_over_anthropic_and_openai(browser, tmp_path, monkeypatch):
    """Run A (Anthropic Messages, with an upload) and run B (OpenAI chat completions, its own browser, a 1-step
    limit) at the same time: A ends normally and its form arrives, B is stopped at its step limit before it could
    submit, and they share no port or state."""
    proof = tmp_path / "proof.txt"
    proof.write_text("12 Main Street, Springfield\n")
    run_b = tmp_path / "b"
    run_b.mkdir()
    with FormSite() as site, ModelServer(form_script(site.url, with_upload=True)) as srv, \
            ModelServer(form_script(site.url, with_upload=False, name="Bo Doe")) as srv_b, \
            launch_browser(headless=True) as browser_b:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-secret")
        monkeypatch.setenv("OPENAI_BASE_URL", srv_b.openai_base_url)
        ctx, writer = make_ctx(tmp_path, browser.http_url, site.url, "anthropic/claude-scripted", [str(proof)])
        ctx_b, writer_b = make_ctx(run_b, browser_b.http_url, site.url, "openai/gpt-scripted")
        ctx_b.task.limits["steps"] = 1  # navigate; the 2nd call (snapshot) stops it, 3 calls before it could submit

        async def both():
            return await asyncio.gather(OpenClawAgent().run(ctx), OpenClawAgent().run(ctx_b))

        result, result_b = asyncio.run(both())
        writer.close()
        writer_b.close()
        assert site.received.wait(10), "the form never arrived"
        requests, requests_b = srv.model_requests(), srv_b.model_requests()
    assert srv.script_errors == [] and srv_b.script_errors == []
    assert result.status == "ok" and result.message == "I applied for the library card.", result
    assert result.steps == 6 and result.usage.get("input", 0) > 0
    # usage for the manifest, from the transcript: one record per model reply, tokens summed
    assert result.usage["requests"] == len(requests) and result.usage["input_tokens"] > 0
    assert result.usage["model"] == "anthropic/claude-scripted"
    assert result_b.message == "OpenClaw went past the step limit (1 tool calls allowed)", result_b
    assert result_b.steps >= 2
    assert site.posts == [{"name": "Alex Doe", "email": USER["email"],
                           "doc": ("12 Main Street, Springfield\n", "proof.txt")}]  # B never submitted
    assert {r.path for r in requests_b} == {"/v1/chat/completions"} and requests_b[0].body["model"] == "gpt-scripted"
    records_b = read_jsonl(run_b / AGENT)[0]
    assert [r["role"] for r in records_b].count("tool_call") >= 2
    assert openclaw_pids(Path(records_b[0]["private_dir"])) == []
    ports = [json.loads((d / "openclaw/openclaw.json").read_text())["gateway"]["port"] for d in (tmp_path, run_b)]
    assert abs(ports[0] - ports[1]) > 10
    # Every model call went to our endpoint over the Anthropic wire format, streaming, with the key redacted.
    assert {r.path for r in requests} == {"/v1/messages"} and all(r.body["stream"] for r in requests)
    assert requests[0].body["model"] == "claude-scripted" and requests[0].headers["x-api-key"] == "<redacted>"
    assert [t["name"] for t in requests[0].body["tools"]].count("browser") == 1
    prompt = requests[0].history.messages[0].text
    assert "Apply for a library card for me." in prompt and site.url in prompt and USER["email"] in prompt
    # agent.jsonl: the prompt, each tool call with its result in order, the final answer; times on the run clock.
    records, bad = read_jsonl(tmp_path / AGENT)
    assert bad == []
    calls = [r for r in records if r["role"] == "tool_call"]
    results = [r for r in records if r["role"] == "tool_result"]
    assert [c["content"].get("kind", c["content"]["action"]) for c in calls] == [
        "navigate", "snapshot", "type", "type", "upload", "click"]
    assert [r["id"] for r in results] == [c["id"] for c in calls] and {c["tool"] for c in calls} == {"browser"}
    snapshot = results[1]["content"]
    assert 'textbox "Full name"' in snapshot and "Clause 79" in snapshot  # the large (zstd-stored) row decoded
    assert [bool(r.get("snapshot")) for r in results] == [False, True, False, False, False, False]  # the report's
    order = [r["role"] for r in records]
    assert order[0] == "system" and order[1] == "user" and order[-1] == "assistant"
    assert records[-1]["content"] == "I applied for the library card."
    times = [r["t"] for r in records]
    assert times == sorted(times) and 0 <= times[0] and times[-1] < 240
    # OpenClaw's prompt and state lived in a private directory outside the run dir, gone now; the run dir keeps its
    # log, config, stdout and stderr (redacted). The config points at our browser and holds no secret.
    private = Path(records[0]["private_dir"])
    assert tmp_path not in private.parents and not private.exists() and not Path(records_b[0]["private_dir"]).exists()
    assert sorted(os.listdir(tmp_path / "openclaw")) == ["openclaw.json", "openclaw.log", "stderr.log", "stdout.json"]
    config = json.loads((tmp_path / "openclaw/openclaw.json").read_text())
    assert config["browser"]["profiles"]["clawrec"] == {"cdpUrl": browser.http_url, "attachOnly": True}
    # Its own loopback services sit on ports derived from a per-run gateway port, never the shared defaults.
    relay = re.search(r"listening on 127\.0\.0\.1:(\d+)", (tmp_path / "openclaw/stderr.log").read_text())
    assert relay and int(relay.group(1)) == config["gateway"]["port"] + 10 != 18799
    assert "sk-ant-test-secret" not in json.dumps(config)
    assert json.loads((tmp_path / "openclaw/stdout.json").read_text())["ok"] is True
    assert (tmp_path / "openclaw/stderr.log").exists() and (tmp_path / "openclaw/openclaw.log").stat().st_size > 0


def test_missing_install_key_or_model_is_one_clear_setup_error(tmp_path, monkeypatch):
    ctx, _ = make_ctx(tmp_path, "http://127.0.0.1:9", "http://127.0.0.1:9/", "anthropic/claude-x")
    monkeypatch.setenv("CLAWREC_OPENCLAW_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(AgentSetupError, match="^OpenClaw is not installed; run: make openclaw$"):
        asyncio.run(OpenClawAgent().run(ctx))
    assert str(AgentSetupError(INSTALL_HINT)) == "OpenClaw is not installed; run: make openclaw"
    monkeypatch.delenv("CLAWREC_OPENCLAW_DIR")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AgentSetupError, match="needs ANTHROPIC_API_KEY"):
        OpenClawAgent().check(ctx)
    ctx.model = "gemini/pro"
    with pytest.raises(AgentSetupError, match="anthropic/<model> or openai/<model>"):
        OpenClawAgent().check(ctx)
    assert not (tmp_path / "openclaw").exists() or not os.listdir(tmp_path / "openclaw")


def test_port_blocks_held_at_once_never_overlap_and_a_held_one_is_bound_by_nobody_else():
    """Runs pick their gateway ports before OpenClaw binds them: a held block is off limits to every other run (the
    kernel once gave two runs 49987 and 49989, so one's gateway was the other's browser control port)."""
    import contextlib
    import socket
    with contextlib.ExitStack() as stack:
        held = [stack.enter_context(reserved_port_block()) for _ in range(40)]
        spans = sorted((p, p + 10) for p in held)
        assert all(a[1] < b[0] for a, b in zip(spans, spans[1:])), spans
        for port in held[:3]:  # each port of a held block is free for OpenClaw to bind
            for offset in (0, 2, 10):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port + offset))


def test_provider_block_comes_from_the_environment(tmp_path):
    env = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1/"}
    anthropic = resolve_provider("anthropic/claude-x", env)
    assert (anthropic.api, anthropic.base_url, anthropic.model_id) == ("anthropic-messages", "http://127.0.0.1:1",
                                                                       "claude-x")
    openai = resolve_provider("openai/gpt-x", env)
    assert (openai.api, openai.base_url) == ("openai-completions", "https://api.openai.com/v1")
    config = build_config(provider=openai, cdp_url="http://127.0.0.1:9", workspace=tmp_path, log_file=tmp_path / "l")
    block = config["models"]["providers"]["openai"]
    assert block["apiKey"] == "${OPENAI_API_KEY}" and block["models"][0]["id"] == "gpt-x"
    assert config["agents"]["defaults"]["model"]["primary"] == "openai/gpt-x"
    assert config["tools"] == {"profile": "minimal", "alsoAllow": ["browser"], "toolSearch": False}
    assert config["browser"]["ssrfPolicy"] == {"dangerouslyAllowPrivateNetwork": True}
    with pytest.raises(AgentSetupError, match="needs OPENAI_API_KEY"):
        resolve_provider("openai/gpt-x", {})


def test_prompt_has_instruction_url_flattened_user_info_and_files(tmp_path):
    ctx, _ = make_ctx(tmp_path, "http://127.0.0.1:9", "http://127.0.0.1:9/", "anthropic/claude-x")
    ctx.task.user = {"name": "Alex", "address": {"city": "Austin", "zip": "78704"}}
    prompt = build_prompt(ctx, ["/tmp/openclaw/uploads/x/resume.pdf"])
    assert prompt.startswith("Apply for a library card for me.\n") and "Start at: http://127.0.0.1:9/" in prompt
    assert "- address.city: Austin\n- address.zip: 78704" in prompt
    assert "- /tmp/openclaw/uploads/x/resume.pdf" in prompt


def test_transcript_events_become_ordered_agent_records():
    call_event = {"type": "message", "message": {"role": "assistant", "timestamp": 1000, "model": "m",
                                                 "usage": {"input": 5, "output": 2}, "stopReason": "toolUse",
                                                 "content": [{"type": "text", "text": "Looking."},
                                                             {"type": "toolCall", "id": "t1", "name": "browser",
                                                              "arguments": {"action": "snapshot"}}]}}
    result_event = {"type": "message", "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "browser",
                                                   "isError": True, "content": [
                                                       {"type": "text", "text": "x" * (MAX_RESULT_CHARS + 10)},
                                                       {"type": "image", "mimeType": "image/png", "data": "AAAA"}]}}
    text, call_rec = event_records(call_event, 2000)
    assert (text.role, text.content, text.fields["epoch"], text.fields["usage"]) == ("assistant", "Looking.", 2.0,
                                                                                      {"input": 5, "output": 2})
    assert (call_rec.role, call_rec.content, call_rec.fields["tool"], call_rec.fields["id"]) == (
        "tool_call", {"action": "snapshot"}, "browser", "t1")
    (result,) = event_records(result_event)
    assert result.role == "tool_result" and result.fields["is_error"] and result.fields["truncated"]
    assert len(result.content) < MAX_RESULT_CHARS + 100 and "AAAA" not in result.content
    assert event_records({"type": "custom", "customType": "openclaw.cache-ttl"}) == []


def test_passwords_and_card_codes_are_masked_but_refs_survive():
    secrets = secret_values({"email": "a@x", "password": "Hireloop-2026!", "card": {"number": "4242", "cvc": "123"}})
    assert [k for k, _ in secrets] == ["password", "card.cvc"]
    record = {"action": "act", "kind": "type", "ref": "e123", "text": "123"}
    assert mask(record, secrets) == {**record, "text": MASK}
    assert mask("- password: Hireloop-2026!\n- card.cvc: 123\n- card.number: 4242\n", secrets) == (
        f"- password: {MASK}\n- card.cvc: {MASK}\n- card.number: 4242\n")


def test_log_and_config_are_kept_redacted_and_the_private_dir_goes(tmp_path):
    """The end of a run: OpenClaw's log (a value cut by the copy's chunking too) and config reach the run dir with the
    run's secret values replaced; its private directory is removed."""
    private, base = tmp_path / "private", tmp_path / "run" / "openclaw"
    (private / "state").mkdir(parents=True)
    base.mkdir(parents=True)
    secret = "Opal-Heron-5521!"
    log = "x" * (READ_SIZE - 5) + f"prompt: {secret}\n" + f'{{"text": {json.dumps(secret)}}}\n'
    (private / "openclaw.log").write_text(log)
    (private / "state" / "openclaw.json").write_text('{"gateway": {"port": 1}}\n')
    (private / "prompt.txt").write_text(secret)
    keep_redacted(private, base, Redactor([secret]))
    assert (base / "openclaw.log").read_text() == log.replace(secret, REDACTED)
    assert json.loads((base / "openclaw.json").read_text()) == {"gateway": {"port": 1}}
    assert not private.exists() and sorted(os.listdir(base)) == ["openclaw.json", "openclaw.log"]


def openclaw_pids(private_dir: Path) -> list[int]:
    """Live processes whose command line names this run's OpenClaw private directory (agent.jsonl's first record)."""
    needle = str(private_dir).encode()
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and needle in (entry / "cmdline").read_bytes():
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    pids.append(int(entry.name))
        except OSError:
            continue
    return pids
