"""The text an object file carries in its data sections: string literals after the compiler has
joined them ("/pr" "oc/self/maps" is one string there), read from the ELF file itself.

Only what the integrity check needs: 64-bit little-endian relocatable objects and executables
(x86-64, aarch64). Anything else yields nothing, and the check falls back to the source.
"""

from __future__ import annotations

import re
import struct

_DATA_SECTIONS = (".rodata", ".data", ".tdata")
_PRINTABLE = re.compile(rb"[\x20-\x7e]{4,}")
_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")


def data_strings(image: bytes) -> list[str]:
    """Printable runs of four or more characters in the object's read-only and data sections."""
    if len(image) < _HEADER.size or image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        return []
    header = _HEADER.unpack_from(image)
    shoff, shentsize, shnum, shstrndx = header[6], header[11], header[12], header[13]
    if shoff == 0 or shentsize < _SECTION.size or shoff + shnum * shentsize > len(image):
        return []
    sections = [_SECTION.unpack_from(image, shoff + i * shentsize) for i in range(shnum)]
    if shstrndx >= len(sections):
        return []
    names_at, names_size = sections[shstrndx][4], sections[shstrndx][5]
    names = image[names_at : names_at + names_size]
    found: list[str] = []
    for name_off, kind, _flags, _addr, offset, size, *_ in sections:
        end = names.find(b"\0", name_off)
        name = names[name_off:end].decode(errors="replace")
        if kind == 8 or not name.startswith(_DATA_SECTIONS):  # 8: SHT_NOBITS (.bss)
            continue
        body = image[offset : offset + size]
        found += [m.group().decode() for m in _PRINTABLE.finditer(body)]
    return found
