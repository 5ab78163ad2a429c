"""The tools' entry points, and a fork server that starts them without their imports.

Importing xDSL's dialects and tsjit's readers costs a tool ~0.3 s of CPU before it reads
a byte; a test suite starting four hundred tools pays that four hundred times. When
`TSJIT_TOOL_SERVER` names the socket of a running `serve`, an entry point hands its
arguments, environment, working directory and standard streams to the server instead,
which forks a child that already has everything imported, runs the tool there and
reports its exit status, which the entry point exits with. Output, exit status and the
files written are the same either way; without the variable (or when the server is not
there) the tool simply runs in its own process.

    TSJIT_TOOL_SERVER=tools.sock ts-opt in.mlir -p cse   # runs in a child of the server
    python -m tsjit.tools.launch --serve-fd 3           # a server on a listening socket

This module imports nothing heavy: it is what every tool process loads first.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

SERVER_VARIABLE = "TSJIT_TOOL_SERVER"

TOOLS = {
    "ts-opt": "tsjit.tools.ts_opt",
    "ts-translate": "tsjit.tools.ts_translate",
    "ts-run": "tsjit.tools.ts_run",
    "filecheck": "filecheck.main",
}
"""Each tool's module; its `main()` is the tool (and returns its exit status or None).
FileCheck is here because the lit tests pipe every tool into it."""

_HEADER = struct.Struct("!I")
_STREAMS = (0, 1, 2)
_DECLINED = b"declined"


def ts_opt() -> None:
    launch("ts-opt")


def ts_translate() -> None:
    launch("ts-translate")


def ts_run() -> None:
    launch("ts-run")


def launch(tool: str) -> None:
    """Run TOOL (a key of `TOOLS`) with this process's arguments and streams."""
    path = os.environ.get(SERVER_VARIABLE)
    if path:
        status = _run_on_server(path, tool)
        if status is not None:
            _exit_like(status)
    _run_here(tool)


def _run_here(tool: str) -> None:
    from importlib import import_module

    sys.exit(import_module(TOOLS[tool]).main())


# --------------------------------------------------------------------------------------
# Client: hand the process over to the server
# --------------------------------------------------------------------------------------


def _run_on_server(path: str, tool: str) -> int | None:
    """The tool's wait status as the server ran it; None when there is no server to run
    it (the caller runs the tool itself)."""
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
    except OSError:
        return None
    request = json.dumps(
        {
            "tool": tool,
            "argv": sys.argv,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "path": sys.path,
            "flags": list(sys.flags),
        }
    ).encode()
    with connection:
        try:
            socket.send_fds(connection, [_HEADER.pack(len(request)) + request], list(_STREAMS))
        except OSError:  # nothing ran yet
            return None
        reply = b""
        try:
            while chunk := connection.recv(64):
                reply += chunk
        except OSError:
            reply = b""
    if reply == _DECLINED:
        return None
    if not reply:
        # The server went away while the tool ran: its output is incomplete.
        sys.stderr.write(f"{tool}: error: the tool server ({SERVER_VARIABLE}={path}) stopped before the tool finished\n")
        return 1 << 8
    return int(reply)


def _exit_like(status: int) -> None:
    """Exit as the child did: with its code, or killed by its signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


# --------------------------------------------------------------------------------------
# Server: fork a preloaded child per request
# --------------------------------------------------------------------------------------


def serve(listener: socket.socket) -> None:
    """Accept requests until the process that started the server goes away."""
    import select

    _preload()
    parent = os.getppid()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel
    while os.getppid() == parent:
        ready, _, _ = select.select([listener], [], [], 1.0)
        if not ready:
            continue
        connection, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            try:
                _handle(connection)
            finally:
                os._exit(0)
        connection.close()


def _preload() -> None:
    """Import every tsjit module (about a second, once) so that no child imports any, and
    keep the collector away from them so children share their pages."""
    import gc
    import pkgutil
    from importlib import import_module

    import tsjit

    modules = [module.name for module in pkgutil.walk_packages(tsjit.__path__, "tsjit.")]
    for module in [*modules, *TOOLS.values()]:
        try:
            import_module(module)
        except Exception:  # noqa: BLE001 - a child using it reports the error itself
            pass
    gc.freeze()


def _handle(connection: socket.socket) -> None:
    """Run one request in a grandchild and send back its wait status; a client that goes
    away (its test was interrupted) takes the tool with it."""
    import select

    message, streams, _, _ = socket.recv_fds(connection, 1 << 16, len(_STREAMS))
    (length,) = _HEADER.unpack_from(message)
    message = message[_HEADER.size :]
    while len(message) < length:
        message += connection.recv(length - len(message))
    request = json.loads(message)
    if request["path"][1:] != sys.path[1:] or request["flags"] != list(sys.flags):
        # Another PYTHONPATH or interpreter flags: the modules imported here may not be
        # the ones the client would import.
        connection.sendall(_DECLINED)
        return
    pid = os.fork()
    if pid == 0:
        connection.close()
        _become(request, streams)
    for stream in streams:
        os.close(stream)
    try:
        child = os.pidfd_open(pid)
    except (AttributeError, OSError):  # before Linux 5.3: just wait
        pass
    else:
        ready, _, _ = select.select([child, connection], [], [])
        if child not in ready:  # the client hung up first
            os.kill(pid, signal.SIGKILL)
        os.close(child)
    _, status = os.waitpid(pid, 0)
    connection.sendall(str(status).encode())
    connection.close()


def _become(request: dict, streams: list[int]) -> None:
    """In the grandchild: take on the client's process state, run the tool, exit with
    its status (never return: the caller is the server's loop)."""
    code: object = 1
    try:
        for target, stream in zip(_STREAMS, streams):
            os.dup2(stream, target)
            os.close(stream)
        _reopen_standard_streams()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = request["argv"]
        sys.path[0] = request["path"][0]
        _run_here(request["tool"])
    except SystemExit as exit_:
        code = exit_.code
    except BaseException:  # noqa: BLE001 - reported as Python would, exit status 1
        import traceback

        traceback.print_exc()
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code or 0)


def _reopen_standard_streams() -> None:
    """New `sys.std*` objects for the client's streams: the server's were opened on other
    files (whether they are terminals or seekable decides their buffering and seeking)."""
    for name, fd, mode in (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w")):
        old = getattr(sys, name)
        new = open(  # noqa: SIM115 - lives as long as the process
            fd,
            mode,
            encoding=old.encoding,
            errors=old.errors,
            closefd=False,
            buffering=1 if name == "stderr" or os.isatty(fd) else -1,  # 1: by line
        )
        setattr(sys, name, new)
        setattr(sys, f"__{name}__", new)


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tsjit.tools.launch", description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve-fd", type=int, required=True, help="a listening UNIX socket to serve on")
    args = parser.parse_args(argv)
    # `-m` put the working directory first on the path; the tools have their own directory.
    sys.path[0] = os.path.dirname(sys.executable)
    serve(socket.socket(fileno=args.serve_fd))


if __name__ == "__main__":
    main()
