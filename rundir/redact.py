"""THE redaction policy: what counts as a secret in any record clawrec writes, and how it is replaced.

Why one pure module: every layer (http.jsonl, http.har, interceptions.jsonl, actions, agent messages, screenshots'
metadata, and report.html, which is rendered from them) must hide the same things; one policy applied by the one
JSONL writer (rundir/records.py JsonlWriter) cannot drift between layers. A secret is replaced by `[redacted]`
(docs/howto/secrets.md):
- by name: HTTP headers, query parameters, body and record fields whose name is a secret's (`secret_name`), also
  inside JSON a body carries in a string field (Salesforce Aura's form field `message={"actions":…}`: `json_in`),
  and the value of an HTML `<input>`/`<meta>` so named in any text (`redact_html`: a CSRF token in HTML);
- by input: an action on an input whose type/autocomplete/name says secret (password, one-time-code, cc-number,
  cc-csc) keeps no value and no printable key (`redact_action`);
- by value: the spec's own secret values (`{env: NAME}` and `secrets:` user fields), the recorder's channel token,
  a single-use login URL, wherever they appear in any string (`Redactor.values`), also in the byte streams an
  agent prints (`StreamRedactor`: agent.stdout.log, agent.stderr.log).
Non-secret fields stay as they were, so the judge still reads the terminal payload.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Iterable
from urllib.parse import quote_plus

from rundir.jsondepth import MAX_RECORD_DEPTH, loads_bounded

REDACTED = "[redacted]"
MIN_VALUE_LEN = 3  # shorter values are not scrubbed by value (they would hit unrelated text); names still apply

SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
                            "x-auth-token", "x-csrf-token", "x-xsrf-token"})
# Words that make a name secret wherever they appear in it (words: split at _ - . space and camelCase).
SECRET_WORDS = frozenset({"password", "passwd", "passphrase", "pwd", "secret", "pin", "otp", "totp", "hotp",
                          "token", "cvc", "cvv", "cvv2", "csc", "ccv", "apikey", "cookie", "authorization"})
# Word sequences that together make a name secret (joined without separators).
SECRET_JOINED = frozenset({"pass", "apikey", "accesskey", "secretkey", "privatekey", "clientsecret", "cardnumber",
                           "cardnum", "ccnumber", "ccnum", "ccno", "creditcard", "creditcardnumber", "securitycode",
                           "cardcode", "cardcvc", "cardcvv", "onetimecode", "onetimepassword", "verificationcode",
                           "mfacode", "twofactorcode", "2facode", "smscode", "authcode", "setcookie"})
# Names that hold a secret word but no secret: a job form's work authorization is a legal status (the demo jobs task's
# `work_authorization: yes` was written `[redacted]`, so the payload judge failed every agent on it); pretix's
# `?require_cookie=true` (a flag after its cart add: archived as [redacted], a replay answered the event page's
# URL with its first, cartless capture).
NOT_SECRET_JOINED = frozenset({"workauthorization", "requirecookie"})
# A CSRF token is a secret (docs/howto/secrets.md): its cookie is redacted, so the field that pairs
# with it is too, whatever the framework calls it: Django's `csrfmiddlewaretoken` (one word), `csrftoken`, Express's
# `_csrf`, `xsrf`, WordPress's `_wpnonce` (Rails' `authenticity_token`, Laravel's `_token`, `csrf_token` and
# ASP.NET's `__RequestVerificationToken` hold the word `token`). Judges skip it as volatile (taskspec/volatile.py).
CSRF_PARTS = ("csrf", "xsrf", "wpnonce")
SECRET_SUFFIXES = ("token", "secret", "key")  # a header named `*-token`, `*-secret`, `*-key`
ONE_TIME_CODE = re.compile(r"\d{4,8}")  # a bare `code` field is secret when its value looks like a one-time code
ONE_TIME_CODE_NAMES = ("code", "otp_code")
KEY_CACHE = 4096  # record keys whose decision a Redactor keeps (bodies bring arbitrary keys: bounded)
_PLAIN = (int, float, bool, type(None))  # values with nothing to scrub (a secret-named one is decided before)
SECRET_AUTOCOMPLETE = re.compile(r"\b(?:new-password|current-password|password|one-time-code|cc-number|cc-csc)\b")
# Every name, input or parameter the policy redacts contains one of these (lower case): a line without any, and
# without a secret value, is written as it is (the walk below costs ~20x these substring searches; a regex ~7x).
SUSPECT = ("pass", "pwd", "secret", "pin", "otp", "token", "cvc", "cvv", "ccv", "csc", "key", "cookie", "authori",
           "card", "code", "cc-", "ccn", *CSRF_PARTS)
JSON_IN_LIMIT = 1024 * 1024  # characters of a string field still parsed for the JSON it holds (`json_in`)
JSON_IN_NEST = 3  # JSON in a string in JSON in a string …: levels looked into (each may be MAX_RECORD_DEPTH deep,
                  # so a hostile body cannot make the walk recurse past Python's limit)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_QUERY = re.compile(r"([?&;])([^=&#;\s\"]+)=([^&#;\s\"]*)")
_URLISH = ("http://", "https://", "ws://", "wss://", "/", "?")


def words(name: str) -> list[str]:
    """`X-Api-Key` -> [x, api, key]; `cardNumber` -> [card, number]; `client_secret` -> [client, secret]."""
    return [w.lower() for w in _WORD.findall(name)]


def csrf_name(name: Any) -> bool:
    """A field, header or cookie name that holds a CSRF token (see CSRF_PARTS; also any `*token` name with `csrf`)."""
    return isinstance(name, str) and 0 < len(name) <= 80 and any(p in name.lower() for p in CSRF_PARTS)


def secret_name(name: Any) -> bool:
    """A header, query parameter or field name whose value is a secret (the table of docs/howto/secrets.md)."""
    if not isinstance(name, str) or not name or len(name) > 80:
        return False
    return _secret_name(name)


@functools.lru_cache(maxsize=8192)  # the same few hundred names recur in every record: decided once each
def _secret_name(name: str) -> bool:
    low = name.lower()
    if low in SECRET_HEADERS:
        return True
    parts = words(name)
    if not parts or "".join(parts) in NOT_SECRET_JOINED:
        return False
    if any(w in SECRET_WORDS for w in parts) or csrf_name(low):
        return True
    joined = "".join(parts)
    if joined in SECRET_JOINED or any(j in joined for j in ("apikey", "clientsecret", "cardnumber", "ccnumber",
                                                             "accesstoken", "refreshtoken", "onetimecode")):
        return True
    # `x-api-key`, `x-goog-secret`, `stripe_key`: two words or more ending in token/secret/key
    return len(parts) >= 2 and parts[-1] in SECRET_SUFFIXES and not low.startswith("sec-websocket")


def secret_field(name: Any, value: Any) -> bool:
    """`secret_name`, plus a bare `code` holding a one-time code (4–8 digits)."""
    if secret_name(name):
        return True
    return isinstance(name, str) and name.lower() in ONE_TIME_CODE_NAMES and \
        ONE_TIME_CODE.fullmatch(str(value).strip()) is not None


def secret_input(target: Any) -> bool:
    """An action target (the extension's descriptor) that is a secret input: type password, autocomplete
    password/one-time-code/cc-number/cc-csc, or a field named like a secret (name attribute or id)."""
    if not isinstance(target, dict):
        return False
    if target.get("secret") is True or str(target.get("type") or "").lower() == "password":
        return True
    if SECRET_AUTOCOMPLETE.search(str(target.get("autocomplete") or "").lower()):
        return True
    return any(secret_name(target.get(k)) for k in ("name_attr", "id"))


def redact_url(url: str) -> str:
    """`url` with the values of secret-named query parameters replaced (the rest byte for byte)."""
    if "=" not in url or not any(c in url for c in "?&;"):
        return url
    return _QUERY.sub(lambda m: f"{m[1]}{m[2]}={REDACTED}" if secret_field(_unquote(m[2]), _unquote(m[3]))
                      and m[3] else m[0], url)


_TAG = re.compile(r"<(?:input|meta)\b[^<>]*>", re.I)
_TAG_NAME = re.compile(r"""(?<![\w-])(?:name|property)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I)
_TAG_VALUE = re.compile(r"""((?<![\w-])(?:value|content)\s*=\s*)(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+)""", re.I)


