"""TorchScript archives (`.pt` files written by `torch.jit.save`), read and written
without PyTorch.

    module = load("model.pt")     # a ScriptModule: call it, its methods, read its parameters
    save(module, "copy.pt")       # what torch.jit.load reads back

`layout` is the zip container, `unpickler` and `pickler` the pickles (the unpickler
names only an allow-list of globals and runs nothing), `storage` the tensors as views
of storages, `reader` and `writer` the module: `code/` compiled through the script
frontend (`tsjit.frontend.source_importer`) and printed by the Python printer.
"""

from __future__ import annotations

from typing import Any

from tsjit.formats.archive.layout import ArchiveError

__all__ = ["ArchiveError", "import_archive", "is_archive", "load", "save"]


def load(path: Any) -> Any:
    """The archive at `path` as a ScriptModule (see `reader.load`)."""
    from tsjit.formats.archive.reader import load as read

    return read(path)


def save(module: Any, path: Any, extra_files: dict[str, bytes] | None = None) -> None:
    """Writes a scripted, traced or loaded module (or function) as an archive."""
    from tsjit.formats.archive.writer import save as write

    write(module, path, extra_files)


def import_archive(path: Any) -> Any:
    """Every method of every class and every function of an archive's code/, compiled
    (what PyTorch's import checks), as one module of tsjit IR (its `builtin.module`);
    the root's forward is `@forward`."""
    from tsjit.formats.mlir import verify
    from tsjit.frontend.script import compile_cleaned

    module = load(path)
    module.entry  # noqa: B018 - the root's forward first, under its entry name
    compile_cleaned(module.unit, module.archive.importer.compile_all)
    verify(module.module)
    return module.module


def is_archive(path: Any) -> bool:
    """Whether `path` names an archive: a zip file, or a file named `.pt`/`.pth`
    (which then must be one)."""
    text = str(path)
    if text.endswith((".pt", ".pth")):
        return True
    try:
        with open(text, "rb") as f:
            return f.read(4) == b"PK\x03\x04"
    except OSError:
        return False
