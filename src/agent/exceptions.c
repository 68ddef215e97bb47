/* exceptions.c - the "exceptions" service (exceptions.h): the runtime's
 * exception callbacks through each thread's state machine (exc_machine.h)
 * into records; the message and the throw stack read in ExceptionThrown. */
#include "agent/exceptions.h"
#include "agent/exc_machine.h"
#include "agent/names.h"
#include "agent/names_format.h"
#include "agent/profiler.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BASES 64                   /* classes walked up to System.Exception */
#define IL_MAP_MAX 96                  /* IL-to-native map entries looked through for a catch handler */

/* A thread's exceptions (thread_state.exc, made at its first exception) and
 * the catch handler it last placed (a loop catches in one place). */
struct exc_agent_thread {
    exc_thread m;
    uint64_t il_fid, il_pc;
    uint32_t il_offset;
};

int exceptions_start(profiler *p)
{
    exceptions_state *s = &p->exceptions;

    if (!(p->cfg.collect & CP_COLLECT_EXCEPTIONS) || atomic_load(&s->on))
        return 0;
    if (!s->ipf_ok) {
        if (ip_functions_init(&s->ipf) < 0)
            return -1;
        s->ipf_ok = 1;
    }
    if (!s->layout_lock_ok) {
        if (pthread_mutex_init(&s->layout_lock, NULL) != 0)
            return -1;
        s->layout_lock_ok = 1;
    }
    atomic_store(&s->layout, 0);       /* a new session may have a new runtime's layout: look again */
    atomic_store(&s->on, 1);
    return 0;
}

void exceptions_stop(profiler *p)
{
    atomic_store(&p->exceptions.on, 0);
}

void exceptions_free(profiler *p)
{
    exceptions_state *s = &p->exceptions;

    if (s->ipf_ok)
        ip_functions_free(&s->ipf);
    s->ipf_ok = 0;
    if (s->layout_lock_ok)
        pthread_mutex_destroy(&s->layout_lock);
    s->layout_lock_ok = 0;
}

/* ---- records ---- */

static void on_handled(void *ctx, const exc_state *x, uint64_t t, uint64_t escaped_by)
{
    profiler *p = ctx;
    emit e;

    if (emit_begin_at(p, &e, TK_EXCEPTION_HANDLED, t)) {
        rec_exception_handled_put(&e.r, &(rec_exception_handled){
            .exception = x->id, .catcher = x->catcher, .il_offset = x->catcher_il, .duration_ns = t - x->t0,
            .search_frames = x->search_frames, .filters = x->filters, .unwound_frames = x->unwound_frames,
            .finallys = x->finallys, .escaped_by = escaped_by });
        emit_end(&e);
    }
}

static void on_ended(void *ctx, const exc_state *x, uint64_t t, int outcome, uint64_t by)
{
    profiler *p = ctx;
    emit e;

    if (emit_begin_at(p, &e, TK_EXCEPTION_UNHANDLED, t)) {
        rec_exception_unhandled_put(&e.r, &(rec_exception_unhandled){
            .exception = x->id, .outcome = (uint32_t)outcome, .duration_ns = t - x->t0,
            .search_frames = x->search_frames, .filters = x->filters, .unwound_frames = x->unwound_frames,
            .finallys = x->finallys, .by = by });
        emit_end(&e);
    }
}

/* The calling thread's machine and the sink into its records; NULL when
 * exceptions are not followed now. */
static struct exc_agent_thread *machine(profiler *p, exc_sink *sink)
{
    thread_state *ts;

    if (!atomic_load_explicit(&p->exceptions.on, memory_order_relaxed) ||
        !atomic_load_explicit(&p->recording, memory_order_relaxed))
        return NULL;
    if ((ts = thread_state_get(p)) == NULL)
        return NULL;
    if (!ts->exc && (ts->exc = calloc(1, sizeof(*ts->exc))) == NULL)
        return NULL;
    *sink = (exc_sink){ .handled = on_handled, .ended = on_ended, .ctx = p };
    return ts->exc;
}

/* ---- the message: Exception._message ---- */

