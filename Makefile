# The two README commands: `make demo` and `make test`. Each installs what it needs first (idempotent).
PY := .venv/bin/python
CLAWREC := .venv/bin/clawrec

.PHONY: setup openclaw agents apps demo test docs bench soak fuzz clean

setup:
	@bash scripts/setup.sh base

openclaw:
	@bash scripts/setup.sh openclaw

agents:  # browser-use (own venv), Claude Code, Codex, Playwright MCP into .tools/
	@bash scripts/setup.sh agents

apps: setup  # the real applications of apps/ (pinned, each in its own venv) into .tools/apps; a second run installs nothing; APPS=NAME installs only those (also an opt-in app, "default": false)
	@$(CLAWREC) apps install $(APPS)

demo: setup
	@bash scripts/demo.sh

test: setup openclaw agents apps
	@$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

docs: setup  # the documentation site, strict and offline, into build/docs (make test builds it too: tests/docs)
	@NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet && echo "docs: build/docs/index.html"

bench: setup openclaw agents
	@$(PY) -m bench $(BENCH)  # BENCH=factory: clawrec measured on 200 generated sites (bench/factory.py; not in the default set: ~1 h)

soak: setup  # hours: >= 2000 LLM-paced runs at -j 8 with faults, then the end state (bench/soak.py; never in make test)
	@$(PY) -m bench soak

fuzz: setup  # the fuzz suite with many random examples (make test runs a few, derandomized)
	@CLAWREC_FUZZ_EXAMPLES=$${CLAWREC_FUZZ_EXAMPLES:-3000} $(PY) -m pytest -q -p no:cacheprovider tests/taskspec/test_fuzz.py

clean:
	rm -rf .venv .tools runs
