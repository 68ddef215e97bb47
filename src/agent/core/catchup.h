/* catchup.h - what an attached agent knows about runtime IDs, and the
 * rules (docs/attach.md, "What the runtime guarantees" and "Merge rules")
 * for merging the catch-up enumeration with live events:
 *
 *  - an ID may come from the enumeration and from an event: it is reported
 *    once;
 *  - an event that arrives after the snapshot was taken wins over the
 *    snapshot, even if the iteration reaches that ID later: an ID unloaded
 *    while we iterate is skipped, and no runtime call is made for it after
 *    its UnloadStarted;
 *  - every runtime query the catch-up makes runs inside the gate (read
 *    side); every UnloadStarted/ThreadDestroyed takes the gate's write side,
 *    so it waits for queries in flight and the IDs they use stay valid.
 *
 * A cu_table holds the state of one kind of ID (modules, assemblies, app
 * domains, threads); a cu_gate is shared by all of them.  No runtime calls
 * are made here. */
#ifndef CLRPROBE_AGENT_CATCHUP_H
#define CLRPROBE_AGENT_CATCHUP_H

#include <pthread.h>
#include <stdint.h>

typedef struct cu_gate {
    pthread_rwlock_t lock;
    uint64_t unloads;            /* bumped by every unload, under the write side */
} cu_gate;

int cu_gate_init(cu_gate *g);
void cu_gate_destroy(cu_gate *g);
void cu_gate_enter(cu_gate *g);            /* read side: around catch-up queries */
void cu_gate_leave(cu_gate *g);
uint64_t cu_gate_unloads(cu_gate *g);      /* call inside the gate */
void cu_gate_bump(cu_gate *g);             /* an unload with no table of its own (classes) */

typedef struct cu_table cu_table;

enum cu_state {
    CU_UNKNOWN = 0,              /* never heard of */
    CU_LIVE = 1,                 /* reported loaded/created (by event or catch-up) */
    CU_DEAD = 2,                 /* an unload/destroy event was seen */
};

cu_table *cu_table_create(void);
void cu_table_free(cu_table *t);

enum cu_state cu_state_of(cu_table *t, uint64_t id);

/* A load/create event: the ID is live.  Returns the previous state. */
enum cu_state cu_on_load(cu_table *t, uint64_t id);

/* An unload/destroy event, while holding the gate's write side (use
 * cu_on_unload_gated unless you already hold it). */
void cu_on_unload(cu_table *t, uint64_t id);
void cu_on_unload_gated(cu_gate *g, cu_table *t, uint64_t id, int code_unloads);
/* code_unloads: the unload can take code with it (modules, assemblies): it
 * bumps the unload count, so function snapshots and samples taken before it
 * are no longer trusted.  A thread's end does not. */

/* Catch-up (from a snapshot, or lazily) wants to report id.  Call inside the
 * gate.  Returns 1 and marks it live if it was unknown: report it.  Returns 0
 * if an event already reported it or it has been unloaded since. */
int cu_claim(cu_table *t, uint64_t id);

/* For a query of id off a callback (an agent thread): enters the gate and
 * returns 1 if id is known live (reported by the catch-up's enumeration or
 * a load event, and no unload since), so it may be queried until
 * cu_gate_leave; returns 0 outside the gate if not (an ID never seen may be
 * one whose unload began before our callbacks were asked for). */
int cu_gate_enter_live(cu_gate *g, cu_table *t, uint64_t id);

/* Number of IDs in each state (tests and diagnostics). */
void cu_counts(cu_table *t, unsigned *live, unsigned *dead);

#endif