/* Under the layout lock: finds _message in System.Exception (a base of c). */
static int find_layout(profiler *p, ClassID c)
{
    exceptions_state *s = &p->exceptions;

    if (FAILED(INFO(p)->GetStringLayout2(p->info, &s->string_length_offset, &s->string_buffer_offset)))
        return -1;
    for (int depth = 0; c && depth < MAX_BASES; depth++) {
        char name[256];
        ModuleID mod = 0;
        mdTypeDef td = 0;
        ClassID parent = 0;
        ULONG32 nargs = 0;
        COR_FIELD_OFFSET offs[32];
        ULONG got = 0;
        IMetaDataImport *imp;
        int found = -1;

        if (FAILED(INFO(p)->GetClassIDInfo2(p->info, c, &mod, &td, &parent, 0, &nargs, NULL)) || !mod)
            return -1;
        names_class(p->names, c, name, sizeof(name), &mod);
        if (strcmp(name, "System.Exception") != 0) {
            c = parent;
            continue;
        }
        if (FAILED(INFO(p)->GetClassLayout(p->info, c, offs, 32, &got, NULL)) ||
            (imp = names_metadata(p->names, mod)) == NULL)
            return -1;
        for (ULONG i = 0; i < got && i < 32 && found < 0; i++) {
            uint16_t w[32];
            char field[96];
            ULONG wlen = 0;
            if (offs[i].ulOffset == 0xFFFFFFFFu ||
                FAILED(imp->lpVtbl->GetFieldProps(imp, offs[i].ridOfField, NULL, (LPWSTR)w, 32, &wlen, NULL, NULL,
                                                  NULL, NULL, NULL, NULL)))
                continue;
            names_utf16_to_utf8(w, wlen && wlen <= 32 ? wlen - 1 : 0, field, sizeof(field));
            if (strcmp(field, "_message") == 0) {
                s->message_offset = offs[i].ulOffset;
                found = 1;
            }
        }
        imp->lpVtbl->Release(imp);
        return found;
    }
    return -1;
}

/* The message of exception object obj (of class c) into buf ("" if none). */
static void read_message(profiler *p, ObjectID obj, ClassID c, char *buf, size_t cap)
{
    exceptions_state *s = &p->exceptions;
    const uint8_t *str;
    uint32_t len;
    int layout = atomic_load(&s->layout);

    buf[0] = '\0';
    if (layout == 0 && c) {
        pthread_mutex_lock(&s->layout_lock);
        if ((layout = atomic_load(&s->layout)) == 0) {
            layout = find_layout(p, c);
            atomic_store(&s->layout, layout);
        }
        pthread_mutex_unlock(&s->layout_lock);
    }
    if (layout != 1 || !obj)
        return;
    /* Inside ExceptionThrown the object and its message are valid and do not move. */
    memcpy(&str, (const uint8_t *)obj + s->message_offset, sizeof(str));
    if (!str)
        return;                        /* built when Message is read, not stored yet */
    memcpy(&len, str + s->string_length_offset, sizeof(len));
    if (len > EXC_MESSAGE_MAX)
        len = EXC_MESSAGE_MAX;         /* UTF-16 units; the UTF-8 is cut to cap below */
    {
        uint16_t units[EXC_MESSAGE_MAX];
        memcpy(units, str + s->string_buffer_offset, (size_t)len * 2);
        names_utf16_to_utf8(units, len, buf, cap);
    }
}

/* ---- the callbacks ---- */

