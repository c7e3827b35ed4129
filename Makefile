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
# checkov pins many libraries of its own: like SAM CLI, it lives in its own environment.
CHECKOVVENV  := .venv-checkov
CHECKOV      := $(CHECKOVVENV)/bin/checkov
CHECKOVSTAMP := $(CHECKOVVENV)/.installed
CHECKOV_VERSION ?= 3.3.30
# The IAM policy simulator the least-privilege check runs (Node; tools/iam-simulate's lock file).
IAMSIM      := tools/iam-simulate
IAMSIMSTAMP := $(IAMSIM)/node_modules/.installed
# The OAuth client library the browser-client test runs in Chromium (oauth4webapi, pinned by the
# lock file). Defined before any rule names it: make expands prerequisites as it reads them.
NPMDIR   := tests/e2e/js
NPMSTAMP := $(NPMDIR)/node_modules/.installed
# The upstream OpenID Provider the relying party's interop tests sign in at (panva's oidc-provider, pinned by the
# lock file; tests/e2e/test_upstream_oidc_interop.py).
OPDIR   := tests/e2e/oidc_provider
OPSTAMP := $(OPDIR)/node_modules/.installed
# The MCP example (examples/mcp, docs/mcp.md) in an environment of its own: its few dependencies,
# none of authgate's, so the e2e tests prove it runs as a reader installs it.
MCPEXAMPLE      := examples/mcp
MCPEXAMPLESTAMP := $(MCPEXAMPLE)/.venv/.installed
# Templates the linters and scanners read.
TEMPLATES := template.yaml deploy/apigateway-account.yaml
# pytest workers (pytest-xdist): both cores by default.
PYTEST_WORKERS ?= auto
# The suite and the linters run on moto and need some region. A deploy, a teardown and the account
# setup use the caller's own (REGION=, AWS_REGION, AWS_DEFAULT_REGION, the profile's), never this one:
# a default here would hide a missing region and override the profile's.
ifeq ($(filter deploy teardown account-setup,$(MAKECMDGOALS)),)
export AWS_DEFAULT_REGION ?= us-east-1
endif
export SAM_CLI_TELEMETRY := 0
export PYTHONDONTWRITEBYTECODE := 1

# pip is quiet, except for warnings about configured package locations that do not exist
# on this machine (noise, not news).
PIP_QUIET := -qq --disable-pip-version-check --no-input
PIP_FILTER := 2>&1 | { grep -v -e 'is ignored: it is neither a file nor a directory' || true; }
PACKAGES := pyproject.toml layers/authgate/pyproject.toml layers/authgate/requirements.txt

.PHONY: help run test test-fast venv sam-venv checkov-venv iam-simulator browser saml-idp mcp-example validate imports deadcode typecheck lint unit functional e2e \
	build bench soak fuzz clean deploy account-setup teardown release-snapshot

help:
	@echo "make run    serve the API on http://127.0.0.1:$${PORT:-3000} and the demo app on :$${CALLBACK_PORT:-8765} (creates .venv)"
	@echo "make test   the whole suite: template linters, then unit, functional and e2e tests"
	@echo "make test-fast   the quick loop (about a minute): unit and functional tests not marked slow"
	@echo "make build  sam build (no Docker; needs python3.12 on PATH)"
	@echo "make bench  the performance report (cold starts, DynamoDB calls, CPU, sizes) -> bench/results.json"
	@echo "make deploy STAGE=staging|production   build and deploy one stage (docs/deploy.md); DRY_RUN=1 prints the commands"
	@echo "make account-setup   once per AWS account and region: API Gateway's CloudWatch logging role"
	@echo "make teardown STAGE=...   delete a stage's stack; its data (tables, secret, logs) is kept"
	@echo "make fuzz   the parser fuzz targets at length (FUZZ_EXAMPLES per target); new outcomes kept in tests/fuzz/corpus"
	@echo "make mcp-example   the MCP server and client of docs/mcp.md in their own environment (examples/mcp/.venv)"
	@echo "make unit | functional | e2e | validate | imports | deadcode | typecheck | lint | clean"

# HOST=localhost serves and advertises http://localhost:PORT (passkeys: WebAuthn refuses IP addresses).
run: $(RUNSTAMP)
	$(BIN)/authgate serve $(if $(HOST),--host $(HOST))

# Linters first, pytest last: the output ends with pytest's summary line. --iam-unused: the whole
# suite records every AWS call of every function, and a grant none of them needs fails the run
# (tests/deploy/iam).
test: $(STAMP) $(SAMSTAMP) $(IAMSIMSTAMP) browser saml-idp $(NPMSTAMP) $(OPSTAMP) $(MCPEXAMPLESTAMP) validate imports \
		deadcode typecheck
	$(BIN)/pytest -n $(PYTEST_WORKERS) --iam-unused

