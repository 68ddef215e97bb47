/* exceptions.c - the "exceptions" service (exceptions.h): the runtime's
 * exception callbacks through each thread's state machine (exc_machine.h)
 * into records; the message and the throw stack read in ExceptionThrown. */
#include "agent/exceptions/exceptions.h"
#include "agent/exceptions/exc_machine.h"
#include "agent/core/service.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BASES 64                   /* classes walked up to System.Exception */
#define EXC_LAYOUT_TRIES 16           /* exceptions at which _message is looked for before giving up */
#define IL_MAP_MAX 96                  /* IL-to-native map entries looked through for a catch handler */

/* A thread's exceptions (thread_state.exc, made at its first exception) and
 * the catch handler it last placed (a loop catches in one place). */
struct exc_agent_thread {
    exc_thread m;
    uint64_t il_fid, il_pc;
    uint32_t il_offset;
    struct { uint64_t cls, last_t; } types[EXC_STACK_TYPES];   /* stack sampling per type */
    /* the names it used last (a loop throws one type, catches in one place),
     * valid for one module unload count (IDs are reused after unloads) */
    uint64_t unloads;
    ClassID name_cls;
    char type[256];
    FunctionID name_fid;
    ModuleID name_module;
    char function[512];
};

/* The name of class cls (its exception type) and of function fid, through
 * the thread's last ones. */
static const char *type_name(profiler *p, struct exc_agent_thread *th, ClassID cls)
{
    uint64_t u = ip_functions_unloads(p);

    if (th->unloads != u) {
        th->unloads = u;
        th->name_cls = 0;
        th->name_fid = 0;
    }
    if (!cls)
        return "?";
    if (th->name_cls != cls) {
        names_class(p->names, cls, th->type, sizeof(th->type), NULL);
        th->name_cls = strcmp(th->type, "?") != 0 ? cls : 0;     /* (not cached: may resolve later) */
    }
    return th->type;
}

static const char *function_name(profiler *p, struct exc_agent_thread *th, FunctionID fid, ModuleID *module)
{
    type_name(p, th, 0);                     /* (the unload check) */
    if (th->name_fid != fid) {
        names_function(p->names, fid, th->function, sizeof(th->function), &th->name_module);
        th->name_fid = th->function[0] != '?' ? fid : 0;
    }
    *module = th->name_module;
    return th->function;
}

int exceptions_start(profiler *p)
{
    exceptions_state *s = p->exceptions;

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
    s->layout_tries = 0;
    atomic_store(&s->on, 1);
    return 0;
}

void exceptions_stop(profiler *p)
{
    atomic_store(&p->exceptions->on, 0);
}

void exceptions_free(profiler *p)
{
    exceptions_state *s = p->exceptions;

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
            .exception = x->id, .thrower = x->thrower, .catcher = x->catcher, .il_offset = x->catcher_il, .duration_ns = t - x->t0,
            .search_frames = x->search_frames, .filters = x->filters, .unwound_frames = x->unwound_frames,
            .finallys = x->finallys, .escaped_by = escaped_by, .catch_ns = x->catch_t > x->t0 ? x->catch_t - x->t0 : 0 });
        emit_end(&e);
    }
}

static void on_ended(void *ctx, const exc_state *x, uint64_t t, int outcome, uint64_t by)
{
    profiler *p = ctx;
    emit e;

    if (emit_begin_at(p, &e, TK_EXCEPTION_UNHANDLED, t)) {
        rec_exception_unhandled_put(&e.r, &(rec_exception_unhandled){
            .exception = x->id, .thrower = x->thrower, .outcome = (uint32_t)outcome, .duration_ns = t - x->t0,
            .search_frames = x->search_frames, .filters = x->filters, .unwound_frames = x->unwound_frames,
            .finallys = x->finallys, .by = by });
        emit_end(&e);
    }
}

static uint64_t now(void *ctx)
{
    (void)ctx;
    return cp_monotonic_ns();
}

/* The calling thread's machine and the sink into its records; NULL when
 * exceptions are not followed now. */
static struct exc_agent_thread *machine(profiler *p, exc_sink *sink)
{
    thread_state *ts;
    struct exc_agent_thread *et;

    if (!atomic_load_explicit(&p->exceptions->on, memory_order_relaxed) ||
        !atomic_load_explicit(&p->recording, memory_order_relaxed))
        return NULL;
    if ((ts = thread_state_get(p)) == NULL)
        return NULL;
    et = ts->service[SERVICE_exceptions];
    if (!et && (et = ts->service[SERVICE_exceptions] = calloc(1, sizeof(*et))) == NULL)
        return NULL;
    *sink = (exc_sink){ .handled = on_handled, .ended = on_ended, .now = now, .ctx = p };
    return et;
}

/* ---- the message: Exception._message ---- */