def redact_html(text: str) -> str:
    """`text` with the value of each `<input>` and `<meta>` whose name is a secret's replaced: a CSRF token in a
    form or a `<meta name="csrf-token">` of HTML an XHR answered (http.jsonl keeps such response bodies), a page's
    source an agent printed. The rest of the text byte for byte."""
    if not _TAG.search(text):
        return text

    def tag(m: re.Match[str]) -> str:
        found = _TAG_NAME.search(m.group(0))
        name = next((g for g in found.groups() if g is not None), "") if found else ""
        if not secret_name(name):
            return m.group(0)
        return _TAG_VALUE.sub(lambda a: f'{a.group(1)}"{REDACTED}"', m.group(0))

    return _TAG.sub(tag, text)


def _unquote(text: str) -> str:
    from urllib.parse import unquote_plus
    return unquote_plus(text)


def secret_values(value: Any, found: list[str] | None = None, _nest: int = 0) -> list[str]:
    """The clear values of secret-named fields inside a decoded body (to scrub a raw body of them too)."""
    found = [] if found is None else found
    if isinstance(value, dict):
        for k, v in value.items():
            if secret_field(k, v) and isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v):
                found.append(str(v))
            else:
                secret_values(v, found, _nest)
    elif isinstance(value, list):
        for v in value:
            secret_values(v, found, _nest)
    elif isinstance(value, str) and _nest < JSON_IN_NEST:
        inner = json_in(value)
        if inner is not None:
            secret_values(inner, found, _nest + 1)
    return found


