"""bench/walk_imports.py: a Python program that imports the standard library's extension modules one
by one and spends 4 ms of CPU after each (hashing, decimal arithmetic, compression), so CPU
samples land in objects loaded since the sampler's table of objects was made. Used with
`GPUSCOPE_DEBUG=1 gpuscope profile -t nvtx python3 bench/walk_imports.py`, whose debug lines count
the walks given to libunwind and why (bench/RESULTS.md). Modules missing here are skipped."""
import importlib
import time
mods = ["_decimal", "_sqlite3", "_ssl", "_hashlib", "_ctypes", "_json", "_pickle", "_datetime", "_elementtree", "pyexpat", "_bz2", "_lzma", "zlib", "_csv", "_struct", "array", "math", "cmath", "_random", "_bisect", "_heapq", "select", "mmap", "_socket", "unicodedata", "_multibytecodec", "_codecs_jp", "_codecs_kr", "_codecs_cn", "_codecs_tw", "_codecs_hk", "_codecs_iso2022", "_blake2", "_sha3", "_md5", "_sha1", "_sha256", "_sha512", "binascii", "_queue", "_uuid", "_statistics", "_zoneinfo", "_contextvars", "_asyncio", "_posixsubprocess", "fcntl", "grp", "termios", "resource", "_curses", "readline", "_dbm", "_gdbm", "_lsprof", "_opcode", "audioop", "_crypt", "nis", "ossaudiodev", "spwd", "syslog", "_xxsubinterpreters", "_testcapi"]
import decimal
import hashlib
import zlib
t0 = time.process_time()
for m in mods:
    try:
        importlib.import_module(m)
    except Exception:
        pass
    x = 0
    t = time.process_time()
    while time.process_time() - t < 0.004:
        x += len(hashlib.sha256(str(x).encode()).hexdigest()) + int(decimal.Decimal(x) * 3) + len(zlib.compress(b"abc" * 50))
print("done", time.process_time() - t0)
