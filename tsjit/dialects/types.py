"""TorchScript's type system as xDSL type attributes (the `ts` dialect).

Every TorchScript value type has one attribute class here, printed as `!ts.<name>`.
The module also carries the two relations the JIT overview builds on — subtyping
(`is_subtype_of`) and the join used at If/Loop outputs (`unify`) — and the conversion
to and from TorchScript's own type strings (`Float(2, *)`, `int?`, `Dict(str, Tensor)`).

    !ts.tensor                                   Tensor (nothing known)
    !ts.tensor<f32, [2, ?]>                      Float(2, *)
    !ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>
    !ts.list<!ts.int>  !ts.optional<!ts.tensor>  !ts.tuple<!ts.tensor, !ts.int>
    !ts.dict<!ts.str, !ts.tensor>  !ts.class<"__torch__.source.Model">
"""

from __future__ import annotations

from abc import ABCMeta
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    NoneAttr,
    Signedness,
    StringAttr,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

# --------------------------------------------------------------------------------------
# dtypes: TorchScript ScalarType <-> builtin element type
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DType:
    """One TorchScript ScalarType: its name in type strings, its enum code, its torch
    name and the builtin type tsjit uses as the tensor element type."""

    name: str  # "Float", as in `Float(2, 3)`
    code: int  # c10::ScalarType value, the int TorchScript passes as `dtype`
    torch_name: str  # "float32", as in `torch.float32`
    element: Attribute

    @property
    def is_floating(self) -> bool:
        return isinstance(self.element, (Float16Type, Float32Type, Float64Type, BFloat16Type))

    @property
    def is_complex(self) -> bool:
        return isinstance(self.element, ComplexType)


_ui8 = IntegerType(8, Signedness.UNSIGNED)

DTYPES: tuple[DType, ...] = (
    DType("Byte", 0, "uint8", _ui8),
    DType("Char", 1, "int8", i8),
    DType("Short", 2, "int16", i16),
    DType("Int", 3, "int32", i32),
    DType("Long", 4, "int64", i64),
    DType("Half", 5, "float16", f16),
    DType("Float", 6, "float32", f32),
    DType("Double", 7, "float64", f64),
    DType("ComplexFloat", 9, "complex64", ComplexType(f32)),
    DType("ComplexDouble", 10, "complex128", ComplexType(f64)),
    DType("Bool", 11, "bool", i1),
    DType("BFloat16", 15, "bfloat16", bf16),
)
DTYPE_BY_NAME = {d.name: d for d in DTYPES}
DTYPE_BY_CODE = {d.code: d for d in DTYPES}
DTYPE_BY_TORCH_NAME = {d.torch_name: d for d in DTYPES}
DTYPE_BY_ELEMENT = {d.element: d for d in DTYPES}


# --------------------------------------------------------------------------------------
# Type attributes
# --------------------------------------------------------------------------------------


