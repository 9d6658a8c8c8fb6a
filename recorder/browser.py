"""The one Chromium launcher (recorder and interceptor both use it).

Why a launcher of our own: the Debian wrapper /usr/bin/chromium adds flags (an empty --load-extension among them),
fixed debugging ports clash on a shared machine, and the browser must die with clawrec (fail closed), so we start
the real binary in its own process group with PR_SET_PDEATHSIG and read the port from DevToolsActivePort.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rundir.lock import process_start

CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")

# Quiet, offline-safe flags (measured: without the background-networking ones, Chromium keeps dialing out).
# No --remote-allow-origins: Chrome then refuses a DevTools WebSocket whose handshake carries an Origin (any web
# page's), so a page that learns the port cannot take the browser over; clawrec's clients send no Origin.
# AutomationControlled off: navigator.webdriver stays false, as in a person's browser (tests/footprint).
BASE_FLAGS = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--password-store=basic",
    "--use-mock-keychain",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--disable-dev-shm-usage",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    "--disable-blink-features=AutomationControlled",
    # Every frame's console messages, uncaught exceptions included, on stderr (the launch's log_path): the console
    # layer reads a page's exceptions there, never through Runtime in the page (interceptor/chromelog.py).
    "--enable-logging=stderr",
    # A headed Chromium quits with its last window: an agent closing its last tab took the browser down and the run
    # ended `crashed` ("lost the browser", retried as an infrastructure failure). The browser is the run's, not the
    # tab's: it stays up with no window (measured on Xvfb; nothing a page can see) and the run ends when the agent
    # does; a person closing the window still ends a `clawrec record` session (clawrec/agents/human.py).
    "--keep-alive-for-test",
]


# Root needs --no-sandbox, and Chromium then shows "You are using an unsupported command-line flag: --no-sandbox"
# as an infobar over every page (in the video, in the person's window), pushing the page down by its height. The
# startup infobars are skipped under --test-type (chrome/browser/ui/startup/infobar_utils.cc:
# AddInfoBarsIfNecessary); the policy CommandLineFlagSecurityWarningsEnabled would need a machine-wide
# /etc/chromium/policies file (Chromium ignores --policy here, measured). --test-type changed nothing else we could
# measure (navigator, user agent, extension, CDP; tests/recorder/test_no_sandbox_bar.py). Not only for root:
# --disable-blink-features (BASE_FLAGS, webdriver false) raises the same "unsupported command-line flag" bar.
QUIET_FLAG_BARS = ["--test-type"]


class BrowserLaunchError(RuntimeError):
    """Chromium is missing or did not come up; the message says what to do. `reason` is the message without the
    pointer to Chromium's log, `log_path` that log (a caller that moves the log names the new place)."""

    def __init__(self, reason: str, log_path: Path | None = None) -> None:
        super().__init__(reason + (f"; see {log_path}" if log_path else ""))
        self.reason, self.log_path = reason, log_path


def find_chromium() -> str:
    """The real Chromium binary: $CLAWREC_CHROMIUM, else Debian's."""
    env = os.environ.get("CLAWREC_CHROMIUM")
    if env:
        if not os.access(env, os.X_OK):
            raise BrowserLaunchError(f"CLAWREC_CHROMIUM={env} is not an executable")
        return env
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    raise BrowserLaunchError("Chromium not found; install it with: make setup (apt-get install chromium)")


def headless_flags(window_size: tuple[int, int]) -> list[str]:
    """Headless reports an 800x600 screen whatever the window: a page can tell (tests/footprint). The user agent's
    "HeadlessChrome" is overridden per target by the interceptor (interceptor/headless.py), not by --user-agent
    (which blanks the high-entropy client hints)."""
    return [f"--screen-info={{{window_size[0]}x{window_size[1]}}}"]


def merge_disabled_features(flags: list[str]) -> list[str]:
    """One --disable-features with every list: Chromium reads only the last one (measured: a second one
    re-enabled the first one's features)."""
    prefix = "--disable-features="
    names = [n for f in flags if f.startswith(prefix) for n in f[len(prefix):].split(",") if n]
    if sum(f.startswith(prefix) for f in flags) < 2:
        return flags
    first = next(i for i, f in enumerate(flags) if f.startswith(prefix))
    rest = [f for f in flags if not f.startswith(prefix)]
    rest.insert(first, prefix + ",".join(dict.fromkeys(names)))
    return rest


