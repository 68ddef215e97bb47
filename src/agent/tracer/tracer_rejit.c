/* tracer_rejit.c - method tracing after an attach: finding the matching
 * methods, asking for their ReJIT, giving the runtime their IL with the
 * probes, and the revert (tracer_rejit.h). */
#include "agent/tracer/tracer_rejit.h"
#include "agent/core/service.h"
#include "agent/tracer/il_rewrite.h"
#include "agent/tracer/il_sig.h"
#include "agent/tracer/tracer.h"
#include "agent/tracer/tracer_hooks.h"
#include "common/idmap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 512                 /* methods per RequestReJIT call */
#define ENUM_BATCH 64
#define WAIT_MS 200               /* the thread looks for new modules this often */

enum { RJ_REQUESTED = 0, RJ_REWRITTEN, RJ_REFUSED };

typedef struct rj_entry {
    ModuleID module;
    mdMethodDef token;
    tr_method *m;
    int state;
    char *name;
} rj_entry;

typedef struct rj_sig {
    ModuleID module;
    mdSignature token;            /* the probes' calli signature in that module */
} rj_sig;

struct rejit {
    profiler *p;
    pthread_mutex_t lock;         /* everything below */
    rj_entry *v;
    size_t n, cap;
    idmap index;                  /* key(module, token) -> entry + 1 (checked: keys may collide) */
    rj_sig *sigs;
    size_t nsigs, capsigs;
    ModuleID *pending;            /* modules loaded since, to look at */
    size_t npending, cappending;
    pthread_mutex_t wait_lock;
    pthread_cond_t wake;
    pthread_t thread;
    int started;
    atomic_int stop;
};

/* ---- the probes: what the rewritten IL calls (an unmanaged calli, with
 * the tr_method's address) ---- */

static void probe_enter(uint64_t id) { tr_hook_enter((const tr_method *)(uintptr_t)id); }
static void probe_leave(uint64_t id) { tr_hook_leave((const tr_method *)(uintptr_t)id); }
static void probe_thrown(uint64_t id) { tr_hook_thrown((const tr_method *)(uintptr_t)id); }

static uint64_t key(ModuleID module, mdMethodDef token)
{
    return (uint64_t)module * 0x9E3779B97F4A7C15ull ^ token;
}

/* The entry of (module, token), under the lock; NULL if none. */
static rj_entry *find(struct rejit *r, ModuleID module, mdMethodDef token)
{
    uint64_t v;
    if (idmap_get(&r->index, key(module, token), &v) && r->v[v - 1].module == module && r->v[v - 1].token == token)
        return &r->v[v - 1];
    for (size_t i = 0; i < r->n; i++)            /* (a collision of keys) */
        if (r->v[i].module == module && r->v[i].token == token)
            return &r->v[i];
    return NULL;
}

/* ---- finding the methods ---- */

/* The methods to ask a ReJIT of. */
typedef struct rj_list {
    ModuleID *mods;
    mdMethodDef *toks;
    size_t n, cap;
} rj_list;

static void list_add(rj_list *l, ModuleID module, mdMethodDef token)
{
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 64;
        ModuleID *nm = realloc(l->mods, c * sizeof(*nm));
        mdMethodDef *nt = nm ? realloc(l->toks, c * sizeof(*nt)) : NULL;
        if (nm)
            l->mods = nm;
        if (!nt)
            return;
        l->toks = nt;
        l->cap = c;
    }
    l->mods[l->n] = module;
    l->toks[l->n++] = token;
}

/* Method md of module, if a pattern matches it and it has IL: its entry,
 * its traced_method record, and into l.  Inside the unload gate. */
