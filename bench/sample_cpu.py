"""bench/sample_cpu.py: a CPU-bound Python loop under a deep stack (DEPTH Python frames, each
a few native frames in CPython), for bench/sample_cost.sh. Prints the seconds the loop took."""
import sys
import time


def rec(depth, n):
    if depth == 0:
        s = 0
        for i in range(n):
            s += i * i
        return s
    return rec(depth - 1, n)


def main():
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    t = time.perf_counter()
    for _ in range(turns):
        rec(depth, 50000)
    print("%.4f" % (time.perf_counter() - t))


if __name__ == "__main__":
    main()
