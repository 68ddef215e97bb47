/* thread_state.c - per-thread agent state, found through a pthread key of
 * the profiler instance, and the emit helpers that append a record to the
 * calling thread's own trace buffer (no lock shared between threads). */
#include "agent/core/thread_state.h"
#include "agent/core/profiler.h"
#include "common/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A thread's state and what each service made of it. */
static void thread_state_free(thread_state *ts)
{
    for (int i = 0; i < SERVICE_COUNT; i++)
        free(ts->service[i]);
    free(ts);
}

/* The key has no destructor: a destructor is code of ours that an exiting
 * thread could be running while the runtime unloads the library after a
 * detach.  Instead the flusher reaps the state of threads that have exited
 * (thread_state_reap), so thread churn does not grow memory. */
int thread_state_key_create(profiler *p)
{
    if (pthread_key_create(&p->tls_key, NULL) != 0)
        return -1;
    p->tls_key_ok = 1;
    return 0;
}

void thread_state_reap(profiler *p)
{
    pid_t pid = getpid();
    thread_state **pp, *ts, *dead = NULL;

    pthread_mutex_lock(&p->threads_lock);
    for (pp = &p->threads; (ts = *pp) != NULL;) {
        if (syscall(SYS_tgkill, pid, (pid_t)ts->tid, 0) < 0 && errno == ESRCH) {
            *pp = ts->next;
            ts->next = dead;
            dead = ts;
        } else {
            pp = &ts->next;
        }
    }
    pthread_mutex_unlock(&p->threads_lock);
    /* the disk writes happen outside the lock new threads need */
    while ((ts = dead) != NULL) {
        dead = ts->next;
        if (ts->buf)
            trace_writer_buffer_put(p->writer, ts->buf);       /* flushes it, keeps it for reuse */
        thread_state_free(ts);
    }
}

thread_state *thread_state_get(profiler *p)
{
    thread_state *ts;

    if (!p->tls_key_ok)
        return NULL;
    ts = pthread_getspecific(p->tls_key);
    if (ts)
        return ts;
    ts = calloc(1, sizeof(*ts));
    if (!ts)
        return NULL;
    ts->p = p;
    ts->tid = cp_gettid();
    ts->buf = trace_writer_buffer_get(p->writer);
    if (!ts->buf || pthread_setspecific(p->tls_key, ts) != 0) {
        if (ts->buf)
            trace_writer_buffer_put(p->writer, ts->buf);
        free(ts);
        return NULL;
    }
    pthread_mutex_lock(&p->threads_lock);
    ts->next = p->threads;
    p->threads = ts;
    pthread_mutex_unlock(&p->threads_lock);
    return ts;
}

void thread_state_free_all(profiler *p)
{
    thread_state *ts, *next;

    pthread_mutex_lock(&p->threads_lock);
    for (ts = p->threads; ts; ts = next) {
        next = ts->next;
        thread_state_free(ts);
    }
    p->threads = NULL;
    pthread_mutex_unlock(&p->threads_lock);
}

/* The kernel's name of an OS thread of this process ("" if unknown). */
void thread_kernel_name(uint32_t os_tid, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;

    buf[0] = '\0';
    if (os_tid == cp_gettid()) {
        char name[17] = "";
        if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0)
            snprintf(buf, cap, "%s", name);
        return;
    }
    snprintf(path, sizeof(path), "/proc/self/task/%u/comm", (unsigned)os_tid);
    if ((n = cp_read_small(path, buf, cap)) <= 0)
        n = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
        n--;
    buf[n] = '\0';
}

int emit_begin_catchup(profiler *p, emit *e, int kind)
{
    if (!emit_begin(p, e, kind))
        return 0;
    trace_rec_flags(&e->r, TRACE_REC_CATCHUP);
    return 1;
}

int emit_begin(profiler *p, emit *e, int kind)
{
    return emit_begin_at(p, e, kind, 0);
}

int emit_begin_at(profiler *p, emit *e, int kind, uint64_t t)
{
    uint8_t *buf;

    if (!atomic_load_explicit(&p->recording, memory_order_relaxed))
        return 0;
    e->ts = thread_state_get(p);
    if (!e->ts)
        return 0;
    buf = trace_buffer_begin(e->ts->buf);
    if (!buf)
        return 0;
    trace_rec_begin(&e->r, buf, TRACE_MAX_RECORD, kind, e->ts->tid, t ? t : cp_monotonic_ns());
    return 1;
}

void emit_end(emit *e)
{
    trace_buffer_end(e->ts->buf, trace_rec_finish(&e->r));
}

void emit_id(profiler *p, int kind, uint64_t id)
{
    rec_any v;
    emit e;

    switch (kind) {
    case TK_APPDOMAIN_SHUTDOWN: v.appdomain_shutdown = (rec_appdomain_shutdown){ .id = id }; break;
    case TK_ASSEMBLY_UNLOAD: v.assembly_unload = (rec_assembly_unload){ .id = id }; break;
    case TK_MODULE_UNLOAD: v.module_unload = (rec_module_unload){ .id = id }; break;
    case TK_CLASS_UNLOAD: v.class_unload = (rec_class_unload){ .id = id }; break;
    case TK_THREAD_CREATE: v.thread_create = (rec_thread_create){ .thread = id }; break;
    case TK_THREAD_DESTROY: v.thread_destroy = (rec_thread_destroy){ .thread = id }; break;
    default: return;
    }
    if (emit_begin(p, &e, kind)) {
        rec_put(&e.r, kind, &v);
        emit_end(&e);
    }
}

void profiler_note(profiler *p, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    emit e;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (emit_begin(p, &e, TK_NOTE)) {
        rec_note_put(&e.r, &(rec_note){ .text = text });
        emit_end(&e);
    }
}
