/* tracer_hooks.c - the C side of the method tracer's enter/leave hooks and
 * the exception callbacks that keep its shadow stacks balanced
 * (tracer_hooks.h).  Runs on the application's threads, in cooperative
 * mode, on every call of a traced method: no lock, no runtime call, and
 * no allocation but a thread's first table, its chunks and histograms. */
#include "agent/tracer/tracer_hooks.h"
#include "common/latency_hist.h"
#include "common/clock.h"
#include "common/files.h"
#include "trace/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static inline uint64_t ticks(const tr_clock *c)
{
    if (c->tsc)
        return __rdtsc();
    return cp_monotonic_ns();
}

static inline uint64_t to_ns(const tr_clock *c, uint64_t d)
{
    if (!c->tsc)
        return d;
    return (uint64_t)(((unsigned __int128)d * c->mult) >> 32);
}

uint64_t tr_clock_ns(const tr_clock *c, uint64_t t)
{
    if (!c->tsc)
        return t;
    return t >= c->base_ticks ? c->base_ns + to_ns(c, t - c->base_ticks) : c->base_ns - to_ns(c, c->base_ticks - t);
}

static void thread_exited(void *arg)
{
    tr_thread *t = arg;
    atomic_store(&t->dead, 1);            /* the tracer's thread writes it out and frees it */
}

/* Does the kernel keep time with the TSC (so it is invariant and in step
 * across CPUs)? */
static int kernel_trusts_tsc(void)
{
    char buf[64];
    ssize_t n = cp_read_small("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf,
                              sizeof(buf));
    return n >= 3 && strncmp(buf, "tsc", 3) == 0 && (n == 3 || buf[3] == '\n');
}

