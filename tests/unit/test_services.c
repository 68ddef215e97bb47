/* test_services.c - the service table (agent/core/service.h) holds what the
 * session relies on: every slot of the vtable set by one owner only (the
 * core or one service), the descriptors consistent with the start and stop
 * order the session runs, and the event mask each configuration needs made
 * from the services' bits, kept to what the runtime allows after an attach
 * and beside a main profiler. */
#include "unit.h"
#include "agent/core/com_object.h"
#include "agent/core/service.h"

#include <string.h>

#define NSLOTS (sizeof(ICorProfilerCallbackVtbl) / sizeof(void *))

typedef union {
    ICorProfilerCallbackVtbl v;
    void *slot[NSLOTS];
} vtable_slots;

/* The slots service i sets, on an empty vtable. */
static void service_slots(int i, vtable_slots *out)
{
    memset(out, 0, sizeof(*out));
    if (agent_services[i]->callbacks)
        agent_services[i]->callbacks(&out->v);
}

/* The slots the core itself sets (com_object.c): IUnknown and the
 * session's lifecycle. */
static int core_slot(size_t k)
{
    static const size_t core[] = {
        CORPROF_SLOT(ICorProfilerCallbackVtbl, QueryInterface), CORPROF_SLOT(ICorProfilerCallbackVtbl, AddRef),
        CORPROF_SLOT(ICorProfilerCallbackVtbl, Release), CORPROF_SLOT(ICorProfilerCallbackVtbl, Initialize),
        CORPROF_SLOT(ICorProfilerCallbackVtbl, Shutdown),
        CORPROF_SLOT(ICorProfilerCallbackVtbl, InitializeForAttach),
        CORPROF_SLOT(ICorProfilerCallbackVtbl, ProfilerAttachComplete),
        CORPROF_SLOT(ICorProfilerCallbackVtbl, ProfilerDetachSucceeded),
        CORPROF_SLOT(ICorProfilerCallbackVtbl, LoadAsNotificationOnly),
    };
    for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
        if (core[i] == k)
            return 1;
    return 0;
}

TEST(services_each_callback_slot_has_one_owner)
{
    const vtable_slots *full = (const vtable_slots *)profiler_vtable();
    int owner[NSLOTS], owned = 0;

    for (size_t k = 0; k < NSLOTS; k++)
        owner[k] = core_slot(k) ? -2 : -1;
    for (int i = 0; i < SERVICE_COUNT; i++) {
        vtable_slots mine;
        service_slots(i, &mine);
        for (size_t k = 0; k < NSLOTS; k++) {
            if (!mine.slot[k])
                continue;
            if (owner[k] != -1) {
                printf("    slot %zu set by %s and by %s\n", k, agent_services[i]->name,
                       owner[k] == -2 ? "the core" : agent_services[owner[k]]->name);
                CHECK(0);
            }
            owner[k] = i;
            owned++;
            CHECK(full->slot[k] == mine.slot[k]);     /* and the vtable the runtime gets has it */
        }
    }
    CHECK(owned >= 40);                               /* (events, heap, exceptions, tracer, ...) */
    CHECK(owner[CORPROF_SLOT(ICorProfilerCallbackVtbl, ExceptionThrown)] == SERVICE_exceptions);
    CHECK(owner[CORPROF_SLOT(ICorProfilerCallbackVtbl, ModuleLoadFinished)] == SERVICE_events);
    CHECK(owner[CORPROF_SLOT(ICorProfilerCallbackVtbl, RootReferences2)] == SERVICE_heap);
    CHECK(owner[CORPROF_SLOT(ICorProfilerCallbackVtbl, GetReJITParameters)] == SERVICE_rejit);
    for (size_t k = 0; k < NSLOTS; k++)
        CHECK(full->slot[k] != NULL);                 /* the defaults fill the rest */
}

