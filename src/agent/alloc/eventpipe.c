/* eventpipe.c - the EventPipe service and its callback (eventpipe.h). */
#include "agent/core/service.h"
#include "agent/alloc/eventpipe.h"
#include "agent/alloc/ep_events.h"
#include "agent/alloc/live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const WCHAR runtime_provider[] = { 'M', 'i', 'c', 'r', 'o', 's', 'o', 'f', 't', '-', 'W', 'i', 'n', 'd', 'o',
    'w', 's', '-', 'D', 'o', 't', 'N', 'E', 'T', 'R', 'u', 'n', 't', 'i', 'm', 'e', 0 };

static int runtime_major(const profiler *p)
{
    return atoi(p->runtime_version);
}

int eventpipe_start(profiler *p)
{
    eventpipe_state *s = p->eventpipe;
    uint32_t want = p->cfg.collect & CP_COLLECT_EVENTPIPE;
    COR_PRF_EVENTPIPE_PROVIDER_CONFIG cfg = { runtime_provider, 0, 4, NULL };
    HRESULT hr;

    if (s->started || !want)
        return 0;
    if (!INFO_HAS(p, EventPipeStartSession)) {
        profiler_note(p, "allocations and contention need ICorProfilerInfo12 (.NET 5 or later): not recorded");
        return 0;
    }
    if (!s->ipf_ok) {
        if (ip_functions_init(&s->ipf) < 0)
            return -1;
        s->ipf_ok = 1;
    }
    if (want & (CP_COLLECT_ALLOC | CP_COLLECT_LIVE)) {
        if (runtime_major(p) >= 10) {
            cfg.keywords |= EP_KEYWORD_ALLOCATION_SAMPLING;
            s->alloc_method = ALLOC_METHOD_SAMPLED;
            s->follow = (want & CP_COLLECT_LIVE) != 0;
        } else {
            cfg.keywords |= EP_KEYWORD_GC;   /* AllocationTick: verbose */
            cfg.loggingLevel = 5;
            s->alloc_method = ALLOC_METHOD_TICK;
            s->follow = 0;                   /* its object is not initialized yet when it fires */
            profiler_note(p, "allocations: runtime %s has no randomized allocation sampling (.NET 10): "
                             "AllocationTick every ~100 KB, not upscaled%s", p->runtime_version,
                          want & CP_COLLECT_LIVE ? "; live objects need .NET 10 and are not recorded" : "");
        }
    }
    if (want & CP_COLLECT_CONTENTION)
        cfg.keywords |= EP_KEYWORD_CONTENTION;

    atomic_store(&s->active, 1);
    hr = INFO(p)->EventPipeStartSession(p->info, 1, &cfg, FALSE, &s->session);
    if (FAILED(hr)) {
        atomic_store(&s->active, 0);
        profiler_note(p, "allocations and contention: the runtime refused an EventPipe session (HRESULT 0x%08x)",
                      (unsigned)hr);
        return 0;
    }
    s->started = 1;
    return 0;
}

void eventpipe_stop(profiler *p)
{
    eventpipe_state *s = p->eventpipe;
    struct timespec ms = { 0, 1000000 };

    if (!s->started)
        return;
    atomic_store(&s->active, 0);
    INFO(p)->EventPipeStopSession(p->info, s->session);
    s->started = 0;
    /* A callback that began before the flag fell may still run: the
     * services it uses (live) stop after this one, so wait for it. */
    for (int i = 0; i < 2000 && atomic_load(&s->in_flight) > 0; i++)
        nanosleep(&ms, NULL);
}

void eventpipe_free(profiler *p)
{
    eventpipe_state *s = p->eventpipe;
    if (s->ipf_ok)
        ip_functions_free(&s->ipf);
    s->ipf_ok = 0;
}

/* The calling thread's state for events, made at its first; its caches
 * emptied when a module or class has unloaded since they were filled. */
static ep_thread *ep_thread_get(profiler *p, thread_state **tsp)
{
    thread_state *ts = thread_state_get(p);
    ep_thread *et;
    uint64_t u;

    *tsp = ts;
    if (!ts)
        return NULL;
    et = ts->service[SERVICE_eventpipe];
    if (!et && !(et = ts->service[SERVICE_eventpipe] = calloc(1, sizeof(*et))))
        return NULL;
    u = ip_functions_unloads(p);
    if (et->unloads != u) {
        memset(et->types, 0, sizeof(et->types));
        et->nnamed = 0;
        et->unloads = u;
    }
    return et;
}

