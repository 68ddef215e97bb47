/* agent_thread.h - starting one of the agent's own threads (the services'
 * and the control connection's).  They take no signal: the profilee's
 * handlers, and the signal sampler's SIGPROF, are for the profilee's
 * threads, and a signal delivered to ours could run its code on a thread
 * it does not know. */
#ifndef CLRPROBE_AGENT_AGENT_THREAD_H
#define CLRPROBE_AGENT_AGENT_THREAD_H

#include <pthread.h>

/* pthread_create(t, attr, fn, arg) with every signal blocked in the new
 * thread (a thread inherits its creator's mask: blocked around the create,
 * the caller's mask is put back after).  Returns pthread_create's result:
 * 0, or an error number. */
int agent_thread_start(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

#endif
