# Two entry points: `make demo` runs the offline demo, `make test` runs lint, types and tests.
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PIP := $(BIN)/python -m pip install --constraint constraints.txt

.PHONY: demo test install clean

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/rag-guard demo

test: $(STAMP)
	$(BIN)/ruff check rag_guard_integrations tests benchmarks notebooks tools
	$(BIN)/ruff format --check rag_guard_integrations tests benchmarks notebooks tools
	$(BIN)/mypy
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(PIP) torch==2.13.0
	$(PIP) -e '.[all,dev]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache
