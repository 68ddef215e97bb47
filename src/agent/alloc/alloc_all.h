/* alloc_all.h - every allocation (--collect alloc-all, launch only): the
 * ObjectAllocated callback (COR_PRF_ENABLE_OBJECT_ALLOCATED, which the
 * runtime takes only at startup, slows every allocation down and makes the
 * agent impossible to detach) with the allocating thread's own stack
 * (DoStackSnapshot).  Exact counts, not samples: each thread adds its
 * allocations up by (type, stack) in a table of its own, written out as
 * alloc_sample records of method ALLOC_METHOD_EXACT (count objects of size
 * bytes in all) when the table fills, when a new thread finds that the
 * table's thread has exited, and when the service stops.  Costly by
 * design (docs/sampling.md gives the measured cost). */
#ifndef CLRPROBE_AGENT_ALLOC_ALL_H
#define CLRPROBE_AGENT_ALLOC_ALL_H

#include <pthread.h>
#include <stdatomic.h>

#include "agent/core/service.h"

typedef struct profiler profiler;
typedef struct alloc_table alloc_table;

typedef struct alloc_all_state {
    atomic_int active;               /* ObjectAllocated records */
    atomic_int in_flight;            /* callbacks inside our code */
    ip_functions ipf;
    int ipf_ok;
    pthread_key_t key;               /* a thread's own table (no destructor: see thread_state.c) */
    int key_ok;
    pthread_mutex_t lock;            /* guards the list of tables */
    alloc_table *tables;             /* every thread's; those of exited threads are written out and
                                        freed when a new thread makes one */
} alloc_all_state;

int alloc_all_start(profiler *p);
/* Writes every thread's table out. */
void alloc_all_stop(profiler *p);
/* Frees the tables (the instance's teardown). */
void alloc_all_free(profiler *p);

#endif
