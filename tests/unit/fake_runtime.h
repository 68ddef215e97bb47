/* fake_runtime.h - a small simulated .NET runtime for conformance tests of
 * the real agent's attach path (test_conformance.c).
 *
 * The fake plays the CLR's side of an attach, single-threaded and scripted:
 *  - it owns a little world of app domains, assemblies, modules, threads and
 *    JIT-compiled functions, each with the lifetime steps of the runtime's
 *    rule that the event is always last (docs/attach.md, "What the runtime
 *    guarantees"): fr_begin_load
 *    (the ID becomes enumerable), fr_finish_load (its LoadFinished/Created
 *    event), fr_begin_unload (no longer
 *    enumerable), fr_finish_unload (its UnloadStarted/Destroyed event);
 *    a function's are JITCompilationStarted, then JITCompilationFinished.
 *    Events are delivered to the agent only once fr_enable_events() was
 *    called and only if the agent's event mask asks for them;
 *  - it implements ICorProfilerInfo15 (all 115 slots; the ones the agent
 *    uses on this path for real, the others return E_NOTIMPL and are
 *    counted), the module/thread/function enumerators over a snapshot taken
 *    when they are created, and a tiny IMetaDataImport per module;
 *  - a hook can be scripted "between items k and k+1" of the next
 *    enumerator of a kind: it runs inside Next(), which the agent calls
 *    outside its gate, like another runtime thread acting while the agent
 *    iterates; another can run inside the agent's first query of one ID;
 *  - it records every Info (and metadata) call that names an ID, and counts
 *    violations: an ID queried after its UnloadStarted/ThreadDestroyed was
 *    delivered, before it ever existed, or never known at all; an event mask
 *    outside COR_PRF_(HIGH_)ALLOWABLE_AFTER_ATTACH; an enumeration made
 *    before events were enabled.
 *
 * It also reads a finished trace back (rp_load) and answers "what does the
 * report say about this ID" (fr_state). */
#ifndef CLRPROBE_TESTS_FAKE_RUNTIME_H
#define CLRPROBE_TESTS_FAKE_RUNTIME_H

#include <stdint.h>

#include "api/corprof.h"
#include "report/model.h"

typedef enum fr_kind { FR_APPDOMAIN, FR_ASSEMBLY, FR_MODULE, FR_THREAD, FR_FUNCTION, FR_KINDS } fr_kind;

#define FR_MAX_OBJECTS 64
#define FR_MAX_NOTES 16
#define FR_MAX_HEAP 64
#define FR_MAX_EXC_CLASSES 8
#define FR_MAX_EXC_OBJECTS 32
#define FR_MAX_STACK 16

/* Where the fake runtime's stack frame i has its code, and the IL offset
 * its native-to-IL map gives all of it. */
#define FR_CODE_AT(i) ((UINT_PTR)0x100000 + (UINT_PTR)(i) * 0x1000)
#define FR_IL_AT(i) (0x10u + (uint32_t)(i))

typedef struct fake_runtime fake_runtime;

/* One simulated runtime object.  parent: a module's assembly, an assembly's
 * app domain, a function's module.  name: app domain / assembly name, module
 * path, function "Namespace.Type" + method (type and method). */
typedef struct fr_obj {
    fr_kind kind;
    uint64_t id;
    uint64_t parent;
    uint64_t extra;                 /* assembly: manifest module; thread: OS tid; function: token */
    char name[256];
    char method[64];                /* functions only */
    int dynamic;                    /* functions: a dynamic method (no metadata), named by `method` */
    int enumerable;                 /* in snapshots taken now */
    int begun, loaded;              /* fr_begin_load / fr_finish_load happened */
    int unloading, unloaded;        /* fr_begin_unload / fr_finish_unload happened */
    int unload_delivered;           /* the agent was told (UnloadStarted/ThreadDestroyed returned) */
    int calls;                      /* Info/metadata calls naming this ID */
    int calls_after_unload_began;   /* ... made once it was no longer enumerable */
} fr_obj;

/* A hook run by the next enumerator of one kind, before it hands out item
 * number `after` (0-based; 0 = before the first item). */
typedef void (*fr_hook_fn)(fake_runtime *rt, void *arg);

struct fake_runtime {
    ICorProfilerInfo15 info;        /* must stay first */
    int info_refs;                  /* the fake's own reference + the agent's */

