/* profiles.c - profiles made on request by clrprobe's own commands
 * (profiles.h).  The children are /proc/self/exe (this very clrprobe):
 * `attach PID -o DIR/p.clrp --collect ... --duration S` (or `heap PID -o
 * DIR/p.clrp --count 1`), then `report DIR/p.clrp --format pprof -o -`
 * whose output is read from a pipe.  DIR is a private directory (0700,
 * mkdtemp) removed with its file at the end.  Each child is bounded in
 * time and its output in size; its stderr gives the reason of a failure. */
#include "serve/profiles.h"
#include "ipc/ipc.h"
#include "report/profile.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_OUTPUT   (256u << 20)      /* a report's pprof: the trace it comes from is bounded too */
#define MAX_ERRTEXT  1024
#define SLACK_S      180               /* beyond the recording: the attach (its own timeouts included), the
                                          detach, the report */
#define TERM_GRACE_S 15                /* a child asked to stop (SIGTERM: attach detaches) before SIGKILL */
#define MAX_BUSY     64                /* processes being profiled at once */

extern char **environ;

int profile_kind_of(const char *name, profile_kind *kind)
{
    static const struct { const char *name; profile_kind kind; } kinds[] = {
        { "profile", PROFILE_CPU }, { "allocs", PROFILE_ALLOCS }, { "heap", PROFILE_HEAP },
        { "mutex", PROFILE_MUTEX }, { "delta_mutex", PROFILE_MUTEX }, { "goroutine", PROFILE_THREADS },
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(name, kinds[i].name)) {
            *kind = kinds[i].kind;
            return 0;
        }
    return -1;
}

/* ---- one recording per process at a time ---- */

static pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t busy_done = PTHREAD_COND_INITIALIZER;
static int busy[MAX_BUSY];
static size_t nbusy;

/* Waits (until deadline, CLOCK_REALTIME) until no other request records pid,
 * and takes it: 0, or -1 when the wait timed out or too many run. */
static int take(int pid, const struct timespec *deadline)
{
    int rc = 0;
    pthread_mutex_lock(&busy_lock);
    for (;;) {
        size_t i;
        for (i = 0; i < nbusy && busy[i] != pid; i++)
            ;
        if (i == nbusy && nbusy < MAX_BUSY) {
            busy[nbusy++] = pid;
            break;
        }
        if (pthread_cond_timedwait(&busy_done, &busy_lock, deadline) == ETIMEDOUT) {
            rc = -1;
            break;
        }
    }
    pthread_mutex_unlock(&busy_lock);
    return rc;
}

static void give_back(int pid)
{
    pthread_mutex_lock(&busy_lock);
    for (size_t i = 0; i < nbusy; i++)
        if (busy[i] == pid) {
            busy[i] = busy[--nbusy];
            break;
        }
    pthread_cond_broadcast(&busy_done);
    pthread_mutex_unlock(&busy_lock);
}

/* ---- children ---- */

typedef struct child_result {
    int exited, code;           /* exited normally, with code */
    char *out;                  /* its stdout (when asked for) */
    size_t out_len;
    char err[MAX_ERRTEXT];      /* its stderr's first line(s) */
} child_result;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs argv (argv[0] is this clrprobe) with stdin /dev/null, its stdout
 * kept when want_out, its stderr kept; killed after timeout_s. */
