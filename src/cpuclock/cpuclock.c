/* cpuclock.c - the per-CPU clock: the page, the programs, the events, the
 * period (cpuclock.h).  Raw system calls throughout: glibc wraps neither
 * bpf() nor perf_event_open(). */
#include "cpuclock/cpuclock.h"
#include "cpuclock/clock_prog.h"
#include "common/files.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROC_PID_INIT_INO 0xEFFFFFFCu   /* the first pid namespace's inode number (include/linux/proc_ns.h) */
#define TUNE_EVERY_MS 200
#define TUNE_STEP 0.01                  /* a period closer than 1% to the one in force is not applied */
#define SPREAD 0.0346                   /* the CPUs' periods spread over +-1.7% of the mean */

/* Event k's period for the mean `mean`: each CPU's its own, a little off
 * the round figure (k times the golden ratio, modulo 1, over the spread;
 * the first 1.7% short), so that a program that wakes on a round period of
 * its own is not sampled at one phase of it on every tick (the per-thread
 * clocks draw each period at random for the same reason). */
static uint64_t period_of(uint64_t mean, int k)
{
    double u = (double)k * 0.6180339887498949;
    u -= (double)(uint64_t)u;
    return (uint64_t)((double)mean * (1.0 - SPREAD / 2 + SPREAD * u));
}

static int cpu_clock_watch(cpu_clock *c);

