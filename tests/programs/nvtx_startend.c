/*
 * nvtx_startend: start/end ranges that begin on one thread and end on another.
 *
 * Usage: nvtx_startend [N=50]
 *
 * Push/pop ranges are per-thread stacks; start/end ranges are process-wide
 * and may end on any thread. This checks a profiler matches ends to starts
 * by range id, not by thread.
 *
 * Emits (start/end ranges, default domain):
 *   "cross"       x N: started on main, ended on a second thread (the
 *                 "ender") ~1 ms (usleep(1000)) after it dequeues each id.
 *                 Starts happen back-to-back, so the i-th cross range lasts
 *                 roughly (i+1) ms.
 *   "same_thread" x 1: started and ended on main.
 *   "attr_range"  x 1: nvtxRangeStartEx with color ARGB 0xFF00FF00,
 *                 category 7, payload int64 42; ended on main.
 * Prints nothing; exits 0.
 */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Small bounded blocking queue of range ids. */
#define QCAP 64

static struct {
    pthread_mutex_t mu;
    pthread_cond_t not_empty;
    pthread_cond_t not_full;
    nvtxRangeId_t items[QCAP];
    size_t head, count;
    int closed;
} q = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .not_empty = PTHREAD_COND_INITIALIZER,
    .not_full = PTHREAD_COND_INITIALIZER,
};

static void q_put(nvtxRangeId_t id)
{
    pthread_mutex_lock(&q.mu);
    while (q.count == QCAP)
        pthread_cond_wait(&q.not_full, &q.mu);
    q.items[(q.head + q.count) % QCAP] = id;
    q.count++;
    pthread_cond_signal(&q.not_empty);
    pthread_mutex_unlock(&q.mu);
}

static void q_close(void)
{
    pthread_mutex_lock(&q.mu);
    q.closed = 1;
    pthread_cond_broadcast(&q.not_empty);
    pthread_mutex_unlock(&q.mu);
}

/* Returns 1 and stores an id, or 0 once the queue is closed and drained. */
static int q_get(nvtxRangeId_t *out)
{
    pthread_mutex_lock(&q.mu);
    while (q.count == 0 && !q.closed)
        pthread_cond_wait(&q.not_empty, &q.mu);
    if (q.count == 0) {
        pthread_mutex_unlock(&q.mu);
        return 0;
    }
    *out = q.items[q.head];
    q.head = (q.head + 1) % QCAP;
    q.count--;
    pthread_cond_signal(&q.not_full);
    pthread_mutex_unlock(&q.mu);
    return 1;
}

static void *ender(void *arg)
{
    (void)arg;
    nvtxRangeId_t id;
    while (q_get(&id)) {
        usleep(1000);
        nvtxRangeEnd(id);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50;
    pthread_t th;

    if (pthread_create(&th, NULL, ender, NULL) != 0)
        return 1;

    for (int i = 0; i < n; i++)
        q_put(nvtxRangeStartA("cross"));
    q_close();

    nvtxRangeId_t same = nvtxRangeStartA("same_thread");
    nvtxRangeEnd(same);

    nvtxEventAttributes_t attr;
    memset(&attr, 0, sizeof attr);
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.category = 7;
    attr.colorType = NVTX_COLOR_ARGB;
    attr.color = 0xFF00FF00u;
    attr.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    attr.payload.llValue = 42;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "attr_range";
    nvtxRangeId_t ar = nvtxRangeStartEx(&attr);
    nvtxRangeEnd(ar);

    pthread_join(th, NULL);
    return 0;
}
