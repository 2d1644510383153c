"""sigprof.py: a Python program that profiles itself with SIGPROF (signal.setitimer), run by
host.sh with and without gpuscope, whose sampler sends SIGPROF too. Prints what it saw; the
output and exit status must not change under gpuscope. (Before sigchain.c it saw a foreign
handler at start, counted the sampler's signals, and was killed at exit by the sampler's next
signal once Python had put the default action back.)"""
import signal
import time

print("start:", signal.getsignal(signal.SIGPROF))
n = 0


def on_prof(sig, frame):
    global n
    n += 1


signal.signal(signal.SIGPROF, on_prof)
signal.setitimer(signal.ITIMER_PROF, 0.01, 0.01)
t = time.process_time()
x = 0
while time.process_time() - t < 0.4:
    x += 1
signal.setitimer(signal.ITIMER_PROF, 0, 0)
print("ticks for 400 ms of CPU at 100 Hz, 34 to 44:", 34 <= n <= 44)
print("handler kept:", signal.getsignal(signal.SIGPROF) is on_prof)
signal.signal(signal.SIGPROF, signal.SIG_DFL)
t = time.process_time()
while time.process_time() - t < 0.1:  # the sampler's signals with the default action set
    x += 1
print("end")
