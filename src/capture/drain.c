/* drain.c: the consumer half of the ring protocol (src/format/ring.h), run by the CLI while
 * the profiled program runs. Also maps collector clocks to CLOCK_MONOTONIC. */
#include "capture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../format/host.h"
#include "../util/alloc.h"
#include "../util/common.h"
#include "../util/intern.h"

static uint64_t mono_ns(void);

void gs_drain_init(struct gs_drain *d, const char *dir)
{
	memset(d, 0, sizeof(*d));
	d->dir = gs_xstrdup(dir);
	d->sock = -1;
	struct rlimit nofile;
	d->spool_cap = 1024;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY)
		d->spool_cap = GS_MIN(d->spool_cap, (size_t)nofile.rlim_cur / 4);
	if (d->spool_cap < 4)
		d->spool_cap = 4;
	struct sockaddr_un a;
	socklen_t alen = gs_ring_sockaddr(dir, &a);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s >= 0 && bind(s, (struct sockaddr *)&a, alen) == 0 && listen(s, 4096) == 0)
		d->sock = s;
	else if (s >= 0)
		close(s);
}

/* Whether n more descriptors can be had now (a ring's memory received through the socket
 * takes one, and with none free the kernel drops it from the message). */
static int fd_room(const struct gs_drain *d, int n)
{
	int fds[2], k = 0;
	while (k < n && k < 2 && (fds[k] = fcntl(d->sock, F_DUPFD_CLOEXEC, 0)) >= 0)
		k++;
	for (int i = 0; i < k; i++)
		close(fds[i]);
	return k == n;
}

static int spool_evict(struct gs_drain *d, const struct gs_ringfile *keep, struct gs_err *err);

/* Room for n more descriptors, closing spools (least recently used first) to make it. */
static int make_room(struct gs_drain *d, int n)
{
	while (!fd_room(d, n)) {
		struct gs_err e = {0};
		int rc = spool_evict(d, NULL, &e);
		if (rc < 0 && !d->late.code)
			d->late = e; /* a spool that could not be written: gs_drain_poll says so */
		if (rc <= 0)
			return 0;
	}
	return 1;
}

/* One connection's message: the ring file's name and its memory. 1 taken (or dropped: a
 * message that is not a plain ring name with one descriptor), 0 not sent yet, -1 ended. */
