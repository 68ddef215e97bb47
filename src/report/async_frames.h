/* async_frames.h - async code as the user wrote it: the profile builder
 * (profile.c) shows the MoveNext of a compiler-generated async state machine
 * as the method it implements, "Namespace.Type.Method [async]", and folds
 * the builders' Start frames out of the stacks (docs/sampling.md, "Async
 * methods").  Pure functions of frame names, so that unit tests can check
 * them over tables of real names. */
#ifndef CLRPROBE_REPORT_ASYNC_FRAMES_H
#define CLRPROBE_REPORT_ASYNC_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "report/runtime_frames.h"     /* rp_frame_names */

/* What a frame is to async code. */
enum rp_frame_role {
    RP_FRAME_PLAIN = 0,
    RP_FRAME_STATE_MACHINE,  /* Type+<Method>d__N.MoveNext: an async method's state machine, an async
                                iterator's, or a plain iterator's (the same names) */
    RP_FRAME_ASYNC_START,    /* a builder's Start<SM> (AsyncTaskMethodBuilder, ..., AsyncMethodBuilderCore),
                                AsyncIteratorMethodBuilder.MoveNext<SM>, a box's ExecutionContextCallback:
                                trampolines into the state machine, folded out of stacks */
    RP_FRAME_ASYNC_RESUME,   /* a state machine box's MoveNext or ExecuteFromThreadPool, ExecutionContext.Run*:
                                how a continuation runs after an await; kept */
};

/* The role of the frame called name. */
enum rp_frame_role rp_frame_role(const char *name);

/* For a state machine's MoveNext (RP_FRAME_STATE_MACHINE), writes the
 * method it implements, "Namespace.Type.Method [async]" (the type's nesting
 * and generic arguments kept: "Outer+Inner.Method<System.__Canon> [async]"),
 * into out.  Returns its length, or -1 if name is no state machine's
 * MoveNext or out (len bytes) is too small.  Writes at most strlen(name) + 9
 * bytes. */
long rp_async_method_name(const char *name, char *out, size_t len);

/* Folds one stack (frame numbers, root first) in place and returns its new
 * length: drops RP_FRAME_ASYNC_START frames; replaces a state machine's
 * MoveNext by its method (renamed[f], UINT32_MAX for none) when its caller
 * is async plumbing (a Start or resume frame: an iterator's MoveNext, called
 * by its consumer, stays as it is); and drops the method's kick-off frame
 * (the method itself, which only creates the state machine and starts it)
 * right above the folded Start frames.  role[f] and names[f] describe frame
 * f.  A stack of nothing but Start frames is left whole. */
uint32_t rp_async_fold(uint32_t *frames, uint32_t n, const unsigned char *role, const uint32_t *renamed,
                       char *const *names);

/* Puts a folded stack (rp_async_fold) the right way up where a task's
 * completion ran its awaiters' continuations inline: a method M [async],
 * then only the task's completion (SetResult, TrySetResult,
 * RunContinuations... and the box and context frames that resume a state
 * machine), then the awaiting method A [async]: M has finished and is not
 * A's callee, though the stack has it under A.  Such a run of completions
 * is dropped, A kept where the first completed method was, its frames above
 * it; a caller that started an async method (A [async] right under M
 * [async], no completion between) stays its caller.  Returns the new
 * length. */
uint32_t rp_async_uninvert(uint32_t *frames, uint32_t n, char *const *names);

/* A state machine's MoveNext the JIT inlined into its box leaves the box's
 * frame (AsyncStateMachineBox<SM>.MoveNext or ExecuteFromThreadPool) as the
 * only trace of the method: such a box frame, with nothing but plumbing up
 * to the next frame of the program (no later box, no frame of the method),
 * becomes the method's frame, "Type.Method [async]" (names interned through
 * fn).  Returns n, or -1 (out of memory). */
long rp_async_name_boxes(uint32_t *frames, uint32_t n, const rp_frame_names *fn);

#endif
