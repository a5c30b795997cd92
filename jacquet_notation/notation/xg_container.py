"""An eXtreme Gammon ``.xg`` file's container: the header, then a ZLib archive of four files.

The vendor's description (https://www.extremegammon.com/xgformat.aspx, "XG FILE FORMAT") reads
the file in three steps: a ``RGMH`` header of 8,232 bytes and a JPEG thumbnail are skipped; the
rest is an archive (ZLibArchive 1.52's layout, whose ``ZLibArchive.pas`` the vendor gives): at
its very end a 36-byte trailer (the CRC-32 of the archive, its file count, the sizes of its
registry and of its data, whether the registry is compressed); before the trailer the registry,
one 532-byte entry a file (name, sizes, offset, CRC-32, whether compressed); before that the
files' data. Of the four files only ``temp.xg`` is read here (the game's records,
:mod:`.xg_records`); rollouts and comments are left.

Every check refuses the whole file with one :class:`NotationError` naming the byte where the
reading stopped, so that nothing of a damaged file is half read. The unpacked game file is
bounded (:data:`MAX_UNPACKED`): zlib is asked for at most that many bytes, so that a small
file inflating to gigabytes costs no more than the bound.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from ..errors import NotationError

#: the first four bytes of every ``.xg`` file (the vendor's RM_MAGICNUMBER, $484D4752)
XG_MAGIC = b"RGMH"
#: the header's size (TRichGameHeader) and its fixed fields: magic, version, size, thumbnail
HEADER_SIZE = 8232
_HEADER = struct.Struct("<4sIIqI")
#: the archive's trailer: CRC-32, file count, version, registry size, data size, compressed flag
_TRAILER = struct.Struct("<IiiiiI12x")
#: one registry entry: name and path (Pascal strings of 255), sizes, offset, CRC-32, stored flag
_ENTRY = struct.Struct("<256s256siiiIBB2x")
#: the game file's name in the archive
GAME_FILE = "temp.xg"
#: the most bytes the game file may unpack to: 64 MiB, some 26,000 records of 2,560 bytes
#: (a long match has a few thousand), within docs/notation.md's memory bound
MAX_UNPACKED = 64 << 20


def is_xg(head: bytes) -> bool:
    """Whether bytes begin as an ``.xg`` file does (told by content, never by name)."""
    return head[:4] == XG_MAGIC


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    packed: int
    unpacked: int
    start: int
    crc: int
    compressed: bool


class XgReadError(NotationError):
    """A ``.xg`` file that cannot be read: one line, the byte where the reading stopped.

    A binary file has no lines: the error stands at line 1, its column the byte's place from 1
    (``file:1:COLUMN:``, as every error of the project is placed), the byte said in words too.
    """

    def __init__(self, file: str | None, offset: int, reason: str) -> None:
        super().__init__(
            f"not a readable eXtreme Gammon file: {reason} (at byte {offset})",
            file=file,
            line=1,
            column=offset + 1,
        )
        self.offset = offset


def game_file(data: bytes, file: str | None) -> bytes:
    """The unpacked ``temp.xg`` of an ``.xg`` file's bytes; raises :class:`XgReadError`."""
    if len(data) < HEADER_SIZE:
        raise XgReadError(file, len(data), f"a header of {HEADER_SIZE:,} bytes, cut short")
    magic, version, size, thumbnail_at, thumbnail_size = _HEADER.unpack_from(data)
    if not is_xg(magic):
        raise XgReadError(file, 0, "its first bytes are not RGMH")
    if version != 1 or size != HEADER_SIZE:
        raise XgReadError(file, 4, f"header version {version} of {size} bytes, expected 1 of 8232")
    start = size + thumbnail_size
    if thumbnail_at < 0 or start > len(data):
        raise XgReadError(file, 16, "a thumbnail beyond the end of the file")
    archive = data[start:]
    if len(archive) < _TRAILER.size:
        raise XgReadError(file, len(data), "no archive after the header")
    crc, count, _version, registry_size, data_size, registry_packed = _TRAILER.unpack_from(
        archive, len(archive) - _TRAILER.size
    )
    registry_at = len(archive) - _TRAILER.size - registry_size
    data_at = registry_at - data_size
    if registry_size < 0 or data_size < 0 or data_at < 0 or not 0 < count <= 16:
        raise XgReadError(file, len(data) - _TRAILER.size, "an archive trailer that does not fit")
    if zlib.crc32(archive[data_at : len(archive) - _TRAILER.size]) != crc:
        raise XgReadError(file, start + data_at, "the archive's CRC-32 does not match its bytes")
    registry = archive[registry_at : registry_at + registry_size]
    if registry_packed:
        registry = _inflate(registry, count * _ENTRY.size, file, start + registry_at)
    if len(registry) < count * _ENTRY.size:
        raise XgReadError(file, start + registry_at, "an archive registry cut short")
    for number in range(count):
        entry = _entry(registry, number)
        if entry.name == GAME_FILE:
            return _extract(archive[data_at:registry_at], entry, file, start + data_at)
    raise XgReadError(file, start + registry_at, f"no {GAME_FILE} in the archive")


def _entry(registry: bytes, number: int) -> _Entry:
    name, _path, unpacked, packed, start, crc, stored, _level = _ENTRY.unpack_from(
        registry, number * _ENTRY.size
    )
    text = name[1 : 1 + name[0]].decode("latin-1")
    return _Entry(text, packed, unpacked, start, crc, stored == 0)


def _extract(files: bytes, entry: _Entry, file: str | None, base: int) -> bytes:
    """One archived file's bytes, checked against its size and CRC-32."""
    if entry.start < 0 or entry.packed < 0 or entry.start + entry.packed > len(files):
        raise XgReadError(file, base + max(entry.start, 0), f"{entry.name} beyond the archive")
    if not 0 <= entry.unpacked <= MAX_UNPACKED:
        raise XgReadError(
            file, base + entry.start, f"{entry.name} of {entry.unpacked:,} bytes, past the bound"
        )
    packed = files[entry.start : entry.start + entry.packed]
    at = base + entry.start
    body = _inflate(packed, entry.unpacked, file, at) if entry.compressed else packed
    if len(body) != entry.unpacked:
        raise XgReadError(
            file, at, f"{entry.name} unpacks to {len(body):,} bytes, not {entry.unpacked:,}"
        )
    if zlib.crc32(body) != entry.crc:
        raise XgReadError(file, at, f"{entry.name}'s CRC-32 does not match its bytes")
    return body


def _inflate(packed: bytes, size: int, file: str | None, at: int) -> bytes:
    """zlib's stream unpacked to at most ``size`` bytes (one more is asked for: a stream that
    would give more is refused without unpacking it further)."""
    inflater = zlib.decompressobj()
    try:
        body = inflater.decompress(packed, size + 1)
    except zlib.error as error:
        raise XgReadError(file, at, f"bad compression ({error})") from None
    if len(body) > size:
        raise XgReadError(file, at, f"compressed data unpacking past its {size:,} bytes")
    if not inflater.eof:
        raise XgReadError(file, at + len(packed), "compressed data cut short")
    return body