static int take_ring(struct gs_drain *d, int c)
{
	if (!make_room(d, 1)) /* not now: the message waits in its connection */
		return 0;
	char name[256];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} cm;
	struct iovec iov = {name, sizeof(name) - 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf)};
	ssize_t r;
	while ((r = recvmsg(c, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return errno == EAGAIN ? 0 : -1;
	if (r == 0)
		return -1;
	name[r] = 0;
	int fd = -1, extra = 0;
	for (struct cmsghdr *ch = CMSG_FIRSTHDR(&m); ch; ch = CMSG_NXTHDR(&m, ch)) {
		if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfd = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int f;
			memcpy(&f, CMSG_DATA(ch) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = f;
			else
				close(f), extra = 1;
		}
	}
	size_t n = (size_t)r;
	int plain = n > 5 && !strcmp(name + n - 5, ".ring") && !strchr(name, '/') && strlen(name) == n;
	if (fd < 0 || extra || !plain || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (fd >= 0)
			close(fd);
		if (plain && (m.msg_flags & MSG_CTRUNC)) /* its memory lost on the way: said at the end */
			d->rings_dropped++;
		return 1;
	}
	gs_grow((void **)&d->mem, &d->mem_cap, d->nmem + 1, sizeof(*d->mem));
	d->mem[d->nmem].name = gs_xstrdup(name);
	d->mem[d->nmem].fd = fd;
	d->nmem++;
	return 1;
}

static int adopted(const struct gs_drain *d, const char *path);
static int adopt(struct gs_drain *d, const char *path, const char *name, struct gs_err *err);

/* Adopt the rings whose memory has come (each process sends its ring complete), so their
 * descriptors are closed at once; one that is not ready, or fails, waits for the scan, which
 * reports what fails. */
static void adopt_received(struct gs_drain *d)
{
	char path[4096];
	for (size_t i = 0; i < d->nmem;) {
		snprintf(path, sizeof(path), "%s/%s", d->dir, d->mem[i].name);
		size_t before = d->nmem;
		struct gs_err e = {0};
		if (adopted(d, path)) { /* a second message for one ring: not ours to keep */
			close(d->mem[i].fd);
			free(d->mem[i].name);
			d->mem[i] = d->mem[--d->nmem];
		} else if (adopt(d, path, d->mem[i].name, &e) != 1 || d->nmem == before) {
			i++;
		}
	}
}

/* Take the rings' memory the processes have sent since the last call: each process connects,
 * sends one message and closes; a connection whose message has not come yet is kept. Returns
 * 0, or -1 when connections wait that cannot be taken now (no descriptor left: the memfds
 * held until their files are scanned are closed then). */
static int receive(struct gs_drain *d)
{
	for (size_t i = 0; i < d->nconn;) {
		if (take_ring(d, d->conn[i]) != 0) {
			close(d->conn[i]);
			d->conn[i] = d->conn[--d->nconn];
		} else {
			i++;
		}
	}
	int c, full = 0;
	/* a connection is taken only with room for it and for the memory it brings */
	while (d->sock >= 0 && !(full = !make_room(d, 2)) &&
	       ((c = accept4(d->sock, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0 || errno == EINTR)) {
		if (c < 0)
			continue;
		/* only this user's processes (an abstract name, for a deep directory, has no file
		 * permissions to keep others out) */
		struct ucred cr;
		socklen_t crl = sizeof(cr);
		if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &crl) != 0 || cr.uid != geteuid()) {
			close(c);
			continue;
		}
		if (take_ring(d, c) != 0) {
			close(c);
			adopt_received(d); /* its memory mapped and its descriptor closed at once */
		} else {
			gs_grow((void **)&d->conn, &d->conn_cap, d->nconn + 1, sizeof(*d->conn));
			d->conn[d->nconn++] = c;
		}
	}
	full = full || (d->sock >= 0 && (errno == EMFILE || errno == ENFILE));
	adopt_received(d);
	return full ? -1 : 0;
}

/* The memory received for ring file NAME, or -1 */
static int mem_for(const struct gs_drain *d, const char *name, size_t *at)
{
	for (size_t i = 0; i < d->nmem; i++)
		if (!strcmp(d->mem[i].name, name)) {
			*at = i;
			return d->mem[i].fd;
		}
	return -1;
}

static int adopted(const struct gs_drain *d, const char *path)
{
	for (size_t i = 0; i < d->nrings; i++)
		if (!strcmp(d->rings[i]->path, path))
			return 1;
	return 0;
}

/* Map a ring once its header is complete; 1 adopted, 0 not ready, <0 error. An empty ring
 * file stands for memory received through the socket under its name. */
static int adopt(struct gs_drain *d, const char *path, const char *name, struct gs_err *err)
{
	/* a ring received through the socket needs no descriptor of its file (only its size,
	 * which is 0): under a low open-files limit the memfds waiting to be adopted could
	 * otherwise leave none to adopt them with */
	struct stat st;
	if (stat(path, &st) != 0)
		return errno == ENOENT ? 0 : gs_errf(err, -errno, "cannot read ring '%s': %s", path, strerror(errno));
	size_t at = 0;
	int mfd = st.st_size == 0 ? mem_for(d, name, &at) : -1;
	int fd = mfd;
	if (fd < 0 && (fd = open(path, O_RDWR | O_CLOEXEC)) < 0) /* gone, or no descriptor left now: later */
		return errno == ENOENT || errno == EMFILE || errno == ENFILE
			       ? 0
			       : gs_errf(err, -errno, "cannot open ring '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < GS_RING_HEADER_SIZE) {
		if (mfd < 0)
			close(fd);
		return 0;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mfd < 0)
		close(fd);
	if (m == MAP_FAILED)
		return gs_errf(err, -errno, "cannot map ring '%s': %s", path, strerror(errno));
	struct gs_ring_header *h = m;
	if (!(atomic_load_explicit(&h->flags, memory_order_acquire) & GS_RING_READY) ||
	    h->magic != GS_RING_MAGIC) {
		munmap(m, (size_t)st.st_size);
		return 0;
	}
	if (h->version != GS_RING_VERSION || h->file_size != (uint64_t)st.st_size ||
	    h->chunks_offset + (uint64_t)h->nchunks * h->chunk_size > h->file_size ||
	    h->desc_offset + (uint64_t)h->nchunks * sizeof(struct gs_ring_desc) > h->file_size ||
	    h->slots_offset + (uint64_t)h->nslots * sizeof(struct gs_ring_slot) > h->file_size ||
	    h->registry_offset + h->registry_size > h->file_size) {
		munmap(m, (size_t)st.st_size);
		return gs_errf(err, -EINVAL, "ring '%s' has an inconsistent layout (version %u)", path,
			       h->version);
	}
	if (mfd >= 0) { /* mapped: the descriptor is no longer needed */
		close(mfd);
		free(d->mem[at].name);
		d->mem[at] = d->mem[--d->nmem];
	}
	struct gs_ringfile *rf = gs_xcalloc(1, sizeof(*rf));
	rf->path = gs_xstrdup(path);
	rf->h = h;
	rf->size = (size_t)st.st_size;
	rf->in_memory = mfd >= 0;
	size_t n = strlen(path);
	rf->spool_path = gs_xmalloc(n + 7);
	memcpy(rf->spool_path, path, n);
	memcpy(rf->spool_path + n, ".spool", 7);
	gs_grow((void **)&d->rings, &d->cap, d->nrings + 1, sizeof(*d->rings));
	d->rings[d->nrings++] = rf;
	return 1;
}

/* Close a spool (its file stays); 0, or negative when what it buffered could not be written. */
static int spool_close(struct gs_drain *d, struct gs_ringfile *rf, struct gs_err *err)
{
	if (!rf->spool)
		return 0;
	int bad = ferror(rf->spool) | fclose(rf->spool);
	rf->spool = NULL;
	d->spools_open--;
	return bad ? gs_errf(err, -EIO, "cannot write spool '%s': %s", rf->spool_path, strerror(errno)) : 0;
}

/* Close the least recently used open spool but keep's; 1 closed, 0 none open, <0 error. */
static int spool_evict(struct gs_drain *d, const struct gs_ringfile *keep, struct gs_err *err)
{
	struct gs_ringfile *lru = NULL;
	for (size_t i = 0; i < d->nrings; i++) {
		struct gs_ringfile *rf = d->rings[i];
		if (rf->spool && rf != keep && (!lru || rf->spool_used < lru->spool_used))
			lru = rf;
	}
	if (!lru)
		return 0;
	int rc = spool_close(d, lru, err);
	return rc < 0 ? rc : 1;
}

int gs_drain_spool(struct gs_drain *d, struct gs_ringfile *rf, struct gs_err *err)
{
	rf->spool_used = ++d->spool_tick;
	if (rf->spool)
		return 1;
	for (int tries = 0;; tries++) {
		if (d->spools_open >= d->spool_cap || tries) {
			int rc = spool_evict(d, rf, err);
			if (rc < 0)
				return rc;
			if (rc == 0 && tries)
				return 0; /* nothing of ours to close: later */
		}
		rf->spool = fopen(rf->spool_path, rf->spool_made ? "r+be" : "w+be");
		if (rf->spool)
			break;
		if ((errno != EMFILE && errno != ENFILE) || tries >= 8)
			return errno == EMFILE || errno == ENFILE
				       ? 0
				       : gs_errf(err, -errno, "cannot %s spool '%s': %s", rf->spool_made ? "open" : "create",
						 rf->spool_path, strerror(errno));
	}
	d->spools_open++;
	d->spools_peak = GS_MAX(d->spools_peak, (uint64_t)d->spools_open);
	*(rf->spool_made ? &d->spools_reopened : &d->spools_made) += 1;
	rf->spool_made = 1;
	setvbuf(rf->spool, NULL, _IOFBF, 1 << 20);
	if (fseek(rf->spool, 0, SEEK_END) != 0) {
		int e = errno;
		spool_close(d, rf, NULL);
		return gs_errf(err, -e, "cannot open spool '%s': %s", rf->spool_path, strerror(e));
	}
	return 1;
}

static long move_sealed(struct gs_drain *dr, struct gs_ringfile *rf, struct gs_err *err)
{
	struct gs_ring_header *h = rf->h;
	struct gs_ring_desc *desc = (struct gs_ring_desc *)((uint8_t *)h + h->desc_offset);
	long n = 0;
	/* every chunk free: none sealed (a chunk is sealed only after it was taken from the free
	 * ones). So the rings of processes that have ended cost no walk of their descriptors,
	 * 32 KiB each with the defaults, at every poll. */
	if (atomic_load_explicit(&h->nfree, memory_order_acquire) == h->nchunks)
		return 0;
	/* in index order: each chunk keeps its slot and sequence number in the spool, and the
	 * assembler orders by those. Only below the highest chunk ever taken: chunks are taken
	 * lowest first, so a ring uses few of its 2048 (and its other descriptors' pages are
	 * never touched, which in a memfd would make them). */
	uint32_t hw = atomic_load_explicit(&h->chunks_hiwater, memory_order_acquire);
	if (hw > h->nchunks)
		hw = h->nchunks;
	for (uint32_t i = 0; i < hw; i++) {
		struct gs_ring_desc *d = &desc[i];
		if (atomic_load_explicit(&d->state, memory_order_acquire) != GS_CHUNK_SEALED)
			continue;
		if (!n) { /* no descriptor for the spool now: the chunks wait in the ring */
			int rc = gs_drain_spool(dr, rf, err);
			if (rc <= 0)
				return rc;
		}
		uint32_t used = atomic_load_explicit(&d->used, memory_order_acquire);
		if (used > h->chunk_size)
			used = h->chunk_size;
		uint32_t rec[4] = {d->slot, d->seq, used, 0};
		const uint8_t *data = (uint8_t *)h + h->chunks_offset + (uint64_t)i * h->chunk_size;
		if (fwrite(rec, sizeof(rec), 1, rf->spool) != 1 ||
		    (used && fwrite(data, used, 1, rf->spool) != 1))
			return gs_errf(err, -EIO, "cannot write spool '%s': %s", rf->spool_path, strerror(errno));
		atomic_store_explicit(&d->state, GS_CHUNK_FREE, memory_order_release);
		atomic_fetch_add_explicit(&h->nfree, 1, memory_order_release);
		n++;
	}
	return n;
}

/* The name of the directory's next ring file not adopted yet (its path in path), or NULL */
static const char *next_new_ring(const struct gs_drain *d, DIR *dir, char *path, size_t cap)
{
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".ring"))
			continue;
		snprintf(path, cap, "%s/%s", d->dir, e->d_name);
		if (!adopted(d, path))
			return e->d_name;
	}
	return NULL;
}

