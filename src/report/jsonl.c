/* jsonl.c - `report --format jsonl`: one JSON object per line, the first
 * describing the trace, then one per event in time order.  The schema is in
 * docs/jsonl.md. */
#include "report/report.h"
#include "report/idmap.h"
#include "report/json.h"
#include "trace/format.h"

#include <stdio.h>

const char *rp_suspend_reason(uint32_t reason)
{
    switch (reason) {
    case 0: return "other";
    case 1: return "gc";
    case 2: return "appdomain_shutdown";
    case 3: return "code_pitching";
    case 4: return "shutdown";
    case 6: return "inproc_debugger";
    case 7: return "gc_prep";
    case 8: return "rejit";
    case 9: return "profiler";
    default: return "unknown";
    }
}

/* "[0,1,2]" for a generation mask. */
static void gens_json(uint32_t mask, char *buf, size_t len)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, len, "[");
    for (int g = 0; g < 5; g++)
        if (mask & (1u << g))
            used += (size_t)snprintf(buf + used, len - used, "%s%d", used > 1 ? "," : "", g);
    snprintf(buf + used, len - used, "]");
}

static void thread_fields(json_obj *o, const rp_trace *tr, const rp_event *e)
{
    json_hex(o, "thread", e->id);
    if (e->thread >= 0) {
        const rp_thread *th = &tr->threads[e->thread];
        json_u64(o, "os_tid", th->os_tid);
        json_str(o, "name", th->name);
        json_str(o, "os_name", th->os_name);
    }
}

