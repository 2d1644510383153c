"""ctrl_c.py: Ctrl-C at a terminal. The terminal sends SIGINT to the whole foreground process
group, gpuscope included: the program must get it exactly once (gpuscope does not forward a
terminal's signal), die of it, and gpuscope must still write the trace and exit 130.
usage: ctrl_c.py GPUSCOPE PROGRAMS_DIR OUT_NAME; prints "exit=N" and the program's output."""
import os, pty, signal, sys, time

gs, progs, out = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    # as at an interactive shell: a job started in the background inherits SIGINT ignored
    signal.signal(signal.SIGINT, signal.SIG_DFL)
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
status = None
while status is None and time.time() < deadline + 10:
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
    else:
        time.sleep(0.05)
if status is None:  # never hang a test run: say so and clean up
    os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    print("exit=timeout")
else:
    print("exit=%d" % (os.waitstatus_to_exitcode(status)))
print(buf.decode(errors="replace").replace("\r", ""))