static void consider(struct rejit *r, ModuleID module, IMetaDataImport *imp, mdMethodDef md, rj_list *l)
{
    profiler *p = r->p;
    char name[1024];
    ULONG rva = 0;
    DWORD attr = 0, impl = 0;
    mdTypeDef td;
    int pattern;
    rj_entry *e;
    tr_method *m;

    if (FAILED(imp->lpVtbl->GetMethodProps(imp, md, &td, NULL, 0, NULL, &attr, NULL, NULL, &rva, &impl)) || rva == 0)
        return;                                  /* no IL: abstract, extern, runtime-implemented */
    names_method_def(p->names, module, md, name, sizeof(name));
    if (!(pattern = tracer_matches(p, name)))
        return;
    pthread_mutex_lock(&r->lock);
    e = find(r, module, md);
    pthread_mutex_unlock(&r->lock);
    if (e || !(m = tracer_add_il_method(p, module, pattern, name)))
        return;
    pthread_mutex_lock(&r->lock);
    if (r->n == r->cap) {
        size_t c = r->cap ? r->cap * 2 : 64;
        rj_entry *nv = realloc(r->v, c * sizeof(*nv));
        if (nv) {
            r->v = nv;
            r->cap = c;
        }
    }
    if (r->n < r->cap) {
        r->v[r->n] = (rj_entry){ .module = module, .token = md, .m = m, .state = RJ_REQUESTED, .name = strdup(name) };
        idmap_put(&r->index, key(module, md), r->n + 1);
        r->n++;
    }
    pthread_mutex_unlock(&r->lock);
    list_add(l, module, md);
}

/* The methods of type td.  Inside the unload gate. */
static void scan_type(struct rejit *r, ModuleID module, IMetaDataImport *imp, mdTypeDef td, rj_list *l)
{
    HCORENUM me = NULL;
    mdMethodDef ms[ENUM_BATCH];
    ULONG nm = 0;

    while (SUCCEEDED(imp->lpVtbl->EnumMethods(imp, &me, td, ms, ENUM_BATCH, &nm)) && nm)
        for (ULONG k = 0; k < nm; k++)
            consider(r, module, imp, ms[k], l);
    imp->lpVtbl->CloseEnum(imp, me);
}

/* Adds the methods of module that a pattern matches to l; their entries
 * and traced_method records too.  Off a callback, the module may be
 * unloaded at any moment: like the catch-up, every query of it is made
 * inside the unload gate, after checking that its ModuleUnloadStarted has
 * not come (a module taken from an EnumModules snapshot, or queued at its
 * load, may be gone by now, and querying it then crashes the process).
 * The gate is left between types, so that an unload waits for one type's
 * methods at most, not for a whole module's. */
static void scan_module(struct rejit *r, ModuleID module, rj_list *l)
{
    profiler *p = r->p;
    IMetaDataImport *imp;
    HCORENUM te = NULL;
    mdTypeDef types[ENUM_BATCH];
    ULONG nt = 0;
    DWORD flags = 0;
    int inside;

    if (!p->modules || !cu_gate_enter_live(&p->gate, p->modules, module))
        return;
    if (FAILED(INFO(p)->GetModuleInfo2(p->info, module, NULL, 0, NULL, NULL, NULL, &flags)) ||
        (flags & (COR_PRF_MODULE_DYNAMIC | COR_PRF_MODULE_RESOURCE | COR_PRF_MODULE_COLLECTIBLE)) ||
        !(imp = names_metadata(p->names, module))) {
        /* (ReJIT refuses those; one still loading comes again when its load finishes) */
        cu_gate_leave(&p->gate);
        return;
    }
    inside = 1;
    while (inside && !atomic_load(&r->stop) && SUCCEEDED(imp->lpVtbl->EnumTypeDefs(imp, &te, types, ENUM_BATCH, &nt)) &&
           nt) {
        for (ULONG i = 0; inside && i < nt; i++) {
            scan_type(r, module, imp, types[i], l);
            cu_gate_leave(&p->gate);
            inside = cu_gate_enter_live(&p->gate, p->modules, module);
        }
    }
    if (!inside)
        return;               /* unloaded meanwhile: its metadata is not touched again (not even released) */
    imp->lpVtbl->CloseEnum(imp, te);
    imp->lpVtbl->Release(imp);
    cu_gate_leave(&p->gate);
}

/* Asks the runtime to compile the methods again (with their inliners).
 * Outside the unload gate: their modules are neither collectible nor
 * dynamic (scan_module), so they are never unloaded; and a call that
 * suspends the runtime is not made while an unload may wait for the gate. */
static void request(struct rejit *r, ModuleID *mods, mdMethodDef *toks, size_t n)
{
    profiler *p = r->p;
    for (size_t at = 0; at < n; at += BATCH) {
        ULONG k = (ULONG)(n - at < BATCH ? n - at : BATCH);
        HRESULT hr = p->info_version >= 10
            ? INFO(p)->RequestReJITWithInliners(p->info, COR_PRF_REJIT_BLOCK_INLINING, k, mods + at, toks + at)
            : INFO(p)->RequestReJIT(p->info, k, mods + at, toks + at);
        if (FAILED(hr))
            profiler_note(p, "--trace: the runtime refused to recompile %u methods (HRESULT 0x%08x)", (unsigned)k,
                          (unsigned)hr);
    }
}