static long sys_bpf(int cmd, union bpf_attr *a)
{
    return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

/* Phrases for what the kernel refused, naming what would allow it. */
static int seccomp_filtered(void)
{
    char buf[4096];
    const char *line;

    if (cp_read_small("/proc/self/status", buf, sizeof(buf)) <= 0)
        return 0;
    return (line = strstr(buf, "\nSeccomp:")) != NULL && atoi(line + 9) == 2;
}

static void refused(char *why, size_t len, const char *what, int err)
{
    if ((err == EPERM || err == EACCES) && seccomp_filtered())
        snprintf(why, len, "%s: a seccomp filter refuses it (%s)", what, strerror(err));
    else if (err == EPERM || err == EACCES)
        snprintf(why, len, "%s needs CAP_BPF and CAP_PERFMON (%s): run clrprobe as root", what, strerror(err));
    else if (err == ENOSYS)
        snprintf(why, len, "%s: this kernel has no BPF (%s)", what, strerror(err));
    else
        snprintf(why, len, "%s: %s (Linux 5.7 or newer is needed)", what, strerror(err));
}

/* ---- the page ---- */

static int page_open(cpu_clock *c, char *why, size_t len)
{
    union bpf_attr a;
    long page = sysconf(_SC_PAGESIZE);
    void *m;

    memset(&a, 0, sizeof(a));
    a.map_type = BPF_MAP_TYPE_ARRAY;
    a.key_size = 4;
    a.value_size = CP_CLOCK_PAGE_SIZE;
    a.max_entries = 1;
    a.map_flags = BPF_F_MMAPABLE;
    if ((c->map_fd = (int)sys_bpf(BPF_MAP_CREATE, &a)) < 0) {
        refused(why, len, "loading BPF", errno);
        return -1;
    }
    m = mmap(NULL, page > 0 ? (size_t)page : 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c->map_fd, 0);
    if (m == MAP_FAILED) {
        refused(why, len, "mapping a BPF map", errno);
        return -1;
    }
    c->page = m;
    c->page->gate = 0;
    c->page->version = CP_CLOCK_PAGE_VERSION;
    c->page->asked_period_ns = c->asked_ns;
    c->page->period_ns = c->asked_ns;
    return 0;
}

/* The stack ring: room for about 500 ms of records from every CPU at the
 * rate, within [256 KiB, 64 MiB].  The agent drains it every 20-50 ms, but
 * its collector is one thread of the process among all the others: on a
 * CPU shared with a hundred busy threads the scheduler may let it wait a
 * few hundred ms (a full ring's samples are lost, counted in the page's
 * `lost`). */
#define RING_MIN (256u << 10)
#define RING_MAX (64u << 20)
#define RING_HDR 8u                     /* the ring's own header of each record */

static int ring_open(cpu_clock *c, char *why, size_t len)
{
    union bpf_attr a;
    long conf = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t rate = c->asked_ns ? 1000000000ull / c->asked_ns : 100, per = sizeof(cp_stack_record) + RING_HDR;
    uint64_t want = (uint64_t)(conf > 0 ? conf : 1) * (rate / 2 + 1) * per, size = RING_MIN;

    while (size < want && size < RING_MAX)
        size <<= 1;
    memset(&a, 0, sizeof(a));
    a.map_type = BPF_MAP_TYPE_RINGBUF;
    a.max_entries = (uint32_t)size;
    if ((c->ring_fd = (int)sys_bpf(BPF_MAP_CREATE, &a)) < 0) {
        refused(why, len, "a BPF ring buffer (Linux 5.8)", errno);
        return -1;
    }
    c->ring_bytes = size;              /* (the page says so once the stacker is in place) */
    return 0;
}

/* ---- the target's numbers ---- */

/* How the programs name pid: by its number in the first pid namespace when
 * this process sees that one, else by its number in its own namespace. */
static int target_of(pid_t pid, int own_ns, clock_target *t, char *why, size_t len)
{
    struct stat self, ns;
    char path[64], buf[4096];
    const char *line;

    memset(t, 0, sizeof(*t));
    t->tgid = (uint32_t)pid;
    if (!own_ns && stat("/proc/self/ns/pid", &self) == 0 && self.st_ino == PROC_PID_INIT_INO)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
    if (stat(path, &ns) != 0) {
        snprintf(why, len, "cannot read the process's pid namespace (%s)", strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if (cp_read_small(path, buf, sizeof(buf)) <= 0 || !(line = strstr(buf, "\nNSpid:"))) {
        snprintf(why, len, "cannot read the process's pid in its namespace");
        return -1;
    }
    {
        const char *p = line + 7, *end = strchr(p, '\n');
        unsigned long last = 0;
        while (p && (!end || p < end)) {
            char *e;
            unsigned long v = strtoul(p, &e, 10);
            if (e == p)
                break;
            last = v;
            p = e;
        }
        if (!last) {
            snprintf(why, len, "cannot read the process's pid in its namespace");
            return -1;
        }
        t->tgid = (uint32_t)last;
    }
    t->ns = 1;
    t->ns_dev = (uint64_t)ns.st_dev;
    t->ns_ino = (uint64_t)ns.st_ino;
    return 0;
}

/* ---- the programs ---- */

static int load(int type, const struct bpf_insn *prog, size_t n)
{
    union bpf_attr a;

    memset(&a, 0, sizeof(a));
    a.prog_type = (uint32_t)type;
    a.insns = (uint64_t)(uintptr_t)prog;
    a.insn_cnt = (uint32_t)n;
    a.license = (uint64_t)(uintptr_t)"GPL";
    return (int)sys_bpf(BPF_PROG_LOAD, &a);
}

static int attach_raw(int prog_fd, const char *tracepoint)
{
    union bpf_attr a;

    memset(&a, 0, sizeof(a));
    a.raw_tracepoint.name = (uint64_t)(uintptr_t)tracepoint;
    a.raw_tracepoint.prog_fd = (uint32_t)prog_fd;
    return (int)sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
}

static int programs_open(cpu_clock *c, const clock_target *t, char *why, size_t len)
{
    struct bpf_insn prog[CLOCK_PROG_MAX];
    size_t n;

    /* the stacker where asked and the kernel takes it (Linux 5.8: its ring), else the sampler */
    if (c->stacks && (c->sampler_fd = load(BPF_PROG_TYPE_PERF_EVENT, prog, clock_prog_stacker(t, prog))) >= 0)
        c->page->ring_bytes = c->ring_bytes;
    c->stacks = c->sampler_fd >= 0;
    n = clock_prog_sampler(t, prog);
    if (!c->stacks && (c->sampler_fd = load(BPF_PROG_TYPE_PERF_EVENT, prog, n)) < 0) {
        refused(why, len, "loading the BPF sampler", errno);
        return -1;
    }
    n = clock_prog_guard(t, prog);
    if ((c->guard_fd = load(BPF_PROG_TYPE_RAW_TRACEPOINT, prog, n)) < 0) {
        refused(why, len, "loading the BPF guard", errno);
        return -1;
    }
    /* an exec: before the old program is flushed (Linux 6.10), else once the new one is in place */
    if ((c->exec_link = attach_raw(c->guard_fd, "sched_prepare_exec")) < 0)
        c->exec_link = attach_raw(c->guard_fd, "sched_process_exec");
    if (c->exec_link < 0 || (c->exit_link = attach_raw(c->guard_fd, "sched_process_exit")) < 0) {
        refused(why, len, "watching the process's exec and exit", errno);
        return -1;
    }
    return 0;
}

/* ---- the events ---- */

/* Sets the CPUs of a list such as "0-3,8,10-11" in set (CPU_CLOCK_MAX_CPUS
 * bits); 0, or -1 when it is not one. */
static int cpu_list(const char *s, unsigned char *set)
{
    int any = 0;

    while (*s && *s != '\n') {
        char *e;
        unsigned long lo = strtoul(s, &e, 10), hi = lo;
        if (e == s)
            return -1;
        if (*e == '-') {
            s = e + 1;
            hi = strtoul(s, &e, 10);
            if (e == s || hi < lo)
                return -1;
        }
        for (unsigned long i = lo; i <= hi && i < CPU_CLOCK_MAX_CPUS; i++) {
            set[i / 8] |= (unsigned char)(1u << (i % 8));
            any = 1;
        }
        s = e;
        if (*s == ',')
            s++;
    }
    return any ? 0 : -1;
}

/* The CPUs the process may run on (Cpus_allowed_list) that are online. */
static int cpus_of(pid_t pid, unsigned char *set)
{
    unsigned char online[CPU_CLOCK_MAX_CPUS / 8];
    char path[64], buf[8192];
    const char *line;

    memset(set, 0, CPU_CLOCK_MAX_CPUS / 8);
    memset(online, 0, sizeof(online));
    if (cp_read_small("/sys/devices/system/cpu/online", buf, sizeof(buf)) <= 0 || cpu_list(buf, online) < 0)
        memset(online, 0xff, sizeof(online));
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if (cp_read_small(path, buf, sizeof(buf)) <= 0 || !(line = strstr(buf, "\nCpus_allowed_list:")) ||
        cpu_list(line + 19 + strspn(line + 19, " \t"), set) < 0)
        memset(set, 0xff, CPU_CLOCK_MAX_CPUS / 8);
    for (size_t i = 0; i < sizeof(online); i++)
        set[i] &= online[i];
    return 0;
}

static int events_open(cpu_clock *c, char *why, size_t len)
{
    unsigned char set[CPU_CLOCK_MAX_CPUS / 8];
    long conf = sysconf(_SC_NPROCESSORS_ONLN);
    int ncpu = conf > 0 && conf < CPU_CLOCK_MAX_CPUS ? (int)conf : CPU_CLOCK_MAX_CPUS;

    cpus_of(c->pid, set);
    if (!(c->events = malloc((size_t)ncpu * sizeof(*c->events)))) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    for (int cpu = 0; cpu < ncpu; cpu++) {
        struct perf_event_attr a;
        int fd;
        if (!(set[cpu / 8] & (1u << (cpu % 8))))
            continue;
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CPU_CLOCK;
        a.sample_period = period_of(c->period_ns, c->nevents);
        a.disabled = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0 && (errno == ENODEV || errno == ENXIO))
            continue;                            /* (went offline meanwhile) */
        if (fd < 0) {
            int e = errno;
            if ((e == EACCES || e == EPERM) && seccomp_filtered())
                snprintf(why, len, "per-CPU perf events: a seccomp filter refuses them (%s)", strerror(e));
            else if (e == EACCES || e == EPERM)
                snprintf(why, len, "per-CPU perf events need CAP_PERFMON (%s): run clrprobe as root", strerror(e));
            else
                snprintf(why, len, "a per-CPU perf event was refused: %s", strerror(e));
            return -1;
        }
        c->events[c->nevents++] = fd;
        if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, c->sampler_fd) < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
            snprintf(why, len, "a per-CPU perf event refused the BPF sampler: %s", strerror(errno));
            return -1;
        }
    }
    if (c->nevents == 0) {
        snprintf(why, len, "no CPU of the process's is online");
        return -1;
    }
    return 0;
}

