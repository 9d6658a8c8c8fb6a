"""Where a run's site comes from: the live web (optionally archived with `--archive`), or a web archive
(`--site-from SOURCE`). Builds the interceptor's capture / replay parts and the manifest's `site` block.

Why here: the pipeline stays one flow; this module turns the two flags into the interceptor's `archive=` /
`replay=` arguments, reads a bad SOURCE before a run directory exists (one line, exit 2), and sums the run's
requests per tier for the manifest (`site: {mode, source, requests, hits_by_tier, misses, hit_rate,
live_requests}`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawrec.errors import UsageError

REFERENCE = "reference"


@dataclass
class SiteMode:
    archive: bool = False                 # --archive: write RUN/archive.warc.gz
    archive_cap: int | None = None        # bytes of one response body kept (--archive-cap MB)
    source: str | None = None             # --site-from: the archive replayed
    sites: dict[str, str] | None = None   # the source run's {sites.NAME} URLs (a replay answers for them)
    index: Any = None                     # archive.index.ReplayIndex when replaying
    info: dict[str, Any] | None = None    # the archive's replay info (start time, timezone, …)
    capture: Any = None
    replay: Any = None
    env: Any = None                       # clawrec.replay_env.ReplayEnv when replaying (clock + seeded randomness)
    proxy: Any = None                     # clawrec.replay_net.RefusingProxy when replaying (nothing past DevTools)

    @property
    def seed(self) -> int:
        """The replay's random seed: from the archive's start time (one archive, one sequence), never 0."""
        return seed_of((self.info or {}).get("start_epoch") or 0)

    def replay_env(self) -> Any:
        """The replay's process-level clock and seed (clawrec/replay_env.py), made once; None when live."""
        if self.index is None:
            return None
        if self.env is None:
            from clawrec.replay_env import ReplayEnv

            self.env = ReplayEnv(float((self.info or {}).get("start_epoch") or 0), self.seed)
        return self.env

    @property
    def clock_shift(self) -> float:
        """Seconds the replay's browser clock is moved (the run clock removes it from browser timestamps)."""
        env = self.replay_env()
        return env.shift if env is not None else 0.0

    def browser_flags(self) -> list[str]:
        """Chromium flags of a replay: V8 seeds every context's Math.random with the archive's seed (pages, iframes,
        workers alike; no script, no global, no patched native a page could see); the shim's renderer seed; the
        refusing proxy (what Chromium sends past DevTools, a service worker's update check, never leaves)."""
        env = self.replay_env()
        if env is None:
            return []
        if self.proxy is None:
            from clawrec.replay_net import RefusingProxy

            self.proxy = RefusingProxy()
        return [f"--js-flags=--random-seed={self.seed}", *env.flags(), *self.proxy.flags()]

    def browser_env(self) -> dict[str, str]:
        """The browser's environment additions of a replay: the clock shim (the wall clock at the archive's start)."""
        env = self.replay_env()
        return {} if env is None else env.env()

    def parts(self, run_dir: Path, clock: Any, ignore: list[str], secrets: list[str]) -> dict[str, Any]:
        """The Interceptor's keyword arguments for this mode."""
        out: dict[str, Any] = {}
        if self.archive:
            from archive.warc import DEFAULT_CAP
            from interceptor.capture import Capture

            self.capture = Capture(run_dir, self.archive_cap or DEFAULT_CAP, ignore=ignore, secrets=secrets)
            out["archive"] = self.capture
        if self.index is not None:
            from interceptor.replay import Replay

            self.replay = Replay(self.index, run_dir, clock, self.source or "", ignore=ignore, info=self.info)
            out["replay"] = self.replay
        return out

    async def describe_browser(self, icpt: Any) -> None:
        """What a replay needs of the recorded browser (user agent, cookies at start) into the archive's info."""
        if self.capture is None or icpt.conn is None:
            return
        try:
            version = await icpt.conn.root.call("Browser.getVersion")
            cookies = await icpt.conn.root.call("Storage.getCookies")
        except Exception:  # best effort: the archive is still readable without it
            return
        start = self.capture.started.timestamp()
        self.capture.info["determinism"] = {  # what a replay of this archive sets (clawrec/replay_env.py)
            "clock_start_epoch": start, "random_seed": seed_of(start),
            "seeded": ["Math.random", "crypto.getRandomValues", "crypto.randomUUID"]}
        self.capture.info.update(user_agent=version.get("userAgent"), product=version.get("product"),
                                 cookies_at_start=[{k: c.get(k) for k in ("name", "domain", "path")}
                                                   for c in cookies.get("cookies", [])])


def seed_of(start_epoch: float) -> int:
    """A replay's random seed: the archive's start time in seconds (one archive, one sequence), never 0."""
    return int(start_epoch) % 2_147_483_647 or 1


def site_block(icpt: Any, mode: SiteMode | None = None) -> dict[str, Any]:
    """The manifest's `site` block, from the interceptor's replay / capture parts and its HTTP log (a replay's:
    with `determinism`, what its browser's clock and random sources were set to)."""
    replay, capture = getattr(icpt, "replay", None), getattr(icpt, "archive", None)
    if replay is not None:
        env = mode.replay_env() if mode is not None else None
        return {**replay.site(), **({"determinism": env.facts()} if env is not None else {})}
    http = getattr(icpt, "http", None)
    live = sum(1 for r in (http.records if http is not None else []) if r.get("type") == "request")
    block: dict[str, Any] = {"mode": "live", "source": None, "requests": live, "hits_by_tier": {},
                             "misses": 0, "hit_rate": None, "live_requests": live}
    if capture is not None:
        block["archive"] = {"file": "archive.warc.gz", **capture.stats}
    return block


def open_site(archive: bool, archive_cap_mb: float | None, site_from: str | None, spec: Any,
              reference: Path | None) -> SiteMode:
    """Check the flags and read the archive to replay (before any run directory exists)."""
    mode = SiteMode(archive=archive, archive_cap=int(archive_cap_mb * 1024 * 1024) if archive_cap_mb else None)
    if not site_from:
        return mode
    from archive.index import ReplayIndex
    from archive.source import SourceError, open_source

    source: Path | str = site_from
    if site_from == REFERENCE:
        ref = reference or getattr(spec, "reference", None)
        if not ref:
            raise UsageError(f"--site-from reference: {spec.path} names no reference run")
        source = Path(ref)
    try:
        got = open_source(source)
    except SourceError as exc:
        raise UsageError(f"--site-from {exc}") from None
    if not got.exchanges:
        raise UsageError(f"--site-from {source}: the archive holds no HTTP exchange")
    mode.source = str(source)
    mode.sites = _recorded_sites(Path(source))
    mode.index = ReplayIndex(got.exchanges, volatile=getattr(spec, "volatile", ()) or ())
    mode.info = got.info
    return mode


def _recorded_sites(source: Path) -> dict[str, str] | None:
    """The site URLs the source run filled its spec's {sites.NAME} placeholders with (manifest `sites`): a replay
    must ask for the URLs that were recorded."""
    import json

    manifest = source / "manifest.json" if source.is_dir() else None
    try:
        sites = json.loads(manifest.read_text()).get("sites") if manifest is not None else None
    except (OSError, ValueError):
        return None
    return {str(k): str(v) for k, v in sites.items()} if isinstance(sites, dict) else None
