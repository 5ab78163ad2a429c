"""`torch.nn.Module` and `torch.nn.Parameter` for the shim: the bookkeeping of
parameters, buffers and submodules that scripting reads (`named_parameters`,
`named_buffers`, attributes), with torch's method names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tsjit.frontend.torch_shim._state import ACTIVE
from tsjit.frontend.torch_shim._tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter."""

    __slots__ = ()

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        super().__init__(data if data is not None else (), requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


def _is_compiled_module(value: object) -> bool:
    """A `tsjit.script`ed or traced module: a submodule, as PyTorch's ScriptModules are."""
    from tsjit.frontend.script import ScriptModule

    return isinstance(value, ScriptModule)


class Module:
    """Base class of modules: attributes that are Parameters, Modules or registered
    buffers are tracked so that a scripted module knows its state."""

    training: bool

    def __init__(self, *args: object, **kwargs: object) -> None:
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    # -- state -------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        params, buffers, modules = (
            self.__dict__.get("_parameters"),
            self.__dict__.get("_buffers"),
            self.__dict__.get("_modules"),
        )
        if params is None:  # before Module.__init__: plain attributes only, as in PyTorch
            if isinstance(value, Parameter):
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            if isinstance(value, Module) or _is_compiled_module(value):
                raise AttributeError("cannot assign module before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        for table in (params, buffers, modules):
            table.pop(name, None)
        self.__dict__.pop(name, None)
        if isinstance(value, Parameter):
            params[name] = value
        elif isinstance(value, Module) or _is_compiled_module(value):
            modules[name] = value
        elif name in buffers or (value is None and name in params):
            (buffers if name in buffers else params)[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table, {})
            if name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[table]:
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self.__dict__.pop(name, None)
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        self._modules[name] = module

    register_module = add_module

    # -- traversal -----------------------------------------------------------------------
    def named_children(self) -> Iterator[tuple[str, Module]]:
        yield from ((n, m) for n, m in self._modules.items() if m is not None)

    def children(self) -> Iterator[Module]:
        return (m for _, m in self.named_children())

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        yield prefix, self
        for name, child in self.named_children():
            if isinstance(child, Module):
                yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        return (m for _, m in self.named_modules())

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from self._named("_parameters", prefix, recurse)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        return (b for _, b in self.named_buffers(recurse=recurse))

    def _named(self, table: str, prefix: str, recurse: bool) -> Iterator[tuple[str, Any]]:
        for name, value in self.__dict__[table].items():
            if value is not None:
                yield (f"{prefix}.{name}" if prefix else name), value
        if recurse:
            for name, child in self.named_children():
                if isinstance(child, Module):
                    yield from child._named(table, f"{prefix}.{name}" if prefix else name, True)

    def state_dict(self) -> dict[str, Tensor]:
        return dict(self.named_parameters()) | dict(self.named_buffers())

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> Any:
        """Copies the tensors of `state_dict` into this module's parameters and buffers."""
        own = self.state_dict()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}: missing keys {missing}, "
                f"unexpected keys {unexpected}"
            )
        for name, value in state_dict.items():
            if name in own:
                own[name].array[...] = value.array if isinstance(value, Tensor) else value
        return (missing, unexpected)

    def get_submodule(self, target: str) -> Module:
        module: Any = self
        for name in filter(None, target.split(".")):
            module = module._modules[name]
        return module

    def get_parameter(self, target: str) -> Any:
        path, _, name = target.rpartition(".")
        return self.get_submodule(path)._parameters[name]

    def apply(self, fn: Any) -> Module:
        for child in self.children():
            if isinstance(child, Module):
                child.apply(fn)
        fn(self)
        return self

    def _convert(self, convert: Any) -> Module:
        """Applies `convert` to every floating parameter and buffer, in place."""
        for module in self.modules():
            for table in ("_parameters", "_buffers"):
                for value in module.__dict__[table].values():
                    if value is not None and value.array.dtype.kind == "f":
                        value.array = convert(value).array
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """`to(dtype)` converts floating tensors; devices other than the CPU are refused."""
        from tsjit.frontend.torch_shim._tensor import device, dtype

        wanted = kwargs.get("dtype") or next((a for a in args if isinstance(a, dtype)), None)
        for place in [kwargs.get("device"), *(a for a in args if isinstance(a, (str, device)))]:
            if place is not None and device(place).type != "cpu":
                raise RuntimeError(f"tsjit runs on the CPU only: cannot move a module to {place}")
        return self if wanted is None else self._convert(lambda t: t.to(wanted))

    def cpu(self) -> Module:
        return self

    def float(self) -> Module:
        return self._convert(lambda t: t.float())

    def double(self) -> Module:
        return self._convert(lambda t: t.double())

    def half(self) -> Module:
        return self._convert(lambda t: t.half())

    def zero_grad(self, set_to_none: bool = True) -> None:
        for parameter in self.parameters():
            parameter.grad = None

    # -- modes and calls -----------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        object.__setattr__(self, "training", mode)
        for child in self.children():
            if isinstance(child, Module):
                child.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, flag: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad = flag
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:  # a submodule call in a trace: its own method graph
            return tracer.call_module(self, args, kwargs)
        # a subclass without `forward` fails here with Python's AttributeError naming it
        return self.forward(*args, **kwargs)  # pyright: ignore[reportAttributeAccessIssue]

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"({name}): {child!r}".replace("\n", "\n  ") for name, child in self.named_children()]
        head = f"{type(self).__name__}({self.extra_repr()}"
        return head + ")" if not lines else head + "\n  " + "\n  ".join(lines) + "\n)"