def json_in(value: str) -> Any:
    """The JSON object or list a string field holds (Aura's `message=` form field, a `data` field of JSON text),
    when it may hold a secret name; else None. Why: the key policy must see inside it, or a token there would reach
    the raw copies (interceptions.jsonl `raw`, the archive's request body) and the decoded body's string as it was."""
    head = value[:1] if value[:1] in "{[" else value.lstrip()[:1]
    if head not in ("{", "[") or len(value) > JSON_IN_LIMIT:
        return None
    low = value.lower()
    if not any(word in low for word in SUSPECT):  # no secret name inside: not parsed (most strings, fast)
        return None
    try:
        inner = loads_bounded(value, MAX_RECORD_DEPTH)
    except ValueError:  # not JSON (a brace in prose), or too deep: by-value redaction still applies to it
        return None
    return inner if isinstance(inner, (dict, list)) else None


class Redactor:
    """The policy with one run's secret values. `record(obj)` returns `obj` redacted (a new object where anything
    changed); `values` may grow during the run (learnt secrets are shared by every writer holding this object)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.values: list[str] = []
        self._keys: dict[str, tuple[str, bool, bool]] = {}
        self._keys_n = 0
        self.add(values)

    def add(self, values: Iterable[str]) -> None:
        for v in values:
            if isinstance(v, str) and len(v) >= MIN_VALUE_LEN and v not in self.values:
                self.values.append(v)
                enc = quote_plus(v)  # as it appears in a query string or a form body
                if enc != v and enc not in self.values:
                    self.values.append(enc)
        self.values.sort(key=len, reverse=True)

    def suspect(self, line: str) -> bool:
        """Whether `line` (a serialized record) may hold anything to redact; False means it certainly does not."""
        low = line.lower()
        return any(word in low for word in SUSPECT) or any(v in line for v in self.values)

    def text(self, text: str) -> str:
        """`text` with every secret value replaced, and secret query parameters if it is a URL."""
        for v in self.values:
            if v in text:
                text = text.replace(v, REDACTED)
        if "=" in text and (text.startswith(_URLISH) or "://" in text[:12]):
            text = redact_url(text)
        if "<" in text and "=" in text:
            text = redact_html(text)
        return text

    def _key(self, k: Any) -> tuple[Any, bool, bool]:
        """A record key as written (secret values scrubbed from it), whether it is a secret name, and whether it is a
        bare `code` (secret when its value is a one-time code): decided once per key while the values stay the same.
        Why: the HTTP log's records repeat the same few dozen keys (headers, timing), and deciding each again per
        record was most of the walk (measured, bench/http_cpu.py)."""
        if not isinstance(k, str):
            return k, False, False
        n = len(self.values)
        got = (self.text(k), secret_name(k), k.lower() in ONE_TIME_CODE_NAMES)
        if len(self._keys) < KEY_CACHE and n == self._keys_n == len(self.values):  # not if a value came meanwhile
            self._keys[k] = got
        return got

    def record(self, obj: Any) -> Any:
        if self._keys_n != len(self.values):  # a value learnt since: every key is decided again
            self._keys.clear()
            self._keys_n = len(self.values)
        return self._walk(obj)

    def _walk(self, obj: Any) -> Any:
        if isinstance(obj, dict):
            if "target" in obj and secret_input(obj.get("target")):
                obj = redact_action(obj)
            out = {}
            keys = self._keys
            for k, v in obj.items():  # a loop, not a call per value: the HTTP log's records are mostly numbers
                name, secret, code = keys.get(k) or self._key(k)
                if (secret or (code and ONE_TIME_CODE.fullmatch(str(v).strip()) is not None)) and _scalar(v):
                    out[name] = REDACTED
                elif type(v) in _PLAIN:
                    out[name] = v
                elif isinstance(v, str):
                    out[name] = self.text(v)
                elif isinstance(v, (dict, list)):
                    out[name] = self._walk(v)
                else:
                    out[name] = v
            return out
        if isinstance(obj, list):
            return [self._walk(v) for v in obj]
        if isinstance(obj, str):
            return self.text(obj)
        return obj


class StreamRedactor:
    """The policy's by-value rule over a byte stream (an agent's stdout/stderr), chunk by chunk: a value split
    across two reads is still caught, because the longest tail that could begin a secret value is held back until
    the next chunk decides it (`end()` releases it). Everything else passes at once, so the writer never waits."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._held = b""
        self._key: tuple[str, ...] = ()
        self._needles: list[bytes] = []

    def feed(self, chunk: bytes) -> bytes:
        """What may be written now of everything fed so far (secret values replaced)."""
        data = self._held + chunk
        needles = self._values()
        for v in needles:
            if v in data:
                data = data.replace(v, REDACTED.encode())
        keep = _partial_tail(data, needles)
        self._held = data[len(data) - keep:] if keep else b""
        return data[:len(data) - keep]

    def end(self) -> bytes:
        """The held tail at the end of the stream (it did not become a secret)."""
        held, self._held = self._held, b""
        return held

    def _values(self) -> list[bytes]:
        key = tuple(self.redactor.values)  # may grow during the run: re-encoded when it does
        if key != self._key:
            found: set[bytes] = set()
            for v in key:
                found.add(v.encode())
                found.add(json.dumps(v)[1:-1].encode())  # as it appears inside a JSON string the agent prints
            self._key, self._needles = key, sorted(found, key=len, reverse=True)
        return self._needles


