"""ctrl_c.py: Ctrl-C at a terminal. The terminal sends SIGINT to the whole foreground process
group, gpuscope included: the program must get it exactly once (gpuscope does not forward a
terminal's signal), die of it, and gpuscope must still write the trace and exit 130.
usage: ctrl_c.py GPUSCOPE PROGRAMS_DIR OUT_NAME; prints "exit=N" and the program's output."""
import os, pty, sys, time

gs, progs, out = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv(gs, [gs, "profile", "-f", "-o", out, os.path.join(progs, "nvtx_crash"), "kill", "10"])
buf = b""
deadline = time.time() + 20
while b"ready" not in buf and time.time() < deadline:
    try:
        buf += os.read(fd, 1024)
    except OSError:
        break
os.write(fd, b"\x03")  # the terminal's interrupt character: SIGINT to the foreground group
while time.time() < deadline:
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        break
    if not chunk:
        break
    buf += chunk
_, status = os.waitpid(pid, 0)
print("exit=%d" % (os.waitstatus_to_exitcode(status)))
print(buf.decode(errors="replace").replace("\r", ""))
