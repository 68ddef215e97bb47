/* heap_listener.h - the heap listener: how `clrprobe heap PID` reaches an
 * agent that is already loaded (under `clrprobe run` or `clrprobe attach`,
 * where the runtime would refuse a second profiler).  A service of the
 * session (session.c): its thread listens on the abstract Unix socket
 * "@clrprobe-heap-PID" (PID as this process sees itself; abstract: no file
 * to create or clean up), accepts only a peer of the process's own user or
 * root (SO_PEERCRED), reads one request "heap COUNT INTERVAL_MS" and takes
 * the snapshots into this agent's trace with heap_run (heap.h), telling the
 * peer how it goes (common/control_protocol.h: "hello PID", "snapshot ...",
 * "heap-refused HR", "heap-done", or "error TEXT").  One peer at a time. */
#ifndef CLRPROBE_AGENT_HEAP_LISTENER_H
#define CLRPROBE_AGENT_HEAP_LISTENER_H

#include <pthread.h>
#include <stdatomic.h>

typedef struct profiler profiler;

typedef struct heap_listener_state {
    int fd;                       /* the listening socket (-1: none) */
    int wake;                     /* eventfd that heap_listener_stop writes: the thread's polls end at once */
    pthread_t thread;
    int running;
    atomic_int stop;
    atomic_int peer_stop;         /* the request under way ends: its peer went away, or stop */
} heap_listener_state;

int heap_listener_start(profiler *p);
void heap_listener_stop(profiler *p);

#endif
