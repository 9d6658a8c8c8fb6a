"""Verification walls: a bot check or CAPTCHA (Cloudflare challenge, Turnstile, reCAPTCHA, hCaptcha, DataDome,
PerimeterX/HUMAN, Akamai, Arkose) stood between the agent and the task. Such a run says nothing about the agent: the
diagnosis names it `verification_wall` with its evidence (where, which marker) and the bench counts it apart.

Evidence, in the recorded layers only (http.jsonl, console.jsonl, agent.jsonl): a request to a wall vendor's script
or challenge path (the page embeds the widget or was replaced by a challenge), a response a wall vendor marked
(`cf-mitigated: challenge`, DataDome/PerimeterX headers, a 403/429/503 from Cloudflare or Akamai's edge), or the
wall's words in what the agent read or the console printed. The first one in time wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

URL_MARKERS = [
    ("Cloudflare Turnstile", re.compile(r"challenges\.cloudflare\.com/turnstile|/turnstile/v\d/api\.js", re.I)),
    ("Cloudflare challenge", re.compile(r"challenges\.cloudflare\.com|/cdn-cgi/challenge-platform/", re.I)),
    ("reCAPTCHA", re.compile(r"(google|recaptcha)\.(com|net)/recaptcha/|gstatic\.com/recaptcha/|"
                             r"/recaptcha/(api2?/|api\.js|enterprise\.js)", re.I)),
    ("hCaptcha", re.compile(r"(^|[/.])hcaptcha\.com/|/hcaptcha(\.min)?\.js", re.I)),
    ("DataDome", re.compile(r"captcha-delivery\.com|(^|[/.])datadome\.co|/datadome[./]", re.I)),
    ("PerimeterX/HUMAN", re.compile(r"px-captcha|px-cdn\.net|px-cloud\.net|perimeterx\.net|/captcha\.js\?.*_px|"
                                    r"(^|[/.])humansecurity\.com", re.I)),
    ("Akamai", re.compile(r"/_sec/cp_challenge/|/_sec/verify\b", re.I)),
    ("Arkose", re.compile(r"arkoselabs\.com|funcaptcha\.com", re.I)),
]
WORDS = re.compile(r"captcha|recaptcha|hcaptcha|turnstile|challenges\.cloudflare|verify (that )?you are (a )?human|"
                   r"are you a robot|unusual traffic|checking (if the site connection is secure|your browser)|"
                   r"attention required! \| cloudflare|pardon our interruption|press (&|and) hold|"
                   r"access to this page has been denied|access denied|bot detection", re.I)
WALL_STATUS = (403, 429, 503)


@dataclass(frozen=True)
class Wall:
    t: float | None
    vendor: str      # the wall's maker, or "unknown" for words alone
    marker: str      # what was seen: the URL part, header or words
    url: str | None  # the request (or page) it was seen on
    source: str      # request | response | agent | console

    def describe(self) -> str:
        where = f" at {self.url[:120]}" if self.url else ""
        return f"{self.vendor} ({self.source}: {self.marker}){where}"

    def to_dict(self) -> dict[str, Any]:
        return {"vendor": self.vendor, "marker": self.marker, "url": self.url, "source": self.source, "t": self.t}


def _headers(response: dict[str, Any]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}


def response_marker(status: Any, headers: dict[str, str]) -> tuple[str, str] | None:
    """(vendor, marker) when a response is a wall vendor's, else None."""
    if headers.get("cf-mitigated", "").lower() == "challenge":
        return "Cloudflare challenge", "cf-mitigated: challenge"
    if any(k.startswith("x-datadome") for k in headers) or "datadome=" in headers.get("set-cookie", ""):
        return "DataDome", next((k for k in headers if k.startswith("x-datadome")), "datadome cookie")
    if any(k.startswith("x-px") for k in headers) or re.search(r"\b_px\w*=", headers.get("set-cookie", "")):
        return "PerimeterX/HUMAN", next((k for k in headers if k.startswith("x-px")), "_px cookie")
    if status in WALL_STATUS:
        server = headers.get("server", "").lower()
        if server == "cloudflare" or "cf-ray" in headers:
            return "Cloudflare", f"{status} from server: cloudflare"
        if server.startswith("akamaighost") or "akamai" in server:
            return "Akamai", f"{status} from server: {headers.get('server')}"
    return None


def find(http: Iterable[Any], agent: Iterable[Any] = (), console: Iterable[Any] = ()) -> Wall | None:
    """The first verification wall in a run's layers (records of rundir.layers / evaluator.console_layer)."""
    found: list[Wall] = []
    for h in http:
        if getattr(h, "type", "request") != "request":
            continue
        url = h.url or ""
        for vendor, pattern in URL_MARKERS:
            if m := pattern.search(url):
                found.append(Wall(h.t, vendor, m.group(0), url, "request"))
                break
        if isinstance(h.response, dict) and (hit := response_marker(h.response.get("status"),
                                                                    _headers(h.response))):
            found.append(Wall(h.t, hit[0], hit[1], url, "response"))
    for m in agent:
        if getattr(m, "role", None) in ("tool_result", "assistant") and (w := WORDS.search(str(m.content)[:20000])):
            found.append(Wall(m.t, "unknown", f"the agent saw \"{w.group(0)}\"", None, "agent"))
    for c in console:
        if w := WORDS.search(c.text or ""):
            found.append(Wall(c.t, "unknown", f"console: {w.group(0)}", c.url, "console"))
    timed = [w for w in found if w.t is not None]
    return min(timed, key=lambda w: w.t) if timed else (found[0] if found else None)
