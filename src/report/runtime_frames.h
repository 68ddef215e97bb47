/* runtime_frames.h - the runtime's own native frames (libcoreclr.so,
 * libclrjit.so: stripped, so the agent can name them only by address)
 * grouped, in a profile's stacks, into one frame that says what the runtime
 * was doing where that can be known: the JIT compiling (a frame of the JIT
 * in the run), a garbage collection (the sample taken during one), waiting
 * (called by a managed wait or lock), running a type initializer (a .cctor
 * above), starting a thread (under its first managed frame), a runtime
 * thread's own work (its name, ".NET ..."), else "[runtime code]"
 * over the managed frame that called it.  --raw-frames keeps the
 * addresses (profile.c applies this unless RP_PROFILE_RAW_FRAMES). */
#ifndef CLRPROBE_REPORT_RUNTIME_FRAMES_H
#define CLRPROBE_REPORT_RUNTIME_FRAMES_H

#include <stdint.h>

#define RP_RUNTIME_JIT      "[runtime: the JIT compiling]"
#define RP_RUNTIME_GC       "[runtime: garbage collection]"
#define RP_RUNTIME_WAIT     "[runtime: waiting]"
#define RP_RUNTIME_TYPEINIT "[runtime: running a type initializer]"
#define RP_RUNTIME_START    "[runtime: thread start]"
#define RP_RUNTIME_CODE     "[runtime code]"

/* The profile's frame names: the name of frame f, and a name interned
 * (its frame number, or -1 out of memory; interning may move the names). */
typedef struct rp_frame_names {
    const char *(*name)(void *ctx, uint32_t f);
    long (*intern)(void *ctx, const char *name);
    void *ctx;
} rp_frame_names;

/* Rewrites frames[0..n) (root first) in place, each run of the runtime's
 * frames as one; thread is the sampled thread's name ("" if none), in_gc
 * whether a GC was in progress at the sample.  Returns the new length, or
 * -1 (out of memory). */
long rp_runtime_group(uint32_t *frames, uint32_t n, const rp_frame_names *fn, const char *thread, int in_gc);

#endif