/* ---- the clock ---- */

void cpu_clock_init(cpu_clock *c)
{
    memset(c, 0, sizeof(*c));
    c->map_fd = c->sampler_fd = c->guard_fd = c->exec_link = c->exit_link = c->ring_fd = -1;
    c->stop_fd[0] = c->stop_fd[1] = -1;
}

int cpu_clock_create(cpu_clock *c, uint64_t period_ns, int stacks, char *why, size_t why_len)
{
    cpu_clock_init(c);
    c->asked_ns = c->period_ns = period_ns;
    c->stacks = stacks && ring_open(c, why, why_len) == 0;     /* (else the signal: older kernels) */
    if (page_open(c, why, why_len) < 0) {
        cpu_clock_close(c);
        return -1;
    }
    return 0;
}

int cpu_clock_start(cpu_clock *c, pid_t pid, char *why, size_t why_len)
{
    clock_target t;

    c->pid = pid;
    /* (the stacker's records name threads as the agent does: in its own namespace) */
    if (target_of(pid, c->stacks, &t, why, why_len) < 0)
        goto fail;
    t.map_fd = c->map_fd;
    t.ring_fd = c->ring_fd;
    t.signal = SIGPROF;
    if (programs_open(c, &t, why, why_len) < 0 || events_open(c, why, why_len) < 0)
        goto fail;
    cpu_clock_watch(c);                 /* (without it the period stays the asked one) */
    return 0;
fail:
    cpu_clock_close(c);
    return -1;
}

