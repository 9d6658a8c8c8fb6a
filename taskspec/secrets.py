"""The spec's own secrets: `user` values read from the environment (`password: {env: CRM_PASSWORD}`), `user`
fields marked secret (`secrets: [password, card.number]`), and `user` fields whose name the redaction policy calls
secret (`password`, `pin`, `otp`, `card.number`, …: rundir/redact.py), marked or not.

Why here: the checker records where each secret lives (dotted `user` paths, the env variable and its line), and a
run resolves the variables (`resolve_env`) and hands their values to every writer as secrets (`secret_values`), so
the agent gets the value while no run file ever holds it. Pure: no I/O besides reading `environ`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Mapping

from taskspec.fieldpath import MISSING, lookup

MAX_NODES = 10_000  # containers under `user` looked at for {env: NAME}
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def env_ref(value: Any) -> str | None:
    """The variable of a `{env: NAME}` value (None for any other value)."""
    if isinstance(value, dict) and list(value) == ["env"] and isinstance(value["env"], str):
        return value["env"]
    return None


def check(checker: Any, user: dict[str, Any], marked: Any) -> tuple[tuple[str, ...], dict[str, tuple[str, int]]]:
    """(secret user paths, {path: (VAR, line)}) of a spec; problems go to `checker.bad` (FILE:LINE: field: …)."""
    env: dict[str, tuple[str, int]] = {}
    seen: set[int] = set()  # YAML aliases share objects (a recursive alias, a billion laughs): each is walked once

    def walk(value: Any, path: tuple) -> None:
        if isinstance(value, (dict, list)):
            if id(value) in seen or len(seen) > MAX_NODES:
                return
            seen.add(id(value))
        if isinstance(value, dict) and "env" in value:
            name = env_ref(value)
            if name is None:
                checker.bad(path, "an environment value is written {env: NAME} (one key, a string)")
            elif not ENV_NAME.fullmatch(name):
                checker.bad(path + ("env",), f"{name!r} is not an environment variable name")
            else:
                env[".".join(str(p) for p in path[1:])] = (name, checker.lines.line(path))
            return
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, path + (i,))

    walk(user, ("user",))
    paths: list[str] = named_secrets(user)
    if marked is not None:
        if not isinstance(marked, list):
            checker.bad(("secrets",), "must be a list of user field paths (e.g. [password, card.number])")
            marked = []
        for i, p in enumerate(marked):
            if not isinstance(p, str) or not p.strip():
                checker.bad(("secrets", i), "must be a user field path (a string)")
            elif lookup(user, p) is MISSING:
                checker.bad(("secrets", i), f"user has no field {p!r}")
            else:
                paths.append(p)
    return tuple(dict.fromkeys(paths + list(env))), env


def named_secrets(user: dict[str, Any]) -> list[str]:
    """Dotted paths of `user` values whose field name (or dotted path: `card.number`) the redaction policy calls
    secret. Why: a spec that writes `password: admin-pass-123` in clear and forgets `secrets:` must not leak it."""
    from rundir.redact import secret_field

    found: list[str] = []
    seen: set[int] = set()

    def walk(value: Any, path: tuple[str, ...]) -> None:
        if isinstance(value, (dict, list)):
            if id(value) in seen or len(seen) > MAX_NODES:
                return
            seen.add(id(value))
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for k, v in items:
            sub = path + (str(k),)
            if env_ref(v) is not None:
                continue  # an {env:} value is a secret already
            if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                if secret_field(str(k), v) or (len(sub) > 1 and secret_field("_".join(sub[-2:]), v)):
                    found.append(".".join(sub))
            else:
                walk(v, sub)

    walk(user, ())
    return found


def resolve_env(spec: Any, environ: Mapping[str, str]) -> Any:
    """`spec` with every `{env: NAME}` user value read from `environ`; a missing variable raises SpecError naming
    the spec line (`FILE:LINE: user.password: environment variable CRM_PASSWORD is not set`)."""
    from taskspec.yaml_source import Problem, SpecError

    if not spec.env:
        return spec
    missing = [Problem(str(spec.path), line, f"user.{path}", f"environment variable {name} is not set")
               for path, (name, line) in spec.env.items() if name not in environ]
    if missing:
        raise SpecError(missing)
    user = spec.user
    for path, (name, _line) in spec.env.items():
        user = _replaced(user, path.split("."), environ[name])
    return dataclasses.replace(spec, user=user)


def secret_values(spec: Any) -> list[str]:
    """The clear values of the spec's secret user fields (what every writer must replace)."""
    values = []
    for path in spec.secrets:
        value = lookup(spec.user, path)
        if value is not MISSING and env_ref(value) is None and isinstance(value, (str, int, float)) \
                and not isinstance(value, bool):
            values.append(str(value))
    return values


def redact_user(user: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """A copy of `user` with the secret fields replaced (what RUN/task.json keeps)."""
    from rundir.redact import REDACTED

    for p in paths:
        if lookup(user, p) is not MISSING:
            user = _replaced(user, p.split("."), REDACTED)
    return user


def _replaced(value: Any, parts: list[str], new: Any) -> Any:
    """`value` with the field at `parts` set to `new`: only the containers on the path are copied (the rest is
    shared, so a huge `user` costs nothing)."""
    if not parts:
        return new
    head, rest = parts[0], parts[1:]
    if isinstance(value, list):
        out_list = list(value)
        out_list[int(head)] = _replaced(value[int(head)], rest, new)
        return out_list
    return {**value, head: _replaced(value[head], rest, new)}
