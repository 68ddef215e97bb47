/* exc_machine.h - the exception state machine of one thread
 * (docs/exceptions.md): which exceptions are being processed, in which pass, which
 * frame, and which filter, finally or catch runs for each; nested
 * exceptions on a stack.  Pure: it is fed the runtime's exception callbacks
 * in the order the thread receives them and says, through a sink, when an
 * exception's processing is over and how:
 *
 *   handled     its catch clause was entered and has left (or a nested
 *               exception escaped that catch: escaped_by)
 *   ended       it will not reach a managed catch clause (outcome):
 *     EXC_UNHANDLED   the first pass searched the whole stack (stack_depth
 *                     frames) and found no catcher: the process is ending
 *     EXC_NATIVE      the first pass stopped at a native caller without a
 *                     catcher: handled by native code or by the runtime
 *                     (a type initializer's exception, for one)
 *     EXC_FILTER      thrown in a filter and not caught there: it escapes
 *                     the filter, which counts as false, and the runtime
 *                     drops it
 *     EXC_SUPERSEDED  a nested exception escaped the finally that ran for
 *                     it: its processing never resumes (by)
 *
 * The runtime's sequences are not always balanced (on .NET 10 a search that
 * stops at a native boundary is followed by an UnwindFunctionLeave with no
 * Enter; a search frame may be left as an unwind frame), so the machine
 * counts what it can and never assumes a Leave follows an Enter.
 *
 * Nesting: an exception thrown while a filter, finally or catch of the one
 * below it runs is nested in it (depth + 1).  Whether it escapes that
 * handler is decided when its catcher is found: it escapes if its first
 * pass went past the handler's frame (the first search frame in the
 * handler's function) before finding one.  A rethrow ("throw;", or
 * ExceptionDispatchInfo) is a new exception of the same object thrown from
 * the catch of the earlier one (rethrow_of). */
#ifndef CLRPROBE_AGENT_EXC_MACHINE_H
#define CLRPROBE_AGENT_EXC_MACHINE_H

#include <stdint.h>

#include "trace/format.h"

#define EXC_MAX_DEPTH 8          /* nested exceptions followed; deeper ones are counted, not followed */

enum { EXC_UNHANDLED = EXC_OUTCOME_UNHANDLED, EXC_NATIVE = EXC_OUTCOME_NATIVE, EXC_FILTER = EXC_OUTCOME_FILTER,
       EXC_SUPERSEDED = EXC_OUTCOME_SUPERSEDED };

enum { EXC_PHASE_SEARCH = 1, EXC_PHASE_UNWIND, EXC_PHASE_CATCH };
enum { EXC_IN_NONE = 0, EXC_IN_FILTER, EXC_IN_FINALLY, EXC_IN_CATCH };

typedef struct exc_state {
    uint64_t id;                 /* the agent's number for it (exc_thrown's caller gives it) */
    uint64_t t0;                 /* thrown at */
    uint64_t object;             /* its ObjectID when thrown (a rethrow throws the same) */
    uint64_t class_id;           /* the caller's note: its ClassID */
    uint64_t parent;             /* the exception whose handler it was thrown in (0: none) */
    uint64_t rethrow_of;         /* the exception whose catch rethrew this object (0: none) */
    uint32_t depth;              /* 1 + the exceptions it is nested in */
    uint32_t stack_depth;        /* managed frames on its throw stack (0: unknown) */
    uint8_t phase, in;           /* EXC_PHASE_*, EXC_IN_*: the handler of it that runs now */
    uint8_t catcher_found, closed;
    uint64_t handler_fn;         /* the function of that handler */
    uint64_t thrower;            /* the first frame its first pass searched: where it was thrown */
    uint64_t catcher;            /* the function whose catch clause takes it */
    uint32_t catcher_il;         /* the caller's note on where in it (exc_catcher_enter) */
    uint64_t catch_t;            /* its catch clause was entered at (0: not yet) */
    uint32_t search_frames, filters, unwound_frames, finallys;
    int32_t catcher_index;       /* the search frame (0-based) where its catcher was found */
    int32_t handler_index[EXC_MAX_DEPTH];   /* nested: per exception below, the first search
                                                frame in that one's handler function (-1) */
} exc_state;

/* Where the machine's conclusions go.  The functions below take the event's
 * time t, or 0: then now() is asked, only if something ends. */
typedef struct exc_sink {
    void (*handled)(void *ctx, const exc_state *e, uint64_t t, uint64_t escaped_by);
    void (*ended)(void *ctx, const exc_state *e, uint64_t t, int outcome, uint64_t by);
    uint64_t (*now)(void *ctx);
    void *ctx;
} exc_sink;

typedef struct exc_thread {
    exc_state ex[EXC_MAX_DEPTH];
    int n;                       /* exceptions on the stack (the last one is the innermost) */
    uint64_t too_deep;           /* times a throw found EXC_MAX_DEPTH open: the stack was forgotten */
} exc_thread;

/* A thrown object.  Returns the new exception's state (id, t0, object,
 * parent, rethrow_of and depth filled in; the caller may set stack_depth
 * and class_id).  Exceptions it finds over first (left managed code
 * without a catcher and never closed) are ended.  Nested deeper than
 * EXC_MAX_DEPTH, the thread's stack is forgotten (too_deep) and this one
 * starts a new one. */
exc_state *exc_thrown(exc_thread *th, const exc_sink *s, uint64_t id, uint64_t object, uint64_t t);

/* The innermost exception (NULL: none). */
exc_state *exc_current(exc_thread *th);

void exc_search_function_enter(exc_thread *th, uint64_t fid);
void exc_search_filter_enter(exc_thread *th, uint64_t fid);
void exc_search_filter_leave(exc_thread *th, const exc_sink *s, uint64_t t);
void exc_search_catcher_found(exc_thread *th, uint64_t fid);
/* Returns 1 when this began the second pass of an exception no managed
 * catch clause takes (it was ended: the caller makes that durable at once,
 * the process may be about to end). */
int exc_unwind_function_enter(exc_thread *th, const exc_sink *s, uint64_t fid, uint64_t t);
void exc_unwind_finally_enter(exc_thread *th, uint64_t fid);
void exc_unwind_finally_leave(exc_thread *th, const exc_sink *s, uint64_t t);
void exc_catcher_enter(exc_thread *th, const exc_sink *s, uint64_t fid, uint32_t il, uint64_t t);
void exc_catcher_leave(exc_thread *th, const exc_sink *s, uint64_t t);

/* The callbacks after ExceptionThrown and the catch, as one entry point
 * (exceptions.c): ev one of these, fid the callback's FunctionID (0 for the
 * Leave ones).  Returns exc_unwind_function_enter's result for
 * EXC_EV_UNWIND_ENTER, else 0. */
enum { EXC_EV_SEARCH_ENTER, EXC_EV_FILTER_ENTER, EXC_EV_FILTER_LEAVE, EXC_EV_CATCHER_FOUND, EXC_EV_UNWIND_ENTER,
       EXC_EV_FINALLY_ENTER, EXC_EV_FINALLY_LEAVE, EXC_EV_CATCH_LEAVE };
int exc_step(exc_thread *th, const exc_sink *s, int ev, uint64_t fid);

/* The name of an EXC_* outcome ("unhandled", "native", "filter", "superseded"). */
const char *exc_outcome_name(int outcome);

#endif
