/* metrics_session.h - one process's metrics, read continuously: an EventPipe
 * session with the metrics source (ipc/ipc.h), its stream read as it comes
 * (nettrace.h, metrics_source.h) into a table of series
 * (metrics_table.h), a callback at the end of each interval, and a stop
 * that ends the session cleanly.  `clrprobe counters` prints one; `clrprobe
 * serve` keeps one per process.  docs/counters.md says how it works. */
#ifndef CLRPROBE_EVENTPIPE_METRICS_SESSION_H
#define CLRPROBE_EVENTPIPE_METRICS_SESSION_H

#include "eventpipe/metrics_table.h"

#include <stddef.h>

/* A process younger than this is let finish starting before a session
 * begins: the runtime can deadlock when an event session enables its
 * event sources while the program's first type initializers run
 * (dotnet/runtime#105682, #118014: seen here too, one start in six with a
 * session begun as the diagnostics socket appeared). */
#define MS_STARTUP_GRACE_MS 2000
#define MS_TIMEOUT_MS       10000      /* for a session to start, and to stop */

typedef struct ms_session ms_session;

/* Called after each interval, with the table as it now stands. */
typedef void (*ms_interval_fn)(void *ctx, const mt_table *t);

/* Starts a session in process pid for meters (a comma-separated list of
 * meter names or METER\INSTRUMENT) every refresh_s seconds (whole), shared
 * with other tools on .NET 8 and later.  Waits first while the process is
 * younger than MS_STARTUP_GRACE_MS; cancel_fd (-1: none) readable ends the
 * waits (NULL, with *status IPC_ERR_CANCELLED).  NULL with *status (an
 * ipc_status) and err set when it cannot start. */
ms_session *ms_open(int pid, const char *meters, double refresh_s, int cancel_fd, ms_interval_fn fn, void *ctx,
                    int *status, char *err, size_t errlen);

/* The connection to poll for input. */
int ms_fd(const ms_session *s);

/* Reads what has arrived (a bounded amount: call again while the
 * connection is readable), calling fn after each interval.  MS_READ_OK,
 * MS_READ_END (the stream ended: after ms_stop, or the process exited:
 * ms_exited), MS_READ_ERROR (ms_error says what: a malformed stream,
 * ms_broken, or the source's own error such as another tool holding it;
 * after ms_stop, read on until the end unless broken). */
enum { MS_READ_OK = 0, MS_READ_END = 1, MS_READ_ERROR = -1 };
int ms_read(ms_session *s);

/* Asks the process to end the session (StopTracing): it sends what it
 * holds, then ends the stream (ms_read gives MS_READ_END).  Before the
 * first interval has ended the request waits for it (ms_read sends it
 * then): stopping the source during its first collection can deadlock the
 * runtime (metrics_session.c).  IPC_OK or an ipc_status with err set
 * (closing the connection ends it then, with that same risk). */
int ms_stop(ms_session *s, char *err, size_t errlen);

/* Closes the connection and frees the session. */
void ms_close(ms_session *s);

int ms_enumerated(const ms_session *s);       /* the first enumeration of instruments has come */
int ms_exited(const ms_session *s);           /* the stream ended before ms_stop */
int ms_stopped(const ms_session *s);          /* ms_stop was asked */
int ms_broken(const ms_session *s);           /* the stream cannot be read on (malformed, a read error) */
const char *ms_error(const ms_session *s);    /* "" when none */
const char *ms_warning(const ms_session *s);  /* the source's first non-fatal message (an instrument's callback
                                                 that threw, a limit reached), "" when none */
int ms_other_tool(const ms_session *s);       /* the error is another tool holding the source */
const mt_table *ms_table(const ms_session *s);

#endif