class _Interned(ABCMeta):
    """Makes constructing a type look its value up first: `TensorType()`, `IntType()`,
    `ListType(t)` return one shared object per distinct type (built and verified once),
    so that the frontend and the passes, which make types all the time, build no
    attributes on their hot paths. The parser's types (`new`) are interned alike, apart
    from these: equal, but not always identical."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        key = _intern_key(cls, args, kwargs)
        if key is None:
            return super().__call__(*args, **kwargs)
        found = _INTERNED.get(key)
        if found is None:
            if len(_INTERNED) >= _INTERNED_LIMIT:
                _INTERNED.clear()
            found = _INTERNED[key] = super().__call__(*args, **kwargs)
        return found


_INTERNED: dict[tuple[Any, ...], Any] = {}
_INTERNED_LIMIT = 1 << 16
"""Distinct types kept (shapes make many); beyond it the table starts again."""
_ATOMS = (str, int, float, type(None))


def _intern_key(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """A hashable key for a constructor call, or None when an argument is of a kind
    that could change later (anything but numbers, strings, attributes and lists or
    tuples of those)."""
    parts: list[Any] = [cls]
    for value in args:
        if not _add_key_part(parts, value):
            return None
    for name, value in kwargs.items():
        parts.append(name)
        if not _add_key_part(parts, value):
            return None
    return tuple(parts)


def _add_key_part(parts: list[Any], value: Any) -> bool:
    if isinstance(value, _ATOMS) or isinstance(value, Attribute):
        parts.append(value)
        return True
    if type(value) in (list, tuple) and all(isinstance(v, _ATOMS) or isinstance(v, Attribute) for v in value):
        parts.append((tuple(value),))
        return True
    return False


class TorchType(ParametrizedAttribute, TypeAttribute, metaclass=_Interned):
    """Base of every TorchScript type; lets code ask `isinstance(t, TorchType)`."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        """The generic `<p, ...>` form, with the number of parameters checked (xDSL
        itself fails on a wrong count with an unlocated `zip()` error)."""
        start = parser.pos
        parameters = super().parse_parameters(parser)
        expected = len(cls.get_irdl_definition().parameters)
        if len(parameters) != expected:
            named_at = parser.lexer.input.content.rfind(cls.name, 0, start)  # the type's own name
            parser.raise_error(
                f"!{cls.name} takes {expected} parameter{'s' if expected != 1 else ''}, got {len(parameters)}",
                named_at - 1 if named_at > 0 else start,
                parser.pos,
            )
        return parameters

    @classmethod
    def new(cls, params: Sequence[Attribute]) -> Any:
        """What the parser builds a type with: interned like a constructor call."""
        key = (cls, "new", *params)
        found = _INTERNED.get(key)
        if found is None:
            if len(_INTERNED) >= _INTERNED_LIMIT:
                _INTERNED.clear()
            found = _INTERNED[key] = super().new(params)
        return found

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith(_CACHED)}


_CACHED = "_tsjit_"
"""Prefix of what a type caches about itself in its `__dict__` (hash, unshaped form):
left out when pickled, as string hashes differ between processes."""


def _cache_hash_and_compare_by_identity_first(cls: type[TorchType]) -> None:
    """xDSL's attributes hash and compare all their parameters, recursively, on every
    call; types are immutable, so their hash is computed once, and equality tries
    identity (interned types) and the hashes before the parameters."""
    compute_hash, compare = cls.__hash__, cls.__eq__

    def __hash__(self: TorchType) -> int:
        cached = self.__dict__.get("_tsjit_hash")
        if cached is None:
            cached = self.__dict__["_tsjit_hash"] = compute_hash(self)
        return cached

    def __eq__(self: TorchType, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        if __hash__(self) != __hash__(other):  # pyright: ignore[reportArgumentType]
            return False
        return compare(self, other)

    cls.__hash__ = __hash__  # pyright: ignore[reportAttributeAccessIssue]
    cls.__eq__ = __eq__  # pyright: ignore[reportAttributeAccessIssue]


def _simple(name: str, doc: str) -> type[TorchType]:
    cls = type(
        name.split(".")[1].title().replace("_", "") + "Type",
        (TorchType,),
        {"name": name, "__doc__": doc, "__module__": __name__},
    )
    return irdl_attr_definition(cls)


IntType = _simple("ts.int", "TorchScript `int` (64-bit); also SymInt, ScalarType, Layout, MemoryFormat.")
FloatType = _simple("ts.float", "TorchScript `float` (double).")
BoolType = _simple("ts.bool", "TorchScript `bool`.")
StrType = _simple("ts.str", "TorchScript `str`.")
NoneType = _simple("ts.none", "TorchScript `NoneType`.")
DeviceType = _simple("ts.device", "TorchScript `Device`.")
NumberType = _simple("ts.number", "TorchScript `Scalar`/`number`: int, float, complex or bool.")
AnyType = _simple("ts.any", "TorchScript `Any`: every type is its subtype.")
ComplexScalarType = _simple("ts.complex", "TorchScript `complex`.")


@irdl_attr_definition
class TensorType(TorchType):
    """A tensor with optionally known dtype, sizes (-1 = unknown dim), strides, device
    and requires_grad — TorchScript's `TensorType`, from `Tensor` to `Float(2, 3)`."""

    name = "ts.tensor"

    dtype: Attribute  # builtin element type or NoneAttr
    sizes: ArrayAttr[IntAttr] | NoneAttr
    strides: ArrayAttr[IntAttr] | NoneAttr
    device: StringAttr | NoneAttr
    requires_grad: IntAttr | NoneAttr

    def __init__(
        self,
        dtype: Attribute | None = None,
        sizes: Sequence[int | None] | None = None,
        device: str | None = None,
        requires_grad: bool | None = None,
        strides: Sequence[int] | None = None,
    ):
        super().__init__(
            NoneAttr() if dtype is None else dtype,
            NoneAttr() if sizes is None else ArrayAttr(IntAttr(-1 if s is None else s) for s in sizes),
            NoneAttr() if strides is None else ArrayAttr(IntAttr(s) for s in strides),
            NoneAttr() if device is None else StringAttr(device),
            NoneAttr() if requires_grad is None else IntAttr(int(requires_grad)),
        )

    # -- convenient views --------------------------------------------------------------
    @property
    def element_type(self) -> Attribute | None:
        return None if isinstance(self.dtype, NoneAttr) else self.dtype

    @property
    def dtype_info(self) -> DType | None:
        return DTYPE_BY_ELEMENT.get(self.dtype)

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        """Sizes with None for unknown dims, or None when the rank is unknown."""
        if isinstance(self.sizes, NoneAttr):
            return None
        return tuple(None if d.data == -1 else d.data for d in self.sizes)

    @property
    def rank(self) -> int | None:
        return None if isinstance(self.sizes, NoneAttr) else len(self.sizes)

    @property
    def stride_values(self) -> tuple[int, ...] | None:
        return None if isinstance(self.strides, NoneAttr) else tuple(s.data for s in self.strides)

    @property
    def device_name(self) -> str | None:
        return None if isinstance(self.device, NoneAttr) else self.device.data

    @property
    def grad(self) -> bool | None:
        return None if isinstance(self.requires_grad, NoneAttr) else bool(self.requires_grad.data)

    def with_(self, **changes: object) -> TensorType:
        """A copy with some properties replaced (`None` makes a property unknown)."""
        fields = dict(
            dtype=self.element_type,
            sizes=self.shape,
            device=self.device_name,
            requires_grad=self.grad,
            strides=self.stride_values,
        )
        fields.update(changes)
        return TensorType(**fields)  # pyright: ignore[reportArgumentType]

    def verify(self) -> None:
        if not isinstance(self.dtype, NoneAttr) and self.dtype not in DTYPE_BY_ELEMENT:
            raise VerifyException(f"{self.dtype} is not a TorchScript tensor element type")
        if isinstance(self.sizes, ArrayAttr) and any(d.data < -1 for d in self.sizes):
            raise VerifyException("tensor sizes must be non-negative or ? (unknown)")
        if isinstance(self.strides, ArrayAttr) and (
            not isinstance(self.sizes, ArrayAttr) or len(self.strides) != len(self.sizes)
        ):
            raise VerifyException("tensor strides need sizes of the same rank")
        if isinstance(self.requires_grad, IntAttr) and self.requires_grad.data not in (0, 1):
            raise VerifyException("requires_grad must be true or false")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        dtype: Attribute = NoneAttr()
        sizes: Attribute = NoneAttr()
        strides: Attribute = NoneAttr()
        device: Attribute = NoneAttr()
        grad: Attribute = NoneAttr()
        if parser.parse_optional_punctuation("<") is None:
            return (dtype, sizes, strides, device, grad)

        def dims(allow_unknown: bool) -> ArrayAttr[IntAttr]:
            def dim() -> int:
                if allow_unknown and parser.parse_optional_punctuation("?"):
                    return -1
                return parser.parse_integer(allow_boolean=False)

            return ArrayAttr(IntAttr(d) for d in parser.parse_comma_separated_list(parser.Delimiter.SQUARE, dim))

        if parser.parse_optional_punctuation("*") is None:
            dtype = parser.parse_type()
        while parser.parse_optional_punctuation(","):
            if parser._current_token.text == "[":  # pyright: ignore[reportPrivateUsage]
                sizes = dims(True)
                continue
            key = parser.parse_keyword_in(("strides", "device", "requires_grad"), "in tensor type")
            parser.parse_punctuation("=")
            if key == "strides":
                strides = dims(False)
            elif key == "device":
                device = StringAttr(parser.parse_str_literal())
            else:
                grad = IntAttr(int(parser.parse_boolean()))
        parser.parse_punctuation(">")
        return (dtype, sizes, strides, device, grad)

    def print_parameters(self, printer: Printer) -> None:
        parts: list[str] = []
        if isinstance(self.sizes, ArrayAttr):
            parts.append("[" + ", ".join("?" if d.data == -1 else str(d.data) for d in self.sizes) + "]")
        if isinstance(self.strides, ArrayAttr):
            parts.append("strides = [" + ", ".join(str(s.data) for s in self.strides) + "]")
        if isinstance(self.device, StringAttr):
            parts.append(f'device = "{self.device.data}"')
        if isinstance(self.requires_grad, IntAttr):
            parts.append(f"requires_grad = {'true' if self.requires_grad.data else 'false'}")
        if isinstance(self.dtype, NoneAttr) and not parts:
            return
        with printer.in_angle_brackets():
            if isinstance(self.dtype, NoneAttr):
                printer.print_string("*")
            else:
                printer.print_attribute(self.dtype)
            for p in parts:
                printer.print_string(", " + p)


