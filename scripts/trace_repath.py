#!/usr/bin/env python3
# scripts/trace_repath.py: replace a folder's path in a .gst trace by another of the same length,
# for traces recorded on a lent machine that become test fixtures (no machine's paths in the
# repository). Every chunk whose payload holds OLD (decoded first when stored with zstd) is
# rewritten with NEW in its place, in its codec (zstd at level 3, as the writer), and its CRC
# recomputed (docs/trace-format.md 2.2); the other chunks are copied as they are. Prints how many chunks and places changed.
#   usage: scripts/trace_repath.py OLD NEW TRACE.gst [OUT.gst]   (OUT defaults to TRACE, in place)
import struct
import subprocess
import sys
import zlib

CHUNK = struct.Struct('<IHHIIQQ')


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit('usage: trace_repath.py OLD NEW TRACE.gst [OUT.gst]')
    old, new, path = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
    out_path = sys.argv[4] if len(sys.argv) == 5 else path
    if len(old) != len(new):
        sys.exit('trace_repath: %r and %r differ in length' % (old, new))
    data = open(path, 'rb').read()
    if data[:8] != b'GPUSCOPE':
        sys.exit('trace_repath: %s: not a gpuscope trace' % path)
    head = struct.unpack_from('<I', data, 12)[0]
    out = bytearray(data[:head])
    off, chunks, places = head, 0, 0
    while off < len(data):
        if off + CHUNK.size > len(data):
            sys.exit('trace_repath: %s: cut inside a chunk header at byte %d' % (path, off))
        magic, typ, codec, crc, flags, stored, raw = CHUNK.unpack_from(data, off)
        payload = data[off + CHUNK.size:off + CHUNK.size + stored]
        if magic != 0x4B435347 or len(payload) != stored:
            sys.exit('trace_repath: %s: damaged chunk at byte %d' % (path, off))
        plain = payload
        if codec == 1:
            plain = subprocess.run(['zstd', '-dc'], input=payload, stdout=subprocess.PIPE,
                                   check=True).stdout
        if old in plain:
            places += plain.count(old)
            chunks += 1
            plain = plain.replace(old, new)
            payload = plain
            if codec == 1:
                payload = subprocess.run(['zstd', '-3', '-c'], input=plain,
                                         stdout=subprocess.PIPE, check=True).stdout
            hdr = CHUNK.pack(magic, typ, codec, 0, flags, len(payload), len(plain))
            crc = zlib.crc32(payload, zlib.crc32(hdr)) & 0xFFFFFFFF
            out += CHUNK.pack(magic, typ, codec, crc, flags, len(payload), len(plain)) + payload
        else:
            out += data[off:off + CHUNK.size + stored]
        off += CHUNK.size + stored
    open(out_path, 'wb').write(out)
    print('trace_repath: %s: %d chunks, %d places' % (out_path, chunks, places))


main()
