/* fleet.c - the processes `clrprobe serve` watches and their metrics
 * sessions (fleet.h).  Locks: the fleet's (the list of watches) is taken
 * before a watch's own (its session's table), never the other way. */
#include "serve/fleet.h"
#include "eventpipe/metrics_session.h"
#include "ipc/ipc.h"
#include "report/json.h"
#include "report/metrics_view.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef enum watch_state { WATCH_STARTING, WATCH_READING, WATCH_EXITED, WATCH_FAILED } watch_state;

typedef struct watch {
    struct watch *next;
    fleet *f;
    int pid;
    uint64_t starttime;         /* (a new process with the same pid is another watch) */
    char name[256], runtime[64], container[65], command[512];
    int inner_pid;
    pthread_t thread;
    pthread_mutex_t lock;       /* state, error, session's table */
    watch_state state;
    char error[600];
    ms_session *session;
    int64_t ended_ms;           /* when it exited or failed */
    int joined;
} watch;

struct fleet {
    pthread_mutex_t lock;       /* watches */
    watch *watches;
    char *meters;
    double refresh_s;
    int *pids;                  /* only these, when npids > 0 */
    size_t npids;
    int stop_pipe[2];           /* readable once the fleet stops */
    pthread_t scanner;
    int running;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_state(watch *w, watch_state state, const char *error)
{
    pthread_mutex_lock(&w->lock);
    w->state = state;
    if (error)
        snprintf(w->error, sizeof(w->error), "%s", error);
    if (state == WATCH_EXITED || state == WATCH_FAILED)
        w->ended_ms = now_ms();
    pthread_mutex_unlock(&w->lock);
}

/* A watch's thread: its session, read until the process exits, the session
 * fails or the fleet stops. */
static void *watch_run(void *arg)
{
    watch *w = arg;
    char err[512], runtime[64] = "";
    int status, stopping = 0;
    ipc_process_info_t info;
    ms_session *s;

    /* (asked here, not under the fleet's lock: a process that does not answer holds only its watch) */
    if (ipc_process_info(w->pid, 3000, &info, err, sizeof(err)) == IPC_OK) {
        /* the version without its build suffix ("10.0.12+abc..."): a label that does not change by build */
        snprintf(runtime, sizeof(runtime), "%.*s", (int)strcspn(info.runtime_version, "+"), info.runtime_version);
    }
    ipc_process_info_free(&info);
    pthread_mutex_lock(&w->lock);
    snprintf(w->runtime, sizeof(w->runtime), "%s", runtime);
    pthread_mutex_unlock(&w->lock);
    s = ms_open(w->pid, w->f->meters, w->f->refresh_s, w->f->stop_pipe[0], NULL, NULL, &status, err, sizeof(err));

    if (!s) {
        set_state(w, status == IPC_ERR_NO_PROCESS ? WATCH_EXITED : WATCH_FAILED, err);
        return NULL;
    }
    pthread_mutex_lock(&w->lock);
    w->session = s;
    w->state = WATCH_READING;
    pthread_mutex_unlock(&w->lock);
    for (;;) {
        struct pollfd pf[2] = { { ms_fd(s), POLLIN, 0 }, { w->f->stop_pipe[0], POLLIN, 0 } };
        int rc;
        int wait_ms = !stopping ? -1 : MS_TIMEOUT_MS + (ms_table(s)->interval == 0 ? (int)(w->f->refresh_s * 1000) : 0);
        if (poll(pf, stopping ? 1 : 2, wait_ms) < 0 && errno != EINTR)
            break;
        if (pf[0].revents) {
            pthread_mutex_lock(&w->lock);
            rc = ms_read(s);
            pthread_mutex_unlock(&w->lock);
            if (rc == MS_READ_END || ms_broken(s))
                break;
            if (stopping)
                continue;       /* (until the stream's end) */
            if (rc == MS_READ_ERROR) {
                /* (another tool holding the source, a malformed stream): stop, try again later */
                if (ms_stop(s, err, sizeof(err)) != IPC_OK)
                    break;
                stopping = 1;
            }
            continue;
        }
        if (stopping)
            break;      /* (the process did not end the session in time: closing ends it) */
        if (pf[1].revents) {
            if (ms_stop(s, err, sizeof(err)) != IPC_OK)
                break;
            stopping = 1;
        }
    }
    pthread_mutex_lock(&w->lock);
    if (ms_error(s)[0]) {
        w->state = WATCH_FAILED;
        snprintf(w->error, sizeof(w->error), "%s", ms_other_tool(s) ?
                 "another tool reads its metrics with other settings (the runtime serves one set at a time)" :
                 ms_error(s));
    } else {
        w->state = ms_exited(s) ? WATCH_EXITED : WATCH_FAILED;
        if (!ms_exited(s))
            snprintf(w->error, sizeof(w->error), "stopped");
    }
    w->ended_ms = now_ms();
    w->session = NULL;
    ms_close(s);
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static watch *watch_new(fleet *f, const ipc_endpoint_t *ep, uint64_t starttime)
{
    watch *w = calloc(1, sizeof(*w));
    char *cmdline = NULL;

    if (!w)
        return NULL;
    w->f = f;
    w->pid = ep->pid;
    w->starttime = starttime;
    w->inner_pid = ep->inner_pid;
    snprintf(w->container, sizeof(w->container), "%s", ep->container);
    if (ipc_process_name(ep->pid, w->name, sizeof(w->name), &cmdline) != IPC_OK)
        snprintf(w->name, sizeof(w->name), "?");
    snprintf(w->command, sizeof(w->command), "%s", cmdline ? cmdline : "");
    free(cmdline);
    pthread_mutex_init(&w->lock, NULL);
    w->state = WATCH_STARTING;
    if (pthread_create(&w->thread, NULL, watch_run, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

static void watch_free(watch *w)
{
    if (!w->joined)
        pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

/* One scan: new processes get a watch; the ended ones are dropped (a failed
 * one once its retry time has come, to be watched afresh). */
static void scan(fleet *f)
{
    ipc_endpoint_t *eps = NULL;
    size_t n = 0;
    char err[256];
    int64_t now = now_ms();

    if (ipc_list_processes(&eps, &n, err, sizeof(err)) != IPC_OK)
        return;
    pthread_mutex_lock(&f->lock);
    for (watch **pw = &f->watches; *pw;) {
        watch *w = *pw;
        int drop;
        pthread_mutex_lock(&w->lock);
        drop = w->state == WATCH_EXITED || (w->state == WATCH_FAILED && now - w->ended_ms >= FLEET_RETRY_MS);
        pthread_mutex_unlock(&w->lock);
        if (drop) {
            *pw = w->next;
            watch_free(w);
        } else {
            pw = &w->next;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t start = 0;
        watch *w;
        size_t k;
        for (k = 0; k < f->npids && f->pids[k] != eps[i].pid; k++)
            ;
        if ((f->npids && k == f->npids) || ipc_process_starttime(eps[i].pid, &start) != IPC_OK)
            continue;
        for (w = f->watches; w && !(w->pid == eps[i].pid && w->starttime == start); w = w->next)
            ;
        if (!w && (w = watch_new(f, &eps[i], start)) != NULL) {
            w->next = f->watches;
            f->watches = w;
        }
    }
    pthread_mutex_unlock(&f->lock);
    free(eps);
}

static void *scanner_run(void *arg)
{
    fleet *f = arg;
    for (;;) {
        struct pollfd pf = { f->stop_pipe[0], POLLIN, 0 };
        scan(f);
        if (poll(&pf, 1, FLEET_SCAN_MS) > 0)
            return NULL;
    }
}

fleet *fleet_new(const char *meters, double refresh_s, const int *pids, size_t npids)
{
    fleet *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    if (!(f->meters = strdup(meters)) || !(f->pids = malloc((npids ? npids : 1) * sizeof(int))) ||
        pipe2(f->stop_pipe, O_CLOEXEC) < 0) {
        free(f->meters);
        free(f->pids);
        free(f);
        return NULL;
    }
    if (npids)
        memcpy(f->pids, pids, npids * sizeof(int));
    f->npids = npids;
    f->refresh_s = refresh_s;
    pthread_mutex_init(&f->lock, NULL);
    return f;
}

int fleet_run(fleet *f)
{
    if (pthread_create(&f->scanner, NULL, scanner_run, f) != 0)
        return -1;
    f->running = 1;
    return 0;
}

void fleet_stop(fleet *f)
{
    if (!f)
        return;
    if (write(f->stop_pipe[1], "x", 1) != 1) {
        /* (cannot happen with an empty pipe; the watches then end with their processes) */
    }
    if (f->running)
        pthread_join(f->scanner, NULL);
    while (f->watches) {
        watch *w = f->watches;
        f->watches = w->next;
        watch_free(w);
    }
    close(f->stop_pipe[0]);
    close(f->stop_pipe[1]);
    pthread_mutex_destroy(&f->lock);
    free(f->meters);
    free(f->pids);
    free(f);
}

void fleet_write_metrics(fleet *f, FILE *out)
{
    mv_prom_rows rows = { 0 };
    pthread_mutex_lock(&f->lock);
    for (watch *w = f->watches; w; w = w->next) {
        mv_context c = { w->pid, w->name, 0, w->container, w->runtime };
        pthread_mutex_lock(&w->lock);
        if (w->session)
            mv_prometheus_rows(&rows, ms_table(w->session), &c);
        pthread_mutex_unlock(&w->lock);
    }
    pthread_mutex_unlock(&f->lock);
    mv_prometheus_write(out, &rows);
    mv_prometheus_rows_free(&rows);
}

static const char *state_name(watch_state s)
{
    switch (s) {
    case WATCH_STARTING: return "starting";
    case WATCH_READING: return "reading";
    case WATCH_EXITED: return "exited";
    default: return "error";
    }
}

void fleet_write_processes(fleet *f, FILE *out)
{
    int first = 1;
    fputc('[', out);
    pthread_mutex_lock(&f->lock);
    for (watch *w = f->watches; w; w = w->next) {
        char state[700];
        size_t series = 0;
        char runtime[64];
        pthread_mutex_lock(&w->lock);
        snprintf(state, sizeof(state), "%s%s%s", state_name(w->state), w->state == WATCH_FAILED ? ": " : "",
                 w->state == WATCH_FAILED ? w->error : "");
        if (w->session)
            series = ms_table(w->session)->n;
        snprintf(runtime, sizeof(runtime), "%s", w->runtime);
        pthread_mutex_unlock(&w->lock);
        fprintf(out, "%s\n{\"pid\": %d, \"name\": ", first ? "" : ",", w->pid);
        json_string(out, w->name);
        fputs(", \"runtime\": ", out);
        json_string(out, runtime);
        fputs(", \"container\": ", out);
        json_string(out, w->container);
        fprintf(out, ", \"inner_pid\": %d, \"command\": ", w->inner_pid);
        json_string(out, w->command);
        fputs(", \"metrics\": ", out);
        json_string(out, state);
        fprintf(out, ", \"series\": %zu}", series);
        first = 0;
    }
    pthread_mutex_unlock(&f->lock);
    fputs(first ? "]\n" : "\n]\n", out);
}

int fleet_has(fleet *f, int pid)
{
    int found = 0;
    pthread_mutex_lock(&f->lock);
    for (watch *w = f->watches; w && !found; w = w->next)
        found = w->pid == pid;
    pthread_mutex_unlock(&f->lock);
    return found;
}