class _ElementType(TorchType):
    """A type with one element type parameter, printed `!ts.name<T>`. Subclasses
    declare the `element_type` parameter themselves: xDSL's generated `__eq__` only
    compares parameters annotated on the decorated class."""

    element_type: TypeAttribute

    def __init__(self, element_type: TypeAttribute):
        super().__init__(element_type)


@irdl_attr_definition
class ListType(_ElementType):
    """`List[T]` (TorchScript `T[]`): mutable, so invariant in T."""

    name = "ts.list"
    element_type: TypeAttribute


@irdl_attr_definition
class OptionalType(_ElementType):
    """`Optional[T]` (TorchScript `T?`)."""

    name = "ts.optional"
    element_type: TypeAttribute


@irdl_attr_definition
class FutureType(_ElementType):
    """`Future[T]`, the result of `fork`."""

    name = "ts.future"
    element_type: TypeAttribute


@irdl_attr_definition
class AwaitType(_ElementType):
    """`Await[T]`, the result of `torch.jit._awaitable`: a lazily computed T."""

    name = "ts.await"
    element_type: TypeAttribute


@irdl_attr_definition
class RRefType(_ElementType):
    """`RRef[T]`, a remote reference of `torch.distributed.rpc`."""

    name = "ts.rref"
    element_type: TypeAttribute