    fr_obj obj[FR_MAX_OBJECTS];
    int nobj;

    ICorProfilerCallback11 *cb;     /* the agent instance while attached */
    int ask_notification;           /* fr_attach asks for the notification CLSID (identity.h) */
    int notification;               /* the instance answered LoadAsNotificationOnly TRUE: the runtime
                                       then holds it to the notification profiler's mask */
    int events_on;
    DWORD mask_low, mask_high;
    int init_returned;              /* InitializeForAttach has returned */

    struct { fr_hook_fn fn; void *arg; unsigned after; int armed; } hook[FR_KINDS];
    struct { fr_hook_fn fn; void *arg; fr_kind kind; uint64_t id; } call_hook;

    int enum_calls[FR_KINDS];       /* EnumModules/EnumThreads/EnumJITedFunctions2 calls */
    int live_enums, live_imports;   /* enumerators / IMetaDataImport objects not yet released */
    int notimpl_calls;              /* E_NOTIMPL stubs the agent called */
    const char *last_notimpl;       /* ... the last one's name */
    int detach_requested;

    int violations;
    char notes[FR_MAX_NOTES][160];  /* the first violations, for messages */

    char output[256];               /* the trace file of the current attach */
    int attach_no;

    /* The managed heap a ForceGC walks (fr_heap_*): objects with their class,
     * size and references, each held by a stack root; what the scripted GC
     * delivers besides (a GC in progress before, another GC after). */
    struct { uint64_t addr, cls, size, refs[4]; int nrefs; } heap[FR_MAX_HEAP];
    int nheap;
    int gc_tail_before;             /* ForceGC first ends a GC begun before it: objects, Finished */
    int gc_other_after;             /* ... and after its own GC, another one (gen0) with other objects */
    int force_gcs;                  /* ForceGC calls that ran a GC (atomic: the agent's thread) */
    int walks_stopped;              /* heap walks an ObjectReferences failure ended */
    struct { fr_hook_fn fn; void *arg; int before; } heap_hook;   /* fr_heap_hook */

    /* Exceptions (fr_exc_*): classes (System.Exception first), objects the
     * agent reads the message of, the stack DoStackSnapshot shows, and the
     * catch handler GetNotifiedExceptionClauseInfo places. */
    struct { uint64_t id, parent; char name[64]; } exc_class[FR_MAX_EXC_CLASSES];
    int nexc_class;
    uint64_t exc_module;            /* the module of their metadata */
    void *exc_objects[FR_MAX_EXC_OBJECTS];   /* malloc'd: object, then its message string */
    int nexc_objects;
    uint64_t stack[FR_MAX_STACK];   /* FunctionIDs, leaf first; frame i at FR_CODE_AT(i) + 0x20, IL
                                       offset FR_IL_AT(i) */
    int nstack;
    int snapshots;                  /* DoStackSnapshot calls */

    /* The command's end of the control connection (fr_attach_ctl); -1: none. */
    int ctl_listen_fd, ctl_fd;
    char ctl_path[108];
    char ctl_buf[1024];             /* received, not yet returned as lines */
    size_t ctl_used;
};

/* A fresh runtime (no objects, no agent). */
void fr_init(fake_runtime *rt);
/* Removes trace files left behind. */
void fr_cleanup(fake_runtime *rt);

/* ---- the world ---- */
fr_obj *fr_appdomain(fake_runtime *rt, uint64_t id, const char *name);
fr_obj *fr_assembly(fake_runtime *rt, uint64_t id, uint64_t appdomain, uint64_t manifest_module, const char *name);
fr_obj *fr_module(fake_runtime *rt, uint64_t id, uint64_t assembly, const char *path);
fr_obj *fr_thread(fake_runtime *rt, uint64_t id, uint32_t os_tid);
fr_obj *fr_function(fake_runtime *rt, uint64_t id, uint64_t module, const char *type, const char *method);
/* A dynamic method (LCG, IL stub): no metadata token; IsFunctionDynamic says
 * so and GetDynamicFunctionInfo gives `name` (which a test may change, as
 * when the runtime reuses a collected dynamic method's ID). */
