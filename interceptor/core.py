"""The Interceptor: attach to a browser, pause what can match the spec, block or fake-answer the terminal
submission, continue everything else at once, record every catch the moment it happens.
Public API and the attach/enable sequence: interceptor/README.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any, Callable

from interceptor.narrow import fetch_patterns
from taskspec import match, payload
from interceptor.cdp import CDPError, Connection, Session, browser_ws_url
from interceptor.console import ConsoleLog
from interceptor.failclosed import FailClosed
from interceptor.paused import PausedRequest
from interceptor.preload import watch_preloading
from interceptor.frames import Frames
from interceptor.headless import HeadlessMask
from interceptor.httplog import HttpLog, scrub
from taskspec.model import Rule, Spec
from interceptor.targets import Attacher
from interceptor.workerbodies import is_response_stage
from interceptor.wsguard import HELD_BLOCKED, WsGuard, ws_interception
from rundir.layers import Interception
from rundir.records import INTERCEPTIONS, JsonlWriter, RunClock
from rundir.redact import Redactor, mask_fields, redact_headers, secret_values

log = logging.getLogger("clawrec.interceptor")

PAUSE_ALL = [{"urlPattern": "*", "requestStage": "Request"}]
OFF_LOOP_BYTES = 256 * 1024  # bodies larger than this are decoded in a worker thread


class Interceptor:
    """Blocks the spec's terminal submissions in every target of one browser; fails closed."""

    def __init__(self, spec: Spec, run_dir: str | Path, clock: RunClock | None = None, files: list | tuple = (),
                 on_catch: Callable[[dict[str, Any]], Any] | None = None,
                 kill_browser: Callable[[], None] | None = None, *, narrow: bool = True, http_log: bool = True,
                 watchdog: bool = True, ignore_urls: list[str] | tuple[str, ...] = (),
                 secrets: list[str] | tuple[str, ...] = (), hold: Any = None, archive: Any = None,
                 replay: Any = None) -> None:
        """`hold`: an interceptor.hold.Hold: every request is paused and the state-changing ones no rule catches
        wait for a person's decision (hold mode; blocked ones are recorded with `action: held_blocked`).
        `ignore_urls`: URL prefixes (the recorder's channel `ws://127.0.0.1:PORT/`, `chrome-extension://ID/`)
        the HTTP log leaves out, requests and whole targets; matching and blocking still apply to them. `secrets`:
        values (the channel token) replaced by `[redacted]` wherever they would reach http.jsonl, http.har or
        interceptions.jsonl. `archive`: an interceptor.capture.Capture (`--archive`: every exchange into
        RUN/archive.warc.gz); `replay`: an interceptor.replay.Replay (`--site-from`: what no rule catches is answered
        from the archive, nothing is continued to the site)."""
        self.spec = spec
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.clock = clock or RunClock()
        self.files = [Path(f) for f in (files or spec.files)]
        self.on_catch = on_catch
        self.http_rules: list[Rule] = [r for r in spec.intercept if not r.is_websocket]
        self.ws_rules: list[Rule] = [r for r in spec.intercept if r.is_websocket]
        self.hold = hold
        self.patterns = fetch_patterns(self.http_rules) if narrow and hold is None else PAUSE_ALL
        # The browser-level Fetch only covers the new-target race (see attach): it never needs more than what can
        # match, also when the targets pause everything (else each request would pause twice: measured +0.5 ms).
        self.root_patterns = fetch_patterns(self.http_rules)
        self.archive, self.replay = archive, replay
        if replay is not None:  # nothing may leave: every request pauses, at both levels, and is answered
            self.patterns = self.root_patterns = PAUSE_ALL
        self.caught = asyncio.Event()
        self.land = spec.raw.get("terminal") == "land" and replay is None if isinstance(spec.raw, dict) else False
        self._landed: set[str] = set()  # network ids of landed requests (each is recorded once)
        self.catches: list[dict[str, Any]] = []
        self.stats = {"paused": 0, "continued": 0, "caught": 0, "undecidable": 0}
        self.continue_us: list[float] = []  # our time from requestPaused to continueRequest queued (bench)
        self.failure: str | None = None
        self.preloading_enabled: bool | None = None  # the browser preloads pages (speculation rules)
        self.secrets = [s for s in secrets if s and len(s) >= 3]
        self.writer = JsonlWriter(self.run_dir / INTERCEPTIONS, self.clock, redactor=Redactor(self.secrets))
        self.frames = Frames()
        self.headless = HeadlessMask()  # a headless browser's user agent, as headed Chromium's (every target)
        self.http = HttpLog(self.run_dir, self.clock, ignore=ignore_urls, secrets=self.secrets) if http_log else None
        self.console = ConsoleLog(self.run_dir, self.clock, self.secrets, ignore_urls) if http_log else None
        self.failclosed = FailClosed(kill_browser, use_watchdog=watchdog)
        self.conn: Connection | None = None
        self.attacher: Attacher | None = None
        self.wsguard = WsGuard(self.ws_rules, self._ws_caught, hold) if self.ws_rules or hold is not None else None
        if self.wsguard is not None and self.console is not None:
            self.console.skip = (self.wsguard.prefix,)  # the guard's reports are console messages
        self._closing = False
        self._detached = False
        self._files_done = False
        self._deciding: set[asyncio.Task] = set()
        self._held: dict[str, PausedRequest] = {}  # paused, not yet answered (requestId)

    @property
    def writers(self) -> list[JsonlWriter]:
        """The JSONL files this interceptor writes (a run gives them one WriteGuard: rundir/writeguard.py)."""
        return [self.writer] + [x.writer for x in (self.http, self.console, self.replay) if x is not None]

    # ---- lifecycle -------------------------------------------------------------------------------------------
    async def attach(self, browser: str) -> None:
        """Connect and turn auto-attach on; returns once every existing and future target is covered."""
        ws_url = await asyncio.get_running_loop().run_in_executor(None, browser_ws_url, browser)
        self.conn = await Connection.open(ws_url)
        self.conn.on_close.append(self._connection_lost)
        self.conn.on_handler_error.append(lambda where, exc: self._fatal(f"{where}: {exc!r}"))
        await self.failclosed.arm(self.conn.root, self.conn.socket_fd())
        self.attacher = Attacher(self.conn, self._prepare, self._prepare_failed)
        await self.headless.learn(self.conn.root)
        if self.root_patterns:
            # Browser-level Fetch too: a tab opened by Target.createTarget{url}, or a link opened in a new tab or
            # window by ctrl/middle/shift-click, sends its first request before the new target can be prepared
            # (measured: it reached the server; also with tab targets waiting for the debugger); the browser session
            # pauses it. A request both levels pause is decided twice the same way, so it is caught once. Its cost:
            # every request of every frame passes one more DevTools proxy (page load x1.08, bench/README.md).
            root = self.conn.root
            root.on("Fetch.requestPaused", lambda p: self._paused(root, p))
            await root.send("Fetch.enable", {"patterns": self.root_patterns})
        await self.attacher.start()

    async def close(self, close_browser: bool = False, keep_attached: bool = False) -> None:
        """Stop: wait for decisions in flight, fail (never continue) what is still held, write http.har.

        Once detached, the browser is no longer protected; `close_browser=True` closes it first (Browser.close,
        then a kill if it lingers), so nothing can leave after the interceptor stops. `keep_attached=True` seals
        instead: the files are finished (http.har written, so a manifest can hash it) but the interceptor stays
        attached and armed, failing every request it pauses, until a later `close()` detaches it. Use it when the
        browser's owner closes the browser after writing its own files (the pipeline: the recorder's finalize)."""
        if not self._closing:
            self._closing = True  # from now on every paused request is failed (see _paused)
            if self.hold is not None:
                self.hold.close()  # what still waits for a person is blocked now
            if self._deciding:
                await asyncio.wait(list(self._deciding), timeout=5)
            if self.wsguard is not None:
                await self.wsguard.settle()
            for held in list(self._held.values()):
                if held.answer is None:
                    held.fail(caught=False)
            self._held.clear()
            if self.http is not None:
                await self.http.settle()  # response bodies being read (bounded wait), while still attached
            if self.archive is not None:
                await self.archive.close()
            if self.console is not None:
                await self.console.collect_exceptions()  # the run is over: Runtime may be enabled now
        if keep_attached:
            self._finish_files()
            return
        if self._detached:
            return
        self._detached = True
        if close_browser and self.conn is not None and not self.conn.closed:
            try:
                await asyncio.wait_for(self.conn.root.send("Browser.close"), 5)
            except (CDPError, asyncio.TimeoutError):
                pass
            self.failclosed.trip("closing the browser with the interceptor")
        self.failclosed.disarm()  # first: the watchdog holds a duplicate of the CDP socket
        if self.conn is not None:
            await self.conn.close()
        self._finish_files()

    def _finish_files(self) -> None:
        """Write http.har and close the logs (once); events after this are not logged."""
        if self._files_done:
            return
        self._files_done = True
        if self.http is not None:
            self.http.close()
        if self.console is not None:
            self.console.close()
        if self.replay is not None:
            self.replay.close()
        self.writer.close()

    # ---- per target ------------------------------------------------------------------------------------------
    def _prepare(self, session: Session, fetch_owner: bool) -> list[asyncio.Future]:
        """Queued in order before the target resumes (see interceptor/targets.py)."""
        futures: list[asyncio.Future] = []
        ttype = session.target_type
        if ttype not in ("page", "iframe", "worker", "shared_worker", "service_worker"):
            return futures
        if ttype in ("shared_worker", "service_worker") and not fetch_owner:
            return futures  # a worker's second attachment: its owner session logs, guards and pauses for it
        if self.wsguard is not None:
            futures += self.wsguard.prepare(session, self.frames)
        if self.hold is not None:
            self.hold.watch(session)  # why each frame navigates: a GET form submission is held
        futures += self.frames.prepare(session)
        if self.http is not None:
            futures += self.http.prepare(session, self.frames)
        for mode in (self.archive, self.replay):
            futures += mode.prepare(session) if mode is not None else []
        futures += self.headless.prepare(session)  # after Network.enable (a worker's override is a Network command)
        if self.console is not None:
            self.console.prepare(session)
        if ttype == "page" and self.http_rules:
            watch_preloading(session, self.http_rules, self._preloading_state, self._fatal)
        patterns = self.patterns + (self.archive.fetch_patterns(session) if self.archive is not None else [])
        if fetch_owner and patterns:
            session.on("Fetch.requestPaused", lambda p, s=session: self._paused(s, p))
            futures.append(session.send("Fetch.enable", {"patterns": patterns}))
        return futures

    def _preloading_state(self, enabled: bool) -> None:
        self.preloading_enabled = enabled

    def _prepare_failed(self, session: Session, exc: BaseException) -> None:
        """A target we could not protect must not run: close it (or, if that fails, the browser)."""
        if isinstance(exc, CDPError) and exc.kind in ("closed", "crashed"):
            return
        log.error("closing unprotected %s target %s", session.target_type, session.target_info.get("url"))
        fut = self.conn.root.send("Target.closeTarget", {"targetId": session.target_id}) if self.conn else None
        if fut is not None:
            fut.add_done_callback(lambda f: f.exception() and self.conn.root.spawn(
                self._gone_or_fatal(session.target_id, exc), "gone-or-fatal"))

    async def _gone_or_fatal(self, target_id: str, exc: BaseException) -> None:
        """Closing it failed: fine if the target is already gone (a service worker whose script failed to load
        closes while it is prepared: "Inspected target navigated or closed"), else the browser dies."""
        try:
            targets = (await self.conn.root.call("Target.getTargets", timeout=5)).get("targetInfos", [])
        except (CDPError, AttributeError):
            targets = [{"targetId": target_id}]
        if any(t.get("targetId") == target_id for t in targets):
            self._fatal(f"cannot protect target: {exc}")

    # ---- decisions -------------------------------------------------------------------------------------------
    def _paused(self, session: Session, params: dict[str, Any]) -> None:
        """Fetch.requestPaused, in the reader loop: continue at once unless URL and method can match."""
        if self.archive is not None and is_response_stage(params):  # a worker's body for the archive
            self.archive.response_paused(session, params)
            return
        self.stats["paused"] += 1
        req = params["request"]
        paused = PausedRequest(session, params, self.http.mark_intercepted if self.http is not None else None)
        if self._closing:
            paused.fail(caught=False)
            return
        t0 = time.perf_counter()
        rules = [r for r in self.http_rules if match.could_match(r, req["method"], req["url"])]
        if not rules and self.hold is not None and self.hold.wants(req["method"], req["url"],
                                                                   params.get("resourceType")):
            rules = [None]  # type: ignore[list-item]  (no rule: the person decides, see _decide)
        if not rules:
            self.stats["continued"] += 1
            self._pass(paused)
            if len(self.continue_us) < 100_000:
                self.continue_us.append((time.perf_counter() - t0) * 1e6)
            return
        self._held[paused.request_id] = paused
        task = session.spawn(self._decide(paused, rules), f"decide:{paused.request_id}")
        self._deciding.add(task)
        task.add_done_callback(self._deciding.discard)

    async def _decide(self, paused: PausedRequest, rules: list[Rule]) -> None:
        session, params = paused.session, paused.params
        req = params["request"]
        raw, complete = payload.entries_bytes(req)
        if req.get("hasPostData") and not raw and params.get("networkId"):
            try:  # Chrome leaves large bodies out of requestPaused
                got = await session.send("Network.getRequestPostData", {"requestId": params["networkId"]})
                raw, complete = got.get("postData", "").encode("utf-8", "surrogateescape"), True
            except CDPError:
                complete = False
        ctype = payload.header(req.get("headers", {}), "content-type")
        if len(raw) > OFF_LOOP_BYTES:  # a large body is decoded off the reader loop (other requests keep flowing)
            body = await asyncio.to_thread(payload.decode, raw, ctype, self.files, complete)
        else:
            body = payload.decode(raw, ctype, self.files, complete)
        if rules == [None]:  # hold mode (interceptor/hold.py): the person's answer, or block at the timeout
            await self._hold(paused, body)
            return
        rule = match.first_match(rules, req["method"], req["url"], body)
        undecidable = False
        if rule is None and ((req.get("hasPostData") and not raw) or body.decode):
            # The body could not be read (or was too deep / too large to decode: body.decode): a request to a
            # terminal URL we cannot check is held back (fail closed).
            rule, undecidable = rules[0], True
            self.stats["undecidable"] += 1
        self._held.pop(paused.request_id, None)
        closed = paused.answer is not None  # close() failed it while we decided: blocked, and recorded if a catch
        if rule is None:
            if not closed:
                self.stats["continued"] += 1
                self._pass(paused)
            return
        land = self.land and not undecidable and not closed
        if land and params.get("networkId") in self._landed:  # a landed request paused again at the other level
            paused.continue_()
            return
        if land and params.get("networkId"):
            self._landed.add(params["networkId"])
        # the answer marks the HTTP log now, before Network.loadingFailed can arrive
        action = "blocked" if closed else self._answer(paused, rule, land=land)
        await self._record_request(paused, body, rule, action, undecidable=undecidable)

    def _pass(self, paused: PausedRequest) -> None:
        """What no rule catches: continued to the site, or in replay mode answered from the archive."""
        if self.replay is not None:
            self.replay.answer(paused)
        else:
            paused.continue_()

    async def _hold(self, paused: PausedRequest, body: Any) -> None:
        req = paused.params["request"]
        decision, by, held = await self.hold.ask(req["method"], req["url"], body.value)
        self._held.pop(paused.request_id, None)
        if paused.answer is not None:  # close() failed it while the person decided
            return
        if decision == "allow":
            self._pass(paused)  # (in replay mode: answered from the archive, never sent)
            return
        paused.fail()
        if self.http is not None and paused.network_id:
            self.http.mark_intercepted(paused.network_id, HELD_BLOCKED)
        await self._record_request(paused, body, None, HELD_BLOCKED, held={
            "id": held.id, "held_t": held.t, "decided_t": self.clock.now(), "by": by})

    async def _record_request(self, paused: PausedRequest, body: Any, rule: Rule | None, action: str,
                              undecidable: bool = False, held: dict[str, Any] | None = None) -> None:
        """interceptions.jsonl: a catch (`rule` set), or a request a person blocked in hold mode (`held`)."""
        session, params = paused.session, paused.params
        req = params["request"]
        if session.id is None and self.conn is not None:  # paused at browser level: attribute to its target
            session = next((s for s in self.conn.sessions.values() if s.target_id == params.get("frameId")),
                           session)
        frame_url = await self.frames.sender_url(session, params, self.http.documents if self.http else None)
        target_type = session.target_type
        if self.http is not None and self.http.senders.get(params.get("networkId") or "") == "worker":
            target_type = "worker"  # dedicated workers pause on their parent's session
        record = {
            "rule": rule.name if rule else None, "rule_index": rule.index if rule else None, "url": req["url"],
            "method": req["method"],
            "headers": redact_headers(req.get("headers", {})), "query": match.query_params(req["url"]),
            "body": mask_fields(body.value), "body_kind": body.kind,
            "raw": scrub(body.raw_text(), secret_values(body.value)), "files": body.files,
            "body_complete": body.complete, "tab_url": self.frames.tab_url(session),
            "frame_url": frame_url,
            "opener_url": self.frames.opener_url(session, self.attacher.infos if self.attacher else {}),
            "target_type": target_type, "resource_type": params.get("resourceType"),
            "network_id": params.get("networkId"), "action": action,
        }
        if undecidable:
            record["undecidable"] = True
        if body.decode:
            record["decode"] = body.decode  # "too deep" | "too large": `body` is null, `raw` keeps the bytes
        if held is not None:
            record["held"] = held
        self._record(Interception.build(**record), catch=held is None)

    def _answer(self, paused: PausedRequest, rule: Rule, land: bool = False) -> str:
        if land:  # spec `terminal: land`: recorded, then sent on to the site (a state judge decides; issue 14)
            return paused.continue_(landed=True)
        r = rule.respond
        if r.action == "fulfill":
            body = json.dumps(r.json).encode() if r.json is not None else (r.body or "").encode()
            headers = dict(r.headers)
            if r.json is not None:
                headers.setdefault("Content-Type", "application/json")
            return paused.fulfill(r.status, headers, body)
        return paused.fail()

    def _ws_caught(self, session: Session, rule: Rule | None, message: dict[str, Any]) -> None:
        """A WebSocket message dropped by the guard (interceptor/wsguard.py); rule None: a person blocked it."""
        self._record(ws_interception(session, rule, message, self.frames), catch=not message.get("held"))

    def _record(self, rec: Interception, catch: bool = True) -> None:
        """Write a catch (or, `catch=False`, a request a person blocked in hold mode: not a terminal catch)."""
        if self._files_done:  # sealed (see close): the message was dropped all the same; nothing more is written
            log.warning("a %s caught after the interceptor's files were closed was not recorded", rec.url)
            return
        record = self.writer.write(rec)
        if not catch:
            return
        self.catches.append(record)
        self.stats["caught"] += 1
        if record["action"] != "landed":  # a landed save does not end the run: later steps may build on it
            self.caught.set()
        if self.on_catch is not None:
            try:
                result = self.on_catch(record)
                if asyncio.iscoroutine(result):
                    self.conn.root.spawn(result, "on_catch") if self.conn else None
            except Exception:
                log.exception("on_catch callback failed")

    # ---- failure ---------------------------------------------------------------------------------------------
    def _connection_lost(self, conn: Connection) -> None:
        if conn.deliberate or self._closing:
            return
        self._fatal(f"lost the browser: {conn.close_reason}")

    def _fatal(self, reason: str) -> None:
        if self.failure is None:
            self.failure = reason
        self.failclosed.trip(reason)
