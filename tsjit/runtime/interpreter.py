"""The numpy interpreter: a graph is compiled once into linear code, then run per call.

As in TorchScript's interpreter (JIT overview, "Interpreter"), compiling a `func.func`
flattens its structured control flow into a linear list of instructions over a register
file: operator calls with input and output registers, parallel moves, jumps. `prim.If`
becomes a conditional jump; `prim.Loop` a counted loop whose entry and back-edge each move
the carried values, test the trip count and condition, and jump into the body or past it.
Constants are placed in the register template once, at compile time; each call copies
the template into a fresh register file (the per-call interpreter state).

Every register is cleared right after the last use of its value (TorchScript's
move-on-last-use), so a program holds no more memory than TorchScript would: a value
whose last use is one branch of an If is dropped at the start of the other branch, and a
value used inside a loop stays until the loop exits.

Each instruction runs as a small closure that takes the register file and returns the
index of the next instruction. The closures are generated from one source template per
instruction shape (arity, outputs, drops), so their bodies decode nothing at run time and
the dispatch loop is `pc = steps[pc](registers)` — see `bench/interpreter.py`.

    program = Program(module)
    forward = program.function("forward")
    result = forward(x, y)
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from numpy import ndarray
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, NoneAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects import prim
from tsjit.dialects.constant_values import EnumMember
from tsjit.dialects.types import ClassType, TorchType, TupleType
from tsjit.runtime import kernels
from tsjit.runtime.code_cache import compile_generated
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.float_errors import ignore_float_errors, restore_float_errors
from tsjit.runtime.values import NamedTupleValue, ScriptObject

Step = Callable[[list[Any]], int]

# --------------------------------------------------------------------------------------
# Programs and compiled code
# --------------------------------------------------------------------------------------


class Program:
    """The functions of one module, compiled on demand, and the methods their objects
    reach through `prim.CallMethod` (functions named `<class>.<method>` in the module,
    else the builtin methods of `tsjit.runtime.modules`).

    An `autograd` program records gradients: its functions run DifferentiableGraphs as
    autograd nodes and every other tensor operator through `autograd.recording`, on
    Variables; the regions of DifferentiableGraphs (and what they call) run plain."""

    def __init__(self, module: ModuleOp, autograd: bool = False):
        self.module = module
        self.autograd = autograd
        self._functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
        self._compiled: dict[tuple[str, bool], Any] = {}  # Code, or what `provide` gave
        self._lock = threading.RLock()
        self.enums: dict[str, dict[str, object]] = {
            op.qualified_name.data: dict(op.members) for op in module.ops if isinstance(op, prim.EnumOp)
        }
        """The members' values of each Enum class the module declares."""

    def enum_member(self, member: EnumMember, where: Operation | None = None) -> EnumMember:
        """An enum constant as a run-time value: with the value its class declares."""
        members = self.enums.get(member.class_name)
        if members is None or member.name not in members:
            what = f"enum class {member.class_name}" if members is None else f"enum member {member.qualified_name}"
            raise TsjitError(f"{what} is not declared in the program (no prim.Enum for it)",
                             SourceLocation.of_op(where) if where is not None else None)  # fmt: skip
        return EnumMember(member.qualified_name, members[member.name])

    def function(self, name: str, autograd: bool | None = None) -> Code:
        """The compiled function `name` (compiling it, and what it calls, on first use),
        recording gradients when the program does (or as `autograd` says)."""
        mode = self.autograd if autograd is None else autograd
        with self._lock:
            if (code := self._compiled.get((name, mode))) is not None:
                return code
            op = self._functions.get(name)
            if op is None:
                known = ", ".join(sorted(self._functions)) or "none"
                raise TsjitError(f"no function named '{name}' in the program (functions: {known})")
            if op.is_declaration:
                raise _only_declared(name, SourceLocation.of_op(op))
            # registered before compiling, so that recursive calls find it
            code = self._compiled[(name, mode)] = Code(name, len(op.body.block.args))
            try:
                _Compiler(self, code, mode).compile(op.body.block)
            except BaseException:
                del self._compiled[(name, mode)]
                raise
            return code

    def provide(self, name: str, code: Any) -> None:
        """Calls of `name` run `code` (anything with `invoke(*args)` and `run(args)`, such
        as an executor of its own) instead of compiling the module's function `name`."""
        with self._lock:
            self._compiled[(name, False)] = self._compiled[(name, True)] = code

    def has_function(self, name: str) -> bool:
        return name in self._functions

    def is_declaration(self, name: str) -> bool:
        """Whether `name` is declared without a body (a callee graph text only names)."""
        op = self._functions.get(name)
        return op is not None and op.is_declaration

    def method(self, class_name: str, method: str) -> Code | None:
        """The code of `class_name.method`, or None when neither the program nor the
        builtin module library defines it."""
        qualified = f"{class_name}.{method}"
        if qualified in self._functions:
            return self.function(qualified)
        from tsjit.runtime.modules import builtin_method

        return builtin_method(class_name, method)


_SAME_FRAME = frozenset({"profile.bailout"})
"""Ops that run another version of their own graph: the frames of what fails there are
the graph's own, with no call of theirs."""


def _calls_fallback(op: Operation) -> bool:
    """A lowered bailout: the `func.call` of its graph's fallback function
    (`profile.fallback_name`: `<graph>.fallback<k>`)."""
    return isinstance(op, func.CallOp) and re.search(r"\.fallback\d+$", op.callee.string_value()) is not None


