# `make test` and `make demo` work on a fresh machine with only python3, pip and make:
# they create .venv and install tsjit (editable) with its test tools when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lit pytest bench opinfo fuzz clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/lit -sv test/filecheck
	$(BIN)/pytest test

lit: $(STAMP)
	$(BIN)/lit -sv test/filecheck

pytest: $(STAMP)
	$(BIN)/pytest test

# Every OpInfo sample in every mode (make test runs the graph mode in full, a sample of the rest).
opinfo: $(STAMP)
	TSJIT_OPINFO=full $(BIN)/pytest test/unit/runtime/test_opinfo.py

# The long fuzz run (test/fuzz): 100,000 mutated programs through the three readers and
# 10,000 random tensor programs on both backends; prints the counts, fails on any failure.
fuzz: $(STAMP)
	nice $(BIN)/python test/fuzz/run.py $(FUZZ_ARGS)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

bench: $(STAMP)
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