def _die_with_parent() -> None:
    """preexec_fn: new process group, and SIGKILL when the launching process dies (even by SIGKILL)."""
    os.setpgrp()
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    PR_SET_PDEATHSIG = 1
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass
class Browser:
    """A running Chromium we started. `close()` kills its whole process group."""

    process: subprocess.Popen
    port: int
    ws_url: str
    user_data_dir: Path
    owns_profile: bool
    log_path: Path | None = None
    flags: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """Kill at once (fail-closed path): SIGKILL to the process group."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self, grace: float = 2.0) -> None:
        """SIGTERM, wait up to `grace`, then SIGKILL; remove the profile if we made it."""
        if self.alive():
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        if self.owns_profile:
            shutil.rmtree(self.user_data_dir, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _disable_preloading(profile: Path) -> None:
    """Turn off "Preload pages" in a profile without preferences yet. Why: speculation-rules prefetch/prerender
    requests are sent by the browser without passing DevTools Fetch (measured: a prefetched GET reached the server
    with Fetch on at page and browser level), so a page could send a terminal GET the interceptor cannot block."""
    prefs = profile / "Default" / "Preferences"
    if prefs.exists():
        return
    prefs.parent.mkdir(parents=True, exist_ok=True)
    prefs.write_text(json.dumps({"net": {"network_prediction_options": 2}}))


PROFILE_PREFIX = "clawrec-profile-"
SINGLETON_TAIL = "/org.chromium.Chromium.XXXXXX/SingletonSocket"
SOCKET_PATH_MAX = 107  # sun_path holds 108 bytes with the NUL


def sweep_stale_profiles(root: str | Path | None = None, min_age_s: float = 600.0) -> list[Path]:
    """Remove the temporary profiles of clawrec browsers that are gone (a launcher killed by SIGKILL cannot remove
    its own). A profile is stale when Chromium's SingletonLock (`HOST-PID`) names a dead process of this host, or,
    lockless (Chromium never started), when it is older than `min_age_s`. Returns what was removed."""
    removed: list[Path] = []
    host = os.uname().nodename
    for profile in Path(root or tempfile.gettempdir()).glob(f"{PROFILE_PREFIX}*"):
        try:
            owner = os.readlink(profile / "SingletonLock")
        except FileNotFoundError:
            owner = None
        except OSError:
            continue
        if owner is not None:
            lock_host, _, pid = owner.rpartition("-")
            if lock_host != host or not pid.isdigit() or process_start(int(pid)) is not None:
                continue
        else:
            try:
                if time.time() - profile.stat().st_mtime < min_age_s:
                    continue
            except FileNotFoundError:
                continue
        shutil.rmtree(profile, ignore_errors=True)
        removed.append(profile)
    return removed


def launch_browser(
    *,
    headless: bool = True,
    display: str | None = None,
    extension_dir: str | Path | None = None,
    user_data_dir: str | Path | None = None,
    window_size: tuple[int, int] = (1280, 800),
    site_per_process: bool = True,
    kiosk: bool = False,
    extra_flags: list[str] | None = None,
    extra_env: dict[str, str] | None = None,
    log_path: str | Path | None = None,
    start_url: str = "about:blank",
    timeout: float = 20.0,
) -> Browser:
    """Start Chromium on a random loopback CDP port and wait until its DevTools endpoint answers."""
    binary = find_chromium()
    owns = user_data_dir is None
    if owns:
        sweep_stale_profiles()
    profile = Path(user_data_dir or tempfile.mkdtemp(prefix=PROFILE_PREFIX))
    profile.mkdir(parents=True, exist_ok=True)
    _disable_preloading(profile)
    flags = [*BASE_FLAGS, f"--user-data-dir={profile}", f"--window-size={window_size[0]},{window_size[1]}",
             "--window-position=0,0"]
    flags += QUIET_FLAG_BARS
    if os.geteuid() == 0:
        flags.append("--no-sandbox")
    if headless:
        flags += ["--headless=new", *headless_flags(window_size)]
    if kiosk and not headless:
        flags.append("--kiosk")
    if site_per_process:
        flags.append("--site-per-process")
    if extension_dir:
        ext = str(Path(extension_dir).resolve())
        flags += [f"--load-extension={ext}", f"--disable-extensions-except={ext}"]
    flags = merge_disabled_features([*flags, *(extra_flags or [])])
    env = {**os.environ, **(extra_env or {})}
    # Chromium's own temporary folders (the process singleton's /tmp/org.chromium.Chromium.*, left behind by every
    # browser stopped by a signal) go inside the profile, removed with it, when the singleton's socket path fits a
    # Unix socket address (Chromium aborts otherwise; a caller's deep profile keeps the inherited TMPDIR).
    tmp = profile / "tmp"
    if len(str(tmp)) + len(SINGLETON_TAIL) <= SOCKET_PATH_MAX:
        tmp.mkdir(exist_ok=True)
        env["TMPDIR"] = str(tmp)
    if display:
        env["DISPLAY"] = display
    elif headless:
        env.pop("DISPLAY", None)
    log_file = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen([binary, *flags, start_url], stdout=log_file, stderr=log_file, env=env,
                            stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
    if log_path:
        log_file.close()
    active = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    try:
        while True:
            if proc.poll() is not None:
                raise BrowserLaunchError(f"Chromium exited with code {proc.returncode} before its DevTools port"
                                         " opened", Path(log_path) if log_path else None)
            if active.exists():
                lines = active.read_text().split("\n")
                if len(lines) >= 2 and lines[0].strip().isdigit() and lines[1].strip():
                    port = int(lines[0])
                    ws_url = f"ws://127.0.0.1:{port}{lines[1].strip()}"
                    break
            if time.monotonic() > deadline:
                raise BrowserLaunchError(f"Chromium did not open its DevTools port within {timeout:.0f}s",
                                         Path(log_path) if log_path else None)
            time.sleep(0.02)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL) if proc.poll() is None else None
        proc.wait()
        if owns:
            shutil.rmtree(profile, ignore_errors=True)
        raise
    return Browser(process=proc, port=port, ws_url=ws_url, user_data_dir=profile, owns_profile=owns,
                   log_path=Path(log_path) if log_path else None, flags=flags)
