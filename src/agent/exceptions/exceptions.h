/* exceptions.h - the "exceptions" service (--collect exceptions): every
 * exception's life on its thread, from ExceptionThrown to the end of its
 * catch clause or to its leaving managed code (exc_machine.h), recorded as
 * exception_thrown (type, message, throw stack, nesting), exception_catch
 * (the catching function and the type, as agents before wrote it),
 * exception_handled and exception_unhandled.
 *
 * The message is read from the exception object inside ExceptionThrown,
 * where the object is valid and cannot move: System.Exception._message at
 * the offset GetClassLayout gives (found once per session from the first
 * exception's class and its bases), the string through GetStringLayout2;
 * at most EXC_MESSAGE_MAX bytes of UTF-8.  A message the runtime builds
 * lazily (_message null: many runtime exceptions fill in a resource string
 * only when Message is read) is recorded as empty.  The throw stack is a
 * DoStackSnapshot of the thread in the same callback, sampled: a thread
 * takes the stack of an exception of a given type at most once every
 * EXC_STACK_INTERVAL_NS (a walk costs more than a throw: a program throwing
 * 100,000 a second would pay a third more); the first of each type on a
 * thread always has one.  Every exception is recorded, with its type,
 * message and thrower (the first frame its first pass searched, in
 * exception_handled/_unhandled); only the stacks are sampled, and the
 * report gives each stack the exceptions of its type on its thread that
 * came after it without one (report/profile.c).  An exception whose second pass begins without a
 * catcher and that was not given a stack has its stack's depth counted
 * then (a walk without names), to tell unhandled from handled natively.
 *
 * An exception that reaches no managed catch clause is written out (the
 * thread's buffer flushed) at once: the process may be about to die of it. */
#ifndef CLRPROBE_AGENT_EXCEPTIONS_H
#define CLRPROBE_AGENT_EXCEPTIONS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "agent/core/service.h"
#include "api/corprof.h"

typedef struct profiler profiler;

#define EXC_STACK_MAX 128              /* throw stack frames kept (the root side is lost) */
#define EXC_STACK_INTERVAL_NS 1000000  /* a thread's stacks of one exception type: at most one a millisecond */
#define EXC_STACK_TYPES 8              /* exception types a thread samples the stacks of apart */

typedef struct exceptions_state {
    atomic_int on;                     /* started: the callbacks follow exceptions */
    atomic_uint_fast64_t next_id;      /* the last exception's number */
    ip_functions ipf;                  /* the throw stacks' function names; lives until the instance is freed */
    int ipf_ok;
    /* where a message is (once per session: 0 not looked for, 1 found, -1 not to be had) */
    pthread_mutex_t layout_lock;
    int layout_lock_ok;
    atomic_int layout;
    int layout_tries;                  /* lookups that failed (a class not fully loaded yet): -1 after a few */
    uint32_t message_offset;           /* of Exception._message in the object */
    ULONG string_length_offset, string_buffer_offset;
} exceptions_state;

int exceptions_start(profiler *p);
void exceptions_stop(profiler *p);
/* At the instance's end (a late callback may still use the names cache). */
void exceptions_free(profiler *p);

/* The exception callbacks (cb_exceptions.c), on the thread of the exception. */
void exceptions_thrown(profiler *p, ObjectID obj);
/* Every other exception callback (exc_machine.h's EXC_EV_*; fid 0 for the
 * Leave ones). */
void exceptions_step(profiler *p, int ev, FunctionID fid);
/* Returns the catcher's module (for the attach catch-up: attach_saw_module). */
ModuleID exceptions_catcher_enter(profiler *p, FunctionID fid, ObjectID obj);

#endif