int rp_write_jsonl(const rp_trace *tr, FILE *out)
{
    idmap fnames;                 /* FunctionID -> index of the record naming it */
    json_obj o;
    char gens[32];
    uint64_t gc_start_t = 0;
    int in_gc = 0;

    json_begin(&o, out);
    json_str(&o, "kind", "trace");
    json_u64(&o, "t", 0);
    json_u64(&o, "tid", 0);
    json_u64(&o, "format_version", tr->file.version);
    json_u64(&o, "pid", tr->file.pid);
    json_str(&o, "runtime_version", tr->file.runtime_version);
    json_str(&o, "command_line", tr->file.command_line);
    json_u64(&o, "start_unix_ns", tr->file.start_realtime_ns);
    json_bool(&o, "attached", (tr->file.flags & TRACE_FLAG_ATTACHED) != 0);
    json_bool(&o, "complete", tr->complete);
    json_u64(&o, "corrupt_chunks", tr->scan.corrupt_chunks);
    json_u64(&o, "malformed_records", tr->bad_records);
    json_bool(&o, "truncated", tr->scan.truncated || !tr->complete);
    json_u64(&o, "events", tr->nev);
    json_end(&o);
    idmap_init(&fnames);

    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if ((e->kind == TK_THREAD_OS && e->thread < 0) || e->dropped)
            continue;
        json_begin(&o, out);
        json_str(&o, "kind", rp_kind_name(e->kind));
        json_u64(&o, "t", e->t);
        json_u64(&o, "tid", e->tid);
        if (e->catchup)
            json_bool(&o, "catchup", 1);
        switch (e->kind) {
        case TK_RUNTIME_START:
            json_str(&o, "version", e->s1);
            json_str(&o, "runtime", e->u2 == 2 ? "CoreCLR" : e->u2 == 1 ? "Desktop CLR" : "unknown");
            json_u64(&o, "instance", e->u1);
            break;
        case TK_APPDOMAIN_CREATE:
            json_hex(&o, "id", e->id);
            json_str(&o, "name", e->s1);
            break;
        case TK_APPDOMAIN_SHUTDOWN:
            json_hex(&o, "id", e->id);
            break;
        case TK_ASSEMBLY_LOAD:
        case TK_ASSEMBLY_UNLOAD:
            json_hex(&o, "id", e->id);
            json_str(&o, "name", e->s1);
            json_str(&o, "version", e->s2);
            if (e->kind == TK_ASSEMBLY_LOAD) {
                json_hex(&o, "module", e->id2);
                json_hex(&o, "appdomain", e->id3);
            }
            break;
        case TK_MODULE_LOAD:
        case TK_MODULE_UNLOAD:
            json_hex(&o, "id", e->id);
            json_str(&o, "path", e->s1);
            json_bool(&o, "dynamic", (e->u1 & 0x4) != 0);
            json_bool(&o, "collectible", (e->u1 & 0x8) != 0);
            if (e->kind == TK_MODULE_LOAD) {
                json_hex(&o, "assembly", e->id2);
                json_u64(&o, "flags", e->u1);
                if (e->u2)
                    json_hex(&o, "hr", e->u2);
            }
            break;
        case TK_CLASS_LOAD:
        case TK_CLASS_UNLOAD:
            json_hex(&o, "id", e->id);
            json_str(&o, "name", e->s1);
            if (e->kind == TK_CLASS_LOAD) {
                json_hex(&o, "module_id", e->id2);
                json_str(&o, "module", e->s2);
            }
            break;
        case TK_JIT:
            json_str(&o, "function", e->s1);
            json_str(&o, "module", e->s2);
            json_u64(&o, "duration_ns", e->duration_ns);
            json_hex(&o, "id", e->id);
            json_hex(&o, "module_id", e->id2);
            if (e->u2)
                json_hex(&o, "hr", e->u2);
            break;
        case TK_PRECOMPILED:
            json_str(&o, "function", e->s1);
            json_str(&o, "module", e->s2);
            json_hex(&o, "id", e->id);
            json_hex(&o, "module_id", e->id2);
            break;
        case TK_THREAD_CREATE:
        case TK_THREAD_DESTROY:
        case TK_THREAD_OS:
            thread_fields(&o, tr, e);
            break;
        case TK_THREAD_NAME:               /* the name given at this point */
            json_hex(&o, "thread", e->id);
            if (e->thread >= 0)
                json_u64(&o, "os_tid", tr->threads[e->thread].os_tid);
            json_str(&o, "name", e->s1);
            break;
        case TK_GC_START:
            gens_json(e->u1, gens, sizeof(gens));
            json_raw(&o, "generations", gens);
            json_str(&o, "reason", e->u2 == 1 ? "induced" : "other");
            in_gc = 1;
            gc_start_t = e->t;
            break;
        case TK_GC_END:
            if (in_gc)
                json_u64(&o, "duration_ns", e->t - gc_start_t);
            in_gc = 0;
            break;
        case TK_SUSPEND:
            json_str(&o, "reason", rp_suspend_reason(e->u1));
            json_u64(&o, "duration_ns", e->duration_ns);
            break;
        case TK_EXCEPTION_THROWN:
            json_str(&o, "type", e->s1);
            break;
        case TK_EXCEPTION_CATCH:
            json_str(&o, "type", e->s1);
            json_str(&o, "function", e->s2);
            break;
        case TK_NOTE:
            json_str(&o, "text", e->s1);
            break;
        case TK_FUNC_NAME:
            json_hex(&o, "id", e->id);
            json_hex(&o, "module_id", e->id2);
            json_str(&o, "name", e->s1);
            break;
        case TK_SAMPLE: {
            uint64_t v;
            json_hex(&o, "thread", e->id);
            json_u64(&o, "os_tid", e->u1);
            json_u64(&o, "cpu_ns", e->duration_ns);
            fputs(",\"frames\":[", out);
            for (uint32_t k = 0; k < e->nframes; k++) {
                if (k)
                    putc(',', out);
                if (e->frames[k] == 0)
                    json_string(out, "[native code]");
                else if (idmap_get(&fnames, e->frames[k], &v))
                    json_string(out, tr->ev[v].s1);
                else
                    json_string(out, "[unknown]");
            }
            putc(']', out);
            break;
        }
        case TK_SAMPLER_TICK:
            json_u64(&o, "suspend_ns", e->duration_ns);
            json_u64(&o, "sampler_cpu_ns", e->id);
            json_u64(&o, "threads", e->u1);
            json_u64(&o, "failed", e->u2);
            if (e->id2)
                json_u64(&o, "period_ns", e->id2);
            break;
        case TK_ATTACH:
            json_u64(&o, "modules", e->id);
            json_u64(&o, "assemblies", e->id2);
            json_u64(&o, "threads", e->id3);
            json_u64(&o, "functions", e->u1);
            json_u64(&o, "duration_ns", e->duration_ns);
            break;
        default:
            break;
        }
        json_end(&o);
        if ((e->kind == TK_FUNC_NAME || e->kind == TK_JIT || e->kind == TK_PRECOMPILED) && e->s1[0])
            idmap_put(&fnames, e->id, i);
    }
    idmap_free(&fnames);
    return ferror(out) ? -1 : 0;
}