static int run_child(char *const argv[], int want_out, unsigned timeout_s, child_result *r)
{
    int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, status = 0, rc = -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, defaults;
    size_t err_len = 0, cap = 0;
    int64_t deadline = now_ms() + (int64_t)timeout_s * 1000;
    pid_t child;

    memset(r, 0, sizeof(*r));
    if (pipe2(errp, O_CLOEXEC) < 0 || (want_out && pipe2(outp, O_CLOEXEC) < 0)) {
        snprintf(r->err, sizeof(r->err), "cannot make a pipe: %s", strerror(errno));
        goto out;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, want_out ? outp[1] : errp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    /* (the child gets the signals serve blocks back, at their defaults) */
    posix_spawnattr_init(&attr);
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGHUP);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn(&child, "/proc/self/exe", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(errp[1]);
    errp[1] = -1;
    if (want_out) {
        close(outp[1]);
        outp[1] = -1;
    }
    if (rc != 0) {
        snprintf(r->err, sizeof(r->err), "cannot run clrprobe: %s", strerror(rc));
        rc = -1;
        goto out;
    }
    for (int open_fds = want_out ? 2 : 1; open_fds > 0;) {
        struct pollfd pf[2] = { { errp[0], POLLIN, 0 }, { want_out ? outp[0] : -1, POLLIN, 0 } };
        int left = (int)(deadline - now_ms());
        if (left <= 0 || poll(pf, 2, left) == 0) {
            /* asked first: attach detaches the agent on SIGTERM; killed if it does not end */
            int64_t grace = now_ms() + TERM_GRACE_S * 1000;
            kill(child, SIGTERM);
            while (waitpid(child, &status, WNOHANG) == 0 && now_ms() < grace)
                poll(NULL, 0, 50);
            kill(child, SIGKILL);
            snprintf(r->err, sizeof(r->err), "the recording took longer than %u s", timeout_s);
            break;
        }
        if (pf[0].revents) {
            char buf[512];
            ssize_t n = read(errp[0], buf, sizeof(buf));
            if (n <= 0) {
                close(errp[0]);
                errp[0] = -1;
                open_fds--;
            } else if (err_len + 1 < sizeof(r->err)) {
                size_t k = (size_t)n < sizeof(r->err) - 1 - err_len ? (size_t)n : sizeof(r->err) - 1 - err_len;
                memcpy(r->err + err_len, buf, k);
                err_len += k;
                r->err[err_len] = 0;
            }
        }
        if (want_out && outp[0] >= 0 && pf[1].revents) {
            ssize_t n;
            if (r->out_len + 65536 > cap) {
                char *grown;
                if (cap >= MAX_OUTPUT) {
                    kill(child, SIGKILL);
                    snprintf(r->err, sizeof(r->err), "the profile is bigger than %u MiB", MAX_OUTPUT >> 20);
                    break;
                }
                cap = cap ? cap * 2 : 1 << 20;
                if (!(grown = realloc(r->out, cap))) {
                    kill(child, SIGKILL);
                    snprintf(r->err, sizeof(r->err), "out of memory");
                    break;
                }
                r->out = grown;
            }
            n = read(outp[0], r->out + r->out_len, cap - r->out_len);
            if (n <= 0) {
                close(outp[0]);
                outp[0] = -1;
                open_fds--;
            } else {
                r->out_len += (size_t)n;
            }
        }
    }
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    r->exited = WIFEXITED(status);
    r->code = r->exited ? WEXITSTATUS(status) : -1;
    rc = 0;
out:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
    }
    return rc;
}

/* Whether pid is still the process that started at start, and not a
 * zombie (a parent that has not reaped it keeps its /proc entry). */
