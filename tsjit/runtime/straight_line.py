"""Loop-free interpreter code as one generated Python function.

The interpreter runs compiled code as closures dispatched in a loop over a register
list (`Code.run`): a list copy per call and a dispatch per instruction. Code without
loops, as a guarded fast path is (a check, a branch, a few calls, the return), can run
as one Python function instead: registers become local variables, a branch an `if`,
each call a direct call of the same callee (a fused group's through its current entry,
`FusedGroup.call`, read at each call), a drop an assignment of None (so values still
die at their last use), and a `profile.type_check` an inline condition over the values
it checks (`profiling.type_test`). Code that starts with a check of its arguments tests
them once, in `call`, for being the arrays profiled (`profiling.exact_array_test`),
which passes the argument check and the type check both. Errors are reported as the interpreter
reports them: a `TorchScriptError` gets the location of the failing op, any other
exception becomes TorchScript's RuntimeError there.

    fast = straight_line(code)            # None when the code has a loop
    result = fast(x, y)                   # as code(x, y)

`__call__` sets numpy's floating-point error state as `Code.__call__` does; `invoke`
is the call from running code, where it is set already.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.float_errors import FLOAT_STATE
from tsjit.runtime.interpreter import Cleanup, Code, Instruction

if TYPE_CHECKING:
    from tsjit.runtime.arguments import ArgumentCheck


PER_CALL_FLOAT_STATE = 2
"""Code with at most this many calls that may compute with numpy sets numpy's error
state around each of them, not around the whole call: a path of native kernels only
then never pays for it."""


def float_safe(callee: Any) -> bool:
    """Callees that need no numpy error state: fused kernels, which set it themselves
    when they fall back to the interpreter."""
    return _fused_group(callee) is not None


def _fused_group(callee: Any) -> Any:
    """The FusedGroup whose `invoke` `callee` is, if it is one."""
    from tsjit.runtime.native import FusedGroup

    group = getattr(callee, "__self__", None)
    return group if isinstance(group, FusedGroup) else None


_MISSING: Any = object()
"""The default of `call`'s parameters: an argument not given."""


class Unstructured(Exception):
    """Code the generator does not translate (a loop, a jump it cannot place)."""


class StraightLineCode:
    """A Code's instructions as one Python function (see the module docstring)."""

    def __init__(self, code: Code, source: str, namespace: dict[str, Any], prologue: tuple[str, ...] = ()):
        self.code = code
        self.name = code.name
        self.arity = code.arity
        self.source = source
        exec(compile(source, f"<straight-line {code.name}>", "exec"), namespace)  # noqa: S102 -- generated from the code
        self.invoke = namespace["invoke"]
        self.call = namespace["call"]
        """The generated functions themselves (`invoke`, and `call` as `__call__`)."""
        self.checks_arguments = "check_all" in namespace
        """Whether `call` checks its arguments against the signature."""
        self.prologue = prologue
        """The statements `call` runs first (`straight_line`)."""

    def __call__(self, *args: Any) -> Any:
        return self.call(*args)

    def run(self, args: Sequence[Any]) -> Any:
        return self.invoke(*args)


def straight_line(
    code: Code,
    arguments: ArgumentCheck | None = None,
    prologue: Sequence[str] = (),
    names: Mapping[str, Any] | None = None,
) -> StraightLineCode | None:
    """`code` as one function, or None when it has a loop or an unstructured jump. With
    `arguments`, `call` (the call from outside) checks its arguments first; before
    anything, it runs the statements `prologue`, whose free variables are `names` (an
    executor's bookkeeping, without a call of its own)."""
    try:
        return _Generator(code, arguments, prologue, names or {}).generate()
    except Unstructured:
        return None