@dataclass(frozen=True)
class Cleanup:
    """A `with` block of linear code: the pcs of its body and its context's `__exit__`."""

    start: int
    end: int
    register: int
    exit: Callable[[Any], Any]

    def leave(self, context: Any, error: TorchScriptError, location: Any) -> TorchScriptError:
        """Runs `__exit__` as `error` leaves the block; returns the exception to raise:
        `error`, or, as in Python, the one `__exit__` raised (located at the exit)."""
        try:
            self.exit(context)
        except TorchScriptError as raised:
            raised.__context__ = error
            return raised.at(location)
        except Exception as raised:
            replaced = TorchScriptError(str(raised) or type(raised).__name__, "RuntimeError").at(location)
            replaced.__cause__, replaced.__context__ = raised, error
            return replaced
        return error


def _only_declared(name: str, location: SourceLocation | None) -> TsjitError:
    return TsjitError(f"function '{name}' is only declared: its body is not in the program", location)


@dataclass
class Instruction:
    """One instruction of linear code, kept for printing, tests and error locations;
    `Code.steps` holds its executable closure."""

    opcode: str  # call, move, drop, jump, branch, loop
    inputs: tuple[int, ...] = ()
    outputs: tuple[int, ...] = ()
    drops: tuple[int, ...] = ()
    targets: tuple[int, ...] = ()  # jump targets (filled in once known)
    loop_state: tuple[int, ...] = ()  # a loop's trip counter, max trip count, condition[, index]
    callee: Callable[..., Any] | None = None
    label: str = ""  # what the instruction does: the overload name, the prim op name
    op: Operation | None = None

    def __str__(self) -> str:
        parts = [f"{self.opcode:<10}"]
        if self.label:
            parts.append(self.label)
        if self.inputs:
            parts.append(" ".join(f"%{r}" for r in self.inputs))
        if self.outputs:
            parts.append("-> " + " ".join(f"%{r}" for r in self.outputs))
        if self.targets:
            parts.append("@" + " @".join(map(str, self.targets)))
        if self.loop_state:
            parts.append("while " + " ".join(f"%{r}" for r in self.loop_state))
        if self.drops:
            parts.append(("" if self.opcode == "drop" else "drop ") + " ".join(f"%{r}" for r in self.drops))
        return " ".join(parts)


class Code:
    """A compiled graph: instructions, their closures, and the register template.

    Calling it runs the graph on fresh registers: inputs in registers 0..n-1, the result
    is the returned value (a tuple when the graph returns several, None for none).
    `cleanups` are the `with` blocks whose context defines `__exit__`: an exception
    raised between the pcs `start` and `end` calls it on the context in `register`,
    innermost first, before the exception leaves (TorchScript's interpreter does the
    same with its entered objects)."""

    def __init__(self, name: str, arity: int):
        self.name = name
        self.arity = arity
        self.instructions: list[Instruction] = []
        self.steps: list[Step] = []
        self.template: list[Any] = []
        self.results: tuple[int, ...] = ()
        self.cleanups: list[Cleanup] = []

    def __call__(self, *args: Any) -> Any:
        token = ignore_float_errors()
        try:
            return self.run(args)
        finally:
            restore_float_errors(token)

    def invoke(self, *args: Any) -> Any:
        """A call from running code (numpy's error state is already set)."""
        return self.run(args)

    def run(self, args: Sequence[Any]) -> Any:
        """Runs the graph; callers set numpy's error state (see `kernels`)."""
        if len(args) != self.arity:
            raise TorchScriptError(
                f"{self.name}() expected {self.arity} argument(s) but received {len(args)}"
            )
        registers = self.template.copy()
        registers[: self.arity] = args
        steps = self.steps
        end = len(steps)
        pc = 0
        try:
            while pc < end:
                pc = steps[pc](registers)
        except TorchScriptError as error:
            error.at(self._location(pc))
            if self.cleanups and (replaced := self.unwind(registers, pc, error)) is not error:
                raise replaced from replaced.__cause__
            raise error from error.__cause__
        except Exception as error:  # a failing operator is TorchScript's RuntimeError
            message = str(error) or type(error).__name__
            failure = TorchScriptError(message, "RuntimeError").at(self._location(pc))
            if self.cleanups and (replaced := self.unwind(registers, pc, failure)) is not failure:
                raise replaced from replaced.__cause__
            raise failure from error
        results = self.results
        if len(results) == 1:
            return registers[results[0]]
        return tuple(registers[r] for r in results) if results else None

    def unwind(self, registers: list[Any], pc: int, error: TorchScriptError) -> TorchScriptError:
        """Runs the `__exit__` of each `with` block an exception at `pc` leaves,
        innermost first; returns the exception to raise (see `Cleanup.leave`)."""
        for cleanup in sorted(self.cleanups, key=lambda c: -c.start):
            if cleanup.start <= pc < cleanup.end:
                error = cleanup.leave(registers[cleanup.register], error, self._location(cleanup.end))
        return error

    def _location(self, pc: int) -> list[SourceLocation]:
        """The call stack of the instruction's op: its location, and the calls it was
        inlined from."""
        op = self.instructions[pc].op
        if op is None or op.name in _SAME_FRAME or _calls_fallback(op):
            return []
        return SourceLocation.stack_of_op(op)

    def __str__(self) -> str:
        lines = [f"code {self.name}({self.arity} inputs, {len(self.template)} registers):"]
        lines += [f"  {pc:>4}  {instruction}" for pc, instruction in enumerate(self.instructions)]
        lines.append("  return " + " ".join(f"%{r}" for r in self.results))
        return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Instruction closures, generated from one template per shape
