"""`Recording`: one run's five layers around one Chromium, started and finalized as a unit.

Why one object: the layers share a clock and a lifetime. `start()` brings up display, ffmpeg, the action channel,
this run's private copy of the extension (config.json with port + token), Chromium and the screenshot connection,
and returns once ffmpeg has its first frame and CDP answers. The extension's hello is not awaited (it queues events
until connected); if it never connects, or Chromium or Xvfb dies, `failed` is set and `failures` says why;
`finalize()` then reports status `crashed`. Losing ffmpeg or the screenshot connection only degrades that layer
(`degraded`, marked `failed` in the manifest's layers); the run goes on.
The manifest is written at start (`running`), at finalize, from SIGTERM/SIGHUP handlers (unless
`handle_signals=False`: a caller that finalizes gracefully on signals, like `clawrec run`) and at interpreter exit;
if the process is SIGKILLed, `recorder.manifest.recover(run_dir)` finishes the job. A cancelled start() (Ctrl-C)
finalizes with `interrupt_reason` as the stop reason.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from recorder import manifest
from rundir import manifest as M, records
from recorder.agent_log import AgentLogSink
from interceptor.cdp import version_info
from recorder.browser import Browser, BrowserLaunchError, launch_browser
from recorder.channel import ActionChannel
from recorder.dom import DomRecorder
from recorder.extension_copy import EXTENSION_DIR, private_copy
from recorder.display import Display, DisplayError, start_display, use_display
from rundir.records import JsonlWriter, RunClock
from rundir.domfile import scrub_dom
from rundir.redact import MIN_VALUE_LEN, Redactor
from rundir.scrub import Rewriter, scrub_run, scrub_values
from recorder.screenshots import Screenshotter
from recorder.video import VideoRecorder, ffmpeg_version, first_frame_epoch

class RecordingError(RuntimeError):
    """A layer could not start (the message names it); the run must not go on unrecorded."""


def _signal_name(code: int | None) -> str:
    if code is None:
        return "running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


class Recording:
    def __init__(self, run_dir: str | Path, *, task_id: str = "", spec_sha256: str = "", agent: str = "",
                 headless: bool = False, video: bool = True, screenshots: bool = True, dom: bool = True,
                 clock: RunClock | None = None,
                 fps: int = 10, window_size: tuple[int, int] = (1280, 800), run_id: str | None = None,
                 extra_flags: list[str] | None = None, flags: dict[str, Any] | None = None,
                 extra_env: dict[str, str] | None = None,
                 ready_timeout: float = 15.0, handle_signals: bool = True, display: str | None = None,
                 secrets: list[str] | tuple[str, ...] = ()) -> None:
        """`display`: an existing X display (":0") to open the browser on, e.g. for a person at the browser; the
        video grabs it and it is left running at finalize. None: a private Xvfb per run. `secrets`: values (a
        single-use login URL, a token) replaced by `[redacted]` in actions, agent and screenshot records."""
        if headless and video:
            raise ValueError("video needs a display: use headless=False, or video=False for a headless run")
        if headless and display:
            raise ValueError("a headless run has no display: drop display= or headless=True")
        self.display_name = display
        self._extra_secrets = [x for x in secrets if x and len(x) >= 3]
        self.run_dir = Path(run_dir)
        self.clock = clock or RunClock()
        self.headless, self.video_on, self.screenshots_on, self.dom_on = headless, video, screenshots, dom
        self.fps, self.window_size = fps, tuple(window_size)
        self.extra_flags = list(extra_flags or [])
        self.extra_env = dict(extra_env or {})  # the browser's environment additions (a replay's clock shim)
        self.ready_timeout = ready_timeout
        self.handle_signals = handle_signals
        self.base: dict[str, Any] = M.new(
            run_id or self.run_dir.name, task_id=task_id, spec_sha256=spec_sha256, agent=agent, t0=self.clock.t0,
            flags={"headless": headless, "video": video, "screenshots": screenshots, "dom": dom, "fps": fps,
                   "window_size": list(window_size), **(flags or {})})
        self.display: Display | None = None
        self.video: VideoRecorder | None = None
        self.browser: Browser | None = None
        self.channel: ActionChannel | None = None
        self.screens: Screenshotter | None = None
        self.dom: DomRecorder | None = None  # layer 6 (rundir/domfile.py): off with dom=False (--no-dom)
        self.agent_log: AgentLogSink | None = None
        self.actions: JsonlWriter | None = None
        self.failed = asyncio.Event()
        self.failures: list[str] = []
        self.degraded: dict[str, str] = {}  # layer -> why it stopped early (the run went on without it)
        self.ready_t: float | None = None
        self.manifest: dict[str, Any] | None = None
        self._tmp: Path | None = None
        self._watchdog: asyncio.Task | None = None
        self._old_handlers: dict[int, Any] = {}
        self._done = False
        self._hello_task: asyncio.Task | None = None
        self.interrupt_reason = "interrupted"  # the stop reason if start() is cancelled (the caller may name why)
        self.extension_id = ""  # chrome-extension://<id>/ is the recorder's own traffic (its channel socket)
        self._lock = threading.Lock()
        self.learnt: list[str] = []  # values typed into secret inputs: run secrets from then on (learn_secret)
        self.learn_writers: list[JsonlWriter] = []  # the run's other writers (the interceptor's) that learn them too
        self.rewriters: dict[str, Rewriter] = {}  # run files of a format of their own, scrubbed of them at finalize
        self.release_reserve: Callable[[], None] | None = None  # frees space set aside for the final files

    # ---- public API -------------------------------------------------------------------------------------------
    @property
    def own_urls(self) -> list[str]:
        """URL prefixes of the recorder's own browser traffic (its channel socket, its extension): give them to the
        Interceptor as `ignore_urls` so that the HTTP log holds the page's traffic only."""
        urls = [f"ws://127.0.0.1:{self.channel.port}/"] if self.channel is not None and self.channel.port else []
        return urls + ([f"chrome-extension://{self.extension_id}/"] if self.extension_id else [])

    @property
    def secrets(self) -> list[str]:
        """Values that must never reach a run file (the channel token): the Interceptor's `secrets`."""
        return ([self.channel.token] if self.channel is not None else []) + self._extra_secrets

    def learn_secret(self, value: str) -> None:
        """A value typed into a secret input (password, one-time code, card number): redacted from now on by every
        writer of the run, and scrubbed at finalize from what was written before (rundir/scrub.py)."""
        if len(value) < MIN_VALUE_LEN or value in self.learnt:
            return
        self.learnt.append(value)
        for writer in self.writers + self.learn_writers:
            writer.secrets = [value]
        if self.dom is not None:
            self.dom.secrets = [value]

    @property
    def writers(self) -> list[JsonlWriter]:
        """The JSONL files this recording writes, once started (a run gives them one WriteGuard)."""
        return [w for w in (self.actions, self.agent_log.writer if self.agent_log else None,
                            self.screens.index if self.screens else None) if w is not None]

    @property
    def agent_log_path(self) -> Path:
        """The JSONL file out-of-process agents append to (give it to them as CLAWREC_AGENT_LOG)."""
        assert self.agent_log is not None, "start() first"
        return self.agent_log.inbox

    async def start(self) -> "Recording":
        """Bring every layer up; returns once the browser is ready for the agent (CDP answers, video rolling)."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        M.write(self.run_dir, {**self.base, "status": "running", "stop_reason": ""})
        self._install_exit_hooks()
        try:
            await self._start_layers()
        except BaseException as exc:
            interrupted = isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt))
            await self.finalize("crashed", self.interrupt_reason if interrupted else f"recorder start failed: {exc}")
            raise
        self.ready_t = self.clock.now()
        self.base["ready_t"] = self.ready_t
        M.write(self.run_dir, {**self.base, "status": "running", "stop_reason": ""})
        self._watchdog = asyncio.create_task(self._watch(), name="recorder-watchdog")
        return self

    async def finalize(self, status: str, stop_reason: str) -> dict[str, Any]:
        """Stop every layer and write the final manifest. A layer failure turns status into `crashed`."""
        if self._done:
            assert self.manifest is not None
            return self.manifest
        for task in (self._watchdog, self._hello_task):
            if task is not None:
                task.cancel()
        self._check_processes()
        # Order matters: in-flight batches land (and ask for their shots), every action gets its seq, the shots
        # under way finish or are cancelled (each recorded), and only then do the files close.
        if self.channel is not None:
            if self.browser is not None and self.browser.alive():
                await self.channel.quiesce()
            self.channel.flush()
        if self.screens is not None:
            await self.screens.stop()
        if self.dom is not None:  # the page as the run ended is captured first, while the browser lives
            await self.dom.stop(final=self.browser is not None and self.browser.alive())
        if self.channel is not None:
            await self.channel.stop()
        if self.agent_log is not None:
            await self.agent_log.stop()
        return self._finish(status, stop_reason)

    # ---- start-up ---------------------------------------------------------------------------------------------
    async def _start_layers(self) -> None:
        self._tmp = Path(tempfile.mkdtemp(prefix="clawrec-rec-"))
        phases = self.base["start_phases"] = {}
        if not self.headless:
            try:
                self.display = use_display(self.display_name, self.window_size) if self.display_name \
                    else start_display(self.window_size)
            except DisplayError as exc:
                raise RecordingError(str(exc)) from None
            self.base["display"] = self.display.name
            self.base["display_owned"] = self.display.owned
            phases["display"] = self.clock.now()
            if self.video_on:
                self.video = VideoRecorder(self.run_dir, self.display.name, self.window_size, self.fps,
                                           now=self.clock.now)
                self.video.start()
        self.actions = JsonlWriter(self.run_dir / records.ACTIONS, self.clock)
        self.agent_log = AgentLogSink(self.run_dir, self.clock)
        self.agent_log.start()
        self.channel = ActionChannel(self.actions, self.clock, on_action=self._on_action, on_secret=self.learn_secret)
        await self.channel.start()
        self.actions.secrets = self.agent_log.writer.secrets = self.secrets
        if not (EXTENSION_DIR / "manifest.json").exists():
            raise RecordingError(f"extension not found at {EXTENSION_DIR} (set CLAWREC_EXTENSION_DIR)")
        ext, self.extension_id = private_copy(EXTENSION_DIR, self._tmp, self.channel.port, self.channel.token)
        self.base["extension_id"] = self.extension_id
        # Launched on the loop's thread on purpose: PDEATHSIG follows the forking thread.
        try:
            self.browser = launch_browser(headless=self.headless, display=self.display.name if self.display else None,
                                          extension_dir=ext, window_size=self.window_size,
                                          extra_flags=self.extra_flags, extra_env=self.extra_env,
                                          log_path=self._tmp / "chromium.log")
        except BrowserLaunchError as exc:  # its log kept for the user: no page has run yet, it holds no page's data
            if exc.log_path is None or not exc.log_path.exists():
                raise
            kept = self.run_dir / "chromium-launch.log"
            shutil.copyfile(exc.log_path, kept)
            raise RecordingError(f"{exc.reason} (Chromium's own log: {kept})") from None
        self.base["flags"]["browser"] = self.browser.flags
        phases["browser"] = self.clock.now()
        # The extension's hello is not awaited: events queue in the extension until it connects (nothing is
        # lost), and a watcher fails the run loudly if it never does. Waiting would double the cold start.
        self._hello_task = asyncio.create_task(self._extension_hello(), name="recorder-extension-hello")
        waits = []
        if self.video is not None:
            waits.append(self._video_started())
        if self.screenshots_on:
            self.screens = Screenshotter(self.run_dir, self.clock, self.browser.ws_url,
                                         action_seq=self.channel.seq_of)
            waits.append(self.screens.start())
            self.screens.secrets = self.secrets
        if self.dom_on:
            self.dom = DomRecorder(self.run_dir, self.clock, self.browser.ws_url, action_seq=self.channel.seq_of)
            self.dom.secrets = self.secrets
            self.rewriters[records.DOM] = scrub_dom  # values learnt after a capture: scrubbed at finalize
            waits.append(self.dom.start())
        ready = asyncio.gather(*waits)
        # A cancelled start (Ctrl-C) leaves the gather holding a CancelledError nobody awaits: retrieved here, or
        # asyncio logs it as "exception was never retrieved" when it is garbage-collected.
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            await asyncio.wait_for(ready, self.ready_timeout)
        except asyncio.TimeoutError:
            raise RecordingError(f"the browser or ffmpeg was not ready within {self.ready_timeout:.0f}s") from None
        if self.screens is not None:
            self.base["versions"]["chromium"] = self.screens.browser_version
        else:
            info = await asyncio.to_thread(version_info, self.browser.http_url)
            self.base["versions"]["chromium"] = info.get("Browser", "")

    async def wait_extension(self, timeout: float | None = None) -> bool:
        """Wait until the extension's worker has connected (optional: its events queue until then anyway)."""
        assert self.channel is not None, "start() first"
        try:
            await asyncio.wait_for(self.channel.connected.wait(), timeout or self.ready_timeout)
        except asyncio.TimeoutError:
            return False
        return True

    async def _extension_hello(self) -> None:
        assert self.channel is not None
        try:
            await asyncio.wait_for(self.channel.connected.wait(), self.ready_timeout)
        except asyncio.TimeoutError:
            self._fail(f"the clawrec extension did not connect within {self.ready_timeout:.0f}s")
            return
        self.base["extension_t"] = self.base["start_phases"]["extension"] = self.clock.now()

    async def _video_started(self) -> None:
        assert self.video is not None
        self.base["video_start_t"] = await self.video.first_frame(self.ready_timeout)

    def _on_action(self, record: dict) -> None:
        if self.screens is not None:
            self.screens.request(record)
        if self.dom is not None:
            self.dom.request(record)

    # ---- failures ---------------------------------------------------------------------------------------------
    def _check_processes(self) -> None:
        """Chromium or Xvfb gone: the run fails. ffmpeg gone: only the video layer (degraded, the run goes on)."""
        for name, proc in (("ffmpeg", self.video.process if self.video else None),
                           ("Chromium", self.browser.process if self.browser else None),
                           ("Xvfb", self.display.process if self.display else None)):
            if proc is not None and proc.poll() is not None:
                if name == "ffmpeg":
                    self._degrade("video", f"{name} {_signal_name(proc.returncode)}")
                else:
                    self._fail(f"{name} {_signal_name(proc.returncode)}")

    def _degrade(self, layer: str, reason: str) -> None:
        """A layer that can be lost without losing the run (video, screenshots): marked failed in the manifest."""
        if layer not in self.degraded:
            self.degraded[layer] = reason

    def _fail(self, reason: str) -> None:
        if reason not in self.failures:
            self.failures.append(reason)
        self.failed.set()

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(0.25)
            self._check_processes()
            for layer, part, name in (("screenshots", self.screens, "screenshot"), ("dom", self.dom, "DOM")):
                conn = part.cdp if part is not None else None
                if conn is not None and conn.closed and self.browser is not None and self.browser.alive():
                    self._degrade(layer, f"the {name} connection was lost")
            if self.dom is not None and self.dom.failure:
                self._degrade("dom", self.dom.failure)

    # ---- the one way out --------------------------------------------------------------------------------------
    def _finish(self, status: str, stop_reason: str) -> dict[str, Any]:
        """Synchronous end of every layer + manifest; safe from finalize, signal handlers and atexit."""
        with self._lock:
            if self._done:
                assert self.manifest is not None
                return self.manifest
            self._done = True
        ended = time.time()
        if self.release_reserve is not None:  # room for what the finalize writes, on a disk that filled up
            self.release_reserve()
        self._check_processes()
        errors: list[str] = []
        if self.video is not None:
            self.video.stop()  # first: the run ends now, not when the browser has finished closing
            self.base["video_end_t"] = self.clock.now()
        if self.browser is not None:
            self.browser.close()
        if self.video is not None:
            try:
                epoch = first_frame_epoch(self.run_dir, self.clock.t0 + (self.video.first_frame_t or 0.0))
                if epoch is not None:
                    self.base["video_start_t"] = round(epoch - self.clock.t0, 3)
                self.video.join()
            except Exception as exc:
                errors.append(f"video: {exc}")
        if self.display is not None:
            self.display.stop()
        if self.channel is not None:
            self.channel.flush()  # records still waiting for their place in `t` order (crash path: signals)
        for closer in (self.actions, self.agent_log, self.dom.writer if self.dom else None):
            if closer is not None:
                closer.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
        self._restore_signals()
        base = dict(self.base)
        base["versions"]["ffmpeg"] = ffmpeg_version() if self.video_on else ""
        base["recorder"] = {
            "failures": self.failures + errors,
            "channel": dict(self.channel.stats) if self.channel else {},
            "screenshots": self.screens.summary() if self.screens else {},
            "dom": {"captured": self.dom.count, "errors": self.dom.errors, "skipped": self.dom.skipped,
                    "bytes": self.dom.writer.bytes if self.dom.writer else 0} if self.dom else {},
        }
        if self.failures and status in ("ok", "intercepted"):
            base["requested_status"] = status
            stop_reason = f"{stop_reason}; recorder: {', '.join(self.failures)}" if stop_reason else \
                f"recorder: {', '.join(self.failures)}"
            status = "crashed"
        if self.learnt:  # before the manifest hashes the layers: the hashes are those of the scrubbed files
            redactor = Redactor(self.learnt)
            scrub_run(self.run_dir, self.learnt, self.rewriters)
            base, stop_reason = scrub_values(base, redactor), redactor.text(stop_reason)
        self.manifest = manifest.finish(self.run_dir, base, status, stop_reason, ended=ended, failed=self.degraded)
        return self.manifest

    def _install_exit_hooks(self) -> None:
        atexit.register(self._at_exit)
        if not self.handle_signals or threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGHUP):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)

    def _restore_signals(self) -> None:
        atexit.unregister(self._at_exit)
        if threading.current_thread() is threading.main_thread():
            for sig, handler in self._old_handlers.items():
                signal.signal(sig, handler)
        self._old_handlers.clear()

    def _on_signal(self, signum: int, _frame: Any) -> None:
        old = self._old_handlers.get(signum)
        self._finish("crashed", f"clawrec received {signal.Signals(signum).name}")
        if callable(old):
            old(signum, _frame)
        else:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def _at_exit(self) -> None:
        if not self._done:
            self._finish("crashed", "clawrec exited before the recording was finalized")