/* The type's name: the name cache's, else the event's own; the thread's
 * last few are remembered (an allocation loop names its type once). */
static const char *type_name(profiler *p, ep_thread *et, uint64_t class_id, const uint8_t *utf16, size_t units)
{
    size_t slot = (size_t)((class_id >> 3) % EP_TYPE_CACHE);
    char *buf = et->types[slot].name;
    size_t cap = sizeof(et->types[slot].name);

    if (class_id && et->types[slot].class_id == class_id)
        return buf;
    buf[0] = '\0';
    if (class_id)
        names_class(p->names, (ClassID)class_id, buf, cap, NULL);
    if ((!buf[0] || strcmp(buf, "?") == 0) && utf16 && units) {
        uint16_t w[512];
        size_t n = units < 512 ? units : 512;
        for (size_t i = 0; i < n; i++)
            w[i] = (uint16_t)(utf16[2 * i] | (utf16[2 * i + 1] << 8));
        names_utf16_to_utf8(w, n, buf, cap);
    }
    if (!buf[0])
        snprintf(buf, cap, "?");
    et->types[slot].class_id = class_id;
    return buf;
}

static size_t frame_count(ULONG num, size_t max)
{
    /* The runtime passes the stack's size in bytes (ep_stack_contents_get_size). */
    size_t n = num / sizeof(UINT_PTR);
    return n > max ? max : n;
}

/* The stack of the event into frames, its functions named, their IL
 * offsets into il; returns its depth. */
static size_t event_stack(profiler *p, eventpipe_state *s, ep_thread *et, ULONG nips, const UINT_PTR *ips,
                          uint64_t *frames, uint32_t *il, uint64_t t)
{
    size_t n;

    if (ips && nips) {
        n = frame_count(nips, EP_MAX_FRAMES);
        n = ip_functions_resolve(p, &s->ipf, ips, n, frames, t);
        ip_functions_il(p, frames, ips, n, il);
        return n;
    }
    /* A profiler's synchronous session gets no stacks from the runtime of
     * .NET 10 (it walks the stack only for sessions that buffer events):
     * the thread's own, then. */
    n = ip_functions_walk_own(p, frames, et->ips, EP_MAX_FRAMES);
    if (n != et->nnamed || memcmp(frames, et->named, n * sizeof(*frames)) != 0) {
        ip_functions_name(p, &s->ipf, frames, n, t);
        memcpy(et->named, frames, n * sizeof(*frames));
        et->nnamed = (uint16_t)n;
    }
    ip_functions_il(p, frames, et->ips, n, il);
    return n;
}

static void on_alloc(profiler *p, eventpipe_state *s, ThreadID thread, const ep_alloc *a, ULONG nips,
                     const UINT_PTR *ips)
{
    uint64_t frames[EP_MAX_FRAMES];
    uint64_t t = cp_monotonic_ns(), id = 0;
    thread_state *ts;
    ep_thread *et = ep_thread_get(p, &ts);
    const char *type;
    size_t n;
    emit e;

    if (!et)
        return;
    n = event_stack(p, s, et, nips, ips, frames, et->il, t);
    type = type_name(p, et, a->class_id, a->type_utf16, a->type_len);
    if (s->follow)
        id = live_follow(p, (ObjectID)a->address);
    if (emit_begin_at(p, &e, TK_ALLOC_SAMPLE, t)) {
        rec_alloc_sample_put(&e.r, &(rec_alloc_sample){ .thread = thread, .os_tid = ts->tid,
                                                        .method = s->alloc_method, .class_id = a->class_id,
                                                        .size = a->size, .count = 1, .amount = a->amount,
                                                        .id = id, .type = type, .nframes = (uint16_t)n,
                                                        .frames = frames, .nil = (uint16_t)n, .il = et->il });
        emit_end(&e);
    }
}