static void calibrate(tr_clock *c)
{
    struct timespec a, b, ms = { 0, 10000000 };
    uint64_t t0, t1, ns;

    memset(c, 0, sizeof(*c));
    if (!kernel_trusts_tsc())
        return;
    clock_gettime(CLOCK_MONOTONIC, &a);
    t0 = __rdtsc();
    nanosleep(&ms, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    t1 = __rdtsc();
    ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
    if (t1 <= t0 || ns < 5000000)
        return;
    c->mult = (uint64_t)(((unsigned __int128)ns << 32) / (t1 - t0));
    c->base_ticks = t1;
    c->base_ns = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
    c->tsc = c->mult > 0;
}

int tr_shared_init(tr_shared *s, int log_calls, long calls_max)
{
    memset(s, 0, sizeof(*s));
    calibrate(&s->clock);
    if (pthread_mutex_init(&s->lock, NULL) != 0)
        return -1;
    if (pthread_key_create(&s->key, thread_exited) != 0) {
        pthread_mutex_destroy(&s->lock);
        return -1;
    }
    s->log_calls = log_calls;
    atomic_store(&s->calls_left, log_calls ? calls_max : 0);
    return 0;
}

/* The calling thread's table, created at its first traced call. */
static tr_thread *thread_table(tr_shared *s)
{
    tr_thread *t = pthread_getspecific(s->key);

    if (__builtin_expect(t != NULL, 1))
        return t;
    if (!(t = calloc(1, sizeof(*t))))
        goto failed;
    if (s->log_calls && !(t->ring = malloc(TR_RING * sizeof(*t->ring)))) {
        free(t);
        goto failed;
    }
    t->sh = s;
    t->os_tid = cp_gettid();
    if (pthread_setspecific(s->key, t) != 0) {
        free(t->ring);
        free(t);
        goto failed;
    }
    pthread_mutex_lock(&s->lock);
    t->next = s->threads;
    s->threads = t;
    pthread_mutex_unlock(&s->lock);
    return t;
failed:
    atomic_fetch_add(&s->tables_failed, 1);
    return NULL;
}

static tr_stat *stat_of(tr_thread *t, uint32_t index)
{
    tr_stat *c = atomic_load_explicit(&t->chunk[index / TR_CHUNK], memory_order_acquire);

    if (__builtin_expect(c == NULL, 0)) {
        if (!(c = calloc(TR_CHUNK, sizeof(*c))))
            return NULL;
        atomic_store_explicit(&t->chunk[index / TR_CHUNK], c, memory_order_release);
    }
    return &c[index % TR_CHUNK];
}

#define ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)

/* A traced call ended (normally, or unwound by an exception). */
static void ended(tr_thread *t, const tr_frame *f, uint64_t now, int exception)
{
    tr_shared *s = t->sh;
    uint64_t d = to_ns(&s->clock, now - f->t0), self = d > f->child_ns ? d - f->child_ns : 0;
    tr_stat *st = stat_of(t, f->m->index);

    if (t->depth > 0)
        t->stack[t->depth - 1].child_ns += d;
    if (!st)
        return;
    if (!st->hist && !(st->hist = calloc(LH_BUCKETS, sizeof(uint32_t))))
        atomic_fetch_add(&s->hists_failed, 1);
    ADD(st->calls, 1);
    if (exception)
        ADD(st->exceptions, 1);
    ADD(st->total_ns, d);
    ADD(st->self_ns, self);
    if (d > st->max_ns)
        __atomic_store_n(&st->max_ns, d, __ATOMIC_RELAXED);
    if (st->hist) {
        uint32_t *b = &st->hist[lh_bucket(d)];
        __atomic_store_n(b, *b + 1, __ATOMIC_RELAXED);
    }
    if (t->ring && atomic_load_explicit(&s->calls_left, memory_order_relaxed) > 0) {
        unsigned head = atomic_load_explicit(&t->ring_head, memory_order_relaxed);
        if (head - atomic_load_explicit(&t->ring_tail, memory_order_acquire) >= TR_RING) {
            atomic_fetch_add_explicit(&s->calls_dropped, 1, memory_order_relaxed);
        } else if (atomic_fetch_sub_explicit(&s->calls_left, 1, memory_order_relaxed) > 0) {
            t->ring[head % TR_RING] = (tr_call){ .start_ns = tr_clock_ns(&s->clock, f->t0), .duration_ns = d,
                                                 .index = f->m->index, .depth = (uint16_t)t->depth,
                                                 .flags = exception ? CALL_FLAG_EXCEPTION : 0 };
            atomic_store_explicit(&t->ring_head, head + 1, memory_order_release);
        }
    }
}

void tr_hook_enter(const tr_method *m)
{
    tr_shared *s = m->sh;
    tr_thread *t;

    if (!atomic_load_explicit(&s->active, memory_order_relaxed) || !(t = thread_table(s)))
        return;
    if (t->depth == TR_STACK_MAX) {
        t->over++;
        return;
    }
    t->stack[t->depth++] = (tr_frame){ .m = m, .t0 = ticks(&s->clock) };
}

/* Ends the traced calls on t's stack down to index i (kept below): each
 * counted, as left by an exception or not. */
static void end_down_to(tr_thread *t, int i, uint64_t now, int exception)
{
    int active = atomic_load_explicit(&t->sh->active, memory_order_relaxed);
    while (t->depth > i) {
        tr_frame f = t->stack[--t->depth];
        if (active)
            ended(t, &f, now, exception);
    }
}

/* The calling thread's table at a leave, NULL when there is nothing to
 * end: no table, or a call deeper than the stack (only counted down). */
static tr_thread *leaving(tr_shared *s)
{
    tr_thread *t = pthread_getspecific(s->key);
    if (t && t->over > 0) {
        t->over--;
        return NULL;
    }
    return t;
}

/* The topmost frame of m on t's stack, or -1. */
static int frame_of(const tr_thread *t, const tr_method *m)
{
    for (int i = t->depth - 1; i >= 0; i--)
        if (t->stack[i].m == m)
            return i;
    return -1;
}

void tr_hook_leave(const tr_method *m)
{
    uint64_t now = ticks(&m->sh->clock);
    tr_thread *t = leaving(m->sh);
    int i;

    /* the frame on top is this method's, unless a frame was missed (an
     * unwind the runtime did not report): those above it are dropped */
    if (t && (i = frame_of(t, m)) >= 0) {
        t->depth = i + 1;
        end_down_to(t, i, now, 0);
    }
}

void tr_hook_thrown(const tr_method *m)
{
    uint64_t now = ticks(&m->sh->clock);
    tr_thread *t = leaving(m->sh);
    int i;

    if (t && (i = frame_of(t, m)) >= 0)
        end_down_to(t, i, now, 1);             /* (frames above it were left by the exception too) */
}

static tr_thread *current(tr_shared *s)
{
    return pthread_getspecific(s->key);
}

void tr_unwind_enter(tr_shared *s, FunctionID fid)
{
    tr_thread *t = current(s);
    if (t && t->over == 0 && t->depth > 0 && t->stack[t->depth - 1].m->fid == fid)
        t->stack[t->depth - 1].unwinding = 1;
}

void tr_unwind_leave(tr_shared *s)
{
    tr_thread *t = current(s);
    uint64_t now = ticks(&s->clock);

    if (t && t->depth > 0 && t->stack[t->depth - 1].unwinding)
        end_down_to(t, t->depth - 1, now, 1);
}

void tr_catcher_enter(tr_shared *s, FunctionID fid)
{
    tr_thread *t = current(s);
    uint64_t now = ticks(&s->clock);

    if (!t)
        return;
    for (int i = t->depth - 1; i >= 0; i--)
        if (t->stack[i].m->fid == fid) {        /* the catcher's frame: those above it were left */
            end_down_to(t, i + 1, now, 1);
            return;
        }
}
