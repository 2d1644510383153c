"""host_py.py: a Python workload for tests/gpu/host.sh: two hot Python functions sharing the
work 70/30 (named so they stand out in CPython 3.12's perf map), then four 50 ms sleeps
(time.sleep: clock_nanosleep, an OS runtime call). Prints the turns it ran."""
import sys
import time


def hot_python_seventy(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def hot_python_thirty(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def main():
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for _ in range(turns):
        hot_python_seventy(70000)
        hot_python_thirty(30000)
    for _ in range(4):
        time.sleep(0.05)
    print(turns)


if __name__ == "__main__":
    main()
