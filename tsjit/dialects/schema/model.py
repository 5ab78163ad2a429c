"""PyTorch's FunctionSchema as a structured model.

A schema such as

    aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]

is a `FunctionSchema` holding `Argument`s; each argument keeps its type as a tree
(`SchemaType`, type variables kept apart from `Any`), its tsjit `TorchType`, its alias
annotation (`AliasInfo`) and its default. Every piece also keeps the text it was written
with, so `str(schema)` gives back PyTorch's exact spelling.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from xdsl.ir import Attribute

from tsjit.dialects.types import (
    AnyType,
    AwaitType,
    DictType,
    FutureType,
    ListType,
    OptionalType,
    RRefType,
    TorchType,
    TupleType,
    UnionType,
    parse_torchscript_type,
)

WILDCARD = "*"
"""The alias set `*`: a value that may alias anything in the wildcard set."""


@dataclass(frozen=True)
class AliasInfo:
    """An alias annotation, as c10::AliasInfo models it.

    `Tensor(a!)` writes set `a`; `Tensor(a -> *)` enters the op in set `a` and leaves it
    in the wildcard set; `Tensor(a!)[]` is a list (no set of its own) whose elements
    carry `(a!)` in `contained`.
    """

    before_sets: frozenset[str] = frozenset()
    after_sets: frozenset[str] = frozenset()
    is_write: bool = False
    contained: tuple[AliasInfo, ...] = ()

    @property
    def is_wildcard_before(self) -> bool:
        return WILDCARD in self.before_sets

    @property
    def is_wildcard_after(self) -> bool:
        return WILDCARD in self.after_sets

    @property
    def writes(self) -> bool:
        """Whether this value or anything it contains is written."""
        return self.is_write or any(c.writes for c in self.contained)

    def all_sets(self) -> frozenset[str]:
        """Every set named here or in contained values, before and after the op."""
        sets = self.before_sets | self.after_sets
        for c in self.contained:
            sets |= c.all_sets()
        return sets

    def may_alias(self, other: AliasInfo) -> bool:
        """Whether values with these annotations may share memory (a common set,
        contained values included, or a wildcard on either side)."""
        mine, theirs = self.all_sets(), other.all_sets()
        if not mine or not theirs:
            return False
        return WILDCARD in mine or WILDCARD in theirs or bool(mine & theirs)


class TypeKind(enum.Enum):
    NAMED = "named"  # Tensor, int, Scalar, __torch__.torch.classes.x.Y, ...
    VARIABLE = "variable"  # t, t1, tVal: bound per call
    LIST = "list"  # T[] and T[N]
    OPTIONAL = "optional"  # T?
    TUPLE = "tuple"  # (T1, T2)
    GENERIC = "generic"  # Dict(K, V), Future(T), Union(...), RRef(T), Await(T)


@dataclass(frozen=True)
class SchemaType:
    """A schema type without its alias annotations; `str()` is the bare type text."""

    kind: TypeKind
    name: str = ""  # NAMED and VARIABLE: the type name; GENERIC: Dict, Future, ...
    elements: tuple[SchemaType, ...] = ()
    size: int | None = None  # fixed length of `int[2]`

    def __str__(self) -> str:
        return self.spelled()

    def spelled(self, variables_as: str | None = None) -> str:
        """The bare type text; with `variables_as`, every type variable spelled so."""
        match self.kind:
            case TypeKind.NAMED:
                return self.name
            case TypeKind.VARIABLE:
                return variables_as or self.name
            case TypeKind.LIST:
                size = "" if self.size is None else str(self.size)
                return f"{self.element.spelled(variables_as)}[{size}]"
            case TypeKind.OPTIONAL:
                return f"{self.element.spelled(variables_as)}?"
            case TypeKind.TUPLE:
                return "(" + ", ".join(e.spelled(variables_as) for e in self.elements) + ")"
            case TypeKind.GENERIC:
                return f"{self.name}(" + ", ".join(e.spelled(variables_as) for e in self.elements) + ")"

    @property
    def element(self) -> SchemaType:
        return self.elements[0]

    def variables(self) -> Iterator[str]:
        """Names of the type variables, in order of appearance."""
        if self.kind is TypeKind.VARIABLE:
            yield self.name
        for e in self.elements:
            yield from e.variables()

    @functools.cached_property
    def has_variables(self) -> bool:
        return next(self.variables(), None) is not None

    @functools.cached_property
    def torch_type(self) -> TorchType:
        """The tsjit type; type variables become `Any`."""
        return _torch_type(self.spelled(variables_as="Any"))

    def substitute(self, bindings: Mapping[str, Attribute]) -> Attribute:
        """The tsjit type with type variables replaced by `bindings` (unbound: `Any`)."""
        if not self.has_variables:
            return self.torch_type
        match self.kind:
            case TypeKind.VARIABLE:
                return bindings.get(self.name, AnyType())
            case TypeKind.LIST:
                return ListType(self.element.substitute(bindings))  # pyright: ignore[reportArgumentType]
            case TypeKind.OPTIONAL:
                return OptionalType(self.element.substitute(bindings))  # pyright: ignore[reportArgumentType]
            case TypeKind.TUPLE:
                return TupleType([e.substitute(bindings) for e in self.elements])  # pyright: ignore[reportArgumentType]
            case TypeKind.GENERIC if self.name in _GENERIC_TYPES:
                return _GENERIC_TYPES[self.name](*(e.substitute(bindings) for e in self.elements))
            case _:
                return self.torch_type


_GENERIC_TYPES: dict[str, Callable[..., TorchType]] = {
    "Dict": DictType,
    "Future": FutureType,
    "Await": AwaitType,
    "RRef": RRefType,
    "Union": lambda *members: UnionType(members),
}


@functools.cache
def _torch_type(text: str) -> TorchType:
    return parse_torchscript_type(text)


@dataclass(frozen=True)
class Argument:
    """One argument or return of a schema.

    `type_text` is the type as written, alias annotations included (`Tensor(a!)`);
    `default_text` the default as written (`1.0000000000000001e-05`) and `default` its
    value, lists as tuples (`None` both when absent and for `=None`: see `has_default`).
    """

    name: str
    schema_type: SchemaType
    type_text: str
    alias_info: AliasInfo | None = None
    kwarg_only: bool = False
    default_text: str | None = None
    default: object = None

    @property
    def type(self) -> TorchType:
        return self.schema_type.torch_type

    @property
    def has_default(self) -> bool:
        return self.default_text is not None

    @property
    def fixed_size(self) -> int | None:
        """N of `int[N]` (also under `?`), the length a single value broadcasts to."""
        t = self.schema_type
        if t.kind is TypeKind.OPTIONAL:
            t = t.element
        return t.size if t.kind is TypeKind.LIST else None

    @property
    def is_write(self) -> bool:
        return self.alias_info is not None and self.alias_info.writes

    def __str__(self) -> str:
        text = self.type_text
        if self.name:
            text += " " + self.name
        if self.default_text is not None:
            text += "=" + self.default_text
        return text


@dataclass(frozen=True)
class FunctionSchema:
    """An operator overload's signature: `aten::add.Tensor(Tensor self, ...) -> Tensor`."""

    name: str  # "aten::add"
    overload_name: str  # "Tensor", "" for the default overload
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    is_vararg: bool = False  # `...` after the arguments
    is_varret: bool = False  # `...` among the returns
    _index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {a.name: i for i, a in enumerate(self.arguments)})

    @property
    def namespace(self) -> str:
        return self.name.partition("::")[0]

    @property
    def qualified_name(self) -> str:
        """`aten::add.Tensor`: name and overload, as PyTorch names an overload."""
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def is_mutable(self) -> bool:
        """Whether the op writes any argument (`(a!)`, also inside a list)."""
        return any(a.is_write for a in self.arguments)

    def mutated_arguments(self) -> tuple[int, ...]:
        return tuple(i for i, a in enumerate(self.arguments) if a.is_write)

    def argument_index(self, name: str) -> int | None:
        return self._index.get(name)

    def aliased_arguments(self, output: int) -> tuple[int, ...]:
        """Arguments that output `output` may alias or contain aliases of."""
        info = self.returns[output].alias_info
        if info is None:
            return ()
        return tuple(
            i for i, a in enumerate(self.arguments) if a.alias_info is not None and info.may_alias(a.alias_info)
        )

    def is_aliasing(self, output: int) -> bool:
        """Whether output `output` may share memory with an argument (or the wildcard
        set); outputs without annotation are fresh values."""
        info = self.returns[output].alias_info
        return info is not None and bool(info.all_sets())

    def is_wildcard_output(self, output: int) -> bool:
        """Outputs like `t(*)` may alias anything in the wildcard set."""
        info = self.returns[output].alias_info
        return info is not None and WILDCARD in info.all_sets()

    def escapes_to_wildcard(self, argument: int) -> bool:
        """Arguments like `Tensor(a -> *)` or `t(c -> *)` join the wildcard set: after
        the op they may be reachable from anything (e.g. stored in a list)."""
        info = self.arguments[argument].alias_info
        return info is not None and (info.is_wildcard_after or any(c.is_wildcard_after for c in info.contained))

    def __str__(self) -> str:
        parts: list[str] = []
        keyword_only = False
        for a in self.arguments:
            if a.kwarg_only and not keyword_only:
                parts.append("*")
                keyword_only = True
            parts.append(str(a))
        if self.is_vararg:
            parts.append("...")
        returns = [str(r) for r in self.returns] + (["..."] if self.is_varret else [])
        single = len(self.returns) == 1 and not self.is_varret
        plain = (single and not returns[0].startswith("(")) or (not self.returns and self.is_varret)
        result = ", ".join(returns) if plain else "(" + ", ".join(returns) + ")"
        return f"{self.qualified_name}({', '.join(parts)}) -> {result}"