/* Adopt ring files that appeared since the last scan. */
static int scan(struct gs_drain *d, struct gs_err *err)
{
	receive(d); /* first: a ring's file exists before its memory is sent */
	DIR *dir = opendir(d->dir);
	if (!dir && (errno == EMFILE || errno == ENFILE)) { /* make room, or scan later */
		int rc = spool_evict(d, NULL, err);
		if (rc <= 0)
			return rc;
		dir = opendir(d->dir);
		if (!dir && (errno == EMFILE || errno == ENFILE))
			return 0;
	}
	if (!dir)
		return gs_errf(err, -errno, "cannot read session directory '%s': %s", d->dir, strerror(errno));
	char path[4096];
	const char *name;
	while ((name = next_new_ring(d, dir, path, sizeof(path)))) {
		int rc = adopt(d, path, name, err);
		if (rc < 0) {
			closedir(dir);
			return rc;
		}
	}
	closedir(dir);
	return 0;
}

/* One line of /proc/PID/maps, "start-end perms offset dev inode path": an executable mapping
 * of a file is kept once. */
static void maps_line(struct gs_ringfile *rf, const char *l)
{
	unsigned long long start, end, off;
	char perms[8];
	int n = 0;
	if (sscanf(l, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) < 4 || !n ||
	    !strchr(perms, 'x'))
		return;
	const char *path = l + n;
	size_t plen = strcspn(path, "\n");
	if (!plen || (path[0] != '/' && path[0] != '['))
		return;
	uint64_t key = gs_hash_bytes(path, plen) ^ (start * 0x9E3779B97F4A7C15ull) ^ off;
	for (size_t i = 0; i < rf->nseen; i++)
		if (rf->maps_seen[i] == key)
			return;
	gs_grow((void **)&rf->maps_seen, &rf->seen_cap, rf->nseen + 1, sizeof(*rf->maps_seen));
	rf->maps_seen[rf->nseen++] = key;
	struct gs_map_rec r = {start, end, off, path, plen};
	gs_maps_add(&rf->maps, &r);
	rf->nmaps++;
}