class _Generator:
    def __init__(
        self,
        code: Code,
        arguments: ArgumentCheck | None = None,
        prologue: Sequence[str] = (),
        names: Mapping[str, Any] | None = None,
    ):
        self.code = code
        self.arguments = arguments
        self.prologue = list(prologue)
        self.instructions = code.instructions
        self.namespace: dict[str, Any] = {
            "TorchScriptError": TorchScriptError,
            "leave": _leave,
            "location": code._location,  # pyright: ignore[reportPrivateUsage]
            "set_errors": FLOAT_STATE[0],
            "IGNORE": FLOAT_STATE[1],
            "reset_errors": FLOAT_STATE[2],
            **(names or {}),
        }
        # argument registers are never dropped: the caller's arguments hold them anyway
        written = {r for ins in code.instructions for r in (*ins.outputs, *ins.loop_state)}
        self.constants = {
            r for r in range(code.arity, len(code.template)) if r not in written
        }  # template registers nothing writes: constants, read as they are
        for r in self.constants:
            self.namespace[f"k{r}"] = code.template[r]
        self.conditions: dict[int, str] = {}
        """Checks whose result only the next branch reads, by result register."""
        self.cleanups = {cleanup.start: cleanup for cleanup in code.cleanups}
        """`with` blocks by the pc their body starts at: a `try` that runs `__exit__`."""
        self.open_cleanups: set[int] = set()
        self.aliases: dict[int, int] = {
            out: source
            for ins in code.instructions
            if ins.opcode == "call" and ins.op is not None and ins.op.name == "profile.type_check"
            for out, source in zip(ins.outputs, ins.inputs)
            if source < code.arity
        }
        """A checked argument's refined register is the argument itself (never dropped)."""

    def uses(self, register: int) -> int:
        return sum(register in ins.inputs for ins in self.instructions)

    def generate(self) -> StraightLineCode:
        self.float_state = "none"
        self.entry: tuple[int, str, set[int]] | None = None
        """`entry_check`, while `call` is generated."""
        invoke_body = self.block(0, len(self.instructions), 2)
        unsafe = [ins for ins in self.instructions if ins.opcode == "call" and not float_safe(ins.callee)]
        self.float_state = "per call" if len(unsafe) <= PER_CALL_FLOAT_STATE else "whole call"
        self.entry = self.entry_check() if self.arguments is not None else None
        call_body = self.block(0, len(self.instructions), 2)
        results = self.code.results
        returned = (
            self.name(results[0])
            if len(results) == 1
            else f"({', '.join(self.name(r) for r in results)},)"
            if results
            else "None"
        )
        arity = self.code.arity
        parameters = [f"r{r}" for r in range(arity)]
        unpack = f"{', '.join(parameters)}{',' if arity == 1 else ''} = args" if arity else "()= args"
        arity_error = f"'{self.code.name}() expected {arity} argument(s) but received ' + str(len(args))"
        lines: list[str] = []
        for name, body, float_state in (
            ("invoke", invoke_body, False),
            ("call", call_body, self.float_state == "whole call"),
        ):
            checks = name == "call" and self.arguments is not None
            if checks and arity:  # parameters: no tuple to pack and unpack
                self.namespace["MISSING"] = _MISSING
                given = f"({', '.join(parameters)},)"
                entry = [
                    f"def {name}({', '.join(f'{p}=MISSING' for p in parameters)}, /, *extra):",
                    *(f"    {line}" for line in self.prologue),
                    f"    if extra or {parameters[-1]} is MISSING:  # another number of arguments",
                    f"        {unpack.replace('= args', f'= check_all(tuple(a for a in {given} if a is not MISSING) + extra)')}",
                    *self.argument_check(parameters, unpack, given),
                ]  # fmt: skip
            else:
                entry = [
                    f"def {name}(*args):",
                    *(f"    {line}" for line in (self.prologue if name == "call" else ())),
                    "    try:",
                    f"        {unpack}",
                    "    except ValueError:",
                    f"        {unpack.replace('= args', '= check_all(args)')}" if checks
                    else f"        raise TorchScriptError({arity_error}) from None",
                    *(self.argument_check(parameters, unpack, "args") if checks else []),
                ]
            lines += [
                *entry,
                "    pc = 0",
                *(["    token = set_errors(IGNORE)"] if float_state else []),
                "    try:",
                *body,
                f"        return {returned}",
                "    except TorchScriptError as error:",
                "        raise error.at(location(pc)) from error.__cause__",
                "    except Exception as error:",
                "        message = str(error) or type(error).__name__",
                "        raise TorchScriptError(message, 'RuntimeError').at(location(pc)) from error",
                *(["    finally:", "        reset_errors(token)"] if float_state else []),
                "",
            ]
        source = "\n".join(lines) + "\n"
        return StraightLineCode(self.code, source, self.namespace, tuple(self.prologue))

    def argument_check(self, parameters: list[str], unpack: str, given: str) -> list[str]:
        """The entry's check of its arguments (`ArgumentCheck`), inline where it can be.
        Code that starts with a check of its arguments' profiled types tests first
        whether they are the usual arrays it expects (`as_profiled`): then the arguments
        it covers need no other test, and neither does the type check."""
        assert self.arguments is not None
        self.namespace["check"] = self.arguments.check
        self.namespace["check_all"] = self.arguments.full
        self.namespace["ndarray"] = np.ndarray
        condition = self.arguments.condition(parameters)
        check_all = f"        {unpack.replace('= args', f'= check_all({given})')}"
        if self.entry is None:
            if condition is None:
                return [f"    {unpack.replace('= args', f'= check({given})')}"]
            return [] if condition == "True" else [f"    if not ({condition}):", check_all]
        _, usual, covered = self.entry
        if condition is None:
            return [f"    {unpack.replace('= args', f'= check({given})')}", f"    as_profiled = {usual}"]
        if condition == "True":
            return [f"    as_profiled = {usual}"]
        rest = self.arguments.condition(parameters, [k for k in range(len(parameters)) if k not in covered])
        accepted = "as_profiled" if rest == "True" else f"(as_profiled and {rest})"
        return [
            f"    as_profiled = {usual}",
            f"    if not ({accepted} or ({condition})):",
            check_all,
            "        as_profiled = False",
        ]

    def entry_check(self) -> tuple[int, str, set[int]] | None:
        """The check of the arguments' profiled types the code starts with, if it does:
        its pc, the test of `exact_array_test` over its arguments, and the argument
        positions that test covers (those of tensors)."""
        ins = self.instructions[0] if self.instructions else None
        if (
            ins is None
            or ins.opcode != "call"
            or ins.op is None
            or ins.op.name != "profile.type_check"
            or len(ins.outputs) != len(ins.inputs) + 1
            or any(r >= self.code.arity for r in ins.inputs)
        ):
            return None
        from tsjit.dialects.types import TensorType
        from tsjit.runtime.profiling import exact_array_test

        expected = ins.op.expected_types.data  # pyright: ignore[reportAttributeAccessIssue]
        tests = [
            exact_array_test(self.name(r), t, f"c0_{k}", self.namespace)
            for k, (r, t) in enumerate(zip(ins.inputs, expected))
        ]
        if any(test is None for test in tests):
            return None
        usual = " and ".join(f"({test})" for test in tests if test != "True") or "True"
        return 0, usual, {r for r, t in zip(ins.inputs, expected) if isinstance(t, TensorType)}

    def name(self, register: int) -> str:
        register = self.aliases.get(register, register)
        return f"k{register}" if register in self.constants else f"r{register}"

    def block(self, start: int, end: int, indent: int) -> list[str]:
        """The lines of instructions `start` up to `end` (a structured range)."""
        pad = "    " * indent
        lines: list[str] = []
        pc = start
        while pc < end:
            ins = self.instructions[pc]
            cleanup = self.cleanups.get(pc)
            if cleanup is not None and pc not in self.open_cleanups:
                lines += self.protected(cleanup, end, indent)
                pc = cleanup.end
            elif ins.opcode == "call":
                lines += [pad + line for line in self.call(pc, ins)]
                pc += 1
                condition = self.conditions.get(ins.outputs[-1]) if ins.outputs else None
                if condition is not None:  # a check followed by its branch: `if check:`
                    lines.append(f"{pad}if {condition}:")
                    pc = self.branch_body(pc, end, indent, lines)
            elif ins.opcode in ("move", "drop") and not ins.targets:
                lines += [pad + line for line in self.move(ins)]
                pc += 1
            elif ins.opcode == "branch":
                lines += self.branch(pc, ins, end, indent)
                pc = self.branch_end(pc, ins, end)
            else:
                raise Unstructured(ins.opcode)
        return lines or [pad + "pass"]

    def protected(self, cleanup: Cleanup, end: int, indent: int) -> list[str]:
        """A `with` body in a `try` whose handler runs `__exit__` (`Cleanup.leave`)."""
        if cleanup.end > end:
            raise Unstructured("with")
        pad = "    " * indent
        self.namespace[f"w{cleanup.start}"] = cleanup
        self.open_cleanups.add(cleanup.start)
        try:
            body = self.block(cleanup.start, cleanup.end, indent + 1)
        finally:
            self.open_cleanups.discard(cleanup.start)
        context = self.name(cleanup.register)
        return [
            f"{pad}try:",
            *body,
            f"{pad}except Exception as error:",
            f"{pad}    failure, pc = leave(w{cleanup.start}, {context}, error, pc)",
            f"{pad}    raise failure from failure.__cause__",
        ]

    def call(self, pc: int, ins: Instruction) -> list[str]:
        outputs = ", ".join(self.name(r) for r in ins.outputs)
        inputs = [self.name(r) for r in ins.inputs]
        op = ins.op
        if op is not None and op.name == "profile.type_check" and len(ins.outputs) == len(ins.inputs) + 1:
            from tsjit.runtime.profiling import type_test

            expected = op.expected_types.data  # pyright: ignore[reportAttributeAccessIssue]
            variables = getattr(ins.callee, "variables", True)  # as the interpreter's check
            tests = [
                type_test(name, t, f"c{pc}_{k}", self.namespace, variables)
                for k, (name, t) in enumerate(zip(inputs, expected))
            ]
            refined = [f"{self.name(o)} = {i}" for o, i in zip(ins.outputs, inputs) if self.name(o) != i]
            condition = " and ".join(f"({t})" for t in tests) or "True"
            if self.entry is not None and self.entry[0] == pc:
                condition = f"as_profiled or ({condition})"
            ok = ins.outputs[-1]
            following = self.instructions[pc + 1] if pc + 1 < len(self.instructions) else None
            if (
                following is not None
                and following.opcode == "branch"
                and following.inputs == (ok,)
                and not self.drops(ins)
                and self.uses(ok) == 1
            ):
                self.conditions[ok] = condition  # the branch tests it directly
                return refined
            return [*refined, f"{self.name(ok)} = {condition}", *self.drops(ins)]
        group = _fused_group(ins.callee)
        if group is not None:  # its entry changes once its plan is fixed: read at each call
            self.namespace[f"g{pc}"] = group
            call = f"g{pc}.call({', '.join(inputs)})"
        else:
            self.namespace[f"f{pc}"] = ins.callee
            call = f"f{pc}({', '.join(inputs)})"
        if ins.outputs:
            call = f"{outputs} = {call}"
        if self.float_state == "per call" and not float_safe(ins.callee):
            return [f"pc = {pc}", "token = set_errors(IGNORE)", "try:", f"    {call}", "finally:",
                    "    reset_errors(token)", *self.drops(ins)]  # fmt: skip
        return [f"pc = {pc}", call, *self.drops(ins)]

    def move(self, ins: Instruction) -> list[str]:
        lines = []
        if ins.outputs:
            sources = ", ".join(self.name(r) for r in ins.inputs)
            targets = ", ".join(self.name(r) for r in ins.outputs)
            lines.append(f"{targets} = {sources}")
        return lines + self.drops(ins)

    def drops(self, ins: Instruction) -> list[str]:
        dropped = [
            self.name(r)
            for r in ins.drops
            if r not in self.constants and r not in self.conditions and self.aliases.get(r, r) >= self.code.arity
        ]
        return [f"{' = '.join(dropped)} = None"] if dropped else []

    def branch(self, pc: int, ins: Instruction, end: int, indent: int) -> list[str]:
        lines = [f"{'    ' * indent}if {self.name(ins.inputs[0])}:"]
        self.branch_body(pc, end, indent, lines)
        return lines

    def branch_body(self, pc: int, end: int, indent: int, lines: list[str]) -> int:
        """Appends the two parts of the If whose branch is at `pc`; returns where it ends."""
        ins = self.instructions[pc]
        then_pc, else_pc = ins.targets
        after = self.branch_end(pc, ins, end)
        lines += self.block(then_pc, else_pc - 1, indent + 1)
        lines.append(f"{'    ' * indent}else:")
        lines += self.block(else_pc, after, indent + 1)
        return after

    def branch_end(self, pc: int, ins: Instruction, end: int) -> int:
        """Where an If's code ends: the target of the jump closing its then-part."""
        then_pc, else_pc = ins.targets
        if then_pc != pc + 1 or not then_pc < else_pc <= end:
            raise Unstructured("branch")
        jump = self.instructions[else_pc - 1]
        if jump.opcode != "jump" or not else_pc <= jump.targets[0] <= end:
            raise Unstructured("branch")
        return jump.targets[0]


def _leave(cleanup: Cleanup, context: Any, error: Exception, pc: int) -> tuple[TorchScriptError, int]:
    """The exception leaving a `with` body after its `__exit__` ran, and the pc whose
    location it gets (as the code's handler locates it): the failing op's, or the
    exit's when `__exit__` raised instead."""
    if isinstance(error, TorchScriptError):
        failure = error
    else:
        failure = TorchScriptError(str(error) or type(error).__name__, "RuntimeError")
        failure.__cause__ = error
    raised = cleanup.leave(context, failure, None)
    return raised, pc if raised is failure else cleanup.end
