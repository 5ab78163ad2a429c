"""Variables of the function being emitted: one frame per block, as TorchScript's
`Environment`.

A first-class value assigned to a variable becomes a `prim.Store`, every read a
`prim.Load` of the variable's declared type; SSA conversion (`ssa.py`) later resolves
them. A read in the block that made the last assignment, with nothing nested assigning
the variable since, is that value already (what SSA conversion would make of the Load),
so it emits no Load. Stores are held back until something can observe them (a Load,
control flow, a nested block, the end of a nested block), so straight-line code, whose
reads all know their values, makes none. Values that are not first-class (modules,
functions, `range(...)`) live in the frame as sugared values. Reassigning a variable of
an enclosing block must keep its type (after implicit conversion), because control flow
merges it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Block, OpResult, SSAValue

from tsjit.dialects.types import ListType, is_subtype_of, unshaped
from tsjit.frontend.annotations import type_str
from tsjit.frontend.sugared_values import SimpleValue, SugaredValue

if TYPE_CHECKING:
    from tsjit.frontend.emitter import FunctionEmitter


def meaningful_name(name: str) -> bool:
    """Temporaries the frontend invents (`$tmp0`) do not name values."""
    return not name.startswith("$") and not (name.startswith("_") and name[1:].isdigit())


def display_name(name: str) -> str:
    """The name a value shows for variable `name` (comprehension targets are renamed
    `v$1` so that they cannot leak into the enclosing scope)."""
    return name.split("$", 1)[0]


class Frame:
    """The variables of one block; `parent` is the enclosing block's frame."""

    def __init__(self, emitter: FunctionEmitter, block: Block, parent: Frame | None):
        self.emitter = emitter
        self.block = block
        self.parent = parent
        self.types: dict[str, Attribute] = {}
        self.values: dict[str, SugaredValue] = {}
        self.type_errors: dict[str, Callable[[], str]] = {}  # used on the root frame only
        self.renames: dict[str, str] = {}  # comprehension targets: name -> storage name
        self.current: dict[str, SSAValue] = {}
        """Variables whose value in this block is known: the last one stored here, of the
        declared type, with no nested block assigning the variable since."""
        self.refined: set[str] = set()  # variables only refined here (`isinstance`, `is None`)
        self.pending: dict[str, SSAValue] = {}
        """Stores not emitted yet, by storage name (in the order of the first assignment,
        which orders loop-carried values): the emitter emits them before the first op
        that SSA conversion would resolve against them (`FunctionEmitter.emit_pending_stores`)."""

    def storage_name(self, name: str) -> str:
        """The name a variable is stored under (a comprehension's own targets are
        renamed so that they never meet the enclosing scope's variables)."""
        if not self.emitter.has_renames:
            return name
        frame: Frame | None = self
        while frame is not None:
            if name in frame.renames:
                return frame.renames[name]
            frame = frame.parent
        return name

    # -- lookup -------------------------------------------------------------------------
    def find_in_this_frame(self, name: str, node: ast.AST | None) -> SugaredValue | None:
        if name in self.values:
            return self.values[name]
        if name in self.types:
            return SimpleValue(self.emitter.load(name, self.types[name], node))
        return None

    def find(self, name: str, node: ast.AST | None) -> SugaredValue | None:
        known = self.current.get(name)
        if known is not None:
            return SimpleValue(known)
        frame: Frame | None = self
        while frame is not None:
            if (found := frame.find_in_this_frame(name, node)) is not None:
                return found
            frame = frame.parent
        return None

    def lookup_type(self, name: str) -> Attribute | None:
        """The declared type of a first-class variable, without emitting a Load."""
        frame: Frame | None = self
        while frame is not None:
            if name in frame.types:
                return frame.types[name]
            if name in frame.values:
                return None
            frame = frame.parent
        return None

    def is_defined_in_parents(self, name: str) -> bool:
        frame = self.parent
        while frame is not None:
            if name in frame.types or name in frame.values:
                return True
            frame = frame.parent
        return False

    def defined_variables(self, keep_refined: bool = True) -> list[str]:
        """The variables assigned in this block (and those only refined, if asked)."""
        if keep_refined or not self.refined:
            return list(self.types)
        return [n for n in self.types if n not in self.refined]

    def root(self) -> Frame:
        frame = self
        while frame.parent is not None:
            frame = frame.parent
        return frame

    def set_type_error(self, name: str, message: Callable[[], str]) -> None:
        self.root().type_errors[name] = message

    def type_error(self, name: str) -> str | None:
        message = self.root().type_errors.get(name)
        return message() if message is not None else None

    # -- assignment ---------------------------------------------------------------------
    def set_var(self, node: ast.AST | None, name: str, value: SSAValue) -> None:
        self.set_sugared_var(node, name, SimpleValue(value), None)

    def set_sugared_var(self, node: ast.AST | None, name: str, value: SugaredValue,
                        annotated_type: Attribute | None) -> None:  # fmt: skip
        em = self.emitter
        simple = value.value if isinstance(value, SimpleValue) else None
        if (
            simple is not None
            and meaningful_name(name)
            and simple.name_hint is None
            and _defined_in(simple, self.block)
        ):
            simple.name_hint = em.value_name(display_name(name))
        if self.is_defined_in_parents(name):
            if annotated_type is not None:
                raise em.error(node, f"Attempting to declare and annotate the type of variable '{name}' but it is "
                                     "already defined in an outer block")  # fmt: skip
            parent_type = self.parent.lookup_type(name) if self.parent is not None else None
            if simple is None:
                raise em.error(node, f"Cannot re-assign '{name}' to a value of type {value.kind} because {name} is "
                                     "not a first-class value.  Only reassignments to first-class values are allowed")  # fmt: skip
            if parent_type is None:
                raise em.error(node, f"Cannot re-assign '{name}' because it has type {value.kind} and {name} is not "
                                     "a first-class value.  Only reassignments to first-class values are allowed")  # fmt: skip
            simple = em.convert_to_type(node, unshaped(parent_type), simple)
            if not is_subtype_of(simple.type, unshaped(parent_type)):
                message = (
                    f"Variable '{name}' previously has type {type_str(parent_type)} but is now being assigned to a value "
                    f"of type {type_str(simple.type)}"
                )
                if isinstance(parent_type, ListType) and isinstance(simple.type, ListType):
                    message += "; empty lists default to List[Tensor]: annotate the assignment to create an empty list of another type"
                raise em.error(node, message)
        self.refined.discard(name)
        if simple is not None:
            if annotated_type is not None and not is_subtype_of(simple.type, annotated_type):
                raise em.error(node, f"Variable '{name}' is annotated with type {type_str(annotated_type)} but is being "
                                     f"assigned to a value of type {type_str(simple.type)}")  # fmt: skip
            self.pending[self.storage_name(name)] = simple
            declared = annotated_type if annotated_type is not None else simple.type
            self.types[name] = declared
            self.values.pop(name, None)
            if (declared is simple.type or declared == simple.type) and not em.is_empty_list_literal(simple):
                self.current[name] = simple
            else:  # a read has the declared type, or must not pass for the literal `[]`
                # (which takes the type its parameter expects): it needs its Load
                self.current.pop(name, None)
        else:
            self.values[name] = value
            self.types.pop(name, None)
            self.current.pop(name, None)
        self._forget_in_parents(name)

    def merge_var(self, name: str, type: Attribute) -> None:
        """Declares `name` with `type` after control flow that assigns it: its value
        becomes known only when SSA conversion merges the branches."""
        self.types[name] = type
        self.values.pop(name, None)
        self.current.pop(name, None)

    def _forget_in_parents(self, name: str) -> None:
        """An assignment in a nested block changes the variable for the blocks around
        it, whose reads must then go through Loads."""
        frame = self.parent
        while frame is not None:
            frame.current.pop(name, None)
            frame = frame.parent

    def remove_var(self, node: ast.AST, name: str) -> None:
        removed = False
        frame: Frame | None = self
        while frame is not None:
            removed = (
                bool(frame.values.pop(name, None) is not None or frame.types.pop(name, None) is not None)
                or removed
            )
            frame.current.pop(name, None)
            frame = frame.parent
        if not removed:
            raise self.emitter.error(node, f"undefined value {name}")


def _defined_in(value: SSAValue, block: Block) -> bool:
    if value.__class__ is OpResult:  # not isinstance: xDSL's IR classes are ABCs, slow to check
        return value.op.parent is block  # pyright: ignore[reportAttributeAccessIssue]
    owner = value.owner
    if isinstance(owner, Block):
        return owner is block
    return owner.parent_block() is block
