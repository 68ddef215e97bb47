/* control.h - the attached agent's end of the control connection with
 * `clrprobe attach`; the protocol, shared with the command, is in
 * common/control_protocol.h.
 *
 * The agent's own control thread waits for "detach" and calls
 * RequestProfilerDetach; it is joined before ProfilerDetachSucceeded returns. */
#ifndef CLRPROBE_AGENT_CONTROL_H
#define CLRPROBE_AGENT_CONTROL_H

#include "agent/profiler.h"
#include "common/control_protocol.h"

/* Connects to path (from InitializeForAttach).  0, or -1 with a reason. */
int control_connect(profiler *p, const char *path, char *err, size_t errlen);

/* Waits up to timeout_ms for the "trace" message and returns the file
 * descriptor it carries (close-on-exec), or -1 with a reason in err. */
int control_receive_trace(profiler *p, int timeout_ms, char *err, size_t errlen);

/* Sends one line (no newline in fmt).  Never raises SIGPIPE. */
void control_send(profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts the thread that waits for "detach" / end of stream. */
int control_start(profiler *p);

/* Stops and joins that thread; closes the connection if close_fd. */
void control_stop(profiler *p, int close_fd);

#endif