# --------------------------------------------------------------------------------------


def _registers(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{k}" for k in range(count)]


def _drops(drops: Sequence[str]) -> list[str]:
    return [f"{' = '.join(f'r[{d}]' for d in drops)} = None"] if drops else []


@functools.cache
def _call_factory(n_in: int, n_out: int, n_drop: int) -> Callable[..., Step]:
    """`r[o0], ... = f(r[i0], ...)`, then the drops, then the next pc."""
    ins, outs, drops = _registers("i", n_in), _registers("o", n_out), _registers("d", n_drop)
    call = f"f({', '.join(f'r[{i}]' for i in ins)})"
    if outs:
        call = f"{', '.join(f'r[{o}]' for o in outs)} = {call}"
    return _step_factory(["f", *ins, *outs, *drops], [call, *_drops(drops)])


@functools.cache
def _move_factory(n: int, n_drop: int) -> Callable[..., Step]:
    """A parallel copy `r[o0], ... = r[i0], ...`, then the drops, then the next pc."""
    ins, outs, drops = _registers("i", n), _registers("o", n), _registers("d", n_drop)
    move = [f"{', '.join(f'r[{o}]' for o in outs)} = {', '.join(f'r[{i}]' for i in ins)}"] if n else []
    return _step_factory([*ins, *outs, *drops], [*move, *_drops(drops)])


@functools.cache
def _loop_factory(n: int, n_drop: int, with_index: bool) -> Callable[..., Step]:
    """A loop's entry and back-edge: the moves into its carried registers, the drops,
    then its test: run the body (pc `body`) while `cond and i < max_trip_count`, else
    continue after the loop."""
    ins, outs, drops = _registers("i", n), _registers("o", n), _registers("d", n_drop)
    move = [f"{', '.join(f'r[{o}]' for o in outs)} = {', '.join(f'r[{i}]' for i in ins)}"] if n else []
    test = ["k = r[counter]", "if r[cond] and k < r[limit]:", "    r[counter] = k + 1"]
    test += ["    r[index] = k"] if with_index else []
    state = ["counter", "limit", "cond", *(["index"] if with_index else []), "body"]
    return _step_factory([*ins, *outs, *drops, *state], [*move, *_drops(drops), *test, "    return body"])


def _step_factory(params: Sequence[str], body: Sequence[str]) -> Callable[..., Step]:
    """`make(*params, nxt)`, which returns a step running `body` on registers `r` and
    then continuing at `nxt`."""
    source = "\n".join(
        [f"def make({', '.join([*params, 'nxt'])}):", "  def step(r):"]
        + [f"    {line}" for line in body]
        + ["    return nxt", "  return step"]
    )
    namespace: dict[str, Any] = {}
    exec(compile_generated(source, "<tsjit interpreter template>"), namespace)  # noqa: S102 -- our own template
    return namespace["make"]


def _branch_step(cond: int, then_pc: int, else_pc: int) -> Step:
    def step(r: list[Any]) -> int:
        return then_pc if r[cond] else else_pc

    return step


def _jump_step(target: int) -> Step:
    def step(r: list[Any]) -> int:
        return target

    return step


def _make_step(instruction: Instruction, next_pc: int) -> Step:
    """The closure of an instruction; `targets[0]`, when set, replaces the fall-through."""
    match instruction.opcode:
        case "call":
            inputs, outputs, drops = instruction.inputs, instruction.outputs, instruction.drops
            make = _call_factory(len(inputs), len(outputs), len(drops))
            return make(instruction.callee, *inputs, *outputs, *drops, next_pc)
        case "move" | "drop":
            make = _move_factory(len(instruction.inputs), len(instruction.drops))
            target = instruction.targets[0] if instruction.targets else next_pc
            return make(*instruction.inputs, *instruction.outputs, *instruction.drops, target)
        case "jump":
            return _jump_step(instruction.targets[0])
        case "branch":
            return _branch_step(instruction.inputs[0], *instruction.targets)
        case "loop":
            inputs, outputs, drops, state = (
                instruction.inputs,
                instruction.outputs,
                instruction.drops,
                instruction.loop_state,
            )
            make = _loop_factory(len(inputs), len(drops), len(state) == 4)
            body, exit_ = instruction.targets
            return make(*inputs, *outputs, *drops, *state, body, exit_)
    raise AssertionError(f"unknown opcode {instruction.opcode}")


# --------------------------------------------------------------------------------------
# Compilation: liveness and instruction selection
# --------------------------------------------------------------------------------------


class _Compiler:
    """Compiles one graph block into a `Code`.

    Liveness is decided block by block. A value's last use in a block is the last op
    that uses it, directly or inside its regions. After a plain op the value is dropped
    at once. At an If, values whose life ends there are handed to both branches, which
    drop them at their own last use, or at their start when they do not use them. At a
    Loop they are dropped on entry when the body does not use them (initial carried
    values move into the loop), else on exit; values defined outside a loop are never
    dropped inside it. Constants live in the template and are never dropped."""

    def __init__(self, program: Program, code: Code, autograd: bool = False):
        self.program = program
        self.code = code
        self.autograd = autograd
        self.registers: dict[SSAValue, int] = {}
        self.constants: set[int] = set()
        self.entered: list[tuple[SSAValue, int]] = []  # open `with` blocks: context, body start

    def compile(self, block: Block) -> None:
        """Compiles a graph body or a subgraph region (ending in `func.return` or
        `prim.Yield`): block arguments are the inputs, the terminator's operands the results."""
        for arg in block.args:
            self.define(arg)
        terminator, _ = self.block(block, frozenset())
        self.code.results = tuple(self.registers[v] for v in terminator.operands)
        self.code.steps = [_make_step(ins, pc + 1) for pc, ins in enumerate(self.code.instructions)]

    # -- registers and emission --------------------------------------------------------
    def define(self, value: SSAValue) -> int:
        """A fresh register for `value`, empty until an instruction stores it."""
        register = self.registers[value] = len(self.code.template)
        self.code.template.append(None)
        return register

    def scratch(self, value: Any = None) -> int:
        """A register no SSA value names (a loop's state, a constant the compiler needs),
        starting as `value` and never dropped."""
        register = len(self.code.template)
        self.code.template.append(value)
        self.constants.add(register)
        return register

    def droppable(self, values: Iterable[SSAValue], keep: Iterable[int] = ()) -> tuple[int, ...]:
        """Registers to clear for these values: not constants, not `keep`, and not
        values never stored (an unused loop index)."""
        kept = set(keep) | self.constants
        registers = self.registers
        return tuple(sorted({registers[v] for v in values if v in registers} - kept))

    def register(self, value: SSAValue) -> int:
        return self.registers[value]

    def emit(self, instruction: Instruction) -> Instruction:
        self.code.instructions.append(instruction)
        return instruction

    @property
    def pc(self) -> int:
        return len(self.code.instructions)

    def emit_drop(self, values: Iterable[SSAValue], op: Operation | None) -> None:
        if drops := self.droppable(values):
            self.emit(Instruction("drop", drops=drops, op=op))

    def emit_move(
        self,
        sources: Sequence[SSAValue],
        targets: Sequence[int | None],
        dying: Iterable[SSAValue],
        op: Operation,
        jump_to: int | None = None,
    ) -> None:
        """A parallel move of `sources` into `targets` (None: not needed), dropping the
        sources that die here; with `jump_to`, continue there. Nothing when there is
        nothing to do."""
        pairs = [(self.registers[s], t) for s, t in zip(sources, targets, strict=True) if t is not None]
        outputs = tuple(t for _, t in pairs)
        drops = self.droppable(dying, keep=outputs)
        if not pairs and not drops and jump_to is None:
            return
        self.emit(
            Instruction(
                "move",
                inputs=tuple(s for s, _ in pairs),
                outputs=outputs,
                drops=drops,
                targets=() if jump_to is None else (jump_to,),
                label=op.name,
                op=op,
            )
        )

    # -- blocks ----------------------------------------------------------------------
    def block(self, block: Block, ending: frozenset[SSAValue]) -> tuple[Operation, set[SSAValue]]:
        """Emits the ops of `block` but its terminator; returns the terminator and the
        values whose life ends at it. `ending` holds outer values that die in this block."""
        ops = list(block.ops)
        last_use = _last_uses(block, ops, ending)
        dying_at: list[set[SSAValue]] = [set() for _ in ops]
        for value, index in last_use.items():
            dying_at[index].add(value)
        self.emit_drop([v for v in (*ending, *block.args) if v not in last_use], block.parent_op())
        depth = len(self.entered)
        for index, op in enumerate(ops[:-1]):
            self.op(op, dying_at[index])
        del self.entered[depth:]  # an Enter without its Exit in the block protects nothing
        return ops[-1], dying_at[-1]

    def op(self, op: Operation, dying: set[SSAValue]) -> None:
        emitter = _EMITTERS.get(op.name)
        if emitter is not None:
            emitter(self, op, dying)
            return
        builder = (_AUTOGRAD_CALLABLES if self.autograd else _PLAIN_CALLABLES).get(op.name) or _CALLABLES.get(op.name)
        if builder is not None:
            callee, label = builder(self, op), op.name
        elif (objects := self.object_list_operator(op)) is not None:
            callee, label = objects, op.name
        else:
            callee, label = self.kernel(op)
        self.emit_call(op, callee, label, dying)

    def emit_call(
        self,
        op: Operation,
        callee: Callable[..., Any],
        label: str,
        dying: Iterable[SSAValue],
    ) -> None:
        results = [self.define(r) for r in op.results]
        unused = [r for r in op.results if not r.uses]
        if len(results) == 1 and unused:
            results, unused = [], []  # a single unused result is not even stored
        self.emit(
            Instruction(
                "call",
                inputs=tuple(self.registers[v] for v in op.operands),
                outputs=tuple(results),
                drops=self.droppable([*dying, *unused]),
                callee=callee,
                label=label,
                op=op,
            )
        )

    def kernel(self, op: Operation) -> tuple[Callable[..., Any], str]:
        """The kernel of a schema op, by its resolved overload; a clear error otherwise."""
        from tsjit.dialects.aten import schema_of

        where = SourceLocation.of_op(op)
        qualified = getattr(type(op), "OPERATOR", None)
        if qualified is None:
            raise TsjitError(f"the interpreter cannot run {op.name}", where)
        schema = schema_of(op)
        if schema is None:
            from tsjit.dialects.schema import has_operator

            if not has_operator(qualified):
                raise TsjitError(f"no kernel for {qualified}: the schema table has no such operator", where)
            types = ", ".join(str(v.type) for v in op.operands)
            raise TsjitError(f"no kernel for {qualified}: no schema of it matches operands ({types})", where)
        overload = f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
        callee = _INTERPRETER_OPERATORS.get(overload) or _operator_kernel(overload)
        if callee is None:
            from tsjit.runtime.kernels.derived import derived_kernel

            callee = derived_kernel(schema, _operator_kernel)
        if callee is None:
            if self.autograd:
                from tsjit.runtime.autograd.recording import SPECIAL_OPERATORS

                if overload in SPECIAL_OPERATORS:
                    return SPECIAL_OPERATORS[overload](None), overload  # pyright: ignore[reportArgumentType]
            raise TsjitError(f"no kernel for {schema}", where)
        if self.autograd:
            from tsjit.runtime.autograd.recording import grad_callee

            callee = grad_callee(op, schema, overload, callee)
        return callee, overload

    # -- structured ops --------------------------------------------------------------
    def constant_op(self, op: Operation, dying: set[SSAValue]) -> None:
        value = _constant_value(op)
        if _mentions_enum(op.results[0].type):
            value = _with_enum_values(value, lambda m: self.program.enum_member(m, op))
        self.registers[op.results[0]] = self.scratch(value)

    def uninitialized(self, op: Operation, dying: set[SSAValue]) -> None:
        self.registers[op.results[0]] = self.scratch(None)

    def if_op(self, op: Operation, dying: set[SSAValue]) -> None:
        cond = self.registers[op.operands[0]]
        branch = self.emit(Instruction("branch", inputs=(cond,), label=op.name, op=op))
        results = [self.define(r) if r.uses else None for r in op.results]
        ending = frozenset(dying)
        starts: list[int] = []
        jumps: list[Instruction] = []
        for k, region in enumerate(op.regions):
            starts.append(self.pc)
            terminator, term_dying = self.block(region.block, ending)
            self.emit_move(terminator.operands, results, term_dying, terminator)
            if k == 0:
                jumps.append(self.emit(Instruction("jump", label=op.name, op=op)))
        branch.targets = tuple(starts)
        for jump in jumps:
            jump.targets = (self.pc,)

    def loop_op(self, op: Operation, dying: set[SSAValue]) -> None:
        """Entry and back-edge are one instruction each: the moves into the carried
        registers, then the loop test."""
        trip_count, condition, *initial = op.operands
        body = op.regions[0].block
        index_arg, *carried_args = body.args
        counter, limit, cond, zero = self.scratch(), self.scratch(), self.scratch(), self.scratch(0)
        carried = [self.define(arg) for arg in carried_args]
        for result, register in zip(op.results, carried, strict=True):
            self.registers[result] = register  # the loop's results are its final carried values
        state = (counter, limit, cond, *([self.define(index_arg)] if index_arg.uses else []))
        used_inside = {v for nested in op.walk() if nested is not op for v in nested.operands}
        sources = (self.register(trip_count), self.register(condition), zero, *map(self.register, initial))
        entry = self.emit(
            Instruction(
                "loop",
                inputs=sources,
                outputs=(limit, cond, counter, *carried),
                drops=self.droppable(v for v in dying if v not in used_inside),
                loop_state=state,
                label=op.name,
                op=op,
            )
        )
        body_start = self.pc
        terminator, term_dying = self.block(body, frozenset())
        outputs = (cond, *carried)
        back_edge = self.emit(
            Instruction(
                "loop",
                inputs=tuple(map(self.register, terminator.operands)),
                outputs=outputs,
                drops=self.droppable(term_dying, keep=outputs),
                loop_state=state,
                label=terminator.name,
                op=terminator,
            )
        )
        entry.targets = back_edge.targets = (body_start, self.pc)
        unused_results = [r for r in op.results if not r.uses]
        self.emit_drop([*(v for v in dying if v in used_inside), *unused_results], op)

    def with_op(self, op: Operation, dying: set[SSAValue]) -> None:
        """`prim.With` before the exit transform: its body, then its exit region."""
        body, exit_region = op.regions
        results = [self.define(r) if r.uses else None for r in op.results]
        terminator, term_dying = self.block(body.block, frozenset())
        self.emit_move(terminator.operands, results, term_dying, terminator)
        terminator, term_dying = self.block(exit_region.block, frozenset())
        self.emit_drop([*term_dying, *dying], op)

    def enter(self, op: Operation, dying: set[SSAValue]) -> None:
        """`prim.Enter` calls `__enter__` when the context's class has one; the body
        starts after it."""
        caller = self.method_caller(op.operands[0], "__enter__", op, required=False)
        self.emit_call(op, caller or _ignore, op.name, dying)
        self.entered.append((op.operands[0], self.pc))

    def exit(self, op: Operation, dying: set[SSAValue]) -> None:
        """`prim.Exit` calls `__exit__(None, None, None)` when the context's class has
        one, and records the body it closes as a cleanup (see `Code`)."""
        context = op.operands[0]
        start = next((k for k in reversed(range(len(self.entered))) if self.entered[k][0] is context), None)
        body_start = None
        if start is not None:
            body_start = self.entered[start][1]
            del self.entered[start:]
        caller = self.method_caller(context, "__exit__", op, required=False)
        if caller is None:
            self.emit_call(op, _ignore, op.name, dying)
            return

        def call_exit(receiver: Any) -> Any:
            return caller(receiver, None, None, None)

        if body_start is not None:
            self.code.cleanups.append(Cleanup(body_start, self.pc, self.registers[context], call_exit))
        self.emit_call(op, call_exit, op.name, dying)

    def alias(self, op: Operation, dying: set[SSAValue]) -> None:
        """An op whose result is its operand (`prim.unchecked_cast`): a move."""
        (result,) = op.results
        register = self.define(result)
        self.emit_move(op.operands, [register if result.uses else None], dying, op)

    def structural_error(self, op: Operation, dying: set[SSAValue]) -> None:
        raise TsjitError(
            f"{op.name} cannot run: it exists only before the frontend's lowering (run the exit transform)",
            SourceLocation.of_op(op),
        )

    # -- calls -----------------------------------------------------------------------
    def call_function(self, op: Operation) -> Callable[..., Any]:
        assert isinstance(op, func.CallOp)
        name = op.callee.root_reference.data
        if self.program.is_declaration(name):
            raise _only_declared(name, SourceLocation.of_op(op))
        return self.program.function(name, self.autograd).invoke

    def call_method(self, op: Operation) -> Callable[..., Any]:
        name = _property_str(op, "name")
        return self.method_caller(op.operands[0], name, op, required=True)

    def method_caller(
        self, receiver: SSAValue, name: str, op: Operation, required: bool
    ) -> Callable[..., Any] | None:
        """The callable of `receiver.name(...)`, resolved from the receiver's static
        class type when it has one, else on the object at run time."""
        program = self.program
        if isinstance(receiver.type, ClassType):
            class_name = receiver.type.qualname.data
            code = program.method(class_name, name)
            if code is None:
                if not required:
                    return None
                raise TsjitError(f"class {class_name} has no method '{name}'", SourceLocation.of_op(op))
            return code.invoke

        def call_on_object(receiver: ScriptObject, *args: Any) -> Any:
            code = program.method(receiver.qualified_name, name)
            if code is None:
                if not required:
                    return None
                raise TorchScriptError(f"class {receiver.qualified_name} has no method '{name}'")
            return code.run((receiver, *args))

        return call_on_object

    def bailout(self, op: Operation) -> Callable[..., Any]:
        """`profile.bailout[index = k]` runs fallback k of its graph, the function
        `<graph>.fallback<k>`: the module's, or what an executor provided."""
        from tsjit.dialects.profile import fallback_name

        graph = op.parent_op()
        while graph is not None and not isinstance(graph, func.FuncOp):
            graph = graph.parent_op()
        if graph is None:
            raise TsjitError("profile.bailout outside a graph has no fallback", SourceLocation.of_op(op))
        return self.program.function(fallback_name(graph.sym_name.data, _property_int(op, "index"))).invoke

    def subgraph(self, op: Operation) -> Callable[..., Any]:
        """A region op whose block arguments are its operands (FusionGroup,
        DifferentiableGraph) runs as a call of its compiled region."""
        return compile_block_code(self.program, op.regions[0].block, op.name).invoke

    def differentiable_graph(self, op: Operation) -> Callable[..., Any]:
        """In code that records gradients, a differentiated DifferentiableGraph runs as
        an autograd function (`autograd.graph_function`)."""
        from tsjit.runtime.autograd.recording import graph_function

        if not getattr(op, "is_differentiated", False):
            raise TsjitError("a DifferentiableGraph runs with gradients only once differentiated (run the "
                             "differentiate pass)", SourceLocation.of_op(op))  # fmt: skip
        return graph_function(op, self.program)


    def fork(self, op: Operation) -> Callable[..., Any]:
        """`prim.fork`: its subgraph, compiled, runs on the fork pool."""
        from tsjit.runtime.futures import fork

        invoke = self.subgraph(op)

        def start(*args: Any) -> Any:
            return fork(invoke, args)

        return start

    def object_list_operator(self, op: Operation) -> Callable[..., Any] | None:
        """`sort`/`sorted` of a list of objects order them by their class's `__lt__`."""
        if op.name not in ("aten.sort", "aten.sorted") or not op.operands:
            return None
        element = getattr(op.operands[0].type, "element_type", None)
        if not isinstance(element, ClassType):
            return None
        code = self.program.method(element.qualname.data, "__lt__")
        if code is None:
            raise TsjitError(f"sorting objects of class {element.qualname.data} needs its __lt__ method",
                             SourceLocation.of_op(op))  # fmt: skip
        less = code.invoke
        compare = functools.cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0))

        def sorted_objects(items: list[Any], reverse: bool = False) -> list[Any]:
            return sorted(items, key=compare, reverse=reverse)

        if op.name == "aten.sorted":
            return sorted_objects

        def sort_objects(items: list[Any], reverse: bool = False) -> None:
            items[:] = sorted_objects(items, reverse)

        return sort_objects