@irdl_attr_definition
class TupleType(TorchType):
    """`Tuple[T1, ...]`; a NamedTuple also carries its qualified name and field names."""

    name = "ts.tuple"
    types: ArrayAttr[TypeAttribute]
    names: ArrayAttr[StringAttr]
    qualname: StringAttr | NoneAttr

    def __init__(
        self,
        types: Sequence[TypeAttribute],
        names: Sequence[str] = (),
        qualname: str | None = None,
    ):
        super().__init__(
            ArrayAttr(types),
            ArrayAttr(StringAttr(n) for n in names),
            NoneAttr() if qualname is None else StringAttr(qualname),
        )

    def verify(self) -> None:
        if self.names.data and len(self.names) != len(self.types):
            raise VerifyException("a named tuple needs one name per element")

    @property
    def elements(self) -> tuple[TypeAttribute, ...]:
        return self.types.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        names: list[StringAttr] = []
        qualname: Attribute = NoneAttr()
        if parser.parse_optional_punctuation("<") is None:
            return (ArrayAttr(()), ArrayAttr(()), NoneAttr())
        if parser.parse_optional_punctuation(">"):
            return (ArrayAttr(()), ArrayAttr(()), NoneAttr())
        first: str | None = None  # the first field's name, when no qualified name comes first
        if (q := parser.parse_optional_str_literal()) is not None:
            if parser.parse_optional_punctuation(":") is not None:
                first = q
            else:
                qualname = StringAttr(q)
                if parser.parse_optional_punctuation(">"):
                    return (ArrayAttr(()), ArrayAttr(()), qualname)
                parser.parse_punctuation(",")

        def element() -> TypeAttribute:
            nonlocal first
            if first is not None:
                names.append(StringAttr(first))
                first = None
            elif (n := parser.parse_optional_str_literal()) is not None:
                names.append(StringAttr(n))
                parser.parse_punctuation(":")
            return parser.parse_type()

        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, element)
        parser.parse_punctuation(">")
        return (ArrayAttr(types), ArrayAttr(names), qualname)

    def print_parameters(self, printer: Printer) -> None:
        if not self.types.data and isinstance(self.qualname, NoneAttr):
            return
        with printer.in_angle_brackets():
            if isinstance(self.qualname, StringAttr):
                printer.print_string_literal(self.qualname.data)
                if self.types.data:
                    printer.print_string(", ")
            for i, t in enumerate(self.types):
                if i:
                    printer.print_string(", ")
                if self.names.data:
                    printer.print_string_literal(self.names.data[i].data)
                    printer.print_string(": ")
                printer.print_attribute(t)


@irdl_attr_definition
class DictType(TorchType):
    """`Dict[K, V]`; insertion-ordered, mutable, invariant in K and V."""

    name = "ts.dict"
    key_type: TypeAttribute
    value_type: TypeAttribute

    def __init__(self, key_type: TypeAttribute, value_type: TypeAttribute):
        super().__init__(key_type, value_type)


@irdl_attr_definition
class UnionType(TorchType):
    """`Union[T1, T2, ...]`."""

    name = "ts.union"
    types: ArrayAttr[TypeAttribute]

    def __init__(self, types: Sequence[TypeAttribute]):
        super().__init__(ArrayAttr(types))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (ArrayAttr(parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parser.parse_type)),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.types, printer.print_attribute)


class _NamedType(TorchType):
    """A type identified by a qualified name, printed `!ts.name<"qual.name">`
    (subclasses declare `qualname`, see `_ElementType`)."""

    qualname: StringAttr

    def __init__(self, qualname: str):
        super().__init__(StringAttr(qualname))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        name = StringAttr(parser.parse_str_literal())
        parser.parse_punctuation(">")
        return (name,)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.qualname.data)


@irdl_attr_definition
class ClassType(_NamedType):
    """A TorchScript class or module type, e.g. `__torch__.source.Model`."""

    name = "ts.class"
    qualname: StringAttr


@irdl_attr_definition
class EnumType(_NamedType):
    """A TorchScript Enum class."""

    name = "ts.enum"
    qualname: StringAttr


@irdl_attr_definition
class InterfaceType(_NamedType):
    """A TorchScript interface (`@torch.jit.interface`): any class or module whose
    methods match the interface's. Graph text names it by its unqualified name
    (`InterfaceType<OneArg>`), as PyTorch prints it."""

    name = "ts.interface"
    qualname: StringAttr

    @property
    def short_name(self) -> str:
        return self.qualname.data.rsplit(".", 1)[-1]


@irdl_attr_definition
class OpaqueType(_NamedType):
    """A builtin TorchScript type tsjit carries but does not model: Generator, Storage,
    Stream, QScheme, Capsule, Dimname, AnyList, AnyTuple, AnyClass, Layout objects..."""

    name = "ts.opaque"
    qualname: StringAttr


