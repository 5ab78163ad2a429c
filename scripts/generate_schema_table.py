"""Writes tsjit's operator schema table from the PyTorch installation running it.

    python scripts/generate_schema_table.py [OUTPUT]

The table (`tsjit/dialects/schema/schemas.txt` by default) is one FunctionSchema string
per line, sorted, after a `#` header naming the torch version. tsjit reads it at run time
without PyTorch; regenerate it when moving to another torch release.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "tsjit" / "dialects" / "schema" / "schemas.txt"


def registered_schemas() -> list[str]:
    """Every schema the JIT operator registry knows. `_jit_get_all_schemas` lists the
    registry; asking per operator name as well catches overloads registered lazily."""
    schemas = {str(s) for s in torch._C._jit_get_all_schemas()}
    for name in sorted({s.split("(", 1)[0].split(".", 1)[0] for s in schemas}):
        schemas.update(str(s) for s in torch._C._jit_get_schemas_for_operator(name))
    multiline = [s for s in schemas if "\n" in s]
    if multiline:
        raise SystemExit(f"schema spans several lines, the table format cannot hold it: {multiline[0]!r}")
    return sorted(schemas)


def main(argv: list[str]) -> int:
    output = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    schemas = registered_schemas()
    header = f"# FunctionSchemas registered by torch {torch.__version__}: {len(schemas)} schemas"
    output.write_text("\n".join([header, *schemas]) + "\n", encoding="utf-8")
    aten = sum(s.startswith("aten::") for s in schemas)
    print(f"wrote {len(schemas)} schemas ({aten} aten) to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