# The quick loop while you work (CONTRIBUTING.md): what runs in-process and takes well under half
# a second. Left out, and run by `make test`: tests marked slow (real servers, Chromium and Node,
# hypothesis, full-cost scrypt sign-ins, thread storms; tests/conftest.py) and the fault, fuzz,
# deploy and bench folders. Bytecode is cached here (__pycache__ is ignored by git and by the
# packaging): a second run starts seconds sooner than with Python and pytest compiling it all again.
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -m "not slow" -n $(PYTEST_WORKERS) tests/unit tests/functional

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

checkov-venv: $(CHECKOVSTAMP)

$(CHECKOVSTAMP):
	@test -n "$(PYTHON)" || { echo "make: Python >= 3.11 is required" >&2; exit 1; }
	@test -x $(CHECKOVVENV)/bin/python || { echo "creating $(CHECKOVVENV) with $(PYTHON)"; $(PYTHON) -m venv $(CHECKOVVENV); }
	@echo "installing checkov $(CHECKOV_VERSION) into $(CHECKOVVENV)"
	@$(CHECKOVVENV)/bin/python -m pip install $(PIP_QUIET) 'checkov==$(CHECKOV_VERSION)' $(PIP_FILTER)
	@$(CHECKOV) --version >/dev/null
	@touch $(CHECKOVSTAMP)

iam-simulator: $(IAMSIMSTAMP)

# npm ci: exactly the versions of the committed lock file.
$(IAMSIMSTAMP): $(IAMSIM)/package.json $(IAMSIM)/package-lock.json
	@command -v node >/dev/null || { echo "make: the IAM check needs Node.js (apt-get install nodejs npm)" >&2; exit 1; }
	@echo "installing the IAM policy simulator into $(IAMSIM)/node_modules"
	@cd $(IAMSIM) && npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $(IAMSIMSTAMP)

# Headless Chromium for the page tests (Debian's package; Playwright drives it).
browser:
	@scripts/ensure-chromium >/dev/null

# SimpleSAMLphp on PHP (Debian's packages): the SAML IdP of the federation interop tests (tests/e2e/saml_idp).
saml-idp:
	@scripts/ensure-simplesamlphp >/dev/null

$(NPMSTAMP): $(NPMDIR)/package.json $(NPMDIR)/package-lock.json
	@command -v npm >/dev/null || { echo "make: npm (Node.js 20+) is required for the browser-client test" >&2; exit 1; }
	@echo "installing $(NPMDIR) (npm ci)"
	@npm ci --prefix $(NPMDIR) --no-audit --no-fund --loglevel=error
	@touch $(NPMSTAMP)

$(OPSTAMP): $(OPDIR)/package.json $(OPDIR)/package-lock.json
	@command -v npm >/dev/null || { echo "make: npm (Node.js 20+) is required for the upstream OpenID Provider" >&2; exit 1; }
	@echo "installing $(OPDIR) (npm ci)"
	@npm ci --prefix $(OPDIR) --no-audit --no-fund --loglevel=error
	@touch $(OPSTAMP)

mcp-example: $(MCPEXAMPLESTAMP)

# Editable: the environment follows the example's files; only its dependencies need a reinstall.
$(MCPEXAMPLESTAMP): $(MCPEXAMPLE)/pyproject.toml
	@test -n "$(PYTHON)" || { echo "make: Python >= 3.11 is required" >&2; exit 1; }
	@test -x $(MCPEXAMPLE)/.venv/bin/python || { echo "creating $(MCPEXAMPLE)/.venv with $(PYTHON)"; \
		$(PYTHON) -m venv $(MCPEXAMPLE)/.venv; }
	@echo "installing the MCP example and its dependencies into $(MCPEXAMPLE)/.venv"
	@$(MCPEXAMPLE)/.venv/bin/python -m pip install $(PIP_QUIET) -e '$(MCPEXAMPLE)[lambda]' $(PIP_FILTER)
	@$(MCPEXAMPLE)/.venv/bin/python -c 'import mcp_server, mcp_client, metadata_document'
	@touch $(MCPEXAMPLESTAMP)

# The templates are validated offline by SAM's linter, cfn-lint (its informational checks too)
# and checkov; every remaining finding is fixed or suppressed in the template with its reason.
# Last, no change may replace a stateful resource of the last release (scripts/replacement_check.py).
validate: $(STAMP) $(SAMSTAMP) $(CHECKOVSTAMP)
	$(SAM) validate --lint --template template.yaml
	$(BIN)/cfn-lint --include-checks I -- $(TEMPLATES)
	$(CHECKOV) --quiet --compact --framework cloudformation --skip-download $(addprefix -f ,$(TEMPLATES))
	$(BIN)/python scripts/replacement_check.py

# After a release reaches production: what it deployed becomes the template later changes are
# checked against (scripts/replacement_check.py; a change must never replace a table, the
# secret or a log group). Commit deploy/released-template.yaml with the release.
release-snapshot:
	cp template.yaml deploy/released-template.yaml

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
	$(BIN)/ruff check layers cli functions tests bench scripts examples