TYPES: tuple[type[TorchType], ...] = (
    IntType, FloatType, BoolType, StrType, NoneType, DeviceType, NumberType, AnyType,
    ComplexScalarType, TensorType, ListType, OptionalType, FutureType, AwaitType, RRefType,
    TupleType, DictType, UnionType, ClassType, EnumType, InterfaceType, OpaqueType,
)  # fmt: skip

TS = Dialect("ts", [], list(TYPES))

for _type in TYPES:
    _cache_hash_and_compare_by_identity_first(_type)


# --------------------------------------------------------------------------------------
# Subtyping and unification
# --------------------------------------------------------------------------------------

_NUMBERS = (IntType, FloatType, ComplexScalarType)
_ANY_OF_KIND: dict[str, type[Attribute]] = {
    "AnyList": ListType,
    "AnyTuple": TupleType,
    "AnyClass": ClassType,
    "AnyClassType": ClassType,
    "AnyEnumType": EnumType,
}


def is_subtype_of(sub: Attribute, sup: Attribute) -> bool:
    """TorchScript's `isSubtypeOf`: reflexive, `Any` on top, `T <: Optional[T]`,
    `None <: Optional[T]`, numbers under `Number`, specialised tensors under less
    specialised ones, tuples covariant, lists and dicts invariant."""
    if sub == sup or isinstance(sup, AnyType):
        return True
    if isinstance(sup, OptionalType):
        if isinstance(sub, NoneType):
            return True
        if isinstance(sub, OptionalType):
            return is_subtype_of(sub.element_type, sup.element_type)
        return is_subtype_of(sub, sup.element_type)
    if isinstance(sup, UnionType):
        if isinstance(sub, UnionType):
            members: tuple[Attribute, ...] = sub.types.data
        elif isinstance(sub, OptionalType):
            members = (sub.element_type, NoneType())
        else:
            members = (sub,)
        return all(any(is_subtype_of(m, s) for s in sup.types) for m in members)
    if isinstance(sup, NumberType):
        return isinstance(sub, _NUMBERS)
    if isinstance(sub, TensorType) and isinstance(sup, TensorType):
        return _tensor_refines(sub, sup)
    if isinstance(sub, TupleType) and isinstance(sup, TupleType):
        return len(sub.types) == len(sup.types) and all(
            is_subtype_of(a, b) for a, b in zip(sub.types, sup.types)
        )
    if isinstance(sub, (FutureType, AwaitType)) and type(sub) is type(sup):
        return is_subtype_of(sub.element_type, sup.element_type)
    if isinstance(sup, InterfaceType):
        # Whether a class has the interface's methods is a fact about its methods, not
        # its name: the frontend checks it where the class is converted to the interface.
        return isinstance(sub, ClassType)
    if isinstance(sup, OpaqueType):
        return isinstance(sub, _ANY_OF_KIND.get(sup.qualname.data, ()))
    return False


def union_of(types: Sequence[Attribute]) -> TorchType:
    """`Union[...]` as TorchScript normalizes it: nested unions and Optionals flattened,
    duplicates and members subsumed by others dropped, members in the order of
    PyTorch's type kinds (so `Union[str, int]` is `Union[int, str]`), one member plus
    None an `Optional`, one member alone itself."""
    flat: list[Attribute] = []

    def add(t: Attribute) -> None:
        if isinstance(t, UnionType):
            for member in t.types:
                add(member)
        elif isinstance(t, OptionalType):
            add(t.element_type)
            add(NoneType())
        elif t not in flat:
            flat.append(t)

    for t in types:
        add(t)
    kept = [t for t in flat if not any(o != t and is_subtype_of(t, o) for o in flat)]
    kept.sort(key=lambda t: _KIND_ORDER.get(type(t), len(_KIND_ORDER)))
    if len(kept) == 1:
        return kept[0]  # pyright: ignore[reportReturnType]
    rest = [t for t in kept if not isinstance(t, NoneType)]
    if len(rest) == 1:
        return OptionalType(rest[0])  # pyright: ignore[reportArgumentType]
    return UnionType(kept)  # pyright: ignore[reportArgumentType]


_KIND_ORDER: dict[type[Attribute], int] = {
    kind: i
    for i, kind in enumerate((
        AnyType, EnumType, TensorType, TupleType, ListType, DictType, NumberType, FloatType, ComplexScalarType,
        FutureType, IntType, NoneType, StrType, BoolType, OptionalType, DeviceType, ClassType, InterfaceType,
        OpaqueType, UnionType,
    ))
}  # fmt: skip
"""PyTorch's TypeKind order (c10's `C10_FORALL_TYPES`), which sorts union members."""


def _tensor_refines(sub: TensorType, sup: TensorType) -> bool:
    """Every property `sup` knows, `sub` knows with the same value."""
    for field in ("dtype", "device", "requires_grad", "strides"):
        want = getattr(sup, field)
        if not isinstance(want, NoneAttr) and getattr(sub, field) != want:
            return False
    if sup.shape is None:
        return True
    if sub.shape is None or len(sub.shape) != len(sup.shape):
        return False
    return all(b is None or a == b for a, b in zip(sub.shape, sup.shape))