def compile_block_code(program: Program, block: Block, name: str) -> Code:
    """Plain code for a region whose block arguments are its inputs and whose
    terminator's operands are its results (a subgraph's body)."""
    code = Code(name, len(block.args))
    _Compiler(program, code).compile(block)
    return code


def _last_uses(block: Block, ops: Sequence[Operation], ending: frozenset[SSAValue]) -> dict[SSAValue, int]:
    """For each value of `block` (its arguments, its ops' results) and each value of
    `ending`, the index of the last op that uses it, directly or in nested regions."""
    tracked = set(ending).union(block.args)
    for op in ops:
        tracked.update(op.results)
    last: dict[SSAValue, int] = {}
    for index, op in enumerate(ops):
        for value in op.operands:
            if value in tracked:
                last[value] = index
        if op.regions:
            for nested in op.walk():
                for value in nested.operands:
                    if value in tracked:
                        last[value] = index
    return last


# --------------------------------------------------------------------------------------
# What each op compiles to
# --------------------------------------------------------------------------------------


def _operator_kernel(overload: str) -> Callable[..., Any] | None:
    """The numpy kernel of an overload, else its library decomposition run by the
    interpreter (`tsjit.frontend.library_decompositions`), else None."""
    callee = kernels.lookup(overload)
    if callee is None:
        from tsjit.frontend.library_decompositions import decomposition_callable

        callee = decomposition_callable(overload)
    return callee