/* The executable mappings of each running process, from /proc/PID/maps: libraries loaded
 * after the collector's snapshot at start (dlopen: Python extension modules) are known to the
 * symbolizer even when the process is killed before its exit path records them. Only the
 * newest image of a pid is read: an exec replaced the others. */
static void poll_maps(struct gs_drain *d)
{
	for (size_t i = 0; i < d->nrings; i++) {
		struct gs_ringfile *rf = d->rings[i];
		struct gs_ring_header *h = rf->h;
		if (h->kind != GS_RING_RECORDS ||
		    (atomic_load_explicit(&h->flags, memory_order_acquire) & GS_RING_CLEAN_EXIT))
			continue;
		int newest = 1;
		for (size_t k = 0; k < d->nrings && newest; k++)
			newest = !(d->rings[k]->h->pid == h->pid && d->rings[k]->h->image > h->image);
		if (!newest)
			continue;
		char path[64], line[4600];
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)h->pid);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		if (!rf->maps.buf)
			gs_strbuf_init(&rf->maps);
		while (fgets(line, sizeof(line), f))
			maps_line(rf, line);
		fclose(f);
	}
}

long gs_drain_poll(struct gs_drain *d, struct gs_err *err)
{
	if (d->late.code) {
		if (err)
			*err = d->late;
		return d->late.code;
	}
	receive(d); /* the rings' memory, at every poll: few processes wait for a connection */
	/* New processes are rare; a directory scan costs more than a ring pass. */
	if (d->polls % 16 == 0) {
		int rc = scan(d, err);
		if (rc < 0)
			return rc;
	}
	if (d->polls++ % 64 == 1)
		poll_maps(d);
	long moved = 0;
	for (size_t i = 0; i < d->nrings; i++) {
		long m = move_sealed(d, d->rings[i], err);
		if (m < 0)
			return m;
		moved += m;
	}
	return moved;
}