def merge_tensor_types(a: TensorType, b: TensorType) -> TensorType:
    """The most specific tensor type both refine: properties that differ become unknown."""

    def same(x: object, y: object) -> object:
        return x if x == y else None

    shape = None
    if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape):
        shape = [same(x, y) for x, y in zip(a.shape, b.shape)]
    return TensorType(
        dtype=same(a.element_type, b.element_type),  # pyright: ignore[reportArgumentType]
        sizes=shape,  # pyright: ignore[reportArgumentType]
        device=same(a.device_name, b.device_name),  # pyright: ignore[reportArgumentType]
        requires_grad=same(a.grad, b.grad),  # pyright: ignore[reportArgumentType]
        strides=same(a.stride_values, b.stride_values) if shape is not None else None,  # pyright: ignore[reportArgumentType]
    )


def unshaped(t: Attribute) -> Attribute:
    """The type with every tensor (also inside containers) made plain `Tensor`."""
    cached = getattr(t, "__dict__", _NO_CACHE).get("_tsjit_unshaped")
    if cached is not None:
        return cached
    result = _unshaped(t)
    if isinstance(t, TorchType):
        t.__dict__["_tsjit_unshaped"] = result
    return result


_NO_CACHE: dict[str, Any] = {}


def _unshaped(t: Attribute) -> Attribute:
    if isinstance(t, TensorType):
        return TensorType()
    if isinstance(t, (ListType, OptionalType, FutureType, AwaitType, RRefType)):
        return type(t)(unshaped(t.element_type))  # pyright: ignore[reportArgumentType]
    if isinstance(t, TupleType):
        return TupleType([unshaped(e) for e in t.types], [n.data for n in t.names], _qual(t))  # pyright: ignore[reportArgumentType]
    if isinstance(t, DictType):
        return DictType(unshaped(t.key_type), unshaped(t.value_type))  # pyright: ignore[reportArgumentType]
    if isinstance(t, UnionType):
        return UnionType([unshaped(e) for e in t.types])  # pyright: ignore[reportArgumentType]
    return t


def _qual(t: TupleType) -> str | None:
    return None if isinstance(t.qualname, NoneAttr) else t.qualname.data


def unify(a: Attribute, b: Attribute) -> Attribute | None:
    """TorchScript's `unifyTypes`: the join of two types at a control-flow merge, or
    None when they have none (then the program is ill-typed)."""
    if is_subtype_of(a, b):
        return b
    if is_subtype_of(b, a):
        return a
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return merge_tensor_types(a, b)
    if isinstance(a, NoneType) and not isinstance(b, NoneType):
        return OptionalType(b)  # pyright: ignore[reportArgumentType]
    if isinstance(b, NoneType) and not isinstance(a, NoneType):
        return OptionalType(a)  # pyright: ignore[reportArgumentType]
    if isinstance(a, OptionalType):
        if (e := unify(a.element_type, b)) is not None:
            return OptionalType(e)  # pyright: ignore[reportArgumentType]
    elif isinstance(b, OptionalType):
        if (e := unify(a, b.element_type)) is not None:
            return OptionalType(e)  # pyright: ignore[reportArgumentType]
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.types) == len(b.types):
        elements = [unify(x, y) for x, y in zip(a.types, b.types)]
        if all(e is not None for e in elements):
            return TupleType(elements)  # pyright: ignore[reportArgumentType]
    if isinstance(a, (FutureType, AwaitType)) and type(a) is type(b):
        if (e := unify(a.element_type, b.element_type)) is not None:  # pyright: ignore[reportAttributeAccessIssue]
            return type(a)(e)  # pyright: ignore[reportArgumentType]
    ua, ub = unshaped(a), unshaped(b)
    if is_subtype_of(ua, ub):
        return ub
    if is_subtype_of(ub, ua):
        return ua
    return None


# --------------------------------------------------------------------------------------
# TorchScript type strings
# --------------------------------------------------------------------------------------

_SCALAR_NAMES: dict[str, type[TorchType]] = {
    "int": IntType,
    "SymInt": IntType,
    "ScalarType": IntType,
    "Layout": IntType,
    "MemoryFormat": IntType,
    "float": FloatType,
    "SymFloat": FloatType,
    "bool": BoolType,
    "SymBool": BoolType,
    "str": StrType,
    "NoneType": NoneType,
    "None": NoneType,
    "Device": DeviceType,
    "Scalar": NumberType,
    "number": NumberType,
    "Any": AnyType,
    "complex": ComplexScalarType,
}
_OPAQUE_NAMES = (
    "Generator", "Storage", "Stream", "QScheme", "Capsule", "Dimname", "AnyList", "AnyTuple",
    "AnyClassType", "AnyClass", "AnyEnumType", "RRef", "Await", "ConstQuantizerPtr",
    "__torch__.torch.classes", "Event", "Future", "Object", "Buffer", "DispatchKeySet", "Function",
)  # fmt: skip
_GENERIC_NAMES = frozenset({"Dict", "Future", "Union", "Optional", "List", "Tuple", "Await", "RRef"})
_NAME_OF: dict[type[Attribute], str] = {
    IntType: "int", FloatType: "float", BoolType: "bool", StrType: "str", NoneType: "NoneType",
    DeviceType: "Device", NumberType: "Scalar", AnyType: "Any", ComplexScalarType: "complex",
}  # fmt: skip


