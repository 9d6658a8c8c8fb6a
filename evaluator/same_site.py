"""When two URLs of two runs name the same site and page: the one notion the payload judge, diagnose (its step
keys and failure causes) and consistency share.

Why one module: a run and its reference are served on different random loopback ports (local sites, a real
application started per run), so a port alone must never make two pages differ in one judge and agree in another.
Two URLs are on the same site when, after the run's own local sites are written `{sites.NAME}/` (the manifest's
`sites`), their origins are equal, or both are loopback origins of one scheme (127.0.0.1, localhost, ::1; any port).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from rundir.reader import RunDir

LOOPBACK = ("127.0.0.1", "localhost", "::1")
LOOPBACK_HOST = "{loopback}"   # how a loopback origin reads in a site key: any loopback host, any port


def canonical_url(url: str, run: RunDir | None) -> str:
    """A URL with the run's local site base (manifest `sites`: name → base URL) replaced by `{sites.NAME}/`,
    so that two runs of the same local site served on different random ports compare equal."""
    sites = run.manifest.get("sites") if run is not None else None
    if isinstance(sites, dict):
        for name, base in sorted(sites.items(), key=lambda kv: -len(str(kv[1]))):
            base = str(base).rstrip("/") + "/"
            if url.startswith(base) or url + "/" == base:
                return f"{{sites.{name}}}/" + url[len(base):]
    return url


def is_loopback(url: str) -> bool:
    try:
        return urlsplit(url).hostname in LOOPBACK
    except ValueError:
        return False


def site_of(url: str, run: RunDir | None = None) -> str:
    """The site a URL is on: `{sites.NAME}` for a local site of the run, `scheme://{loopback}` for any other
    loopback origin, else `scheme://host:port` as written."""
    c = canonical_url(url, run)
    if c.startswith("{sites."):
        return c.split("}", 1)[0] + "}"
    try:
        parts = urlsplit(c)
    except ValueError:
        return c
    if parts.hostname in LOOPBACK:
        return f"{parts.scheme}://{LOOPBACK_HOST}"
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme else c


def page_key(url: str, run: RunDir | None = None) -> str:
    """The page a URL names, for comparing two runs: its site (site_of) and path, without query and fragment."""
    c = canonical_url(url, run).split("#", 1)[0].split("?", 1)[0]
    if c.startswith("{sites."):
        return c
    try:
        parts = urlsplit(c)
    except ValueError:
        return c
    return site_of(c) + parts.path if parts.scheme else c


def same_site(a: str, b: str) -> tuple[bool, str | None]:
    """(a and b are origins of the same site, a note when that holds only because loopback ports are ignored)."""
    if a == b:
        return True, None
    if site_of(a) == site_of(b) and is_loopback(a):
        return True, f"loopback origins {a} and {b} differ only by port (local sites get random ports)"
    return False, None