void gs_drain_wait(struct gs_drain *d, int ms)
{
	if (d->sock < 0) {
		struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
		return;
	}
	/* the rings' memory is taken as it comes; the chunks are moved at the next poll, as
	 * without a socket */
	uint64_t end = mono_ns() + (uint64_t)ms * 1000000u;
	for (uint64_t now = mono_ns(); now < end; now = mono_ns()) {
		struct pollfd p = {d->sock, POLLIN, 0};
		if (poll(&p, 1, (int)((end - now + 999999) / 1000000)) > 0 && receive(d) < 0) {
			/* out of descriptors: the socket stays readable; sleep the rest */
			struct timespec ts = {0, (long)(end - now)};
			nanosleep(&ts, NULL);
			return;
		}
	}
}

size_t gs_drain_unread(struct gs_drain *d)
{
	size_t n = (size_t)d->rings_dropped;
	DIR *dir = opendir(d->dir);
	if (!dir)
		return n;
	char path[4096];
	while (next_new_ring(d, dir, path, sizeof(path)))
		n++;
	closedir(dir);
	return n;
}

int gs_drain_scan(struct gs_drain *d, struct gs_err *err)
{
	return scan(d, err);
}

void gs_drain_release(struct gs_drain *d)
{
	for (size_t i = 0; i < d->nrings; i++) {
		struct gs_ringfile *rf = d->rings[i];
		if (rf->spool)
			fclose(rf->spool);
		munmap(rf->h, rf->size);
		free(rf->path);
		free(rf->spool_path);
		gs_strbuf_release(&rf->maps);
		free(rf->maps_seen);
		free(rf);
	}
	free(d->rings);
	for (size_t i = 0; i < d->nmem; i++) {
		close(d->mem[i].fd);
		free(d->mem[i].name);
	}
	free(d->mem);
	for (size_t i = 0; i < d->nconn; i++)
		close(d->conn[i]);
	free(d->conn);
	if (d->sock >= 0) {
		close(d->sock);
		struct sockaddr_un a;
		if (gs_ring_sockaddr(d->dir, &a) == sizeof(a) && a.sun_path[0])
			unlink(a.sun_path);
	}
	free(d->dir);
	memset(d, 0, sizeof(*d));
}

