"""Names the shim gives to TorchScript-only things: operators reached as `torch.X`
(`from torch import cat` works, and the frontend resolves the object to `aten::cat`),
and the annotation helpers of `torch._jit_internal`."""

from __future__ import annotations

from typing import Any


class TorchBuiltin:
    """An operator under a torch name; it runs only inside scripted code."""

    def __init__(self, operator: str, python_name: str):
        self.operator = operator  # "aten::cat"
        self.python_name = python_name  # "torch.cat"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.python_name} is a TorchScript operator ({self.operator}) and runs only in "
            "scripted code: call tsjit.script on the function that uses it"
        )

    def __repr__(self) -> str:
        return f"<TorchScript operator {self.operator}>"


class BroadcastingList:
    """`BroadcastingList2[int]`: a `List[int]` of fixed length that also accepts a
    single int (TorchScript's `int[2]`); in Python it is just `List[T]`."""

    def __init__(self, size: int):
        self.size = size

    def __getitem__(self, element: Any) -> Any:
        return list[element]

    def __repr__(self) -> str:
        return f"BroadcastingList{self.size}"


BroadcastingList1 = BroadcastingList(1)
BroadcastingList2 = BroadcastingList(2)
BroadcastingList3 = BroadcastingList(3)
