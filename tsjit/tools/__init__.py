"""The command-line tools: ts-opt, ts-translate, ts-run (thin: parse arguments, call
the library, report errors through `tsjit.diagnostics`)."""

from __future__ import annotations


def version_text(tool: str) -> str:
    """What `TOOL --version` prints: the tool, tsjit's version and xDSL's."""
    from importlib.metadata import PackageNotFoundError, version

    def of(package: str) -> str:
        try:
            return version(package)
        except PackageNotFoundError:
            return "unknown"

    return f"{tool} (tsjit {of('tsjit')}, xdsl {of('xdsl')})"
