"""Loading the object code LLVM makes of our kernels (relocatable ELF64, x86-64, Linux)
into executable memory without LLVM, as MCJIT would load it.

    code = load_object(object_code)          # UnsupportedObject: load it with MCJIT
    address = code.get_function_address("gelu")

A process's first MCJIT load costs 1.1–1.6 ms (LLVM's initialisation, a target machine,
an engine), a sixth of a warm first call of the LSTM demo; this loader reads the object
with `struct` and ctypes: 0.35–0.5 ms for the first object of a process, 0.2 ms later.

The allocated sections go into one private anonymous mapping, in three groups on pages
of their own: code (and the call stubs), read-only data (and the GOT slots), writable
data. The mapping is filled and relocated while writable, then `mprotect` makes the code
read+execute and the read-only data read-only: no page is ever writable and executable
at once. It is unmapped when the `LoadedObject` goes away.

External symbols resolve as MCJIT's memory manager resolves them: in the process's
global scope (`dlsym` on the program's handle: libm's `expf`, libc's `memcpy`, ...).
Relocations: what LLVM's large code model (the JIT's, with the static relocation model)
emits, `R_X86_64_64`, and the small model's PC-relative ones: `PC32`, `PLT32` (to an
external function through a stub, as MCJIT does: the process's libraries may lie more
than 2 GB away), `GOTPCREL` and its relaxable forms (through a GOT slot), `PC64`, and
`32`, `32S` when the value fits.

Not loaded: sections that are not allocated (symbols, strings and relocations are read;
notes, debug information and address-significance tables are not needed to run), and
`.eh_frame`, which MCJIT registers with the unwinder. LLVM emits none for our kernels
(they are nounwind), and nothing we run unwinds through a kernel (ctypes calls it, it
returns; no exception crosses it): without it, only a debugger's or profiler's
backtrace would stop at a kernel frame.

Everything else raises: `UnsupportedObject` for a valid object this loader does not
handle exactly (another host, an unknown relocation, section or symbol kind, a symbol
the process lacks), `MalformedObject` for bytes that are no valid object (truncated,
offsets out of bounds), on which MCJIT, which trusts the object's structure, crashes.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple


class ObjectLoadError(Exception):
    """Why an object was not loaded."""


class UnsupportedObject(ObjectLoadError):
    """A valid object that this loader does not handle exactly: MCJIT loads it."""


class MalformedObject(ObjectLoadError):
    """Bytes that are no valid object of our target."""


class LoadedObject:
    """An object's code and data in memory of their own, alive as long as this is, and
    the addresses of its global symbols."""

    def __init__(self, memory: mmap.mmap, symbols: dict[str, int]):
        self._memory = memory
        self.symbols = symbols

    def get_function_address(self, name: str) -> int:
        """The address of global symbol `name` (as MCJIT's engine gives it)."""
        try:
            return self.symbols[name]
        except KeyError:
            raise KeyError(f"the object defines no global symbol {name!r}") from None


def load_object(code: bytes) -> LoadedObject:
    """`code` (an ELF relocatable object LLVM made for this host) loaded, relocated and
    executable."""
    if not host_supported():
        raise UnsupportedObject(f"the host is {sys.platform} {os.uname().machine}, not Linux x86-64")
    try:
        return _Loader(code).load()
    except (struct.error, IndexError) as e:
        raise MalformedObject(f"malformed object ({e})") from None


@cache
def host_supported() -> bool:
    return (
        sys.platform == "linux"
        and os.uname().machine == "x86_64"
        and struct.calcsize("P") == 8
        and sys.byteorder == "little"
    )


# --------------------------------------------------------------------------------------
# ELF (see the System V ABI and its x86-64 supplement)
# --------------------------------------------------------------------------------------

_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_SYMBOL = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")

_ET_REL, _EM_X86_64 = 1, 62
_SHT_PROGBITS, _SHT_SYMTAB, _SHT_RELA, _SHT_NOTE, _SHT_NOBITS, _SHT_REL = 1, 2, 4, 7, 8, 9
_SHT_SYMTAB_SHNDX, _SHT_X86_64_UNWIND = 18, 0x70000001
_SHF_WRITE, _SHF_ALLOC, _SHF_EXECINSTR = 0x1, 0x2, 0x4
_SHF_KNOWN = 0x1 | 0x2 | 0x4 | 0x10 | 0x20 | 0x40 | 0x80 | 0x200 | 0x200000 | 0x10000000
"""WRITE, ALLOC, EXECINSTR, MERGE, STRINGS, INFO_LINK, LINK_ORDER, GROUP, GNU_RETAIN,
X86_64_LARGE: flags that change nothing for a loader (TLS and COMPRESSED would)."""
_SHN_UNDEF, _SHN_LORESERVE, _SHN_ABS = 0, 0xFF00, 0xFFF1
_STB_LOCAL, _STB_GLOBAL, _STB_WEAK = 0, 1, 2
_STT_FILE, _STT_TLS, _STT_GNU_IFUNC = 4, 6, 10


_ABSOLUTE, _RELATIVE, _CALL, _GOT = range(4)


class _Relocation(NamedTuple):
    """How one relocation type computes and stores its value: `kind` is absolute
    (S + A), relative (S + A - P), call (S + A - P, through a stub when S is external,
    as MCJIT does) or got (the address of S's GOT slot + A - P); the field is `size`
    bytes and holds `low`..`high` (a 64-bit field wraps)."""

    name: str
    kind: int
    size: int
    low: int
    high: int
    pack_into: Callable[[bytearray, int, int], None]


def _relocation(name: str, kind: int, size: int, signed: bool) -> _Relocation:
    bits = size * 8
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    field = "<Q" if bits == 64 else "<i" if signed else "<I"
    return _Relocation(name, kind, size, low, high, struct.Struct(field).pack_into)


RELOCATIONS: dict[int, _Relocation | None] = {
    0: None,  # R_X86_64_NONE
    1: _relocation("R_X86_64_64", _ABSOLUTE, 8, False),
    2: _relocation("R_X86_64_PC32", _RELATIVE, 4, True),
    4: _relocation("R_X86_64_PLT32", _CALL, 4, True),
    9: _relocation("R_X86_64_GOTPCREL", _GOT, 4, True),
    10: _relocation("R_X86_64_32", _ABSOLUTE, 4, False),
    11: _relocation("R_X86_64_32S", _ABSOLUTE, 4, True),
    24: _relocation("R_X86_64_PC64", _RELATIVE, 8, True),
    41: _relocation("R_X86_64_GOTPCRELX", _GOT, 4, True),
    42: _relocation("R_X86_64_REX_GOTPCRELX", _GOT, 4, True),
}
"""The relocation types the loader applies, by number; any other is UnsupportedObject.
(The large code model emits only R_X86_64_64; the others come from the small one.)"""
_UNKNOWN = _relocation("unknown", -1, 0, False)
_WRAP = (1 << 64) - 1

_STUB_SIZE = 16
"""`jmp *0(%rip)` (6 bytes), the target's address (8), two `int3`s."""
_STUB_JUMP = b"\xff\x25\0\0\0\0"
_MAX_MAPPING = 1 << 30
"""PC-relative references inside the mapping always reach: it stays below 2 GB."""


@dataclass(slots=True)
class _Section:
    index: int
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    place: int = -1
    """Offset in the mapping; -1 when not loaded."""


class _Symbol(NamedTuple):
    name: str
    bind: int
    type: int
    section: int
    value: int


class _Loader:
    """One object's loading: parse, lay out, map, relocate, protect."""

    def __init__(self, code: bytes):
        self.code = code
        self.sections = self._sections()
        self.symbols = self._symbols()

    def load(self) -> LoadedObject:
        relocations = self._relocations()
        stubs = sorted({s for _, _, s, how, _ in relocations if how.kind == _CALL and self._external(s)})
        slots = sorted({sym for _, _, sym, how, _ in relocations if how.kind == _GOT})
        size, protections, stubs_at, slots_at = self._layout(len(stubs), len(slots))
        if size > _MAX_MAPPING:
            raise UnsupportedObject(f"{size} bytes of sections")
        memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
        image = bytearray(size)
        for section in self.sections:
            if section.place >= 0 and section.type != _SHT_NOBITS:
                place = section.place
                image[place : place + section.size] = self._bytes(section.offset, section.size)
        addresses: dict[int, int] = {}

        def address(index: int) -> int:
            if (known := addresses.get(index)) is None:
                known = addresses[index] = self._address(index, base)
            return known

        stub_of = {sym: base + stubs_at + i * _STUB_SIZE for i, sym in enumerate(stubs)}
        for sym, stub in stub_of.items():
            start = stub - base
            image[start : start + _STUB_SIZE] = _STUB_JUMP + struct.pack("<Q", address(sym)) + b"\xcc\xcc"
        slot_of = {sym: base + slots_at + i * 8 for i, sym in enumerate(slots)}
        for sym, slot in slot_of.items():
            struct.pack_into("<Q", image, slot - base, address(sym))
        for target, offset, sym, how, addend in relocations:
            where = target.place + offset
            kind = how.kind
            if kind == _ABSOLUTE:
                value = address(sym) + addend
            elif kind == _GOT:
                value = slot_of[sym] + addend - base - where
            elif kind == _CALL and sym in stub_of:
                value = stub_of[sym] + addend - base - where
            else:
                value = address(sym) + addend - base - where
            if how.size == 8:
                value &= _WRAP
            elif not how.low <= value <= how.high:
                raise UnsupportedObject(f"{how.name} at {target.name}+{offset:#x} out of range")
            how.pack_into(image, where, value)
        memory.write(image)
        for start, length, protection in protections:
            _protect(base + start, length, protection)
        exported = {
            s.name: address(i)
            for i, s in enumerate(self.symbols)
            if s.bind in (_STB_GLOBAL, _STB_WEAK) and s.name and self._loaded_symbol(s)
        }
        return LoadedObject(memory, exported)

    # parsing -----------------------------------------------------------------------

    def _bytes(self, offset: int, size: int) -> bytes:
        if offset + size > len(self.code):
            raise MalformedObject(f"{size} bytes at {offset:#x} past the end ({len(self.code)} bytes)")
        return self.code[offset : offset + size]

    def _sections(self) -> list[_Section]:
        code = self.code
        if len(code) < _HEADER.size or code[:4] != b"\x7fELF":
            raise MalformedObject("not an ELF object")
        header = _HEADER.unpack_from(code)
        ident, elf_type, machine, shoff = header[0], header[1], header[2], header[6]
        shentsize, shnum, shstrndx = header[11:14]
        if ident[4:7] != b"\2\1\1" or elf_type != _ET_REL or machine != _EM_X86_64 or ident[7] not in (0, 3):
            raise UnsupportedObject(
                f"not a relocatable ELF64 x86-64 Linux object (class, data, version, ABI {list(ident[4:8])}, "
                f"type {elf_type}, machine {machine})"
            )
        if shentsize != _SECTION.size or shnum == 0 or shstrndx >= shnum:
            raise UnsupportedObject("extended section numbering or an unusual section header size")
        self._bytes(shoff, shnum * shentsize)
        headers = [_SECTION.unpack_from(code, shoff + i * shentsize) for i in range(shnum)]
        names = headers[shstrndx]
        names_data = self._bytes(names[4], names[5])
        sections = [
            _Section(i, _string(names_data, name), kind, flags, offset, size, link, info, align)
            for i, (name, kind, flags, _, offset, size, link, info, align, _) in enumerate(headers)
        ]
        for section in sections:
            if section.type == _SHT_REL:  # x86-64 uses RELA; REL would need the addends read
                raise UnsupportedObject(f"REL relocations in {section.name}")
            if section.type == _SHT_SYMTAB_SHNDX:
                raise UnsupportedObject("extended symbol section indices")
            unwinding = section.name == ".eh_frame" or section.type == _SHT_X86_64_UNWIND
            if not section.flags & _SHF_ALLOC or unwinding:
                continue
            if section.type not in (_SHT_PROGBITS, _SHT_NOBITS, _SHT_NOTE):
                raise UnsupportedObject(f"section {section.name} of type {section.type:#x}")
            if section.flags & ~_SHF_KNOWN:
                raise UnsupportedObject(f"section {section.name} has flags {section.flags:#x}")
            if section.flags & _SHF_WRITE and section.flags & _SHF_EXECINSTR:
                raise UnsupportedObject(f"section {section.name} is writable and executable")
            section.align = max(section.align, 1)
            if section.align & (section.align - 1) or section.align > mmap.PAGESIZE:
                raise UnsupportedObject(f"section {section.name} aligned to {section.align}")
            if section.type != _SHT_NOBITS:
                self._bytes(section.offset, section.size)
            section.place = 0  # placed by _layout
        return sections

    def _symbols(self) -> list[_Symbol]:
        tables = [s for s in self.sections if s.type == _SHT_SYMTAB]
        if not tables:
            return []
        if len(tables) > 1 or tables[0].link >= len(self.sections):
            raise MalformedObject("several symbol tables, or one without strings")
        table = tables[0]
        strings = self._bytes(self.sections[table.link].offset, self.sections[table.link].size)
        data = self._bytes(table.offset, table.size - table.size % _SYMBOL.size)
        return [
            _Symbol(_string(strings, name), info >> 4, info & 0xF, section, value)
            for name, info, _, section, value, _ in _SYMBOL.iter_unpack(data)
        ]

    def _relocations(self) -> list[tuple[_Section, int, int, _Relocation, int]]:
        """Every relocation of a loaded section: (section, offset, symbol, type, addend)."""
        found = []
        for section in self.sections:
            if section.type != _SHT_RELA or section.info >= len(self.sections):
                continue
            target = self.sections[section.info]
            if target.place < 0:
                continue  # of a section not loaded (.eh_frame, debug information)
            if target.type == _SHT_NOBITS or self.sections[section.link].type != _SHT_SYMTAB:
                raise MalformedObject(f"relocations {section.name} of {target.name}")
            data = self._bytes(section.offset, section.size - section.size % _RELA.size)
            size, symbols = target.size, len(self.symbols)
            for offset, info, addend in _RELA.iter_unpack(data):
                how = RELOCATIONS.get(info & 0xFFFFFFFF, _UNKNOWN)
                if how is None:
                    continue
                sym = info >> 32
                if how is _UNKNOWN:
                    raise UnsupportedObject(f"relocation type {info & 0xFFFFFFFF} in {section.name}")
                if offset + how.size > size:
                    raise MalformedObject(f"{how.name} at {offset:#x} past the end of {target.name}")
                if sym >= symbols:
                    raise MalformedObject(f"relocation against symbol {sym} of {symbols}")
                found.append((target, offset, sym, how, addend))
        return found

    # placing -----------------------------------------------------------------------

    def _layout(self, stubs: int, slots: int) -> tuple[int, list[tuple[int, int, int]], int, int]:
        """Places the loaded sections: the mapping's size, (start, length, protection)
        of each group, and where the stubs and GOT slots start."""
        loaded = [s for s in self.sections if s.place >= 0]
        code = [s for s in loaded if s.flags & _SHF_EXECINSTR]
        constant = [s for s in loaded if not s.flags & (_SHF_EXECINSTR | _SHF_WRITE)]
        writable = [s for s in loaded if s.flags & _SHF_WRITE]
        groups = (
            (code, stubs * _STUB_SIZE, mmap.PROT_READ | mmap.PROT_EXEC),
            (constant, slots * 8, mmap.PROT_READ),
            (writable, 0, mmap.PROT_READ | mmap.PROT_WRITE),  # as mapped
        )
        offset, protections, extras = 0, [], []
        for sections, extra, protection in groups:
            start = offset
            for section in sections:
                offset = section.place = _align(offset, section.align)
                offset += section.size
            offset = _align(offset, _STUB_SIZE)
            extras.append(offset)
            offset = _align(offset + extra, mmap.PAGESIZE)
            if offset > start and protection != mmap.PROT_READ | mmap.PROT_WRITE:
                protections.append((start, offset - start, protection))
        return max(offset, mmap.PAGESIZE), protections, extras[0], extras[1]

    def _external(self, index: int) -> bool:
        return self.symbols[index].section == _SHN_UNDEF and index != 0

    def _loaded_symbol(self, symbol: _Symbol) -> bool:
        index = symbol.section
        loaded = _SHN_UNDEF < index < min(_SHN_LORESERVE, len(self.sections))
        return loaded and self.sections[index].place >= 0

    def _address(self, index: int, base: int) -> int:
        symbol = self.symbols[index]
        if index == 0:
            return 0
        if symbol.type in (_STT_TLS, _STT_FILE, _STT_GNU_IFUNC):
            raise UnsupportedObject(f"relocation against a symbol of type {symbol.type} ({symbol.name})")
        if symbol.section == _SHN_UNDEF:
            return process_symbol(symbol.name)
        if symbol.section == _SHN_ABS:
            return symbol.value
        if symbol.section >= _SHN_LORESERVE:
            raise UnsupportedObject(f"symbol {symbol.name} in special section {symbol.section:#x}")
        if symbol.section >= len(self.sections):
            raise MalformedObject(f"symbol {symbol.name} in section {symbol.section} of {len(self.sections)}")
        section = self.sections[symbol.section]
        if section.place < 0:
            raise UnsupportedObject(f"a reference to {symbol.name or section.name}, not loaded")
        if symbol.value > section.size:
            raise MalformedObject(f"symbol {symbol.name} past the end of {section.name}")
        return base + section.place + symbol.value


def process_symbol(name: str) -> int:
    """The address of `name` in the process's global scope, where MCJIT looks
    (`ctypes.pythonapi` is the program's handle: `dlsym` on it searches that scope)."""
    if (address := _resolved.get(name)) is None:
        try:
            address = ctypes.c_void_p.from_buffer(ctypes.pythonapi[name]).value or 0
        except AttributeError:
            address = 0
        if not address:
            raise UnsupportedObject(f"the process has no symbol {name!r}")
        _resolved[name] = address
    return address


_resolved: dict[str, int] = {}


def _protect(address: int, length: int, protection: int) -> None:
    if _mprotect()(address, length, protection) != 0:
        raise UnsupportedObject(f"mprotect refused {protection} on {length} bytes")


@cache
def _mprotect() -> Callable[[int, int, int], int]:
    mprotect = ctypes.pythonapi.mprotect
    mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    mprotect.restype = ctypes.c_int
    return mprotect


def _align(offset: int, alignment: int) -> int:
    return -(-offset // alignment) * alignment


def _string(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    if offset >= len(table) or end < 0:
        raise MalformedObject(f"string at {offset} outside its table")
    return table[offset:end].decode("utf-8", "replace")