TEST(services_descriptors_fit_the_session_order)
{
    int drains = 0, windows = 0;

    CHECK_EQ(SERVICE_COUNT, (int)(sizeof(agent_services) / sizeof(agent_services[0])));
    for (int i = 0; i < SERVICE_COUNT; i++) {
        const agent_service *s = agent_services[i];
        CHECK(s->name && s->name[0]);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(s->name, agent_services[j]->name) != 0);
        CHECK(!s->start == !s->stop);                 /* a thread is started and stopped, or neither */
        if (s->start && s->when == AFTER_CATCHUP)
            CHECK(s->failed_note && s->failed_note[0]);   /* its failure is said in the trace */
        if (s->drains) {
            drains++;
            CHECK_EQ(i, 0);                           /* started first, stopped last */
            CHECK(!s->stop_before_detach);
        }
        if (s->cpu_window)
            windows++;
    }
    CHECK_EQ(drains, 1);
    CHECK_EQ(windows, 1);
    CHECK(agent_services[SERVICE_COUNT - 1] == &control_service);   /* stopped first: it stops the others */
    CHECK(SERVICE_heap < SERVICE_heap_listener);     /* a service after the one it uses */
    CHECK(SERVICE_live < SERVICE_eventpipe);
    CHECK(SERVICE_heap < SERVICE_live);              /* GC hooks: a snapshot's records before live's look */
    CHECK(SERVICE_sampler < SERVICE_exceptions);     /* SIGPROF unblocked before the exception is followed */
}

static void mask_of(const char *text, int attach, int notification, DWORD *low, DWORD *high)
{
    cp_config cfg;
    char err[256];

    cp_config_init(&cfg);
    if (cp_config_parse(text, &cfg, err, sizeof(err)) < 0) {
        printf("    config %s: %s\n", text, err);
        CHECK(0);
    }
    services_event_mask(&cfg, attach, notification, low, high);
}

TEST(services_event_mask_is_what_the_configuration_needs)
{
    DWORD low, high;

    /* module loads always (the name cache, the catch-up) */
    mask_of("output=/x;collect=gc", 0, 0, &low, &high);
    CHECK(low & COR_PRF_MONITOR_MODULE_LOADS);
    CHECK(high & COR_PRF_HIGH_BASIC_GC);
    CHECK(!(low & COR_PRF_ENABLE_STACK_SNAPSHOT));
    /* the signal engine: threads as they start, ExceptionThrown */
    mask_of("output=/x;collect=cpu;sampler=signal", 0, 0, &low, &high);
    CHECK((low & (COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT)) ==
          (COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT));
    mask_of("output=/x;collect=cpu;sampler=suspend", 0, 0, &low, &high);
    CHECK(!(low & COR_PRF_MONITOR_EXCEPTIONS));
    /* --trace: the hooks at launch, ReJIT after an attach */
    mask_of("output=/x;collect=jit;trace=Program.*", 0, 0, &low, &high);
    CHECK(low & COR_PRF_MONITOR_ENTERLEAVE);
    CHECK(!(low & COR_PRF_ENABLE_REJIT));
    mask_of("output=/x;collect=jit;trace=Program.*", 1, 0, &low, &high);
    CHECK(low & COR_PRF_ENABLE_REJIT);
    CHECK(!(low & COR_PRF_MONITOR_ENTERLEAVE));
    CHECK(!(low & COR_PRF_MONITOR_CACHE_SEARCHES));  /* not allowed after an attach */
    CHECK((low & ~(DWORD)COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0);
    /* heap snapshots by a GC: GC monitoring, but not beside a main profiler */
    mask_of("output=/x;collect=gc;heap_count=1", 0, 0, &low, &high);
    CHECK(low & COR_PRF_MONITOR_GC);
    mask_of("output=/x;collect=gc;heap_count=1", 0, 1, &low, &high);
    CHECK(!(low & COR_PRF_MONITOR_GC));
    CHECK((low & ~(DWORD)COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER) == 0);
    CHECK((high & ~(DWORD)COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER) == 0);
    /* allocations and contention by EventPipe; every allocation at launch */
    mask_of("output=/x;collect=alloc", 0, 0, &low, &high);
    CHECK(high & COR_PRF_HIGH_MONITOR_EVENT_PIPE);
    mask_of("output=/x;collect=alloc-all", 0, 0, &low, &high);
    CHECK(low & COR_PRF_ENABLE_OBJECT_ALLOCATED);
    mask_of("output=/x;collect=alloc-all", 1, 0, &low, &high);
    CHECK(!(low & COR_PRF_ENABLE_OBJECT_ALLOCATED));
}

TEST(services_state_is_allocated_with_the_instance)
{
    profiler *p = profiler_create(NULL);

    CHECK(p != NULL);
    if (!p)
        return;
#define STATE_CHECK_(name) CHECK(!name##_service.state_size == !p->name);
    AGENT_SERVICES(STATE_CHECK_)
    CHECK(p->events == NULL);                          /* (no state: no thread) */
    CHECK(p->sampler != NULL);
    p->iface.lpVtbl->Release(&p->iface);
}