static void *rejit_main(void *arg)
{
    struct rejit *r = arg;
    profiler *p = r->p;
    ICorProfilerModuleEnum *en = NULL;
    ModuleID ids[ENUM_BATCH];
    rj_list l = { 0 };
    ULONG got = 0;

    pthread_setname_np(pthread_self(), "clrprobe-rejit");
    if (SUCCEEDED(INFO(p)->EnumModules(p->info, &en)) && en) {
        while (!atomic_load(&r->stop) && SUCCEEDED(en->lpVtbl->Next(en, ENUM_BATCH, ids, &got)) && got > 0)
            for (ULONG i = 0; i < got; i++)
                scan_module(r, ids[i], &l);
        en->lpVtbl->Release(en);
    }
    if (!atomic_load(&r->stop))
        request(r, l.mods, l.toks, l.n);
    control_send(p, CP_CTL_TRACING_FMT, (unsigned)l.n);
    while (!atomic_load(&r->stop)) {
        struct timespec until;
        ModuleID module = 0;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WAIT_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&r->wait_lock);
        if (!r->npending && !atomic_load(&r->stop))
            pthread_cond_timedwait(&r->wake, &r->wait_lock, &until);
        if (r->npending)
            module = r->pending[--r->npending];
        pthread_mutex_unlock(&r->wait_lock);
        if (module) {
            l.n = 0;
            scan_module(r, module, &l);
            if (l.n && !atomic_load(&r->stop))
                request(r, l.mods, l.toks, l.n);
        }
    }
    free(l.mods);
    free(l.toks);
    return NULL;
}

/* ---- the service ---- */

int rejit_start(profiler *p)
{
    struct rejit *r;
    int rc;

    if (!p->attached || !p->tracer->t || p->rejit->r)
        return 0;
    if (!(r = calloc(1, sizeof(*r))))
        return -1;
    r->p = p;
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->wait_lock, NULL);
    pthread_cond_init(&r->wake, NULL);
    idmap_init(&r->index);
    p->rejit->r = r;                  /* (before the thread: GetReJITParameters may come at once) */
    rc = agent_thread_start(&r->thread, NULL, rejit_main, r);
    if (rc != 0)
        return -1;                   /* (r stays: the callbacks may look at it) */
    r->started = 1;
    return 0;
}

void rejit_stop(profiler *p)
{
    struct rejit *r = p->rejit->r;
    ModuleID *mods;
    mdMethodDef *toks;
    size_t n = 0;

    if (!r || atomic_load(&r->stop))
        return;
    pthread_mutex_lock(&r->wait_lock);
    atomic_store(&r->stop, 1);
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->wait_lock);
    if (r->started)
        pthread_join(r->thread, NULL);
    if (atomic_load(&p->session.shutting_down))
        return;                      /* the process ends: nothing to restore */
    /* back to the original code, every method asked for whose module is
     * still there (the runtime is called outside the gate, as in request) */
    pthread_mutex_lock(&r->lock);
    mods = malloc((r->n ? r->n : 1) * sizeof(*mods));
    toks = malloc((r->n ? r->n : 1) * sizeof(*toks));
    for (size_t i = 0; mods && toks && i < r->n; i++) {
        if (p->modules && cu_state_of(p->modules, r->v[i].module) == CU_DEAD)
            continue;
        mods[n] = r->v[i].module;
        toks[n++] = r->v[i].token;
    }
    pthread_mutex_unlock(&r->lock);
    for (size_t at = 0; at < n; at += BATCH) {
        ULONG k = (ULONG)(n - at < BATCH ? n - at : BATCH);
        HRESULT hr = INFO(p)->RequestRevert(p->info, k, mods + at, toks + at, NULL);
        if (FAILED(hr))
            profiler_note(p, "--trace: the runtime refused to restore the original code of %u methods (HRESULT "
                          "0x%08x)", (unsigned)k, (unsigned)hr);
    }
    free(mods);
    free(toks);
    /* r stays: a GetReJITParameters already under way may still read it */
}

