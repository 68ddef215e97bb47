/* switch_cost.c - what a sampling clock costs a process whose threads
 * switch all the time.  Two threads ping-pong a byte over two pipes for a
 * fixed time (run it confined to one core: each round trip is two context
 * switches), sampled by MODE at HZ; prints the round trips a second and the
 * samples per CPU-second the two threads got.  The clocks an unprivileged
 * `clrprobe run` could use (the per-CPU clock, which needs CAP_BPF and
 * CAP_PERFMON, is clrprobe's own: bench/sampling.sh measures it):
 *   none      no clock (the reference);
 *   thread    a task-clock perf event per thread, its signal sent to that
 *             thread (F_SETOWN_EX), re-armed in the handler: `--sampler
 *             perf`; the kernel schedules each thread's event out and in at
 *             every switch;
 *   inherit   one task-clock event opened before the threads start and
 *             inherited by them (`inherit`, `sigtrap`, `remove_on_exec`:
 *             Linux 5.13): the overflowing thread gets a synchronous
 *             SIGTRAP (si_code TRAP_PERF); two threads whose contexts were
 *             cloned from one parent are switched by swapping the contexts,
 *             without scheduling the events out and in;
 *   timer     a CPU-time timer per thread (`--sampler signal`), expired
 *             only at the scheduler's tick.
 *   switch_cost MODE HZ SECONDS */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

enum mode { NONE, THREAD, INHERIT, TIMER };

static enum mode g_mode;
static uint64_t g_period_ns;
static int g_ab[2], g_ba[2];
static atomic_ulong g_samples;
static atomic_int g_setup_failed;

static void die(const char *what)
{
    fprintf(stderr, "switch_cost: %s: %s\n", what, strerror(errno));
    exit(2);
}

static int perf_open(struct perf_event_attr *a, pid_t tid)
{
    return (int)syscall(SYS_perf_event_open, a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void task_clock(struct perf_event_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_TASK_CLOCK;
    a->sample_period = g_period_ns;
    a->wakeup_events = 1;
}

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    atomic_fetch_add_explicit(&g_samples, 1, memory_order_relaxed);
    if (g_mode == THREAD)
        ioctl(si->si_fd, PERF_EVENT_IOC_REFRESH, 1);
}

static void on_sigtrap(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (si->si_code == TRAP_PERF) {
        atomic_fetch_add_explicit(&g_samples, 1, memory_order_relaxed);
        return;
    }
    signal(sig, SIG_DFL);                        /* (not ours: as if we were not here) */
    raise(sig);
}

/* The calling thread's own clock, for the modes that have one per thread. */
static void clock_for_this_thread(void)
{
    pid_t tid = (pid_t)syscall(SYS_gettid);

    if (g_mode == THREAD) {
        struct perf_event_attr a;
        struct f_owner_ex owner = { F_OWNER_TID, tid };
        int fd;
        task_clock(&a);
        a.disabled = 1;
        if ((fd = perf_open(&a, 0)) < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0 ||
            fcntl(fd, F_SETSIG, SIGPROF) < 0 || fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
            ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) < 0)
            atomic_store(&g_setup_failed, errno ? errno : EINVAL);
    } else if (g_mode == TIMER) {
        struct sigevent ev;
        timer_t t;
        struct itimerspec its = { { (time_t)(g_period_ns / 1000000000u), (long)(g_period_ns % 1000000000u) },
                                  { (time_t)(g_period_ns / 1000000000u), (long)(g_period_ns % 1000000000u) } };
        memset(&ev, 0, sizeof(ev));
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGPROF;
        ev._sigev_un._tid = tid;
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t) < 0 || timer_settime(t, 0, &its, NULL) < 0)
            atomic_store(&g_setup_failed, errno ? errno : EINVAL);
    }
}

static ssize_t full_read(int fd, char *c)
{
    ssize_t r;
    while ((r = read(fd, c, 1)) < 0 && errno == EINTR)
        ;
    return r;
}

static void full_write(int fd, char c)
{
    while (write(fd, &c, 1) < 0 && errno == EINTR)
        ;
}

static void *echo_main(void *arg)
{
    char c;
    (void)arg;
    clock_for_this_thread();
    while (full_read(g_ab[0], &c) == 1 && c != 'q')
        full_write(g_ba[1], c);
    return NULL;
}

struct pinger { double seconds; uint64_t trips; };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *ping_main(void *arg)
{
    struct pinger *p = arg;
    double end;
    char c;

    clock_for_this_thread();
    end = now_s() + p->seconds;
    for (uint64_t i = 0;; i++) {
        if ((i & 1023) == 0 && now_s() >= end)
            break;
        full_write(g_ab[1], 'x');
        if (full_read(g_ba[0], &c) != 1)
            break;
        p->trips++;
    }
    full_write(g_ab[1], 'q');
    return NULL;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    struct pinger ping = { 0, 0 };
    struct rusage ru;
    pthread_t a, b;
    double cpu;
    int hz;

    if (argc != 4 || (hz = atoi(argv[2])) <= 0 || (ping.seconds = atof(argv[3])) <= 0) {
        fprintf(stderr, "usage: switch_cost none|thread|inherit|timer HZ SECONDS\n");
        return 2;
    }
    g_mode = !strcmp(argv[1], "thread") ? THREAD : !strcmp(argv[1], "inherit") ? INHERIT
             : !strcmp(argv[1], "timer") ? TIMER : NONE;
    g_period_ns = 1000000000ull / (uint64_t)hz;
    if (pipe(g_ab) < 0 || pipe(g_ba) < 0)
        die("pipe");
    memset(&sa, 0, sizeof(sa));
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_sigprof;
    sigaction(SIGPROF, &sa, NULL);
    sa.sa_sigaction = on_sigtrap;
    sigaction(SIGTRAP, &sa, NULL);
    if (g_mode == INHERIT) {
        struct perf_event_attr at;
        task_clock(&at);
        at.inherit = 1;
        at.sigtrap = 1;
        at.remove_on_exec = 1;
        if (perf_open(&at, 0) < 0)
            die("perf_event_open (inherit, sigtrap)");
    }
    if (pthread_create(&b, NULL, echo_main, NULL) != 0 || pthread_create(&a, NULL, ping_main, &ping) != 0)
        die("pthread_create");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    if (atomic_load(&g_setup_failed)) {
        errno = atomic_load(&g_setup_failed);
        die("the threads' clocks");
    }
    getrusage(RUSAGE_SELF, &ru);
    cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
          (double)ru.ru_stime.tv_usec / 1e6;
    printf("%s %d Hz: %.0f round trips/s, %lu samples in %.2f s of CPU (%.1f per CPU-second)\n", argv[1], hz,
           (double)ping.trips / ping.seconds, (unsigned long)atomic_load(&g_samples), cpu,
           cpu > 0 ? (double)atomic_load(&g_samples) / cpu : 0.0);
    return 0;
}