void exceptions_thrown(profiler *p, ObjectID obj)
{
    exceptions_state *s = &p->exceptions;
    struct exc_agent_thread *th;
    exc_sink sink;
    exc_state *x;
    char type[512], message[EXC_MESSAGE_MAX + 1];
    uint64_t stack[EXC_STACK_MAX], t;
    size_t n;
    ClassID cls = 0;
    emit e;

    if ((th = machine(p, &sink)) == NULL)
        return;
    t = cp_monotonic_ns();
    x = exc_thrown(&th->m, &sink, atomic_fetch_add(&s->next_id, 1) + 1, obj, t);
    if (obj && SUCCEEDED(INFO(p)->GetClassFromObject(p->info, obj, &cls)) && cls)
        names_class(p->names, cls, type, sizeof(type), NULL);
    else
        strcpy(type, "?");
    read_message(p, obj, cls, message, sizeof(message));
    n = ip_functions_own_stack(p, &s->ipf, stack, EXC_STACK_MAX, t);
    if (x)
        x->stack_depth = (uint32_t)n;
    if (emit_begin_at(p, &e, TK_EXCEPTION_THROWN, t)) {
        rec_exception_thrown_put(&e.r, &(rec_exception_thrown){
            .class_id = cls, .type = type, .exception = x ? x->id : 0, .depth = x ? x->depth : 0,
            .parent = x ? x->parent : 0, .rethrow_of = x ? x->rethrow_of : 0, .message = message,
            .nstack = (uint16_t)n, .stack = stack });
        emit_end(&e);
    }
}

void exceptions_search_function_enter(profiler *p, FunctionID fid)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th)
        exc_search_function_enter(&th->m, fid);
}

void exceptions_search_filter_enter(profiler *p, FunctionID fid)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th)
        exc_search_filter_enter(&th->m, fid);
}

void exceptions_search_filter_leave(profiler *p)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th)
        exc_search_filter_leave(&th->m, &sink, cp_monotonic_ns());
}

void exceptions_search_catcher_found(profiler *p, FunctionID fid)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th)
        exc_search_catcher_found(&th->m, fid);
}

void exceptions_unwind_function_enter(profiler *p, FunctionID fid)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th && exc_unwind_function_enter(&th->m, &sink, fid, cp_monotonic_ns()))
        trace_writer_flush(p->writer);   /* no managed catch: the process may be about to end */
}

void exceptions_unwind_finally_enter(profiler *p, FunctionID fid)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th)
        exc_unwind_finally_enter(&th->m, fid);
}

void exceptions_unwind_finally_leave(profiler *p)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th)
        exc_unwind_finally_leave(&th->m, &sink, cp_monotonic_ns());
}

/* The IL offset of the catch handler about to run in fid (EXC_IL_UNKNOWN):
 * where its code starts, through the runtime's IL-to-native map. */
static uint32_t catcher_il_offset(profiler *p, struct exc_agent_thread *th, FunctionID fid)
{
    COR_PRF_EX_CLAUSE_INFO clause;
    COR_PRF_CODE_INFO code[4];
    COR_DEBUG_IL_TO_NATIVE_MAP map[IL_MAP_MAX];
    ULONG32 ncode = 0, nmap = 0;
    uint64_t off;
    uint32_t il = EXC_IL_UNKNOWN;

    if (FAILED(INFO(p)->GetNotifiedExceptionClauseInfo(p->info, &clause)) || !clause.programCounter)
        return EXC_IL_UNKNOWN;
    if (th->il_fid == fid && th->il_pc == clause.programCounter)
        return th->il_offset;
    if (SUCCEEDED(INFO(p)->GetCodeInfo2(p->info, fid, 4, &ncode, code)) && ncode > 0 &&
        clause.programCounter >= code[0].startAddress &&
        (off = clause.programCounter - code[0].startAddress) < code[0].size &&
        SUCCEEDED(INFO(p)->GetILToNativeMapping(p->info, fid, IL_MAP_MAX, &nmap, map))) {
        for (ULONG32 i = 0; i < nmap && i < IL_MAP_MAX; i++)
            if (map[i].ilOffset < 0xFFFFFFF0u && map[i].nativeStartOffset <= off && off < map[i].nativeEndOffset) {
                il = map[i].ilOffset;
                break;
            }
    }
    th->il_fid = fid;
    th->il_pc = clause.programCounter;
    th->il_offset = il;
    return il;
}

void exceptions_catcher_enter(profiler *p, FunctionID fid, ObjectID obj)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);

    (void)obj;
    if (!th)
        return;
    exc_catcher_enter(&th->m, &sink, fid, catcher_il_offset(p, th, fid), cp_monotonic_ns());
}

void exceptions_catcher_leave(profiler *p)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    if (th)
        exc_catcher_leave(&th->m, &sink, cp_monotonic_ns());
}
