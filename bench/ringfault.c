/*
 * ringfault: what the first stores into a ring cost, in a file of a directory against a
 * memfd: the page faults a collector's threads take in a new ring (the ring layout of
 * the defaults: 69,246,976 bytes, 32 KiB chunks from 1,114,112 bytes on).
 *
 * Usage: ringfault DIR [REPS=7]
 *
 * For each repetition and each backing (a new file in DIR; a memfd): create, size, map
 * MAP_SHARED, then time
 *   header: the first store into the first page;
 *   region: the first store 64 KiB on (the chunk descriptors, a region of its own);
 *   chunks: the first store into each of 64 chunks in a row (per chunk);
 *   cupti:  the first store into each of 16 chunks of a CUPTI ring (1 MiB each, from 32 MiB
 *           on) (per chunk);
 *   again:  a store into each of those 64 pages after msync (a file's pages written back are
 *           write-protected again: the next store faults) (per page);
 *   unlink: removing the file (what the CLI pays at the end; 0 for the memfd).
 * stdout: one line per backing, "<backing> header_us M region_us M chunk_us M cupti_us M
 * again_us M unlink_us M", medians over the repetitions, and each measure's min..max after it.
 * Exit status 0; 1 when DIR cannot take a file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define RING 69246976u
#define CHUNKS_AT 1114112u
#define CHUNK 32768u
#define NCH 64

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* m[0]: header, m[1]: region, m[2]: per chunk, m[3]: per CUPTI chunk, m[4]: per page again,
 * m[5]: unlink */
static int once(const char *dir, int memory, double m[6])
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/ringfault-%d.ring", dir, (int)getpid());
	int fd = memory ? memfd_create("ringfault", MFD_CLOEXEC) : open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, RING) != 0)
		return -1;
	volatile char *r = mmap(NULL, RING, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (r == MAP_FAILED)
		return -1;
	double t0 = now_us();
	r[0] = 1;
	double t1 = now_us();
	r[65536] = 1;
	double t2 = now_us();
	for (unsigned i = 0; i < NCH; i++)
		r[CHUNKS_AT + (size_t)i * CHUNK] = 1;
	double t3 = now_us();
	for (unsigned i = 0; i < 16; i++)
		r[(32u << 20) + (size_t)i * (1u << 20)] = 1;
	double t3c = now_us();
	msync((void *)r, RING, MS_SYNC);
	double t4 = now_us();
	for (unsigned i = 0; i < NCH; i++)
		r[CHUNKS_AT + (size_t)i * CHUNK] = 2;
	double t5 = now_us();
	munmap((void *)r, RING);
	double t6 = now_us();
	if (!memory)
		unlink(path);
	double t7 = now_us();
	m[0] = t1 - t0;
	m[1] = t2 - t1;
	m[2] = (t3 - t2) / NCH;
	m[3] = (t3c - t3) / 16;
	m[4] = (t5 - t4) / NCH;
	m[5] = memory ? 0 : t7 - t6;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return fprintf(stderr, "usage: ringfault DIR [REPS]\n"), 2;
	int reps = argc > 2 ? atoi(argv[2]) : 7;
	if (reps < 1 || reps > 1000)
		reps = 7;
	static const char *name[] = {"file", "memfd"};
	static const char *what[] = {"header_us", "region_us", "chunk_us", "cupti_us", "again_us", "unlink_us"};
	double v[2][6][1000];
	for (int i = 0; i < reps; i++)
		for (int b = 0; b < 2; b++) { /* alternating */
			double m[6];
			if (once(argv[1], b, m) != 0)
				return fprintf(stderr, "ringfault: cannot make a ring in '%s'\n", argv[1]), 1;
			for (int k = 0; k < 6; k++)
				v[b][k][i] = m[k];
		}
	for (int b = 0; b < 2; b++) {
		printf("%s", name[b]);
		for (int k = 0; k < 6; k++) {
			qsort(v[b][k], (size_t)reps, sizeof(double), cmp);
			printf(" %s %.2f (%.2f..%.2f)", what[k], v[b][k][reps / 2], v[b][k][0], v[b][k][reps - 1]);
		}
		printf("\n");
	}
	return 0;
}