def _constant_value(op: Operation) -> Any:
    from tsjit.dialects.prim import ConstantOp
    from tsjit.dialects.types import DeviceType
    from tsjit.runtime.values import Device

    assert isinstance(op, ConstantOp)
    value = op.python_value
    if isinstance(op.result.type, DeviceType):
        return Device.parse(value)
    return value


def _property_str(op: Operation, name: str) -> str:
    return op.properties[name].data  # pyright: ignore[reportAttributeAccessIssue]


def _property_int(op: Operation, name: str) -> int:
    return op.properties[name].value.data  # pyright: ignore[reportAttributeAccessIssue]


def _make_tuple(*items: Any) -> tuple[Any, ...]:
    return items


def _make_list(*items: Any) -> list[Any]:
    return list(items)


def _make_dict(*keys_and_values: Any) -> dict[Any, Any]:
    return dict(zip(keys_and_values[::2], keys_and_values[1::2]))


def _identity(value: Any) -> Any:
    return value


def _first(values: Sequence[Any]) -> Any:
    return values[0]


def _tuple_constructor(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    result_type = op.results[0].type
    if isinstance(result_type, TupleType) and result_type.names.data:
        qualified = "" if isinstance(result_type.qualname, NoneAttr) else result_type.qualname.data
        fields = tuple(n.data for n in result_type.names)

        def make_named_tuple(*items: Any) -> NamedTupleValue:
            return NamedTupleValue(items, qualified, fields)

        return make_named_tuple
    return _make_tuple


def _tuple_unpacker(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    """The outputs are assigned from the tuple itself (one output: its element)."""
    return _first if len(op.results) == 1 else _identity


def _list_unpacker(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    count = len(op.results)

    def unpack(items: list[Any]) -> Any:
        if len(items) != count:
            raise TorchScriptError(f"Expected {count} elements in a list but found {len(items)}")
        return items[0] if count == 1 else items

    return unpack


def _tuple_slicer(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    begin, end = _property_int(op, "begin"), _property_int(op, "end")

    def tuple_slice(items: tuple[Any, ...]) -> tuple[Any, ...]:
        return items[begin:end]

    return tuple_slice


def _tuple_index(items: tuple[Any, ...], index: int) -> Any:
    if not -len(items) <= index < len(items):
        raise TorchScriptError(f"Tuple index out of range: index {index} of a {len(items)}-tuple")
    return items[index]


def _attribute_getter(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    """An attribute's value; a parameter that requires grad is a Variable, which
    code that does not record gradients reads as its array (a list of parameters, as
    RNN layers keep theirs, reads as a list of arrays)."""
    name = _property_str(op, "name")
    autograd = compiler.autograd
    from tsjit.runtime.autograd.variable import Variable

    def get_attribute(obj: ScriptObject) -> Any:
        try:
            value = obj.attributes[name]
        except KeyError:
            raise TorchScriptError(f"object of type {obj.qualified_name} has no attribute '{name}'") from None
        if value.__class__ is ndarray or autograd:
            return value
        if isinstance(value, Variable):
            return value.array
        if value.__class__ is list and any(isinstance(v, Variable) for v in value):
            return [v.array if isinstance(v, Variable) else v for v in value]
        return value

    return get_attribute


def _attribute_setter(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    name = _property_str(op, "name")

    def set_attribute(obj: ScriptObject, value: Any) -> None:
        obj.attributes[name] = value

    return set_attribute


def _object_creator(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    result_type = op.results[0].type
    assert isinstance(result_type, ClassType)
    class_name = result_type.qualname.data

    def create_object() -> ScriptObject:
        return ScriptObject(class_name)

    return create_object


def _raise_exception(message: str, exception_class: str | None = None) -> None:
    """`raise X(msg)` carries "builtins.X"; a failing assert carries no class and
    TorchScript reports it as RuntimeError."""
    kind = exception_class.rsplit(".", 1)[-1] if exception_class else "RuntimeError"
    raise TorchScriptError(message, kind)


def _printer(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    to_str = kernels.lookup("aten::str")
    assert to_str is not None, "the aten::str kernel formats prim.Print's values"
    if compiler.autograd:
        from tsjit.runtime.autograd.recording import unwrap
    else:
        unwrap = _identity

    def print_values(*values: Any) -> None:
        print(" ".join(to_str(unwrap(v)) for v in values), flush=True)

    return print_values


def _ignore(*values: Any) -> None:
    return None


def _constant_chunk(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    chunk = kernels.lookup("aten::chunk")
    assert chunk is not None, "prim.ConstantChunk runs the aten::chunk kernel"
    if compiler.autograd:
        from tsjit.dialects.schema import schemas_for
        from tsjit.runtime.autograd.recording import grad_callee

        chunk = grad_callee(op, schemas_for("aten::chunk")[0], "aten::chunk", chunk)
    chunks, dim = _property_int(op, "chunks"), _property_int(op, "dim")
    count = len(op.results)

    def constant_chunk(tensor: Any) -> Any:
        pieces = chunk(tensor, chunks, dim)
        if len(pieces) != count:
            raise TorchScriptError(f"prim::ConstantChunk expected {count} chunks but got {len(pieces)}")
        return pieces[0] if count == 1 else pieces

    return constant_chunk


def _profiling() -> Any:
    """`tsjit.runtime.profiling`, imported when a graph has profile ops."""
    from tsjit.runtime import profiling

    return profiling


def _wait(future: Any) -> Any:
    return future.wait()


def _isinstance_checker(compiler: _Compiler, op: Operation) -> Callable[..., Any]:
    from tsjit.runtime.values import is_instance

    types = tuple(op.properties["types"])  # pyright: ignore[reportArgumentType]

    def check(value: Any) -> bool:
        return any(is_instance(value, t) for t in types)

    return check


def _mentions_enum(t: Attribute) -> bool:
    from tsjit.dialects.types import EnumType

    if isinstance(t, EnumType):
        return True
    return any(_mentions_enum(p) for p in getattr(t, "parameters", ()) if isinstance(p, TorchType)) or any(
        _mentions_enum(e) for p in getattr(t, "parameters", ()) if isinstance(p, ArrayAttr) for e in p
    )


def _with_enum_values(value: Any, resolve: Callable[[EnumMember], EnumMember]) -> Any:
    if isinstance(value, EnumMember):
        return resolve(value)
    if isinstance(value, list):
        return [_with_enum_values(v, resolve) for v in value]
    if isinstance(value, tuple):
        return tuple(_with_enum_values(v, resolve) for v in value)
    return value


_EMITTERS: dict[str, Callable[[_Compiler, Operation, set[SSAValue]], None]] = {
    "prim.Constant": _Compiler.constant_op,
    "prim.Uninitialized": _Compiler.uninitialized,
    "prim.If": _Compiler.if_op,
    "prim.Loop": _Compiler.loop_op,
    "prim.With": _Compiler.with_op,
    "prim.Enter": _Compiler.enter,
    "prim.Exit": _Compiler.exit,
    "prim.unchecked_cast": _Compiler.alias,
    "prim.Store": _Compiler.structural_error,
    "prim.Load": _Compiler.structural_error,
    "prim.LoopContinuation": _Compiler.structural_error,
    "prim.ReturnStmt": _Compiler.structural_error,
}
"""Ops that become control flow, moves or template constants rather than calls."""

_CALLABLES: dict[str, Callable[[_Compiler, Operation], Callable[..., Any]]] = {
    "prim.TupleConstruct": _tuple_constructor,
    "prim.TupleUnpack": _tuple_unpacker,
    "prim.TupleIndex": lambda compiler, op: _tuple_index,
    "prim.TupleSlice": _tuple_slicer,
    "prim.ListConstruct": lambda compiler, op: _make_list,
    "prim.ListUnpack": _list_unpacker,
    "prim.DictConstruct": lambda compiler, op: _make_dict,
    "prim.GetAttr": _attribute_getter,
    "prim.SetAttr": _attribute_setter,
    "prim.CreateObject": _object_creator,
    "prim.RaiseException": lambda compiler, op: _raise_exception,
    "prim.Print": _printer,
    "prim.ConstantChunk": _constant_chunk,
    "prim.CallMethod": _Compiler.call_method,
    "func.call": _Compiler.call_function,
    "prim.FusionGroup": _Compiler.subgraph,
    "prim.fork": _Compiler.fork,
    "prim.isinstance": _isinstance_checker,
    "profile.profile": lambda compiler, op: _profiling().profile_recorder(op),
    "profile.type_check": lambda compiler, op: _profiling().type_checker(op.expected_types.data, compiler.autograd),
    "profile.bailout": _Compiler.bailout,
}
"""Ops that run as a call of a Python callable built for the op at compile time."""

_PLAIN_CALLABLES: dict[str, Callable[[_Compiler, Operation], Callable[..., Any]]] = {
    "prim.DifferentiableGraph": _Compiler.subgraph,
}
_AUTOGRAD_CALLABLES: dict[str, Callable[[_Compiler, Operation], Callable[..., Any]]] = {
    "prim.DifferentiableGraph": _Compiler.differentiable_graph,
}
"""Ops that run differently in code that records gradients (`Program.autograd`)."""

_INTERPRETER_OPERATORS: dict[str, Callable[..., Any]] = {"aten::wait": _wait}
"""Schema operators whose implementation needs the interpreter's own values."""