fr_obj *fr_dynamic_function(fake_runtime *rt, uint64_t id, uint64_t module, const char *name);
fr_obj *fr_find(fake_runtime *rt, fr_kind kind, uint64_t id);

/* Lifetime steps, in golden-rule order (enumerability changes first, the
 * event last).  An unloaded module takes its functions with it. */
void fr_begin_load(fake_runtime *rt, fr_kind kind, uint64_t id);
void fr_finish_load(fake_runtime *rt, fr_kind kind, uint64_t id);
void fr_begin_unload(fake_runtime *rt, fr_kind kind, uint64_t id);
void fr_finish_unload(fake_runtime *rt, fr_kind kind, uint64_t id);
void fr_load(fake_runtime *rt, fr_kind kind, uint64_t id);     /* begin + finish */
void fr_unload(fake_runtime *rt, fr_kind kind, uint64_t id);   /* begin + finish */

/* Runs fn inside the next enumerator of kind (FR_MODULE, FR_THREAD,
 * FR_FUNCTION), before it hands out item number `after`. */
void fr_hook(fake_runtime *rt, fr_kind kind, unsigned after, fr_hook_fn fn, void *arg);

/* Runs fn once, inside the agent's first Info/metadata call naming id
 * (before it is answered), like another runtime thread acting while the
 * agent queries that ID.  The agent may hold its gate's read side there:
 * fn must not deliver an unload or a thread destruction (on one thread that
 * would wait for itself; in a real runtime it waits for the query). */
void fr_on_call(fake_runtime *rt, fr_kind kind, uint64_t id, fr_hook_fn fn, void *arg);

/* ---- the agent ---- */

/* Creates an agent instance the way the runtime does (DllGetClassObject
 * for CLSID_clrprobe, or CLSID_clrprobe_notification when
 * rt->ask_notification, CreateInstance, LoadAsNotificationOnly) and calls
 * InitializeForAttach with "v=1;output=<temp file>;collect=<collect>".
 * Returns its HRESULT. */
HRESULT fr_attach(fake_runtime *rt, const char *collect);
/* fr_attach with a control connection: the test plays `clrprobe attach`
 * (common/control_protocol.h), listening on a socket whose path goes into
 * the configuration as ctl=, and accepting the agent's connection. */
HRESULT fr_attach_ctl(fake_runtime *rt, const char *collect);
/* The next line the agent sent (without its newline), waiting up to
 * timeout_ms: 1, or 0 (timed out, or the connection closed). */
int fr_ctl_line(fake_runtime *rt, char *buf, size_t cap, int timeout_ms);
/* Reads lines until one that is `word` or starts with `word `, up to
 * timeout_ms in all: 1 (the line in buf), or 0. */
int fr_ctl_wait(fake_runtime *rt, const char *word, char *buf, size_t cap, int timeout_ms);
/* Sends text to the agent: 0, or -1. */
int fr_ctl_send(fake_runtime *rt, const char *text);
/* The runtime turns callbacks on (after InitializeForAttach returned). */
void fr_enable_events(fake_runtime *rt);
/* ProfilerAttachComplete (the catch-up runs here). */
HRESULT fr_attach_complete(fake_runtime *rt);
/* ProfilerDetachSucceeded, events off, then the runtime's last Release.
 * Returns the reference count Release reported (0: the instance is gone). */
unsigned fr_detach(fake_runtime *rt);

/* Raw callbacks for events without world state (GC, suspensions);
 * delivered only when events are on and the mask asks for them. */
/* The heap: fr_heap_add puts an object (class, size, references) at addr. */
void fr_heap_add(fake_runtime *rt, uint64_t addr, uint64_t cls, uint64_t size, const uint64_t *refs, int nrefs);
/* A GC of generation 0 that moves objects: MovedReferences2 with n ranges
 * (old, new, len), the heap's addresses updated accordingly (objects of the
 * condemned ranges outside every range die and leave the heap). */
void fr_heap_gc_moving(fake_runtime *rt, const uint64_t *old, const uint64_t *new_, const uint64_t *len, int n);
/* Runs fn once, inside the next heap walk (on the thread of the GC: the
 * agent's), before the ObjectReferences of object number `before`, like
 * another thread acting while the runtime walks the heap. */
