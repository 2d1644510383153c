/* host_ehmap.c: whether a library's unwind tables are mapped into this process. Loads LIB
 * (libhost_wide.so: 4000 functions), runs its code once, and finds its .eh_frame_hdr and
 * .eh_frame from the file's section headers (not its program headers, which the collector
 * reads); then, every 20 ms for up to WAIT_MS, counts the pages of those sections present in
 * this process's page tables (/proc/self/pagemap, bit 63). Nothing in the program reads them,
 * so without a profiler few are; under `gpuscope profile` with CPU sampling the collector maps
 * them all, soon after the load. Prints "LIB: P of N pages mapped after T ms" as soon as all
 * are, or when the time is up; then "single S", glibc's __libc_single_threaded at the end (1:
 * no second thread was ever made in the process, the collector's included). With "thread", a
 * thread is made (and joined) before the load. Exits 0, 2 on a usage or system error.
 *   usage: host_ehmap LIB [WAIT_MS [thread]] */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <time.h>
#include <unistd.h>

struct range {
	uintptr_t lo, hi;
};

/* .eh_frame_hdr and .eh_frame of the file, at their addresses in the file (0-based) */
static int sections(const char *path, struct range *r)
{
	int fd = open(path, O_RDONLY);
	Elf64_Ehdr eh;
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_shentsize != sizeof(Elf64_Shdr))
		return -1;
	Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) != (ssize_t)(eh.e_shnum * sizeof(*sh)))
		return -1;
	const Elf64_Shdr *st = &sh[eh.e_shstrndx];
	char *names = malloc(st->sh_size);
	if (!names || pread(fd, names, st->sh_size, (off_t)st->sh_offset) != (ssize_t)st->sh_size)
		return -1;
	int found = 0;
	for (int i = 0; i < eh.e_shnum; i++) {
		const char *n = names + sh[i].sh_name;
		int k = !strcmp(n, ".eh_frame_hdr") ? 0 : !strcmp(n, ".eh_frame") ? 1 : -1;
		if (k >= 0) {
			r[k] = (struct range){sh[i].sh_addr, sh[i].sh_addr + sh[i].sh_size};
			found |= 1 << k;
		}
	}
	free(names);
	free(sh);
	close(fd);
	return found == 3 ? 0 : -1;
}

static uintptr_t bias;
static const char *want;

static int find(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (info->dlpi_name && strstr(info->dlpi_name, want)) {
		bias = info->dlpi_addr;
		return 1;
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Count the sections' mapped pages until all are, or wait ms have passed; print the line. */
static int count(const struct range *r, double wait)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0)
		return -1;
	long pg = sysconf(_SC_PAGESIZE);
	double t0 = now_ms();
	unsigned mapped, total;
	for (;;) {
		mapped = total = 0;
		for (int k = 0; k < 2; k++)
			for (uintptr_t p = (bias + r[k].lo) / pg; p <= (bias + r[k].hi - 1) / pg; p++) {
				uint64_t e = 0;
				if (pread(pm, &e, 8, (off_t)(p * 8)) != 8)
					return -1;
				total++;
				mapped += (unsigned)(e >> 63);
			}
		if (mapped == total || now_ms() - t0 >= wait)
			break;
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
	}
	close(pm);
	printf("%s: %u of %u pages mapped after %.0f ms\n", want, mapped, total, now_ms() - t0);
	fflush(stdout);
	return 0;
}

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (argc > 3 && strcmp(argv[3], "thread"))) {
		fprintf(stderr, "usage: host_ehmap LIB [WAIT_MS [thread]]\n");
		return 2;
	}
	double wait = argc > 2 ? atof(argv[2]) : 3000;
	pthread_t th;
	if (argc > 3 && (pthread_create(&th, NULL, nothing, NULL) != 0 || pthread_join(th, NULL) != 0)) {
		fprintf(stderr, "host_ehmap: cannot make a thread\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	uint64_t (*sum)(uint64_t) = h ? (uint64_t(*)(uint64_t))(uintptr_t)dlsym(h, "wide_sum") : NULL;
	if (!sum) {
		fprintf(stderr, "host_ehmap: %s\n", dlerror());
		return 2;
	}
	volatile uint64_t x = sum(1);
	(void)x;
	const char *base = strrchr(argv[1], '/');
	want = base ? base + 1 : argv[1];
	struct range r[2];
	if (!dl_iterate_phdr(find, NULL) || sections(argv[1], r) != 0 || count(r, wait) != 0) {
		fprintf(stderr, "host_ehmap: cannot find %s's unwind tables or read the pagemap\n", argv[1]);
		return 2;
	}
	printf("single %d\n", (int)__libc_single_threaded);
	return 0;
}