static void on_contention_start(profiler *p, eventpipe_state *s, const ep_contention_start *c, ULONG nips,
                                const UINT_PTR *ips)
{
    thread_state *ts;
    ep_thread *et = ep_thread_get(p, &ts);

    if (!et)
        return;
    et->wait.t0 = cp_monotonic_ns();
    et->wait.flags = c->flags;
    et->wait.lock_id = c->lock_id;
    et->wait.owner = c->owner_thread;
    et->wait.nframes = (uint16_t)event_stack(p, s, et, nips, ips, et->wait.frames, et->wait.il, et->wait.t0);
    et->wait.type[0] = '\0';
    if (c->object) {
        ClassID cls = 0;
        /* refused unless the object may be inspected (this thread in
         * cooperative mode): then the type stays unknown */
        if (SUCCEEDED(INFO(p)->GetClassFromObject(p->info, (ObjectID)c->object, &cls)) && cls)
            names_class(p->names, cls, et->wait.type, sizeof(et->wait.type), NULL);
    }
    et->wait.open = 1;
}

static void on_contention_stop(profiler *p, ThreadID thread, uint64_t duration_ns)
{
    thread_state *ts;
    ep_thread *et = ep_thread_get(p, &ts);
    emit e;

    if (!et || !et->wait.open)
        return;
    et->wait.open = 0;
    if (!duration_ns)
        duration_ns = cp_monotonic_ns() - et->wait.t0;
    if (emit_begin_at(p, &e, TK_CONTENTION, et->wait.t0)) {
        rec_contention_put(&e.r, &(rec_contention){ .thread = thread, .os_tid = ts->tid,
                                                    .duration_ns = duration_ns, .flags = et->wait.flags,
                                                    .lock_id = et->wait.lock_id, .owner_thread = et->wait.owner,
                                                    .type = et->wait.type, .nframes = et->wait.nframes,
                                                    .frames = et->wait.frames, .nil = et->wait.nframes,
                                                    .il = et->wait.il });
        emit_end(&e);
    }
}

static HRESULT cb_EventPipeEventDelivered(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider,
                                          DWORD eventId, DWORD eventVersion, ULONG cbMetadataBlob,
                                          LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData,
                                          LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread,
                                          ULONG numStackFrames, UINT_PTR *stackFrames)
{
    profiler *p = profiler_from(This);
    eventpipe_state *s = p->eventpipe;

    (void)provider;
    (void)cbMetadataBlob;
    (void)metadataBlob;
    (void)pActivityId;
    (void)pRelatedActivityId;
    atomic_fetch_add(&s->in_flight, 1);
    if (atomic_load(&s->active) && atomic_load_explicit(&p->recording, memory_order_relaxed) && eventData) {
        ep_alloc a;
        ep_contention_start c;
        uint64_t d;

        switch (eventId) {
        case EP_EVENT_ALLOCATION_SAMPLED:
            if (s->alloc_method == ALLOC_METHOD_SAMPLED &&
                ep_parse_allocation_sampled(eventData, cbEventData, &a) == 0)
                on_alloc(p, s, eventThread, &a, numStackFrames, stackFrames);
            break;
        case EP_EVENT_ALLOCATION_TICK:
            if (s->alloc_method == ALLOC_METHOD_TICK &&
                ep_parse_allocation_tick(eventData, cbEventData, eventVersion, &a) == 0)
                on_alloc(p, s, eventThread, &a, numStackFrames, stackFrames);
            break;
        case EP_EVENT_CONTENTION_START:
            if (ep_parse_contention_start(eventData, cbEventData, &c) == 0)
                on_contention_start(p, s, &c, numStackFrames, stackFrames);
            break;
        case EP_EVENT_CONTENTION_STOP:
            if (ep_parse_contention_stop(eventData, cbEventData, &d) == 0)
                on_contention_stop(p, eventThread, d);
            break;
        default:
            break;
        }
    }
    atomic_fetch_sub(&s->in_flight, 1);
    return S_OK;
}

/* ---- the service ---- */

static void eventpipe_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    if (cfg->collect & CP_COLLECT_EVENTPIPE) {
        *high |= COR_PRF_HIGH_MONITOR_EVENT_PIPE;
        *low |= COR_PRF_ENABLE_STACK_SNAPSHOT;   /* the events' stacks */
    }
}

static void eventpipe_callbacks(ICorProfilerCallbackVtbl *v)
{
    v->EventPipeEventDelivered = cb_EventPipeEventDelivered;
}

const agent_service eventpipe_service = {
    .name = "eventpipe",
    .state_size = sizeof(eventpipe_state),
    .event_mask = eventpipe_event_mask,
    .callbacks = eventpipe_callbacks,
    .when = AFTER_CATCHUP, .start = eventpipe_start, .stop = eventpipe_stop,
    .failed_note = "allocations and contention could not start (out of memory)",
    .stop_before_detach = 1,
    .release = eventpipe_free,
};
