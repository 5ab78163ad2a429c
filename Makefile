# `make test` and `make demo` work on a fresh machine with only python3, pip and make:
# they create .venv and install tsjit (editable) with its test tools when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lit pytest bench opinfo modules gradients archives fuzz clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/lit -sv test/filecheck
	$(BIN)/pytest -n auto test

lit: $(STAMP)
	$(BIN)/lit -sv test/filecheck

pytest: $(STAMP)
	$(BIN)/pytest -n auto test

# Every OpInfo sample in every mode (make test runs the graph mode in full, a sample of the rest).
opinfo: $(STAMP)
	TSJIT_OPINFO=full $(BIN)/pytest -n auto test/unit/runtime/test_opinfo.py

# Every module_db sample on both backends (make test runs the first of each entry), and the
# everyday models of test_nn_models.py through the profiling executor.
modules: $(STAMP)
	TSJIT_MODULES=full $(BIN)/pytest -n auto test/unit/frontend/test_module_db.py test/unit/frontend/test_library_methods.py \
		test/unit/frontend/test_nn_models.py

# The long fuzz run (test/fuzz): 100,000 mutated programs through the three readers and
# 10,000 random tensor programs on both backends; prints the counts, fails on any failure.
fuzz: $(STAMP)
	nice $(BIN)/python test/fuzz/run.py $(FUZZ_ARGS)

# Every gradient check: each float64 OpInfo sample against PyTorch's and finite differences
# (make test: the first sample of every fourth entry), finite differences of the formula
# cases and of conformance cases with recorded gradients (make test: against PyTorch's).
gradients: $(STAMP)
	TSJIT_OPINFO=full TSJIT_GRADIENTS=full $(BIN)/pytest -n auto test/unit/runtime/test_opinfo_gradients.py \
		test/unit/runtime/test_gradient_formulas.py test/conformance/test_gradients.py

# Every TorchScript archive of test/data/archives on both backends, known failures
# included (make test runs them all on the interpreter, a sample on llvm);
# TSJIT_ARCHIVE_DATA=DIR checks the archives scripts/generate_archive_data.py wrote to DIR.
archives: $(STAMP)
	TSJIT_ARCHIVES=full $(BIN)/pytest -n auto test/unit/formats/archive

demo: $(STAMP)
	$(BIN)/python examples/demo.py

bench: $(STAMP)
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