# Dead code: vulture over everything the repository runs (pyproject.toml [tool.vulture]); a name
# used only through a string or an interface goes in tools/deadcode_whitelist.py.
deadcode: $(STAMP)
	$(BIN)/vulture

unit: $(STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests/unit

functional: $(STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests/functional

e2e: $(STAMP) browser saml-idp $(NPMSTAMP) $(OPSTAMP) $(MCPEXAMPLESTAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests/e2e

# sam build without Docker: the layer's arm64 wheels come from PyPI (manylinux aarch64).
build: $(SAMSTAMP)
	@test -n "$(PYTHON312_DIR)" || { echo "make build: python3.12 must be on PATH (sam build runs the template's runtime)" >&2; exit 1; }
	PATH="$(PYTHON312_DIR):$$PATH" $(SAM) build --template template.yaml --cached --parallel

# ---------------------------------------------------------------------------- deploy (docs/deploy.md)
# `make deploy STAGE=staging` checks the account (one line and a stop when a region, credentials or
# the logging role are missing), then builds and deploys with samconfig.toml's environment: no prompt.
# DRY_RUN=1 prints the commands instead of running them (tests/deploy/test_deploy_command.py).
STAGE   ?=
# SAM CLI reads AWS_DEFAULT_REGION and the profile but not AWS_REGION, which the AWS CLI (and the
# preflight) honour first: it is passed on as --region.
REGION  ?= $(AWS_REGION)
DRY_RUN ?=
REGION_FLAG   = $(if $(REGION), --region $(REGION))
DEPLOY_CMD    = $(SAM) deploy --config-env $(STAGE) --no-confirm-changeset --no-fail-on-empty-changeset$(REGION_FLAG)
PREFLIGHT_CMD = $(BIN)/python scripts/deploy_check.py preflight$(REGION_FLAG)
OUTPUTS_CMD   = $(BIN)/python scripts/deploy_check.py outputs --config-env $(STAGE)$(REGION_FLAG)
TEARDOWN_CMD  = $(SAM) delete --config-env $(STAGE) --no-prompts$(REGION_FLAG)
ACCOUNT_CMD   = $(SAM) deploy --template-file deploy/apigateway-account.yaml --stack-name authgate-account \
	--capabilities CAPABILITY_IAM --no-confirm-changeset --no-fail-on-empty-changeset$(REGION_FLAG)
CHECK_STAGE   = case "$(STAGE)" in staging|production) ;; \
	*) echo "make $@: set STAGE=staging or STAGE=production (samconfig.toml's environments)" >&2; exit 2;; esac

ifdef DRY_RUN
deploy:
	@$(CHECK_STAGE)
	@echo "$(PREFLIGHT_CMD)"
	@echo "$(MAKE) build"
	@echo "$(DEPLOY_CMD)"
	@echo "$(OUTPUTS_CMD)"

teardown:
	@$(CHECK_STAGE)
	@echo "$(TEARDOWN_CMD)"

account-setup:
	@echo "$(ACCOUNT_CMD)"
else
deploy: $(RUNSTAMP) $(SAMSTAMP)
	@$(CHECK_STAGE)
	@$(PREFLIGHT_CMD)
	$(MAKE) build
	$(DEPLOY_CMD)
	$(OUTPUTS_CMD)

# The stack goes; what it retains stays: tables, the session secret, log groups (docs/deploy.md).
teardown: $(SAMSTAMP)
	@$(CHECK_STAGE)
	$(TEARDOWN_CMD)
	@echo "kept: the stage's DynamoDB tables, session secret and log groups (docs/deploy.md, Teardown)"

account-setup: $(SAMSTAMP)
	$(ACCOUNT_CMD)
endif

# The performance report; writes bench/results.json and docs/performance.md. Cold starts run in
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

# The parser fuzz targets (tests/fuzz/test_parsers.py) at length: `make test` runs a few examples
# per target and replays tests/fuzz/corpus; this runs FUZZ_EXAMPLES per target and appends every
# input with an outcome the corpus has not seen (or that fails) to it: commit what it adds.
# One process: the corpus files are appended to.
FUZZ_EXAMPLES ?= 2000
fuzz: $(STAMP)
	AUTHGATE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) AUTHGATE_FUZZ_RECORD=1 $(BIN)/pytest -n 0 -p no:randomly \
	  tests/fuzz/test_parsers.py tests/fuzz/test_inputs.py

soak: $(RUNSTAMP)
	$(BIN)/python -m bench.soak

clean:
	rm -rf $(VENV) $(SAMVENV) $(CHECKOVVENV) $(IAMSIM)/node_modules $(NPMDIR)/node_modules $(OPDIR)/node_modules \
		.venv-bench .bench-cache \
		$(MCPEXAMPLE)/.venv \
		.aws-sam .pytest_cache .hypothesis test-artifacts .authgate
