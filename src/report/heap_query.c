/* heap_query.c - `report --why TYPE` and the heap diff, in text and jsonl
 * (heap_query.h). */
#include "report/heap_query.h"
#include "common/escape.h"
#include "report/heap_diff.h"
#include "report/heap_model.h"
#include "report/heap_paths.h"
#include "report/json.h"
#include "report/views.h"
#include "trace/format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WHY_PATHS 10
#define DIFF_ROWS 20

static void fmt_delta(char *buf, size_t len, uint64_t before, uint64_t after)
{
    char b[24];
    rp_format_bytes(after >= before ? after - before : before - after, b, sizeof(b));
    snprintf(buf, len, "%s%s", after > before ? "+" : after < before ? "-" : "", b);
}

static int64_t delta(uint64_t before, uint64_t after) { return (int64_t)(after - before); }

static int no_snapshot(const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s has no heap snapshot: take one with 'clrprobe heap PID', or record with --heap-every S",
             path);
    return -1;
}

int rp_heap_why_check(const rp_trace *tr, const char *type, char *err, size_t errlen)
{
    rp_heap h;
    rp_heap_snapshot *s;
    uint32_t t;
    int rc = -1;

    if (rp_heap_build(tr, &h) < 0) {
        snprintf(err, errlen, "out of memory reading the heap snapshots");
        return -1;
    }
    if ((s = rp_heap_pick(&h)) == NULL)
        no_snapshot("the trace", err, errlen);
    else if (rp_heap_analyse(&h, s) < 0)
        snprintf(err, errlen, "out of memory analysing heap snapshot %u", s->index);
    else
        rc = rp_heap_resolve_type(&h, s, type, &t, err, errlen);
    rp_heap_free(&h);
    return rc;
}

int rp_heap_diff_check(const rp_trace *tr, const char *path, char *err, size_t errlen)
{
    rp_heap h;
    int rc;

    if (rp_heap_build(tr, &h) < 0) {
        snprintf(err, errlen, "out of memory reading the heap snapshots of %s", path);
        return -1;
    }
    rc = h.nsnap ? 0 : no_snapshot(path, err, errlen);
    rp_heap_free(&h);
    return rc;
}

int rp_write_heap_why(const rp_trace *tr, const char *type, int jsonl, FILE *out)
{
    rp_heap h;
    rp_heap_snapshot *s;
    rp_heap_path *paths = NULL;
    size_t np = 0;
    uint32_t t;
    char err[512];
    int rc = -1;

    if (rp_heap_build(tr, &h) < 0)
        return -1;
    if ((s = rp_heap_pick(&h)) == NULL || rp_heap_analyse(&h, s) < 0 || rp_heap_resolve_type(&h, s, type, &t, err,
                                                                                     sizeof(err)) < 0 ||
        rp_heap_paths(&h, s, t, &paths, &np) < 0)
        goto out;
    if (jsonl) {
        for (size_t i = 0; i < np; i++) {
            json_obj o;
            json_begin(&o, out);
            json_str(&o, "kind", "heap_root_path");
            json_u64(&o, "snapshot", s->index);
            json_str(&o, "type", rp_heap_type_name(&h, t));
            json_u64(&o, "instances", paths[i].instances);
            json_u64(&o, "retained_bytes", paths[i].retained);
            json_str(&o, "root", paths[i].root);
            json_bool(&o, "truncated", paths[i].truncated);
            fputs(",\"path\":[", out);
            for (size_t k = 0; k < paths[i].ntypes; k++) {
                if (k)
                    fputc(',', out);
                json_string(out, rp_heap_type_name(&h, paths[i].types[k]));
            }
            fputs("],\"fields\":[", out);
            for (size_t k = 0; k < paths[i].ntypes; k++) {
                if (k)
                    fputc(',', out);
                if (paths[i].fields[k])
                    json_string(out, paths[i].fields[k]);
                else
                    fputs("null", out);
            }
            fputc(']', out);
            json_end(&o);
        }
    } else {
        uint64_t count = 0, retained = 0;
        char b[32];
        for (size_t i = 0; i < np; i++) {
            count += paths[i].instances;
            retained += paths[i].retained;
        }
        rp_format_bytes(retained, b, sizeof(b));
        fputs("\nWhy ", out);
        esc_puts(out, rp_heap_type_name(&h, t));
        fprintf(out, " is alive (snapshot %u: %" PRIu64 " instance%s, %s retained; the shortest path from a GC root "
                "to each, a line per hop: the type, and the field that holds the next):\n", s->index, count, count == 1 ? "" : "s", b);
        if (rp_heap_partial(s))
            fprintf(out, "  (snapshot %u is incomplete: the paths go through what it recorded, and an instance without "
                    "a recorded root may be held by what is missing)\n", s->index);
        for (size_t i = 0; i < np && i < WHY_PATHS; i++) {
            rp_format_bytes(paths[i].retained, b, sizeof(b));
            fprintf(out, "  %" PRIu64 " instance%s (%s retained) by this path:\n    ", paths[i].instances,
                    paths[i].instances == 1 ? "" : "s", b);
            esc_puts(out, paths[i].root);
            fputc('\n', out);
            if (paths[i].truncated)
                fprintf(out, "    -> ... (a longer path: the %zu hops nearest the object follow)\n", paths[i].ntypes);
            for (size_t k = 0; k < paths[i].ntypes; k++) {
                fputs("    -> ", out);
                esc_puts(out, rp_heap_type_name(&h, paths[i].types[k]));
                if (paths[i].fields[k]) {
                    fputc('.', out);
                    esc_puts(out, paths[i].fields[k]);
                }
                fputc('\n', out);
            }
        }
        if (np > WHY_PATHS)
            fprintf(out, "  ... and %zu other paths (all of them in jsonl)\n", np - WHY_PATHS);
    }
    rc = ferror(out) ? -1 : 0;
out:
    rp_heap_paths_free(paths, np);
    rp_heap_free(&h);
    return rc;
}

