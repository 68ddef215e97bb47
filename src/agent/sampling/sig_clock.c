/* sig_clock.c - the signal sampler's clock and the reason for it
 * (sig_clock.h): one perf event opened and closed on the starting thread
 * tells what the process may do; the paranoia level, the seccomp mode and
 * the capabilities say why. */
#include "agent/sampling/sig_clock.h"
#include "common/config.h"
#include "trace/format.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define PARANOID_UNKNOWN (-100)

static int open_task_clock(int exclude_kernel)
{
    struct perf_event_attr a;

    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 10000000;
    a.disabled = 1;
    a.exclude_hv = 1;
    a.exclude_kernel = exclude_kernel ? 1 : 0;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    int v = PARANOID_UNKNOWN;

    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = PARANOID_UNKNOWN;
        fclose(f);
    }
    return v;
}

static void read_status(sig_perf_rights *r)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    unsigned long long caps;

    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "Seccomp:", 8) == 0)
            r->seccomp = atoi(line + 8);
        else if (sscanf(line, "CapEff: %llx", &caps) == 1)
            r->perfmon = ((caps >> CAP_PERFMON_BIT) & 1) || ((caps >> CAP_SYS_ADMIN_BIT) & 1);
    }
    fclose(f);
}

void sig_perf_rights_probe(sig_perf_rights *r)
{
    int fd;

    memset(r, 0, sizeof(*r));
    r->paranoid = read_paranoid();
    read_status(r);
    if ((fd = open_task_clock(0)) >= 0) {
        close(fd);
        r->probe = SIG_PERF_ALLOWED;
        return;
    }
    r->err = errno;
    if ((r->err == EACCES || r->err == EPERM) && (fd = open_task_clock(1)) >= 0) {
        close(fd);
        r->probe = SIG_PERF_USER_ONLY;
        r->err = 0;
        return;
    }
    r->probe = SIG_PERF_REFUSED;
}

/* Why the kernel said no, and what would let it say yes. */
static void refusal(const sig_perf_rights *r, char *buf, size_t len)
{
    if ((r->err == EACCES || r->err == EPERM) && r->paranoid > 2 && !r->perfmon)
        snprintf(buf, len, "perf_event_paranoid is %d: only a process with CAP_PERFMON may open them "
                 "(sysctl kernel.perf_event_paranoid=2 allows them)", r->paranoid);
    else if (r->seccomp == 2)
        snprintf(buf, len, "a seccomp filter refuses perf_event_open (%s; a container's default profile does: "
                 "allow the call to get them)", strerror(r->err));
    else if (r->err == ENOENT || r->err == ENOSYS || r->err == EOPNOTSUPP)
        snprintf(buf, len, "this kernel has no perf events (%s)", strerror(r->err));
    else
        snprintf(buf, len, "perf_event_open: %s", strerror(r->err));
}

/* "(perf_event_paranoid 2, and the process has CAP_PERFMON)", "" unknown. */
static void rights(const sig_perf_rights *r, char *buf, size_t len)
{
    if (r->paranoid == PARANOID_UNKNOWN)
        snprintf(buf, len, "%s", r->perfmon ? " (the process has CAP_PERFMON)" : "");
    else if (r->paranoid >= 2)
        snprintf(buf, len, " (perf_event_paranoid %d, %s CAP_PERFMON)", r->paranoid,
                 r->perfmon ? "and the process has" : "without");
    else
        snprintf(buf, len, " (perf_event_paranoid %d)", r->paranoid);
}

/* The per-CPU clock's part of the reason (auto): why the command holds
 * none, after the reason for the clock chosen instead. */
static void add_why_not(sig_clock_choice *c, const sig_percpu_offer *o)
{
    size_t n = strlen(c->why);

    if (!o || o->given || !o->why_not || !o->why_not[0] || n + 8 >= sizeof(c->why))
        return;
    snprintf(c->why + n, sizeof(c->why) - n, "; no per-CPU clock: %s", o->why_not);
}

static void choose_own(int sampler, const sig_perf_rights *r, sig_clock_choice *c);

void sig_clock_choose(int sampler, const sig_percpu_offer *o, const sig_perf_rights *r, sig_clock_choice *c)
{
    c->clock = SAMPLER_CLOCK_TIMER;
    c->flags = 0;
    if (o && o->given && o->stacks) {
        c->clock = SAMPLER_CLOCK_KSTACK;
        snprintf(c->why, sizeof(c->why), "%s", sampler == CP_SAMPLER_KSTACK ? "asked (--sampler kstack)"
                 : "the default where the clrprobe command may hold it (CAP_BPF and CAP_PERFMON)");
        return;
    }
    if (o && o->given && (sampler == CP_SAMPLER_AUTO || sampler == CP_SAMPLER_PERCPU || sampler == CP_SAMPLER_KSTACK)) {
        c->clock = SAMPLER_CLOCK_PERCPU;
        snprintf(c->why, sizeof(c->why), "%s", sampler == CP_SAMPLER_PERCPU ? "asked (--sampler percpu)"
                 : sampler == CP_SAMPLER_KSTACK ? "--sampler kstack was asked, but this kernel takes no stacks into "
                                                  "a BPF ring buffer (Linux 5.8): the per-CPU clock's signals instead"
                 : "the default where the clrprobe command may hold it (CAP_BPF and CAP_PERFMON), on a kernel "
                   "without BPF ring buffers (Linux 5.8)");
        return;
    }
    if (sampler == CP_SAMPLER_PERCPU || sampler == CP_SAMPLER_KSTACK) {
        /* (never a perf event per thread: their cost at every switch is what was to be avoided) */
        snprintf(c->why, sizeof(c->why), "--sampler %s was asked, but the clrprobe command holds no per-CPU "
                 "clock (%s): CPU timers instead", sampler == CP_SAMPLER_KSTACK ? "kstack" : "percpu",
                 o && o->why_not && o->why_not[0] ? o->why_not : "not offered");
        return;
    }
    choose_own(sampler, r, c);
    add_why_not(c, o);
}

/* The process's own clocks: perf events where allowed, else timers. */
static void choose_own(int sampler, const sig_perf_rights *r, sig_clock_choice *c)
{
    char detail[224];
    int asked = sampler == CP_SAMPLER_PERF;

    if (sampler == CP_SAMPLER_SIGNAL || !r) {
        snprintf(c->why, sizeof(c->why), "asked (--sampler signal)");
        return;
    }
    switch (r->probe) {
    case SIG_PERF_ALLOWED:
        c->clock = SAMPLER_CLOCK_PERF;
        rights(r, detail, sizeof(detail));
        snprintf(c->why, sizeof(c->why), "%s%s", asked ? "asked (--sampler perf)" : "the default where perf events "
                 "are allowed", asked ? "" : detail);
        break;
    case SIG_PERF_USER_ONLY:
        c->clock = SAMPLER_CLOCK_PERF;
        c->flags = SAMPLER_FLAG_USER_ONLY;
        rights(r, detail, sizeof(detail));
        snprintf(c->why, sizeof(c->why), "%s, for user time only%s: the time threads spend in the kernel is not "
                 "sampled", asked ? "asked (--sampler perf)" : "the default where perf events are allowed", detail);
        break;
    case SIG_PERF_REFUSED:
        refusal(r, detail, sizeof(detail));
        snprintf(c->why, sizeof(c->why), "%s: %s", asked ? "--sampler perf was asked, but perf events are refused"
                 : "the default where perf events are refused", detail);
        break;
    }
}