void rejit_module_loaded(profiler *p, ModuleID module)
{
    struct rejit *r = p->rejit->r;

    if (!r || atomic_load(&r->stop))
        return;
    pthread_mutex_lock(&r->wait_lock);
    if (r->npending == r->cappending) {
        size_t c = r->cappending ? r->cappending * 2 : 16;
        ModuleID *nv = realloc(r->pending, c * sizeof(*nv));
        if (nv) {
            r->pending = nv;
            r->cappending = c;
        }
    }
    if (r->npending < r->cappending)
        r->pending[r->npending++] = module;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->wait_lock);
}

/* ---- the new IL ---- */

/* The probes' calli signature token in module (made once per module). */
static mdSignature probe_sig(struct rejit *r, IMetaDataEmit *em, ModuleID module)
{
    mdSignature tok = 0;

    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->nsigs; i++)
        if (r->sigs[i].module == module)
            tok = r->sigs[i].token;
    pthread_mutex_unlock(&r->lock);
    if (tok || FAILED(em->lpVtbl->GetTokenFromSig(em, il_sig_probe, sizeof(il_sig_probe), &tok)))
        return tok;
    pthread_mutex_lock(&r->lock);
    if (r->nsigs == r->capsigs) {
        size_t c = r->capsigs ? r->capsigs * 2 : 16;
        rj_sig *nv = realloc(r->sigs, c * sizeof(*nv));
        if (nv) {
            r->sigs = nv;
            r->capsigs = c;
        }
    }
    if (r->nsigs < r->capsigs)
        r->sigs[r->nsigs++] = (rj_sig){ module, tok };
    pthread_mutex_unlock(&r->lock);
    return tok;
}

/* The probes for the method's body: 0, or -1 with why. */
static int build(struct rejit *r, ModuleID module, mdMethodDef method, tr_method *m, ICorProfilerFunctionControl *ctl,
                 char *why, size_t why_len)
{
    profiler *p = r->p;
    IMetaDataImport *imp = NULL;
    IMetaDataEmit *em = NULL;
    LPCBYTE body = NULL;
    ULONG body_len = 0, sig_len = 0;
    PCCOR_SIGNATURE sig = NULL;
    il_probes pr = { .id = (uint64_t)(uintptr_t)m, .enter = (uint64_t)(uintptr_t)probe_enter,
                     .leave = (uint64_t)(uintptr_t)probe_leave, .thrown = (uint64_t)(uintptr_t)probe_thrown };
    size_t ret_off, ret_len, out_len = 0;
    uint8_t *out = NULL;
    int is_void, rc = -1;
    mdTypeDef td;
    HRESULT hr;

    if (FAILED(hr = INFO(p)->GetILFunctionBody(p->info, module, method, &body, &body_len)) || !body) {
        snprintf(why, why_len, "its IL body could not be read (HRESULT 0x%08x)", (unsigned)hr);
        return -1;
    }
    if (!(imp = names_metadata(p->names, module)) ||
        FAILED(imp->lpVtbl->GetMethodProps(imp, method, &td, NULL, 0, NULL, NULL, &sig, &sig_len, NULL, NULL)) ||
        il_sig_return_type(sig, sig_len, &ret_off, &ret_len, &is_void) < 0) {
        snprintf(why, why_len, "its signature could not be read");
        goto done;
    }
    if (FAILED(hr = INFO(p)->GetModuleMetaData(p->info, module, ofRead | ofWrite, &IID_IMetaDataEmit,
                                               (IUnknown **)&em)) || !em) {
        snprintf(why, why_len, "its module's metadata cannot be written (HRESULT 0x%08x)", (unsigned)hr);
        em = NULL;
        goto done;
    }
    if (!(pr.calli_sig = probe_sig(r, em, module))) {
        snprintf(why, why_len, "no signature token for the probes");
        goto done;
    }
    if (!is_void) {
        /* RET: a local of the return type, after the method's own */
        uint8_t locals[IL_SIG_MAX];
        PCCOR_SIGNATURE old = NULL;
        ULONG old_len = 0;
        size_t n;
        uint32_t index, local_tok = (body[0] & 3) == 3 && body_len >= 12
            ? (uint32_t)body[8] | (uint32_t)body[9] << 8 | (uint32_t)body[10] << 16 | (uint32_t)body[11] << 24 : 0;
        if (local_tok && FAILED(imp->lpVtbl->GetSigFromToken(imp, local_tok, &old, &old_len))) {
            snprintf(why, why_len, "its local variables could not be read");
            goto done;
        }
        if (il_sig_add_local(old, old_len, sig + ret_off, ret_len, locals, sizeof(locals), &n, &index) < 0 ||
            index > 0xFFFE || FAILED(em->lpVtbl->GetTokenFromSig(em, locals, (ULONG)n, &pr.local_sig))) {
            snprintf(why, why_len, "no local variable could be added for its return value");
            goto done;
        }
        pr.returns_value = 1;
        pr.ret_local = (uint16_t)index;
    }
    if (il_add_probes(body, body_len, &pr, &out, &out_len, why, why_len) < 0)
        goto done;
    if (FAILED(hr = ctl->lpVtbl->SetILFunctionBody(ctl, (ULONG)out_len, out))) {
        snprintf(why, why_len, "the runtime refused its new IL (HRESULT 0x%08x)", (unsigned)hr);
        goto done;
    }
    rc = 0;
done:
    free(out);
    if (em)
        em->lpVtbl->Release(em);
    if (imp)
        imp->lpVtbl->Release(imp);
    return rc;
}