static int alive(int pid, uint64_t start)
{
    char path[64], text[512];
    uint64_t now_start;
    const char *paren;
    ssize_t n;
    int fd;

    if (ipc_process_starttime(pid, &now_start) != IPC_OK || now_start != start)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = 0;
    paren = strrchr(text, ')');
    return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* The child's reason, one line, without our "clrprobe: " prefix. */
static void reason(const child_result *r, const char *what, char *err, size_t errlen)
{
    const char *text = r->err;
    size_t n;
    if (!strncmp(text, "clrprobe: ", 10))
        text += 10;
    n = strcspn(text, "\n");
    if (n)
        snprintf(err, errlen, "%.*s", (int)n, text);
    else
        snprintf(err, errlen, "%s failed (exit status %d)", what, r->code);
}

/* A pprof profile with the sample types of kind and no sample. */
static int empty_profile(profile_kind kind, char **body, size_t *len)
{
    rp_profile p;
    FILE *out = open_memstream(body, len);
    int rc;

    if (!out)
        return -1;
    memset(&p, 0, sizeof(p));
    p.view = kind == PROFILE_ALLOCS ? RP_VIEW_ALLOC : RP_VIEW_CONTENTION;
    rc = rp_write_pprof_memory(&p, &p, kind == PROFILE_ALLOCS ? "no allocation sampled in the window"
                                                             : "no lock wait in the window", out);
    if (fclose(out) != 0 || rc < 0) {
        free(*body);
        *body = NULL;
        return -1;
    }
    return 0;
}

int profile_make(int pid, profile_kind kind, unsigned seconds, profile_wanted_fn wanted, const void *ctx,
                 char **body, size_t *len, unsigned *status, char *err, size_t errlen)
{
    char dir[300], trace[340], pidtext[16], duration[16], *argv[16];
    const char *tmp = getenv("TMPDIR");
    struct timespec deadline;
    child_result r;
    int argc = 0, rc = -1;
    const char *view = "cpu";
    uint64_t start = 0;
    int64_t started_ms;

    *body = NULL;
    *len = 0;
    *status = 500;
    if (kind == PROFILE_THREADS)
        seconds = 0;
    if (!tmp || tmp[0] != '/' || strlen(tmp) > 200)
        tmp = "/tmp";
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += PROFILE_MAX_SECONDS + SLACK_S;
    if (take(pid, &deadline) < 0) {
        *status = 503;
        snprintf(err, errlen, "process %d is being profiled for another request (or too many are): try again", pid);
        return -1;
    }
    if (wanted && !wanted(ctx)) {
        *status = 499;
        snprintf(err, errlen, "the client went away before its turn");
        give_back(pid);
        return -1;
    }
    snprintf(dir, sizeof(dir), "%s/clrprobe-serve-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot make a directory in %s: %s", tmp, strerror(errno));
        give_back(pid);
        return -1;
    }
    snprintf(trace, sizeof(trace), "%s/pid-%d-%s.clrp", dir, pid,
             kind == PROFILE_CPU ? "cpu" : kind == PROFILE_ALLOCS ? "allocs" : kind == PROFILE_HEAP ? "heap" :
             kind == PROFILE_MUTEX ? "mutex" : "threads");
    snprintf(pidtext, sizeof(pidtext), "%d", pid);
    snprintf(duration, sizeof(duration), "%u", seconds);
    argv[argc++] = "clrprobe";
    if (kind == PROFILE_THREADS) {
        /* every thread's stack now: stack writes Go's goroutine profile itself */
        argv[argc++] = "stack";
        argv[argc++] = pidtext;
        argv[argc++] = "--format";
        argv[argc++] = "pprof";
        argv[argc] = NULL;
        if (run_child(argv, 1, SLACK_S, &r) < 0 || !r.exited || r.code != 0) {
            *status = r.exited && r.code == 1 ? 502 : 500;
            reason(&r, "the stacks", err, errlen);
            free(r.out);
            goto done;
        }
        *body = r.out;
        *len = r.out_len;
        *status = 200;
        rc = 0;
        goto done;
    }
    if (kind == PROFILE_HEAP) {
        argv[argc++] = "heap";
        argv[argc++] = pidtext;
        argv[argc++] = "--count";
        argv[argc++] = "1";
    } else {
        argv[argc++] = "attach";
        argv[argc++] = pidtext;
        argv[argc++] = "--duration";
        argv[argc++] = duration;
        argv[argc++] = "--collect";
        switch (kind) {
        case PROFILE_ALLOCS: argv[argc++] = "alloc"; view = "alloc"; break;
        case PROFILE_MUTEX: argv[argc++] = "contention"; view = "contention"; break;
        default:
            /* the per-CPU clock taking the stacks (exact, no signal, and nothing for the kernel to do when
             * threads switch; its signals on an older kernel), else the CPU timers, never a perf event per
             * thread: on a service that switches threads often the kernel's per-switch cost of those was
             * most of a profile's (docs/serve.md) */
            argv[argc++] = "cpu";
            argv[argc++] = "--sampler";
            argv[argc++] = "kstack";
            break;
        }
    }
    argv[argc++] = "-o";
    argv[argc++] = trace;
    argv[argc] = NULL;
    if (ipc_process_starttime(pid, &start) != IPC_OK || !alive(pid, start)) {
        *status = 404;
        snprintf(err, errlen, "process %d has exited", pid);
        goto done;
    }
    started_ms = now_ms();
    if (run_child(argv, 0, seconds + SLACK_S, &r) < 0 || !r.exited || r.code != 0) {
        *status = r.code == 1 ? 502 : 500;
        reason(&r, "the recording", err, errlen);
        goto done;
    }
    /* a process that ended within the window: not the profile asked for (scrapers take it for N s).  The
     * recording that stopped before its time says so too: the process may still be tearing down then. */
    if (!alive(pid, start) || (kind != PROFILE_HEAP && now_ms() - started_ms < (int64_t)seconds * 1000 - 250)) {
        *status = 502;
        snprintf(err, errlen, "process %d exited during the profile", pid);
        goto done;
    }
    argc = 0;
    argv[argc++] = "clrprobe";
    argv[argc++] = "report";
    argv[argc++] = trace;
    argv[argc++] = "--format";
    argv[argc++] = "pprof";
    if (kind != PROFILE_HEAP) {
        argv[argc++] = "--view";
        argv[argc++] = (char *)view;
    }
    argv[argc++] = "-o";
    argv[argc++] = "-";
    argv[argc] = NULL;
    if (run_child(argv, 1, SLACK_S, &r) < 0 || !r.exited || r.code != 0) {
        free(r.out);
        /* a window without allocations or lock waits: an empty profile of the kind, as Go answers */
        if ((kind == PROFILE_ALLOCS || kind == PROFILE_MUTEX) && r.exited && r.code == 1 && strstr(r.err, " has no ") &&
            empty_profile(kind, body, len) == 0) {
            *status = 200;
            rc = 0;
            goto done;
        }
        reason(&r, "the report", err, errlen);
        goto done;
    }
    *body = r.out;
    *len = r.out_len;
    *status = 200;
    rc = 0;
done:
    unlink(trace);
    rmdir(dir);
    give_back(pid);
    return rc;
}