def _partial_tail(data: bytes, needles: list[bytes]) -> int:
    """Length of the longest suffix of `data` that is a proper prefix of a needle (0: nothing to hold)."""
    best = 0
    for v in needles:
        start = max(0, len(data) - len(v) + 1)
        i = data.find(v[:1], start)
        while i != -1 and len(data) - i > best:
            if v.startswith(data[i:]):
                best = len(data) - i
                break
            i = data.find(v[:1], i + 1)
    return best


def _scalar(v: Any) -> bool:
    return isinstance(v, (str, int, float)) and not isinstance(v, bool) and v != ""


def redact_action(record: dict[str, Any]) -> dict[str, Any]:
    """An action on a secret input: no value, no text, no printable key (Enter, Tab, arrows stay)."""
    out = dict(record)
    for k in ("value", "text"):
        if out.get(k) not in (None, ""):
            out[k] = None
            out["masked"] = True
    if isinstance(out.get("key"), str) and len(out["key"]) == 1:
        out["key"], out["code"], out["masked"] = None, None, True
    return out


def redact_headers(headers: dict[str, Any] | None) -> dict[str, Any]:
    """Headers with secret-named values replaced (the names stay)."""
    return {k: (REDACTED if secret_name(k) else v) for k, v in (headers or {}).items()}


def mask_fields(value: Any, _nest: int = 0) -> Any:
    """A decoded body with the values of secret-named fields replaced (structure and other fields kept). A string
    field holding JSON with a secret field (`json_in`) is written back as compact JSON (JSON.stringify's form, so a
    page's `JSON.stringify` output changes only where a value was masked); the judge still reads its fields."""
    if isinstance(value, dict):
        return {k: (REDACTED if secret_field(k, v) and _scalar(v) else mask_fields(v, _nest))
                for k, v in value.items()}
    if isinstance(value, list):
        return [mask_fields(v, _nest) for v in value]
    if isinstance(value, str) and _nest < JSON_IN_NEST:
        inner = json_in(value)
        if inner is not None and secret_values(inner, None, _nest + 1):
            return json.dumps(mask_fields(inner, _nest + 1), ensure_ascii=False, separators=(",", ":"))
    return value
