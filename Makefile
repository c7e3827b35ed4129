# authgate — two commands for a new user: `make run` and `make test`.
# Everything is installed into the project: .venv (the app and its dev tools) and .venv-sam
# (SAM CLI, which pins older boto3/pydantic and so lives on its own). A second run only
# reinstalls what changed (stamp files), so it is fast.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# The first Python >= 3.11 on PATH (the project's floor; Lambda runs 3.12).
PYTHON ?= $(shell for p in python3 python3.12 python3.11; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { command -v $$p; break; }; done)
# `sam build` needs python3.12 itself on PATH (the runtime of the template); pyenv keeps one here.
PYTHON312_DIR ?= $(shell for p in python3.12 $$(ls -d $$(pyenv root 2>/dev/null)/versions/3.12*/bin/python3.12 2>/dev/null); do \
	$$p -c '' >/dev/null 2>&1 && { dirname $$(command -v $$p); break; }; done)

VENV     := .venv
BIN      := $(VENV)/bin
# `make run` installs only what serving needs (authgate, authgate-cli[local]); `make test` adds
# the dev tools to the same environment.
RUNSTAMP := $(VENV)/.installed-local
STAMP    := $(VENV)/.installed-dev
SAMVENV  := .venv-sam
SAM      := $(SAMVENV)/bin/sam
SAMSTAMP := $(SAMVENV)/.installed
SAM_CLI_VERSION ?= 1.170.0
# pytest workers (pytest-xdist): both cores by default.
PYTEST_WORKERS ?= auto
export AWS_DEFAULT_REGION ?= us-east-1
export SAM_CLI_TELEMETRY := 0
export PYTHONDONTWRITEBYTECODE := 1

# pip is quiet, except for warnings about configured package locations that do not exist
# on this machine (noise, not news).
PIP_QUIET := -qq --disable-pip-version-check --no-input
PIP_FILTER := 2>&1 | { grep -v -e 'is ignored: it is neither a file nor a directory' || true; }
PACKAGES := pyproject.toml layers/authgate/pyproject.toml layers/authgate/requirements.txt

.PHONY: help run test venv sam-venv browser validate imports typecheck lint unit functional e2e build bench soak clean

help:
	@echo "make run    start the API on http://127.0.0.1:$${PORT:-3000} with demo data (creates .venv)"
	@echo "make test   the whole suite: template linters, then unit, functional and e2e tests"
	@echo "make build  sam build (no Docker; needs python3.12 on PATH)"
	@echo "make bench  the performance report (cold starts, DynamoDB calls, CPU, sizes) -> bench/results.json"
	@echo "make unit | functional | e2e | validate | imports | typecheck | lint | clean"

run: $(RUNSTAMP)
	$(BIN)/authgate serve

# Linters first, pytest last: the output ends with pytest's summary line.
test: $(STAMP) $(SAMSTAMP) browser validate imports typecheck
	$(BIN)/pytest -n $(PYTEST_WORKERS)

venv: $(STAMP)

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "make: Python >= 3.11 is required (set PYTHON=/path/to/python3.11+)" >&2; exit 1; }
	@echo "creating $(VENV) with $(PYTHON)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install $(PIP_QUIET) --upgrade pip $(PIP_FILTER)

# The runtime (authgate) and the command (authgate-cli) with the local stack's extra.
$(RUNSTAMP): $(PACKAGES) | $(BIN)/python
	@echo "installing authgate and authgate-cli[local] into $(VENV)"
	@$(BIN)/python -m pip install $(PIP_QUIET) -e layers/authgate -e '.[local]' $(PIP_FILTER)
	@$(BIN)/python -c 'import authgate_cli.main, moto'
	@touch $(RUNSTAMP)

$(STAMP): $(RUNSTAMP)
	@echo "installing the dev tools (authgate-cli[dev]) into $(VENV)"
	@$(BIN)/python -m pip install $(PIP_QUIET) -e layers/authgate -e '.[dev]' $(PIP_FILTER)
	@$(BIN)/python -c 'import authgate_cli.main, moto, pytest, xdist'
	@touch $(STAMP)

sam-venv: $(SAMSTAMP)

$(SAMSTAMP):
	@test -n "$(PYTHON)" || { echo "make: Python >= 3.11 is required" >&2; exit 1; }
	@test -x $(SAMVENV)/bin/python || { echo "creating $(SAMVENV) with $(PYTHON)"; $(PYTHON) -m venv $(SAMVENV); }
	@echo "installing AWS SAM CLI $(SAM_CLI_VERSION) into $(SAMVENV)"
	@$(SAMVENV)/bin/python -m pip install $(PIP_QUIET) 'aws-sam-cli==$(SAM_CLI_VERSION)' $(PIP_FILTER)
	@$(SAM) --version >/dev/null
	@touch $(SAMSTAMP)

# Headless Chromium for the login-page test (Debian's package; Playwright drives it).
browser:
	@scripts/ensure-chromium >/dev/null

# The template is validated offline by SAM's linter and by cfn-lint.
validate: $(STAMP) $(SAMSTAMP)
	$(SAM) validate --lint --template template.yaml
	$(BIN)/cfn-lint template.yaml

# The runtime's import contract (pyproject.toml [tool.importlinter]): its layers, no cycle, and
# never the tools.
imports: $(STAMP)
	$(BIN)/lint-imports

# The runtime and its handlers, strictly typed: an ApiError whose code is not in the catalogue
# fails here. MYPYPATH: mypy does not follow the editable install's import hook; the handlers
# are checked one by one (every one is a module named `app`).
typecheck: $(STAMP)
	MYPYPATH=layers/authgate $(BIN)/mypy layers/authgate/authgate
	for app in functions/*/app.py; do MYPYPATH=layers/authgate $(BIN)/mypy --strict "$$app"; done

lint: $(STAMP)
	$(BIN)/ruff check layers cli functions tests bench scripts

unit: $(STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests/unit

functional: $(STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests/functional

e2e: $(STAMP) browser
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests/e2e

# sam build without Docker: the layer's arm64 wheels come from PyPI (manylinux aarch64).
build: $(SAMSTAMP)
	@test -n "$(PYTHON312_DIR)" || { echo "make build: python3.12 must be on PATH (sam build runs the template's runtime)" >&2; exit 1; }
	PATH="$(PYTHON312_DIR):$$PATH" $(SAM) build --template template.yaml --cached --parallel

# The performance report (README "Performance"); writes bench/results.json. Cold starts run in
# .venv-bench: boto3 plus the layer's requirements only, as close to Lambda as a venv gets.
BENCHVENV   := .venv-bench
BENCHSTAMP  := $(BENCHVENV)/.installed

bench: $(STAMP) $(BENCHSTAMP)
	$(BIN)/python -m bench

$(BENCHSTAMP): layers/authgate/requirements.txt bench/reference/requirements.txt
	@test -x $(BENCHVENV)/bin/python || { echo "creating $(BENCHVENV) with $(PYTHON)"; $(PYTHON) -m venv $(BENCHVENV); }
	@$(BENCHVENV)/bin/python -m pip install $(PIP_QUIET) boto3 -r layers/authgate/requirements.txt \
	  -r bench/reference/requirements.txt $(PIP_FILTER)
	@touch $(BENCHSTAMP)

soak: $(RUNSTAMP)
	$(BIN)/python -m bench.soak

clean:
	rm -rf $(VENV) $(SAMVENV) .venv-bench .bench-cache .aws-sam .pytest_cache .hypothesis test-artifacts .authgate
