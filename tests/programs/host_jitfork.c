/* host_jitfork.c: a JIT'ed trampoline made before a fork and run by the fork child only, the
 * shape of a PyTorch DataLoader worker under CPython's perf trampolines. The parent writes a
 * small x86-64 trampoline (CPython's: push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret)
 * into an anonymous page, names the page in its perf map (/tmp/perf-PID.map) as
 * "jit::worker_trampoline", then forks; the child spends about 300 ms of CPU in spin() called
 * through the trampoline and exits without writing a perf map of its own. The trampoline's
 * frames of the child are nameable only through the parent's map. `host_jitfork own`: the
 * child first writes a map of its own naming the same code "jit::child_trampoline" (its own
 * name wins over the inherited one). `host_jitfork middle`: a fork server's shape (Python
 * 3.14's default for multiprocessing): the program forks a middle process that makes the
 * trampoline, names it "jit::middle_trampoline" in its own map, forks the worker that runs it
 * and waits, using no CPU to speak of (so it records nothing); only the middle process's map
 * names the worker's trampoline frames. `host_jitfork jitdump`: the parent names the trampoline
 * "jit::dumped_trampoline" not in a perf map but in a jitdump file, as oneDNN does under
 * ONEDNN_JIT_PROFILE=4 (perf's jitdump format: a header, a JIT_CODE_LOAD record with the
 * name and the code, a JIT_CODE_CLOSE record) at $JITDUMPDIR/.debug/jit/gs.XXXXXX/jit-PID.dump;
 * without JITDUMPDIR it exits 3. `host_jitfork jitdump cut`: the file ends 6 bytes into its
 * JIT_CODE_CLOSE record, as when its writer is killed (at byte 40 + 56 + 23 + 8 = 127).
 *
 * Prints "PARENT_PID CHILD_PID" on stdout (middle: "MIDDLE_PID WORKER_PID", then the
 * program's "PID MIDDLE_PID"); the maps are left in place (gpuscope copies it when
 * the session ends), the test removes them. Exit status: the child's, 0; 77 on other
 * architectures (the test skips). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
static volatile uint64_t sink;

typedef uint64_t (*spin_fn)(uint64_t seed, uint64_t n, uint64_t unused);
typedef uint64_t (*tramp_fn)(uint64_t seed, uint64_t n, uint64_t unused, spin_fn target);

/* The CPU-bound work: a chain of multiplies the compiler cannot fold. Built with frame
 * pointers (Makefile) so the unwinder reaches the trampoline's frame and walks it by %rbp. */
__attribute__((noinline)) static uint64_t spin(uint64_t seed, uint64_t n, uint64_t unused)
{
	(void)unused;
	for (uint64_t i = 0; i < n; i++)
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return seed;
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int write_map(const void *start, size_t size, const char *name)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "%lx %zx %s\n", (unsigned long)(uintptr_t)start, size, name);
	return fclose(f);
}

/* jit-PID.dump under $JITDUMPDIR/.debug/jit/gs.XXXXXX, naming [start, start + size) */
static int dumped;
static int write_jitdump(const void *start, size_t size, const char *name)
{
	const char *base = getenv("JITDUMPDIR");
	char dir[512], path[600];
	if (!base)
		return -1;
	mkdir(base, 0755);
	snprintf(dir, sizeof(dir), "%s/.debug", base);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/.debug/jit", base);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/.debug/jit/gs.XXXXXX", base);
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	struct {
		uint32_t magic, version, total_size, elf_mach, pad1, pid;
		uint64_t timestamp, flags;
	} h = {0x4A695444, 1, sizeof(h), 62 /* EM_X86_64 */, 0, (uint32_t)getpid(), now, 0};
	struct {
		uint32_t id, total_size;
		uint64_t timestamp;
		uint32_t pid, tid;
		uint64_t vma, code_addr, code_size, code_index;
	} load = {0, (uint32_t)(sizeof(load) + strlen(name) + 1 + size), now, (uint32_t)getpid(), (uint32_t)getpid(),
		  (uint64_t)(uintptr_t)start, (uint64_t)(uintptr_t)start, size, 0};
	struct {
		uint32_t id, total_size;
		uint64_t timestamp;
	} close_ = {3, sizeof(close_), now};
	fwrite(&h, sizeof(h), 1, f);
	fwrite(&load, sizeof(load), 1, f);
	fwrite(name, strlen(name) + 1, 1, f);
	fwrite(start, size, 1, f);
	fwrite(&close_, dumped > 1 ? 6 : sizeof(close_), 1, f);
	return fclose(f);
}

__attribute__((noinline)) static int run(int own, const char *name);

static int wait_child(pid_t child)
{
	int st;
	if (waitpid(child, &st, 0) != child)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	int own = argc > 1 && !strcmp(argv[1], "own");
	if (argc > 1 && !strcmp(argv[1], "jitdump")) {
		if (!getenv("JITDUMPDIR"))
			return 3;
		dumped = argc > 2 && !strcmp(argv[2], "cut") ? 2 : 1;
		return run(0, "jit::dumped_trampoline");
	}
	if (argc > 1 && !strcmp(argv[1], "middle")) {
		fflush(stdout);
		pid_t middle = fork();
		if (middle < 0) {
			perror("fork");
			return 2;
		}
		if (middle == 0)
			return run(0, "jit::middle_trampoline");
		int st = wait_child(middle);
		printf("%d %d\n", (int)getpid(), (int)middle);
		return st;
	}
	return run(own, "jit::worker_trampoline");
}

/* The trampoline named NAME in this process's map, then a fork child that runs it. */
static int run(int own, const char *name)
{
	static const uint8_t code[] = {
		0x55,             /* push %rbp */
		0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
		0xff, 0xd1,       /* call *%rcx */
		0x5d,             /* pop %rbp */
		0xc3,             /* ret */
	};
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *jit = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	if (jit == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memcpy(jit, code, sizeof(code));
	if (mprotect(jit, (size_t)page, PROT_READ | PROT_EXEC) != 0) {
		perror("mprotect");
		return 2;
	}
	if ((dumped ? write_jitdump(jit, sizeof(code), name) : write_map(jit, sizeof(code), name)) != 0)
		return 2;
	tramp_fn tramp;
	void *entry = jit;
	memcpy(&tramp, &entry, sizeof(tramp)); /* an object pointer made a function pointer */
	fflush(stdout);
	pid_t child = fork();
	if (child < 0) {
		perror("fork");
		return 2;
	}
	if (child == 0) {
		if (own && write_map(jit, sizeof(code), "jit::child_trampoline") != 0)
			return 2;
		uint64_t acc = 1;
		double t0 = cpu_ms();
		while (cpu_ms() - t0 < 300)
			acc = tramp(acc, 2000000, 0, spin);
		sink = acc;
		return 0;
	}
	printf("%d %d\n", (int)getpid(), (int)child);
	fflush(stdout);
	return wait_child(child);
}
#else
int main(void)
{
	return 77; /* the trampoline is x86-64 code */
}
#endif