int rp_write_heap_diff(const rp_trace *old, const rp_trace *tr, int jsonl, FILE *out)
{
    rp_heap ha, hb;
    rp_heap_snapshot *a = NULL, *b = NULL;
    rp_heap_diff d;
    int rc = -1, same = old == NULL;

    memset(&d, 0, sizeof(d));
    if (same) {                               /* (fewer than two snapshots: nothing to build) */
        size_t begins = 0;
        for (size_t i = 0; i < tr->nev && begins < 2; i++)
            begins += tr->ev[i].kind == TK_HEAP_BEGIN;
        if (begins < 2)
            return 0;
    }
    if (rp_heap_build(tr, &hb) < 0)
        return -1;
    if (same) {
        ha = hb;
        if (hb.nsnap < 2) {
            rp_heap_free(&hb);
            return 0;                         /* (nothing to compare) */
        }
        a = &hb.snap[0];
        b = rp_heap_pick(&hb);
        if (b == a) {
            rp_heap_free(&hb);
            return 0;
        }
    } else {
        if (rp_heap_build(old, &ha) < 0) {
            rp_heap_free(&hb);
            return -1;
        }
        a = rp_heap_pick(&ha);
        b = rp_heap_pick(&hb);
    }
    if (!a || !b || rp_heap_analyse(&ha, a) < 0 || rp_heap_analyse(&hb, b) < 0 ||
        rp_heap_diff_build(&ha, a, &hb, b, same, &d) < 0)
        goto out;
    if (jsonl) {
        for (size_t i = 0; i < d.nrows; i++) {
            const rp_heap_diff_row *r = &d.rows[i];
            char num[32];
            json_obj o;
            if (r->count[0] == r->count[1] && r->shallow[0] == r->shallow[1] && r->retained[0] == r->retained[1])
                continue;
            json_begin(&o, out);
            json_str(&o, "kind", "heap_diff");
            json_u64(&o, "from_snapshot", a->index);
            json_u64(&o, "to_snapshot", b->index);
            json_str(&o, "type", r->type);
            json_u64(&o, "count_before", r->count[0]);
            json_u64(&o, "count_after", r->count[1]);
            snprintf(num, sizeof(num), "%" PRId64, delta(r->count[0], r->count[1]));
            json_raw(&o, "count_change", num);
            snprintf(num, sizeof(num), "%" PRId64, delta(r->shallow[0], r->shallow[1]));
            json_raw(&o, "shallow_bytes_change", num);
            snprintf(num, sizeof(num), "%" PRId64, delta(r->retained[0], r->retained[1]));
            json_raw(&o, "retained_bytes_change", num);
            if (d.identity)
                json_u64(&o, "new_objects", r->fresh);
            json_end(&o);
        }
    } else {
        size_t shown = 0;
        fprintf(out, "\nHeap growth (snapshot %u", a->index);
        if (!same)
            fputs(" of the older trace", out);
        fprintf(out, " to snapshot %u", b->index);
        if (d.t_between_ns)
            fprintf(out, ", %.1f s later", (double)d.t_between_ns / 1e9);
        fprintf(out, "), by growth of retained size:\n");
        if (rp_heap_partial(a) || rp_heap_partial(b))
            fprintf(out, "  (snapshot %u%s is incomplete: the changes count what it recorded, not the whole heap)\n",
                    rp_heap_partial(a) ? a->index : b->index, rp_heap_partial(a) && !same ? " of the older trace" : "");
        fprintf(out, "    %10s %12s %12s%s  type\n", "count", "shallow", "retained", d.identity ? "        new" : "");
        for (size_t i = 0; i < d.nrows && shown < DIFF_ROWS; i++) {
            const rp_heap_diff_row *r = &d.rows[i];
            char sh[32], re[32], cnt[32];
            if (r->retained[1] <= r->retained[0] && r->shallow[1] <= r->shallow[0] && r->count[1] <= r->count[0])
                continue;                     /* (growth only) */
            snprintf(cnt, sizeof(cnt), "%+" PRId64, delta(r->count[0], r->count[1]));
            fmt_delta(sh, sizeof(sh), r->shallow[0], r->shallow[1]);
            fmt_delta(re, sizeof(re), r->retained[0], r->retained[1]);
            fprintf(out, "    %10s %12s %12s", cnt, sh, re);
            if (d.identity)
                fprintf(out, " %10" PRIu64, r->fresh);
            fputs("  ", out);
            esc_puts(out, r->type);
            fputc('\n', out);
            shown++;
        }
        if (!shown)
            fputs("    (no type grew)\n", out);
        if (d.identity)
            fputs("  new: objects allocated after the earlier snapshot and still alive at the later one\n", out);
    }
    rc = ferror(out) ? -1 : 0;
out:
    rp_heap_diff_free(&d);
    if (!same)
        rp_heap_free(&ha);
    rp_heap_free(&hb);
    return rc;
}
