"""PyTorch operator schemas: the FunctionSchema model and parser, the schema table
PyTorch registers (read lazily), and overload resolution by operand types."""

from tsjit.dialects.schema.model import WILDCARD, AliasInfo, Argument, FunctionSchema, SchemaType, TypeKind
from tsjit.dialects.schema.overload import closest_overloads, resolve_overload
from tsjit.dialects.schema.parser import SchemaParseError, parse_schema
from tsjit.dialects.schema.table import TABLE, SchemaTable, all_operator_names, has_operator, schemas_for

__all__ = [
    "TABLE",
    "WILDCARD",
    "AliasInfo",
    "Argument",
    "FunctionSchema",
    "SchemaParseError",
    "SchemaTable",
    "SchemaType",
    "TypeKind",
    "all_operator_names",
    "closest_overloads",
    "has_operator",
    "parse_schema",
    "resolve_overload",
    "schemas_for",
]
