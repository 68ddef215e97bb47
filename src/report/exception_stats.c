/* exception_stats.c - the exceptions of a trace by type and throw site
 * (exception_stats.h). */
#include "report/exception_stats.h"
#include "common/idmap.h"
#include "report/sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct builder {
    rp_exc_stats *s;
    size_t cap;
    idmap names;                   /* FunctionID -> the event naming it (the names in force) */
    idmap pending;                 /* exception id -> index of its exception_thrown + 1 */
} builder;

static const char *fname(const rp_trace *tr, const builder *b, uint64_t fid)
{
    uint64_t v, id;
    if (!fid || !idmap_get(&b->names, fid, &v))
        return "";
    return rp_function_name(&tr->ev[v], &id);
}

static rp_exc_row *row_of(builder *b, const char *type, const char *site)
{
    rp_exc_stats *s = b->s;

    for (size_t i = 0; i < s->nrows; i++)
        if (strcmp(s->rows[i].type, type) == 0 && strcmp(s->rows[i].site, site) == 0)
            return &s->rows[i];
    if (s->nrows == b->cap) {
        size_t c = b->cap ? b->cap * 2 : 16;
        rp_exc_row *n = realloc(s->rows, c * sizeof(*n));
        if (!n)
            return NULL;
        s->rows = n;
        b->cap = c;
    }
    s->rows[s->nrows] = (rp_exc_row){ .type = type, .site = site, .message = "", .catcher = "" };
    return &s->rows[s->nrows++];
}

/* One exception counted in its row. */
static int count(builder *b, const rec_exception_thrown *x, const char *site, const char *catcher, int handled,
                 uint64_t ns, int ended)
{
    rp_exc_row *r = row_of(b, x->type, site);

    if (!r)
        return -1;
    r->count++;
    if (!r->message[0] && x->message[0])
        r->message = x->message;
    if (ended) {
        r->handling_ns += ns;
        b->s->handling_ns += ns;
        if (handled)
            r->handled++;
        else
            r->not_caught++;
    }
    if (catcher[0])
        r->catcher = catcher;
    return 0;
}

static int by_count(const void *x, const void *y)
{
    const rp_exc_row *a = x, *b = y;
    if (a->count != b->count)
        return a->count < b->count ? 1 : -1;
    if (a->handling_ns != b->handling_ns)
        return a->handling_ns < b->handling_ns ? 1 : -1;
    int c = strcmp(a->type, b->type);
    return c ? c : strcmp(a->site, b->site);
}

int rp_exc_stats_build(const rp_trace *tr, rp_exc_stats *s)
{
    builder b = { .s = s };
    size_t ucap = 0;
    int rc = -1;

    memset(s, 0, sizeof(*s));
    idmap_init(&b.names);
    idmap_init(&b.pending);
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        uint64_t fid, v;

        switch (e->kind) {
        case TK_FUNC_NAME:
        case TK_JIT:
        case TK_PRECOMPILED:
            if (rp_function_name(e, &fid)[0] && idmap_put(&b.names, fid, i) < 0)
                goto out;
            break;
        case TK_EXCEPTION_THROWN: {
            const rec_exception_thrown *x = &e->exception_thrown;
            s->thrown++;
            if (!x->exception) {               /* an earlier agent's: the type only */
                if (count(&b, x, "", "", 0, 0, 0) < 0)
                    goto out;
                break;
            }
            s->followed = 1;
            s->nested += x->depth > 1;
            s->rethrows += x->rethrow_of != 0;
            if (idmap_put(&b.pending, x->exception, i + 1) < 0)
                goto out;
            break;
        }
        case TK_EXCEPTION_HANDLED:
        case TK_EXCEPTION_UNHANDLED: {
            int handled = e->kind == TK_EXCEPTION_HANDLED;
            uint64_t id = handled ? e->exception_handled.exception : e->exception_unhandled.exception;
            uint64_t thrower = handled ? e->exception_handled.thrower : e->exception_unhandled.thrower;
            uint64_t ns = handled ? e->exception_handled.duration_ns : e->exception_unhandled.duration_ns;
            const rp_event *te;

            if (!idmap_get(&b.pending, id, &v) || !v)
                break;                          /* (thrown before the recording began) */
            te = &tr->ev[v - 1];
            idmap_put(&b.pending, id, 0);
            if (handled) {
                s->handled++;
            } else {
                uint32_t o = e->exception_unhandled.outcome;
                s->outcomes[o < 5 ? o : 0]++;
                if (o == EXC_OUTCOME_UNHANDLED) {
                    if (s->nunhandled == ucap) {
                        size_t c = ucap ? ucap * 2 : 4;
                        const rp_event **n = realloc(s->unhandled, c * sizeof(*n));
                        if (!n)
                            goto out;
                        s->unhandled = n;
                        ucap = c;
                    }
                    s->unhandled[s->nunhandled++] = te;
                }
            }
            if (count(&b, &te->exception_thrown, fname(tr, &b, thrower),
                      handled ? fname(tr, &b, e->exception_handled.catcher) : "", handled, ns, 1) < 0)
                goto out;
            break;
        }
        default:
            break;
        }
    }
    /* the ones still open when the trace ends: their stack's leaf */
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        uint64_t v;
        if (e->kind != TK_EXCEPTION_THROWN || !e->exception_thrown.exception ||
            !idmap_get(&b.pending, e->exception_thrown.exception, &v) || v != i + 1)
            continue;
        s->open++;
        if (count(&b, &e->exception_thrown,
                  e->exception_thrown.nstack ? fname(tr, &b, e->exception_thrown.stack[0]) : "", "", 0, 0, 0) < 0)
            goto out;
    }
    if (s->nrows)
        rp_sort(s->rows, s->nrows, sizeof(*s->rows), by_count);
    rc = 0;
out:
    idmap_free(&b.names);
    idmap_free(&b.pending);
    if (rc < 0)
        rp_exc_stats_free(s);
    return rc;
}

void rp_exc_stats_free(rp_exc_stats *s)
{
    free(s->rows);
    free(s->unhandled);
    memset(s, 0, sizeof(*s));
}