/* Under the layout lock: finds _message in System.Exception (a base of c). */
static int find_layout(profiler *p, ClassID c)
{
    exceptions_state *s = p->exceptions;

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
    exceptions_state *s = p->exceptions;
    const uint8_t *str;
    uint32_t len;
    int layout = atomic_load(&s->layout);

    buf[0] = '\0';
    if (layout == 0 && c) {
        pthread_mutex_lock(&s->layout_lock);
        if ((layout = atomic_load(&s->layout)) == 0) {
            layout = find_layout(p, c);
            /* the runtime may not say yet (CORPROF_E_DATAINCOMPLETE): ask again at later exceptions */
            if (layout < 0 && ++s->layout_tries < EXC_LAYOUT_TRIES)
                layout = 0;
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

/* Whether this exception of class cls takes its stack: the first of its
 * type on the thread, then at most one each EXC_STACK_INTERVAL_NS. */
static int take_stack(struct exc_agent_thread *th, uint64_t cls, uint64_t t)
{
    int slot = 0;

    for (int i = 0; i < EXC_STACK_TYPES; i++) {
        if (th->types[i].cls == cls && th->types[i].last_t) {
            if (t - th->types[i].last_t < EXC_STACK_INTERVAL_NS)
                return 0;
            th->types[i].last_t = t;
            return 1;
        }
        if (th->types[i].last_t < th->types[slot].last_t)
            slot = i;                   /* (else the least recently sampled) */
    }
    th->types[slot].cls = cls;
    th->types[slot].last_t = t;
    return 1;
}

void exceptions_thrown(profiler *p, ObjectID obj)
{
    exceptions_state *s = p->exceptions;
    struct exc_agent_thread *th;
    exc_sink sink;
    exc_state *x;
    char message[EXC_MESSAGE_MAX + 1];
    const char *type;
    uint64_t stack[EXC_STACK_MAX], t;
    uint32_t il[EXC_STACK_MAX];
    size_t n = 0;
    ClassID cls = 0;
    emit e;

    if ((th = machine(p, &sink)) == NULL)
        return;
    t = cp_monotonic_ns();
    x = exc_thrown(&th->m, &sink, atomic_fetch_add(&s->next_id, 1) + 1, obj, t);
    if (!obj || FAILED(INFO(p)->GetClassFromObject(p->info, obj, &cls)))
        cls = 0;
    type = type_name(p, th, cls);
    if (x)
        x->class_id = cls;
    read_message(p, obj, cls, message, sizeof(message));
    if (take_stack(th, cls, t)) {
        n = ip_functions_own_stack(p, &s->ipf, stack, il, EXC_STACK_MAX, t);
        if (x)
            x->stack_depth = (uint32_t)n;
    }
    if (emit_begin_at(p, &e, TK_EXCEPTION_THROWN, t)) {
        rec_exception_thrown_put(&e.r, &(rec_exception_thrown){
            .class_id = cls, .type = type, .exception = x ? x->id : 0, .depth = x ? x->depth : 0,
            .parent = x ? x->parent : 0, .rethrow_of = x ? x->rethrow_of : 0, .message = message,
            .nstack = (uint16_t)n, .stack = stack, .nil = (uint16_t)n, .il = il });
        emit_end(&e);
    }
}

void exceptions_step(profiler *p, int ev, FunctionID fid)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    exc_state *x;

    if (!th)
        return;
    /* a second pass without a catcher, of an exception not given a stack:
     * how deep the stack is tells unhandled from handled natively (rare) */
    if (ev == EXC_EV_UNWIND_ENTER && (x = exc_current(&th->m)) != NULL && x->phase == EXC_PHASE_SEARCH &&
        !x->catcher_found && !x->stack_depth) {
        uint64_t frames[EXC_STACK_MAX];
        x->stack_depth = (uint32_t)ip_functions_walk_own(p, frames, NULL, EXC_STACK_MAX);
    }
    if (exc_step(&th->m, &sink, ev, fid))
        trace_writer_flush(p->writer);   /* no managed catch: the process may be about to end */
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
        /* the entry the handler's address is in; in its funclet's prolog
         * (no IL), the entry right after the prolog */
        uint64_t at = off;
        for (int pass = 0; pass < 2 && il == EXC_IL_UNKNOWN; pass++) {
            uint64_t prolog_end = 0;
            for (ULONG32 i = 0; i < nmap && i < IL_MAP_MAX; i++) {
                if (map[i].nativeStartOffset > at || at >= map[i].nativeEndOffset)
                    continue;
                if (map[i].ilOffset < 0xFFFFFFF0u)
                    il = map[i].ilOffset;
                else if (map[i].ilOffset == 0xFFFFFFFEu)       /* (PROLOG) */
                    prolog_end = map[i].nativeEndOffset;
                break;
            }
            if (!prolog_end)
                break;
            at = prolog_end;
        }
    }
    th->il_fid = fid;
    th->il_pc = clause.programCounter;
    th->il_offset = il;
    return il;
}

/* The catch clause about to run.  Its exception_catch record is written
 * only when the thread's machine is missing (out of memory): otherwise the
 * exception_handled record says when the catch began (catch_ns), and the
 * report shows the exception_catch from there (report/model.c), which saves
 * a record and two names per exception.  Returns the catcher's module. */
ModuleID exceptions_catcher_enter(profiler *p, FunctionID fid, ObjectID obj)
{
    exc_sink sink;
    struct exc_agent_thread *th = machine(p, &sink);
    char type[512], function[1024];
    ClassID cls = 0;
    ModuleID module = 0;
    emit e;

    if (th) {
        exc_catcher_enter(&th->m, &sink, fid, catcher_il_offset(p, th, fid), 0);
        return th->name_fid == fid ? th->name_module : (function_name(p, th, fid, &module), module);
    }
    if (obj && FAILED(INFO(p)->GetClassFromObject(p->info, obj, &cls)))
        cls = 0;
    if (cls)
        names_class(p->names, cls, type, sizeof(type), NULL);
    else
        strcpy(type, "?");
    names_function(p->names, fid, function, sizeof(function), &module);
    if (emit_begin(p, &e, TK_EXCEPTION_CATCH)) {
        rec_exception_catch_put(&e.r, &(rec_exception_catch){ .function = fid, .type = type,
                                                              .function_name = function });
        emit_end(&e);
    }
    return module;
}
