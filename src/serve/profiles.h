/* profiles.h - the profiles `clrprobe serve` makes on request, in the
 * pprof format Go's net/http/pprof made standard (gzipped profile.proto,
 * Go's sample types), by running clrprobe's own commands as child
 * processes: `attach` records into a private temporary file, `report`
 * turns it into pprof.  The same engine as `attach`, each request isolated
 * in its processes, one recording per process at a time (a second request
 * for it waits its turn). */
#ifndef CLRPROBE_SERVE_PROFILES_H
#define CLRPROBE_SERVE_PROFILES_H

#include <stddef.h>

#define PROFILE_MAX_SECONDS     60      /* a request's recording, at most */
#define PROFILE_DEFAULT_SECONDS 30      /* Go's default for /debug/pprof/profile */
#define PROFILE_WINDOW_SECONDS  10      /* allocs and mutex: the window recorded by default */

typedef enum profile_kind {
    PROFILE_CPU,                /* /debug/pprof/profile: samples, cpu (nanoseconds) */
    PROFILE_ALLOCS,             /* /debug/pprof/allocs: alloc_objects, alloc_space over the window */
    PROFILE_HEAP,               /* /debug/pprof/heap: inuse_objects, inuse_space of a heap snapshot */
    PROFILE_MUTEX,              /* /debug/pprof/mutex: contentions, delay (lock waits) over the window */
    PROFILE_THREADS,            /* /debug/pprof/goroutine: every thread's stack now */
} profile_kind;

/* The kind a pprof path names ("profile", "allocs", "heap", "mutex",
 * "delta_mutex", "goroutine"): 0 and *kind, or -1. */
int profile_kind_of(const char *name, profile_kind *kind);

/* Whether the request is still wanted (its client is there), asked after
 * its wait for its turn. */
typedef int (*profile_wanted_fn)(const void *ctx);

/* Records and converts a profile of process pid.  0 with *body (malloc'd,
 * gzipped pprof) and *len; -1 with a one-line reason in err and the HTTP
 * status that says it in *status. */
int profile_make(int pid, profile_kind kind, unsigned seconds, profile_wanted_fn wanted, const void *ctx,
                 char **body, size_t *len, unsigned *status, char *err, size_t errlen);

#endif
