"""tsjit's runtime: run-time values, numpy kernels per operator, and (elsewhere in this
package) the interpreter and executor that call them."""

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import (
    CPU,
    Device,
    NamedTupleValue,
    ScriptObject,
    decode_value,
    encode_value,
    match_value,
)

__all__ = [
    "CPU",
    "Device",
    "NamedTupleValue",
    "ScriptObject",
    "TorchScriptError",
    "decode_value",
    "encode_value",
    "match_value",
]