class TypeStringError(ValueError):
    """A malformed TorchScript type string; `offset` points at the problem."""

    def __init__(self, message: str, text: str, offset: int):
        super().__init__(f"{message} at column {offset + 1} of type '{text}'")
        self.text = text
        self.offset = offset


def parse_torchscript_type(text: str) -> TorchType:
    """Reads a type as PyTorch prints it in graphs and schemas (`Float(2, *)`, `int[]`,
    `Tensor?`, `(Tensor, int)`, `Dict(str, Tensor)`, `__torch__.m.Model`, ...)."""
    reader = _TypeReader(text)
    t = reader.type()
    reader.skip()
    if reader.pos != len(text):
        reader.fail("unexpected text after type")
    return t


def to_torchscript_str(t: Attribute) -> str:
    """The inverse of `parse_torchscript_type`, as PyTorch prints the type in a graph:
    `NamedTuple(values : Tensor, indices : Tensor)` (the graph printer drops the
    tuple's class name), `Future[int]`, `RRef[int]`, `Await(int)`, `Enum<__torch__.E>`."""
    if type(t) in _NAME_OF:
        return _NAME_OF[type(t)]
    if isinstance(t, TensorType):
        return _tensor_str(t)
    if isinstance(t, ListType):
        return to_torchscript_str(t.element_type) + "[]"
    if isinstance(t, OptionalType):
        return to_torchscript_str(t.element_type) + "?"
    if isinstance(t, FutureType):
        return f"Future[{to_torchscript_str(t.element_type)}]"
    if isinstance(t, RRefType):
        return f"RRef[{to_torchscript_str(t.element_type)}]"
    if isinstance(t, AwaitType):
        return f"Await({to_torchscript_str(t.element_type)})"
    if isinstance(t, InterfaceType):
        return f"InterfaceType<{t.short_name}>"
    if isinstance(t, TupleType):
        if isinstance(t.qualname, StringAttr):
            return t.qualname.data
        if t.names.data:
            fields = (f"{n.data} : {to_torchscript_str(e)}" for n, e in zip(t.names, t.types))
            return "NamedTuple(" + ", ".join(fields) + ")"
        return "(" + ", ".join(to_torchscript_str(e) for e in t.types) + ")"
    if isinstance(t, DictType):
        return f"Dict({to_torchscript_str(t.key_type)}, {to_torchscript_str(t.value_type)})"
    if isinstance(t, UnionType):
        return "Union(" + ", ".join(to_torchscript_str(e) for e in t.types) + ")"
    if isinstance(t, EnumType):
        return f"Enum<{t.qualname.data}>"
    if isinstance(t, (ClassType, OpaqueType)):
        return t.qualname.data
    raise ValueError(f"{t} is not a TorchScript type")


def _tensor_str(t: TensorType) -> str:
    """PyTorch's spelling: parentheses mean the rank is known, so a 0-dim tensor is
    `Long()` or `Long(requires_grad=0, device=cpu)` and a bare `Long` has unknown rank.
    (PyTorch prints unknown-rank types with properties the same way as 0-dim ones; its
    parser reads them as 0-dim, and so does ours.)"""
    info = t.dtype_info
    head = info.name if info is not None else "Tensor"
    parts: list[str] = []
    if t.shape is not None:
        parts += ["*" if d is None else str(d) for d in t.shape]
        if t.stride_values is not None and t.shape:
            parts.append("strides=[" + ", ".join(map(str, t.stride_values)) + "]")
    if t.grad is not None:
        parts.append(f"requires_grad={int(t.grad)}")
    if t.device_name is not None:
        parts.append(f"device={t.device_name}")
    if not parts and t.shape is None:
        return head
    return f"{head}({', '.join(parts)})"


def _is_type_variable(name: str) -> bool:
    """Schema type variables: `t`, `t1`, `tVal`, `tKey`, ... (TorchScript treats them as Any)."""
    return name in ("t", "tVal", "tKey") or (name[:1] == "t" and name[1:].isdigit())


