/* metrics_session.c - a continuous metrics session (metrics_session.h). */
#include "eventpipe/metrics_session.h"
#include "eventpipe/nettrace.h"
#include "ipc/ipc.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define MAX_TIME_SERIES 1000        /* dotnet-counters' and dotnet-monitor's limits: a shared */
#define MAX_HISTOGRAMS  10          /* session must ask for the same */

struct ms_session {
    int pid, fd, enumerated, exited, stopped, stop_sent, other_tool, broken;
    uint64_t session;
    char session_id[40], client_id[40];
    char *meters;
    double refresh_s;
    ms_interval_fn fn;
    void *ctx;
    nt_reader *reader;
    mt_table table;
    char error[600];
    char warning[600];          /* the first non-fatal message of the source */
};

static void new_guid(char out[40])
{
    unsigned char b[16] = { 0 };
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        memcpy(b, &ts, sizeof(ts) < sizeof(b) ? sizeof(ts) : sizeof(b));
        b[15] ^= (unsigned char)getpid();
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Whether meters asks for meter's instrument (a shared session carries
 * every client's). */
static int wanted(const char *meters, const char *meter, const char *instrument)
{
    size_t lm = strlen(meter), li = strlen(instrument);
    for (const char *p = meters; *p;) {
        const char *end = strchr(p, ','), *slash;
        size_t n = end ? (size_t)(end - p) : strlen(p);
        slash = memchr(p, '\\', n);
        if (!slash ? n == lm && !memcmp(p, meter, lm)
                   : (size_t)(slash - p) == lm && !memcmp(p, meter, lm) && n - lm - 1 == li &&
                     !memcmp(slash + 1, instrument, li))
            return 1;
        p += n + (end != NULL);
    }
    return 0;
}

/* Each event of the stream. */
static int on_event(void *arg, const nt_event *ev)
{
    ms_session *s = arg;
    mx_event e;

    if (s->error[0] || mx_decode(ev, &e) == MX_OTHER)
        return 0;
    if (e.kind == MX_WARNING) {             /* (a callback that threw, a limit reached: it goes on) */
        if (!s->warning[0])
            snprintf(s->warning, sizeof(s->warning), "%s", e.text);
        return 0;
    }
    if (e.kind == MX_ERROR) {
        /* the shared source tells every client of one whose settings differ: ours only when it names us;
         * it tells the running session of a newcomer it refused: not ours to end */
        if (e.client_id[0] && strcmp(e.client_id, s->client_id))
            return 0;
        if (e.running_session[0] && !strcmp(e.running_session, s->session_id))
            return 0;
        if (e.session[0] && strcmp(e.session, s->session_id) && !e.running_session[0])
            return 0;
        s->other_tool = strstr(ev->meta->event_name, "MultipleSessions") != NULL;
        snprintf(s->error, sizeof(s->error), "%s", e.text);
        return 0;
    }
    /* (events of another tool's session reach us too when the source is shared) */
    if (e.session[0] && strcmp(e.session, s->session_id))
        return 0;
    if ((e.kind == MX_COUNTER || e.kind == MX_UPDOWN || e.kind == MX_GAUGE || e.kind == MX_HISTOGRAM) &&
        !wanted(s->meters, e.meter, e.instrument))
        return 0;
    if (e.kind == MX_ENUMERATED) {
        s->enumerated = 1;
        return 0;
    }
    if (mt_take(&s->table, &e, s->refresh_s) && s->fn)
        s->fn(s->ctx, &s->table);
    return 0;
}

ms_session *ms_open(int pid, const char *meters, double refresh_s, int cancel_fd, ms_interval_fn fn, void *ctx,
                    int *status, char *err, size_t errlen)
{
    char filter[1400];
    ipc_process_info_t info;
    ms_session *s;
    int64_t age;
    ipc_ep_provider p;

    if (ipc_process_age_ms(pid, &age) == IPC_OK && age < MS_STARTUP_GRACE_MS) {
        struct pollfd pf = { cancel_fd, POLLIN, 0 };
        if (poll(&pf, cancel_fd >= 0, (int)(MS_STARTUP_GRACE_MS - age)) > 0) {
            *status = IPC_ERR_CANCELLED;
            snprintf(err, errlen, "interrupted");
            return NULL;
        }
    }
    s = calloc(1, sizeof(*s));
    if (!s || !(s->meters = strdup(meters)) || !(s->reader = nt_reader_new(on_event, s))) {
        if (s)
            free(s->meters);
        free(s);
        *status = IPC_ERR_SYSTEM;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->fd = -1;
    s->pid = pid;
    s->refresh_s = refresh_s;
    s->fn = fn;
    s->ctx = ctx;
    mt_init(&s->table);
    /* .NET 8 and later share the source between tools that ask with the same
     * interval and limits; before, each session needs its own id */
    if (ipc_process_info(pid, MS_TIMEOUT_MS, &info, err, errlen) == IPC_OK && atoi(info.runtime_version) >= 8)
        snprintf(s->session_id, sizeof(s->session_id), "SHARED");
    else
        new_guid(s->session_id);
    ipc_process_info_free(&info);
    new_guid(s->client_id);
    if (mx_filter_args(filter, sizeof(filter), s->session_id, s->client_id, meters, refresh_s, MAX_TIME_SERIES,
                       MAX_HISTOGRAMS) < 0) {
        *status = IPC_ERR_TOO_LONG;
        snprintf(err, errlen, "the meter list is too long");
        ms_close(s);
        return NULL;
    }
    p = (ipc_ep_provider){ MX_PROVIDER, MX_KEYWORDS, MX_LEVEL, filter };
    s->fd = ipc_eventpipe_start(pid, MS_TIMEOUT_MS, cancel_fd, &p, 1, &s->session, err, errlen);
    if (s->fd < 0) {
        *status = s->fd;
        ms_close(s);
        return NULL;
    }
    *status = IPC_OK;
    return s;
}

int ms_fd(const ms_session *s) { return s->fd; }
int ms_enumerated(const ms_session *s) { return s->enumerated; }
int ms_exited(const ms_session *s) { return s->exited; }
int ms_stopped(const ms_session *s) { return s->stopped; }
int ms_broken(const ms_session *s) { return s->broken; }
const char *ms_error(const ms_session *s) { return s->error; }
const char *ms_warning(const ms_session *s) { return s->warning; }
int ms_other_tool(const ms_session *s) { return s->other_tool; }
const mt_table *ms_table(const ms_session *s) { return &s->table; }

/* The first collection may not be interrupted: the source's thread may be
 * running the runtime's first type initializers for its instruments
 * (ThreadPool's, which initializes FrameworkEventSource) while disabling
 * the source waits for that thread under the event listeners' lock, which
 * those initializers need: a deadlock (.NET 10; seen here with a session
 * stopped just after it began on a program that had not used the thread
 * pool).  So the stop is sent once an interval has completed, or when the
 * session has failed (the source then runs no collection). */
static int send_stop(ms_session *s, char *err, size_t errlen)
{
    s->stop_sent = 1;
    return ipc_eventpipe_stop(s->pid, MS_TIMEOUT_MS, s->session, err, errlen);
}

int ms_read(ms_session *s)
{
    uint8_t buf[65536];
    char err[256];

    /* (at most 16 reads a call: a process that never stops writing cannot hold its caller) */
    for (int reads = 0; reads < 16; reads++) {
        if (s->stopped && !s->stop_sent && (s->table.interval > 0 || s->other_tool) &&
            send_stop(s, err, sizeof(err)) != IPC_OK) {
            snprintf(s->error, sizeof(s->error), "%s", err);
            return MS_READ_ERROR;
        }
        ssize_t n = read(s->fd, buf, sizeof(buf));
        if (n > 0) {
            int rc = nt_feed(s->reader, buf, (size_t)n);
            if (rc == NT_ERROR) {
                snprintf(s->error, sizeof(s->error), "%s", nt_reader_error(s->reader));
                s->broken = 1;
                return MS_READ_ERROR;
            }
            if (rc == NT_END)
                goto end;
            if (s->error[0])
                return MS_READ_ERROR;
            continue;
        }
        if (n == 0)
            goto end;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return s->error[0] ? MS_READ_ERROR : MS_READ_OK;
        snprintf(s->error, sizeof(s->error), "reading the event stream: %s", strerror(errno));
        s->broken = 1;
        return MS_READ_ERROR;
    }
    if (s->error[0])
        return MS_READ_ERROR;
    return MS_READ_OK;      /* (more may be there: poll says so) */
end:
    if (!s->stopped)
        s->exited = 1;
    return s->error[0] ? MS_READ_ERROR : MS_READ_END;
}

int ms_stop(ms_session *s, char *err, size_t errlen)
{
    s->stopped = 1;
    if (s->stop_sent)
        return IPC_OK;
    if (s->table.interval == 0 && !s->other_tool)
        return IPC_OK;      /* (sent by ms_read when the first interval ends) */
    return send_stop(s, err, errlen);
}

void ms_close(ms_session *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    nt_reader_free(s->reader);
    mt_free(&s->table);
    free(s->meters);
    free(s);
}