void gs_drain_keep(struct gs_drain *d)
{
	static const uint8_t zero[4096];
	for (size_t i = 0; i < d->nrings; i++) {
		struct gs_ringfile *rf = d->rings[i];
		if (!rf->in_memory)
			continue;
		int fd = open(rf->path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		int ok = ftruncate(fd, (off_t)rf->size) == 0;
		/* pages of zeros stay holes */
		for (size_t off = 0; ok && off < rf->size; off += sizeof(zero)) {
			size_t n = GS_MIN(sizeof(zero), rf->size - off);
			const uint8_t *p = (const uint8_t *)rf->h + off;
			if (memcmp(p, zero, n) != 0)
				ok = pwrite(fd, p, n, (off_t)off) == (ssize_t)n;
		}
		close(fd);
	}
}

/* ---- clocks ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A (TSC, CLOCK_MONOTONIC) pair: the monotonic reading between two TSC reads, the tightest of
 * 8 tries, so one try interrupted between its reads (a preempted vCPU) is not the one kept. */
static void pair(uint64_t *tsc, uint64_t *mono)
{
#if defined(__x86_64__)
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = __builtin_ia32_rdtsc();
		uint64_t m = mono_ns();
		uint64_t b = __builtin_ia32_rdtsc();
		if (b >= a && b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*mono = m;
		}
	}
	if (best == UINT64_MAX) { /* the TSC went back: no pair */
		*mono = mono_ns();
		*tsc = 0;
	}
#else
	*mono = mono_ns();
	*tsc = 0;
#endif
}

void gs_timemap_add(struct gs_timemap *tm, uint64_t tsc, uint64_t mono)
{
	if (!tsc || (tm->n && (tsc <= tm->pt[tm->n - 1][0] || mono <= tm->pt[tm->n - 1][1])))
		return;
	gs_grow((void **)&tm->pt, &tm->cap, tm->n + 1, sizeof(*tm->pt));
	tm->pt[tm->n][0] = tsc;
	tm->pt[tm->n][1] = mono;
	tm->n++;
	tm->seg_rate = 0; /* the last segment's rate, if it was cached, is another now */
}

static void take(struct gs_timemap *tm)
{
	uint64_t tsc, mono;
	pair(&tsc, &mono);
	gs_timemap_add(tm, tsc, mono);
}

void gs_timemap_begin(struct gs_timemap *tm)
{
	memset(tm, 0, sizeof(*tm));
	take(tm);
}

void gs_timemap_tick(struct gs_timemap *tm)
{
	if (tm->n && mono_ns() >= tm->pt[tm->n - 1][1] + 1000000000u)
		take(tm);
}

void gs_timemap_end(struct gs_timemap *tm)
{
	/* A first segment of at least 20 ms keeps the tick rate error under a part per million. */
	while (tm->n && mono_ns() < tm->pt[0][1] + 20000000u) {
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	take(tm);
}

uint64_t gs_timemap_ns(struct gs_timemap *tm, uint32_t clock_kind, uint64_t ts)
{
	if (clock_kind != GS_CLOCK_TSC || tm->n < 2)
		return ts;
	/* the segment: the last pair at or below ts (the first segment below the first pair,
	 * the last beyond the last); the last one used when ts is inside it */
	size_t k = tm->seg;
	if (!tm->seg_rate || k + 1 >= tm->n || ts < tm->pt[k][0] || ts >= tm->pt[k + 1][0]) {
		size_t lo = 0, hi = tm->n - 1;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (tm->pt[mid][0] <= ts)
				lo = mid;
			else
				hi = mid;
		}
		k = lo;
		if (k != tm->seg || !tm->seg_rate) {
			const uint64_t *a = tm->pt[k], *b = tm->pt[k + 1];
			tm->seg = k;
			tm->seg_rate = (long double)(b[1] - a[1]) / (long double)(b[0] - a[0]);
		}
	}
	const uint64_t *a = tm->pt[k];
	long double v = (long double)a[1] + ((long double)ts - (long double)a[0]) * tm->seg_rate;
	return v <= 0 ? 0 : (uint64_t)(v + 0.5L);
}

void gs_timemap_release(struct gs_timemap *tm)
{
	free(tm->pt);
	memset(tm, 0, sizeof(*tm));
}