class _TypeReader:
    """Recursive-descent reader over a TorchScript type string."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, message: str) -> None:
        raise TypeStringError(message, self.text, self.pos)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def peek(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def eat(self, s: str) -> bool:
        if self.peek(s):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str) -> None:
        if not self.eat(s):
            self.fail(f"expected '{s}'")

    def integer(self, what: str) -> int:
        self.skip()
        start = self.pos
        text = self.word()
        if not text.isascii() or not text.isdigit():
            self.pos = start
            self.fail(f"expected an integer {what}, found '{text}'")
        return int(text)

    def word(self) -> str:
        self.skip()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] in "_."):
            self.pos += 1
        if start == self.pos:
            self.fail("expected a type")
        return self.text[start : self.pos]

    def type(self) -> TorchType:
        t = self.primary()
        while True:
            if self.eat("?"):
                t = OptionalType(t)
            elif self.peek("["):
                self.expect("[")
                self.skip()
                while self.pos < len(self.text) and self.text[self.pos].isdigit():
                    self.pos += 1  # `int[2]`: the fixed length is a schema detail
                self.expect("]")
                t = ListType(t)
            else:
                return t

    def type_list(self, close: str) -> list[TorchType]:
        items: list[TorchType] = []
        if self.eat(close):
            return items
        while True:
            items.append(self.type())
            if self.eat(close):
                return items
            self.expect(",")

    def primary(self) -> TorchType:
        if self.eat("("):
            return TupleType(self.type_list(")"))
        name = self.word()
        if name in ("Tensor", "Dynamic") or name in DTYPE_BY_NAME:
            return self.tensor(name)
        if name == "NamedTuple" and self.eat("("):
            return self.named_tuple()
        if name in ("Dict", "Future", "Union", "Optional", "List", "Tuple", "Await", "RRef") and (
            self.peek("(") or self.peek("[")
        ):
            close = ")" if self.eat("(") else "]"
            if close == "]":
                self.expect("[")
            args = self.type_list(close)
            return self.generic(name, args)
        if name in ("Enum", "InterfaceType") and self.eat("<"):
            qualname = self.word()
            self.expect(">")
            return EnumType(qualname) if name == "Enum" else InterfaceType(qualname)
        if name in _GENERIC_NAMES:
            # Graph text spells `Dict(K, V)`, `Future[T]` and `RRef[T]`; annotations
            # inside `annotate(List[int], [])` constants spell `List[T]`, `Dict[K, V]`.
            for opening, closing in (("(", ")"), ("[", "]")):
                if self.peek(opening) and not self.text.startswith(opening + closing, self.pos):
                    self.expect(opening)
                    return self.generic(name, self.type_list(closing))
        if name in _SCALAR_NAMES:
            return _SCALAR_NAMES[name]()
        if _is_type_variable(name):
            return AnyType()
        if name in _OPAQUE_NAMES or name.startswith("__torch__.torch.classes."):
            return OpaqueType(name)
        if name.startswith("__torch__.") or "." in name:
            return ClassType(name)
        self.fail(f"unknown type name '{name}'")
        raise AssertionError  # unreachable

    def named_tuple(self) -> TupleType:
        """`NamedTuple(a : Tensor, b : int)`, as PyTorch prints a named tuple's type."""
        names: list[str] = []
        types: list[TorchType] = []
        while not self.eat(")"):
            if names:
                self.expect(",")
            names.append(self.word())
            self.expect(":")
            types.append(self.type())
        return TupleType(types, names)

    def generic(self, name: str, args: list[TorchType]) -> TorchType:
        arity = {"Dict": 2, "Future": 1, "Optional": 1, "List": 1, "Await": 1, "RRef": 1}
        if name in arity and len(args) != arity[name]:
            self.fail(f"{name} takes {arity[name]} type argument(s), got {len(args)}")
        if name == "Dict":
            return DictType(args[0], args[1])
        if name == "Future":
            return FutureType(args[0])
        if name == "Optional":
            return OptionalType(args[0])
        if name == "List":
            return ListType(args[0])
        if name == "Tuple":
            return TupleType(args)
        if name == "Union":
            return union_of(args)
        if name == "Await":
            return AwaitType(args[0])
        return RRefType(args[0])

    def tensor(self, name: str) -> TensorType:
        dtype = DTYPE_BY_NAME[name].element if name in DTYPE_BY_NAME else None
        if not self.peek("("):
            return TensorType(dtype)
        self.expect("(")
        sizes: list[int | None] = []
        strides: list[int] | None = None
        device: str | None = None
        grad: bool | None = None
        first = True
        while not self.eat(")"):
            if not first:
                self.expect(",")
            first = False
            if self.eat("*"):
                sizes.append(None)
                continue
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos].isdigit():
                sizes.append(self.integer("size"))
                continue
            self.skip()
            key_start = self.pos
            key = self.word()
            self.expect("=")
            if key == "strides":
                self.expect("[")
                strides = []
                while not self.eat("]"):
                    if strides:
                        self.expect(",")
                    strides.append(self.integer("stride"))
            elif key == "requires_grad":
                grad = bool(self.integer("requires_grad"))
            elif key == "device":
                self.skip()
                start = self.pos
                while self.pos < len(self.text) and self.text[self.pos] not in ",)":
                    self.pos += 1
                device = self.text[start : self.pos].strip()
            else:
                self.pos = key_start
                self.fail(f"unknown tensor property '{key}'")
        return TensorType(dtype, sizes, device, grad, strides)