int cpu_clock_open(cpu_clock *c, pid_t pid, uint64_t period_ns, int stacks, char *why, size_t why_len)
{
    if (cpu_clock_create(c, period_ns, stacks, why, why_len) < 0)
        return -1;
    return cpu_clock_start(c, pid, why, why_len);
}

int cpu_clock_tune(cpu_clock *c)
{
    uint64_t want = c->page ? c->page->want_period_ns : 0, lo = c->asked_ns / 2, hi = c->asked_ns / 2 * 3;
    double diff;

    if (!want)
        want = c->asked_ns;
    if (want < lo)
        want = lo;
    if (want > hi)
        want = hi;
    diff = (double)want - (double)c->period_ns;
    if (diff < 0)
        diff = -diff;
    if (diff < TUNE_STEP * (double)c->period_ns)
        return 0;
    for (int i = 0; i < c->nevents; i++) {
        uint64_t period = period_of(want, i);
        ioctl(c->events[i], PERF_EVENT_IOC_PERIOD, &period);
    }
    c->period_ns = want;
    c->page->period_ns = want;
    return 1;
}

static void *watch_main(void *arg)
{
    cpu_clock *c = arg;
    struct pollfd pfd = { c->stop_fd[0], POLLIN, 0 };

    while (poll(&pfd, 1, TUNE_EVERY_MS) == 0)
        cpu_clock_tune(c);
    return NULL;
}

static int cpu_clock_watch(cpu_clock *c)
{
    sigset_t all, old;
    int rc;

    if (pipe2(c->stop_fd, O_CLOEXEC) < 0)
        return -1;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&c->watcher, NULL, watch_main, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(c->stop_fd[0]);
        close(c->stop_fd[1]);
        c->stop_fd[0] = c->stop_fd[1] = -1;
        return -1;
    }
    c->watching = 1;
    return 0;
}

void cpu_clock_close(cpu_clock *c)
{
    if (c->page)
        c->page->gate = 0;
    if (c->watching) {
        if (write(c->stop_fd[1], "", 1) < 0) {
            /* (a pipe of our own: it does not fail) */
        }
        pthread_join(c->watcher, NULL);
        c->watching = 0;
    }
    for (int i = 0; i < 2; i++)
        if (c->stop_fd[i] >= 0)
            close(c->stop_fd[i]);
    for (int i = 0; i < c->nevents; i++)
        close(c->events[i]);
    free(c->events);
    c->events = NULL;
    c->nevents = 0;
    if (c->exec_link >= 0)
        close(c->exec_link);
    if (c->exit_link >= 0)
        close(c->exit_link);
    if (c->sampler_fd >= 0)
        close(c->sampler_fd);
    if (c->guard_fd >= 0)
        close(c->guard_fd);
    if (c->page)
        munmap((void *)c->page, (size_t)sysconf(_SC_PAGESIZE));
    c->page = NULL;
    if (c->map_fd >= 0)
        close(c->map_fd);
    if (c->ring_fd >= 0)
        close(c->ring_fd);
    c->ring_fd = -1;
    c->map_fd = c->sampler_fd = c->guard_fd = c->exec_link = c->exit_link = -1;
    c->stop_fd[0] = c->stop_fd[1] = -1;
}
