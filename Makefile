# authgate — two commands for a new user: `make run` and `make test`.
# Everything is installed into the project: .venv (the app and its dev tools) and .venv-sam
# (SAM CLI, which pins older boto3/pydantic and so lives on its own).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SAMVENV:= .venv-sam
SAM    := $(SAMVENV)/bin/sam
STAMP  := $(VENV)/.installed
export AWS_DEFAULT_REGION ?= us-east-1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: run test venv sam-venv browser lint validate unit functional e2e bench bench-smoke soak clean

run: $(STAMP)
	$(BIN)/authgate serve

test: $(STAMP) $(SAM) browser validate
	$(BIN)/pytest

venv: $(STAMP)

$(STAMP): pyproject.toml layers/authgate/requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

sam-venv: $(SAM)

$(SAM):
	@test -x $(SAMVENV)/bin/python || $(PYTHON) -m venv $(SAMVENV)
	$(SAMVENV)/bin/python -m pip install -q --disable-pip-version-check aws-sam-cli
	@touch $(SAM)

# Headless Chromium for the login-page test (Debian's package; Playwright drives it).
browser:
	@scripts/ensure-chromium

# The template is validated offline by SAM's linter and by cfn-lint.
validate: $(STAMP) $(SAM)
	$(SAM) validate --lint --template template.yaml
	$(BIN)/cfn-lint template.yaml

unit: $(STAMP)
	$(BIN)/pytest tests/unit

functional: $(STAMP)
	$(BIN)/pytest tests/functional

e2e: $(STAMP) browser
	$(BIN)/pytest tests/e2e

bench: $(STAMP)
	$(BIN)/python -m bench

soak: $(STAMP)
	$(BIN)/python -m bench.soak

clean:
	rm -rf $(VENV) $(SAMVENV) .aws-sam .pytest_cache .hypothesis test-artifacts
