/* runtime_frames.c - the runtime's native frames grouped by what they do
 * (runtime_frames.h). */
#include "report/runtime_frames.h"
#include "report/frame_class.h"

#include <stdio.h>
#include <string.h>

enum { NOT_RUNTIME, VM, JIT };

static int runtime_object(const char *name)
{
    if (strncmp(name, "libcoreclr.so", 13) == 0 && (name[13] == '!' || name[13] == '+'))
        return VM;
    if (strncmp(name, "libclrjit.so", 12) == 0 && (name[12] == '!' || name[12] == '+'))
        return JIT;
    return NOT_RUNTIME;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A managed caller whose call into the runtime is a wait. */
static int waits(const char *caller)
{
    return starts(caller, "System.Threading.Monitor.") || starts(caller, "System.Threading.Lock.") ||
           starts(caller, "System.Threading.WaitHandle.") || starts(caller, "System.Threading.Thread.Sleep") ||
           starts(caller, "System.Threading.Thread.Join") || starts(caller, "System.Threading.LowLevel") ||
           starts(caller, "System.Threading.WaitSubsystem");
}

/* Whether frames[from..to) has a managed frame. */
static int managed_in(const uint32_t *frames, uint32_t from, uint32_t to, const rp_frame_names *fn)
{
    for (uint32_t k = from; k < to; k++) {
        enum rp_code_class c = rp_frame_classify(fn->name(fn->ctx, frames[k]));
        if (c == RP_CODE_PROGRAM || c == RP_CODE_DISPATCH)
            return 1;
    }
    return 0;
}

static const char *label_of(uint32_t *frames, uint32_t n, uint32_t from, uint32_t to, const rp_frame_names *fn,
                            const char *thread, int in_gc, int jit, char *buf, size_t len)
{
    const char *caller = from > 0 ? fn->name(fn->ctx, frames[from - 1]) : NULL;
    const char *callee = to < n ? fn->name(fn->ctx, frames[to]) : NULL;
    size_t cl;

    if (jit)
        return RP_RUNTIME_JIT;
    if (in_gc || (caller && starts(caller, "System.GC.")))
        return RP_RUNTIME_GC;
    if (callee && (cl = strlen(callee)) > 6 && strcmp(callee + cl - 6, ".cctor") == 0)
        return RP_RUNTIME_TYPEINIT;
    if (caller && waits(caller))
        return RP_RUNTIME_WAIT;
    if (!managed_in(frames, 0, from, fn)) {           /* nothing managed under it: the thread's start */
        if (managed_in(frames, to, n, fn))
            return RP_RUNTIME_START;                   /* (under the thread's first managed frame) */
        if (strncmp(thread, ".NET ", 5) == 0) {        /* a thread of the runtime's own (its names), all native */
            snprintf(buf, len, "[runtime thread: %s]", thread);
            return buf;
        }
    }
    return RP_RUNTIME_CODE;
}

long rp_runtime_group(uint32_t *frames, uint32_t n, const rp_frame_names *fn, const char *thread, int in_gc)
{
    uint32_t out = 0;
    char buf[160];

    for (uint32_t k = 0; k < n;) {
        uint32_t j = k;
        int jit = 0;
        long f;
        int kind;
        while (j < n && (kind = runtime_object(fn->name(fn->ctx, frames[j]))) != NOT_RUNTIME) {
            jit |= kind == JIT;
            j++;
        }
        if (j == k) {
            frames[out++] = frames[k++];
            continue;
        }
        if ((f = fn->intern(fn->ctx, label_of(frames, n, k, j, fn, thread, in_gc, jit, buf, sizeof(buf)))) < 0)
            return -1;
        frames[out++] = (uint32_t)f;
        k = j;
    }
    return out;
}