HRESULT rejit_parameters(profiler *p, ModuleID module, mdMethodDef method, ICorProfilerFunctionControl *ctl)
{
    struct rejit *r = p->rejit->r;
    rj_entry *e;
    tr_method *m = NULL;
    char why[256] = "", name[1024] = "";
    int refused;

    if (!r || !ctl)
        return S_OK;                         /* the original IL */
    pthread_mutex_lock(&r->lock);
    if ((e = find(r, module, method)) && e->state != RJ_REFUSED) {
        m = e->m;
        snprintf(name, sizeof(name), "%s", e->name ? e->name : "?");
    }
    pthread_mutex_unlock(&r->lock);
    if (!m || atomic_load(&r->stop))
        return S_OK;
    refused = build(r, module, method, m, ctl, why, sizeof(why)) < 0;
    pthread_mutex_lock(&r->lock);
    if ((e = find(r, module, method)))
        e->state = refused ? RJ_REFUSED : RJ_REWRITTEN;
    pthread_mutex_unlock(&r->lock);
    if (refused)
        tracer_method_refused(p, m, module, name, why);
    return S_OK;                             /* (a failure would make the runtime keep the original IL too) */
}

void rejit_error(profiler *p, ModuleID module, mdMethodDef method, HRESULT hr)
{
    struct rejit *r = p->rejit->r;
    char name[1024];

    if (!r)
        return;
    names_method_def(p->names, module, method, name, sizeof(name));
    profiler_note(p, "--trace: the runtime could not recompile %s (HRESULT 0x%08x)", name, (unsigned)hr);
}

/* ---- the service ---- */

static void rejit_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    if (cfg->trace[0] && attach)         /* --trace after an attach: IL probes by ReJIT */
        *low |= REJIT_EVENT_MASK;
}

/* A new session starts without a rewriter (the last one's probes stay). */
static void rejit_reset(profiler *p)
{
    p->rejit->r = NULL;
}

/* The new IL of a method asked for. */
static HRESULT cb_GetReJITParameters(ICorProfilerCallback11 *This, ModuleID module, mdMethodDef method,
                                     ICorProfilerFunctionControl *control)
{
    return rejit_parameters(profiler_from(This), module, method, control);
}

static HRESULT cb_ReJITError(ICorProfilerCallback11 *This, ModuleID module, mdMethodDef method, FunctionID fid,
                             HRESULT hr)
{
    rejit_error(profiler_from(This), module, method, hr);
    return S_OK;
}

static void rejit_callbacks(ICorProfilerCallbackVtbl *v)
{
    v->GetReJITParameters = cb_GetReJITParameters;
    v->ReJITError = cb_ReJITError;
}

const agent_service rejit_service = {
    .name = "rejit",
    .state_size = sizeof(rejit_state),
    .event_mask = rejit_event_mask,
    .callbacks = rejit_callbacks,
    .when = AFTER_CATCHUP, .start = rejit_start, .stop = rejit_stop,
    .failed_note = "--trace: the IL rewriting thread could not start: nothing is traced",
    .stop_before_detach = 1,
    .reset = rejit_reset,
    .module_loaded = rejit_module_loaded,
};
