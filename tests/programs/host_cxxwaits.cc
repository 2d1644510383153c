// host_cxxwaits.cc: the C++ standard library's timed waits, for `--trace osrt`: each makes the
// main thread wait about 30 ms once, in the libc call it is made of (libstdc++ with glibc 2.30+):
//   condition_variable::wait_for       pthread_cond_clockwait
//   timed_mutex::try_lock_for          pthread_mutex_clocklock
//   shared_timed_mutex::try_lock_shared_for   pthread_rwlock_clockrdlock
//   atomic<int>::wait (C++20)          futex, through syscall(2)
// Exits 4 (the profiler must pass it on), 1 when a wait does not end as it should.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <thread>

using namespace std::chrono_literals;

int main()
{
	std::mutex m;
	std::condition_variable cv;
	bool ready = false;
	std::thread t([&] {
		std::this_thread::sleep_for(30ms);
		std::lock_guard<std::mutex> g(m);
		ready = true;
		cv.notify_one();
	});
	{
		std::unique_lock<std::mutex> l(m);
		if (!cv.wait_for(l, 5s, [&] { return ready; }))
			return 1;
	}
	t.join();

	std::timed_mutex tm;
	std::atomic<bool> held{false};
	t = std::thread([&] {
		std::lock_guard<std::timed_mutex> g(tm);
		held = true;
		std::this_thread::sleep_for(30ms);
	});
	while (!held)
		std::this_thread::yield();
	if (!tm.try_lock_for(5s))
		return 1;
	tm.unlock();
	t.join();

	std::shared_timed_mutex sm;
	held = false;
	t = std::thread([&] {
		std::lock_guard<std::shared_timed_mutex> g(sm);
		held = true;
		std::this_thread::sleep_for(30ms);
	});
	while (!held)
		std::this_thread::yield();
	if (!sm.try_lock_shared_for(5s))
		return 1;
	sm.unlock_shared();
	t.join();

	std::atomic<int> a{0};
	t = std::thread([&] {
		std::this_thread::sleep_for(30ms);
		a = 1;
		a.notify_one();
	});
	a.wait(0);
	t.join();
	return a == 1 ? 4 : 1;
}