void fr_heap_hook(fake_runtime *rt, int before, fr_hook_fn fn, void *arg);
/* Waits (up to 10 s) until ForceGC has run n GCs; 0, or -1 on time out. */
int fr_wait_force_gcs(fake_runtime *rt, int n);
/* The first address of generation g's first range (GetGenerationBounds). */
uint64_t fr_gen_start(int g);

void fr_gc_started(fake_runtime *rt);
void fr_gc_finished(fake_runtime *rt);
void fr_suspend_started(fake_runtime *rt);
void fr_resume_finished(fake_runtime *rt);
/* The bytes of generations 0, 1, 2, LOH, POH GetGenerationBounds reports. */
void fr_generation_sizes(uint64_t bytes[5]);

/* ---- exceptions ---- */

/* An exception class (parent 0: it is System.Exception) whose metadata is
 * in module (a loaded one).  The first class declared with parent 0 is
 * System.Exception: its layout has _message at offset 16. */
void fr_exc_class(fake_runtime *rt, uint64_t module, uint64_t id, const char *name, uint64_t parent);
/* A new exception object of class cls with message (NULL: _message null).
 * Returns its ObjectID (real memory, laid out as the runtime's). */
uint64_t fr_exc_object(fake_runtime *rt, uint64_t cls, const char *message);
/* The managed stack DoStackSnapshot of the current thread walks from now on
 * (FunctionIDs, leaf first). */
void fr_exc_stack(fake_runtime *rt, const uint64_t *fids, int n);

/* One exception callback, delivered when events are on and the mask has
 * COR_PRF_MONITOR_EXCEPTIONS: a = the ObjectID (THROWN, CATCH_ENTER's
 * object as b) or the FunctionID (the *_ENTER and CATCHER_FOUND ones). */
typedef enum fr_exc_event {
    FR_THROWN, FR_SEARCH_ENTER, FR_SEARCH_LEAVE, FR_FILTER_ENTER, FR_FILTER_LEAVE, FR_CATCHER_FOUND,
    FR_UNWIND_ENTER, FR_UNWIND_LEAVE, FR_FINALLY_ENTER, FR_FINALLY_LEAVE, FR_CATCH_ENTER, FR_CATCH_LEAVE
} fr_exc_event;
void fr_exc(fake_runtime *rt, fr_exc_event ev, uint64_t a, uint64_t b);

/* Prints the recorded violations (for a failing test). */
void fr_print_violations(const fake_runtime *rt);

/* ---- the trace ---- */

/* What the report (rp_load: sorted, catch-up merged) says about one ID. */
typedef struct fr_state {
    int known;           /* some record names it */
    int live;            /* its last lifetime was not closed by an unload/destroy */
    int loads;           /* load records in its last lifetime */
    int unloads;         /* unload records in all */
    int max_loads;       /* most load records in any one lifetime (1 = no duplicate) */
    int catchup;         /* the last load record came from the catch-up */
    const char *name;    /* path/name of the last load record ("" if none) */
    uint64_t id2;        /* its secondary ID (assembly of a module, module of a function) */
} fr_state;

/* load_kind/unload_kind: TK_MODULE_LOAD/TK_MODULE_UNLOAD, TK_THREAD_CREATE/
 * TK_THREAD_DESTROY, TK_JIT/0, ... */
fr_state fr_state_of(const rp_trace *tr, int load_kind, int unload_kind, uint64_t id);
#define fr_module_state(tr, id) fr_state_of((tr), TK_MODULE_LOAD, TK_MODULE_UNLOAD, (id))
#define fr_assembly_state(tr, id) fr_state_of((tr), TK_ASSEMBLY_LOAD, TK_ASSEMBLY_UNLOAD, (id))
#define fr_thread_state(tr, id) fr_state_of((tr), TK_THREAD_CREATE, TK_THREAD_DESTROY, (id))
#define fr_jit_state(tr, id) fr_state_of((tr), TK_JIT, 0, (id))

/* Number of records of kind (with id, unless id is 0). */
int fr_count(const rp_trace *tr, int kind, uint64_t id);

/* IDs of load_kind that appear more than once in one lifetime (0 = the
 * merge rule holds for every ID). */
int fr_duplicates(const rp_trace *tr, int load_kind, int unload_kind);

/* Loads the trace of the last attach.  0, or -1 (message printed). */
int fr_load_trace(fake_runtime *rt, rp_trace *tr);

#endif
