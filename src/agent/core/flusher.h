/* flusher.h - the flusher service: a thread of the agent's own that turns
 * the threads' buffered records into chunks of the trace every 250 ms and
 * reaps the state of threads that have exited.  Started and stopped by the
 * session (session.c), like every service. */
#ifndef CLRPROBE_AGENT_FLUSHER_H
#define CLRPROBE_AGENT_FLUSHER_H

#include <pthread.h>

typedef struct profiler profiler;

/* The flusher's state in a profiler instance (all zero: not running). */
typedef struct flusher_state {
    pthread_t thread;
    int running;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int stop;
} flusher_state;

/* Starts the thread (all signals blocked).  0, or -1 (nothing started). */
int flusher_start(profiler *p);

/* Stops and joins it, if it runs. */
void flusher_stop(profiler *p);

#endif
