/* exc_machine.c - the exception state machine of one thread (exc_machine.h). */
#include "agent/exceptions/exc_machine.h"

#include <string.h>

static exc_state *top_of(exc_thread *th)
{
    return th->n > 0 ? &th->ex[th->n - 1] : NULL;
}

static uint64_t when(const exc_sink *s, uint64_t t)
{
    return t || !s || !s->now ? t : s->now(s->ctx);
}

static void end(const exc_sink *s, exc_state *e, uint64_t t, int outcome, uint64_t by)
{
    if (e->closed)
        return;
    t = when(s, t);
    e->closed = 1;
    if (s && s->ended)
        s->ended(s->ctx, e, t, outcome, by);
}

static void handled(const exc_sink *s, exc_state *e, uint64_t t, uint64_t escaped_by)
{
    if (e->closed)
        return;
    t = when(s, t);
    e->closed = 1;
    if (s && s->handled)
        s->handled(s->ctx, e, t, escaped_by);
}

/* Pops the exceptions above index k, ending those still open with outcome:
 * they were thrown in a handler of ex[k] that is now over. */
static void pop_above(exc_thread *th, const exc_sink *s, int k, uint64_t t, int outcome)
{
    while (th->n > k + 1) {
        end(s, &th->ex[th->n - 1], t, outcome, 0);
        th->n--;
    }
}

/* The innermost exception whose handler of kind `in` runs (-1: none). */
static int innermost_in(const exc_thread *th, int in)
{
    for (int k = th->n - 1; k >= 0; k--)
        if (th->ex[k].in == in)
            return k;
    return -1;
}

exc_state *exc_current(exc_thread *th)
{
    return top_of(th);
}

exc_state *exc_thrown(exc_thread *th, const exc_sink *s, uint64_t id, uint64_t object, uint64_t t)
{
    exc_state *parent, *e;

    /* Exceptions none of whose handlers runs are over: this one is not
     * nested in them.  One still open left managed code without a catcher
     * and without our seeing it end (its second pass stopped at native code
     * that handled it, as the runtime does around a type initializer). */
    while ((parent = top_of(th)) != NULL && parent->in == EXC_IN_NONE) {
        end(s, parent, t, EXC_NATIVE, 0);
        th->n--;
    }
    if (th->n == EXC_MAX_DEPTH) {
        th->too_deep++;          /* nested deeper than we follow: forget the thread's stack */
        th->n = 0;
        parent = NULL;
    }
    e = &th->ex[th->n++];
    memset(e, 0, sizeof(*e));
    e->id = id;
    e->t0 = t;
    e->object = object;
    e->depth = (uint32_t)th->n;
    e->phase = EXC_PHASE_SEARCH;
    e->catcher_index = -1;
    for (int k = 0; k < EXC_MAX_DEPTH; k++)
        e->handler_index[k] = -1;
    if (parent) {
        e->parent = parent->id;
        if (parent->in == EXC_IN_CATCH && parent->object == object)
            e->rethrow_of = parent->id;
    }
    return e;
}

void exc_search_function_enter(exc_thread *th, uint64_t fid)
{
    exc_state *e = top_of(th);
    int32_t idx;

    if (!e || e->phase != EXC_PHASE_SEARCH)
        return;
    if (!e->search_frames)
        e->thrower = fid;
    idx = (int32_t)e->search_frames++;
    for (int k = 0; k < th->n - 1; k++)
        if (e->handler_index[k] < 0 && th->ex[k].in != EXC_IN_NONE && th->ex[k].handler_fn == fid)
            e->handler_index[k] = idx;
}

/* A filter (first pass) or finally (second pass) of the innermost
 * exception starts, in fid: that exception, or NULL when none is in that
 * pass. */
static exc_state *handler_enter(exc_thread *th, int phase, int in, uint64_t fid)
{
    exc_state *e = top_of(th);

    if (!e || e->phase != phase)
        return NULL;
    e->in = in;
    e->handler_fn = fid;
    return e;
}

/* The innermost filter or finally running ends: the exceptions thrown in
 * it and not caught there end with `outcome`. */
static void handler_leave(exc_thread *th, const exc_sink *s, uint64_t t, int in, int outcome)
{
    int k = innermost_in(th, in);

    if (k < 0)
        return;
    pop_above(th, s, k, t, outcome);
    th->ex[k].in = EXC_IN_NONE;
    th->ex[k].handler_fn = 0;
}

void exc_search_filter_enter(exc_thread *th, uint64_t fid)
{
    exc_state *e = handler_enter(th, EXC_PHASE_SEARCH, EXC_IN_FILTER, fid);
    if (e)
        e->filters++;
}

void exc_search_filter_leave(exc_thread *th, const exc_sink *s, uint64_t t)
{
    handler_leave(th, s, t, EXC_IN_FILTER, EXC_FILTER);      /* escaped the filter: it counts as false */
}

void exc_search_catcher_found(exc_thread *th, uint64_t fid)
{
    exc_state *e = top_of(th);

    if (!e || e->phase != EXC_PHASE_SEARCH)
        return;
    e->catcher_found = 1;
    e->catcher = fid;
    e->catcher_index = e->search_frames > 0 ? (int32_t)e->search_frames - 1 : 0;
}

int exc_unwind_function_enter(exc_thread *th, const exc_sink *s, uint64_t fid, uint64_t t)
{
    exc_state *e = top_of(th);
    int closed = 0;

    (void)fid;
    if (!e)
        return 0;
    if (e->phase == EXC_PHASE_SEARCH) {
        e->phase = EXC_PHASE_UNWIND;
        /* A second pass without a catcher.  In a filter the runtime will
         * drop it at the filter's end (exc_search_filter_leave). */
        if (!e->catcher_found && !e->closed && !(th->n > 1 && th->ex[th->n - 2].in == EXC_IN_FILTER)) {
            int unhandled = e->stack_depth > 0 && e->search_frames >= e->stack_depth;
            end(s, e, t, unhandled ? EXC_UNHANDLED : EXC_NATIVE, 0);
            if (unhandled)       /* the process ends: so do the ones it was nested in */
                for (int k = th->n - 2; k >= 0; k--)
                    end(s, &th->ex[k], t, EXC_SUPERSEDED, e->id);
            closed = 1;
        }
    }
    if (e->phase == EXC_PHASE_UNWIND)
        e->unwound_frames++;
    return closed;
}

void exc_unwind_finally_enter(exc_thread *th, uint64_t fid)
{
    exc_state *e = handler_enter(th, EXC_PHASE_UNWIND, EXC_IN_FINALLY, fid);
    if (e)
        e->finallys++;
}

void exc_unwind_finally_leave(exc_thread *th, const exc_sink *s, uint64_t t)
{
    handler_leave(th, s, t, EXC_IN_FINALLY, EXC_NATIVE);     /* (caught in it by no managed catch clause) */
}

void exc_catcher_enter(exc_thread *th, const exc_sink *s, uint64_t fid, uint32_t il, uint64_t t)
{
    exc_state *e = top_of(th), keep;
    int n = 0;

    if (!e)
        return;
    e->phase = EXC_PHASE_CATCH;
    e->in = EXC_IN_CATCH;
    e->handler_fn = fid;
    e->catcher = fid;
    e->catcher_il = il;
    e->catch_t = when(s, t);
    /* The exceptions it was nested in whose finally or catch it escaped
     * (its catcher lies past the handler's frame) never resume. */
    for (int k = th->n - 2; k >= 0; k--) {
        exc_state *below = &th->ex[k];
        if (below->in == EXC_IN_NONE || below->in == EXC_IN_FILTER || e->handler_index[k] < 0 ||
            e->catcher_index <= e->handler_index[k])
            continue;
        if (below->in == EXC_IN_CATCH)
            handled(s, below, t, e->id);
        else
            end(s, below, t, EXC_SUPERSEDED, e->id);
        below->in = EXC_IN_NONE;
    }
    /* keep the ones still running a handler, then this one */
    keep = *e;
    for (int k = 0; k < th->n - 1; k++)
        if (!th->ex[k].closed || th->ex[k].in != EXC_IN_NONE)
            th->ex[n++] = th->ex[k];
    for (int k = 0; k < EXC_MAX_DEPTH; k++)
        keep.handler_index[k] = -1;
    th->ex[n++] = keep;
    th->n = n;
}

void exc_catcher_leave(exc_thread *th, const exc_sink *s, uint64_t t)
{
    int k = innermost_in(th, EXC_IN_CATCH);

    if (k < 0)
        return;
    pop_above(th, s, k, t, EXC_NATIVE);
    handled(s, &th->ex[k], t, 0);
    th->n = k;
}

int exc_step(exc_thread *th, const exc_sink *s, int ev, uint64_t fid)
{
    switch (ev) {
    case EXC_EV_SEARCH_ENTER: exc_search_function_enter(th, fid); break;
    case EXC_EV_FILTER_ENTER: exc_search_filter_enter(th, fid); break;
    case EXC_EV_FILTER_LEAVE: exc_search_filter_leave(th, s, 0); break;
    case EXC_EV_CATCHER_FOUND: exc_search_catcher_found(th, fid); break;
    case EXC_EV_UNWIND_ENTER: return exc_unwind_function_enter(th, s, fid, 0);
    case EXC_EV_FINALLY_ENTER: exc_unwind_finally_enter(th, fid); break;
    case EXC_EV_FINALLY_LEAVE: exc_unwind_finally_leave(th, s, 0); break;
    case EXC_EV_CATCH_LEAVE: exc_catcher_leave(th, s, 0); break;
    default: break;
    }
    return 0;
}

const char *exc_outcome_name(int outcome)
{
    switch (outcome) {
    case EXC_UNHANDLED: return "unhandled";
    case EXC_NATIVE: return "native";
    case EXC_FILTER: return "filter";
    case EXC_SUPERSEDED: return "superseded";
    default: return "unknown";
    }
}
