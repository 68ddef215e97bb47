/* test_agent_thread.c - agent_thread_start (agent/core/agent_thread.h): the new
 * thread runs with every signal blocked, whatever its creator's mask; the
 * creator's mask is what it was, after a start and after a failed one; a
 * failure is pthread_create's error number. */
#include "unit.h"
#include "agent/core/agent_thread.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>

/* Signals a profilee may handle or the signal sampler sends; the ones the
 * kernel or the C library never lets a thread block are left out. */
static const int probe_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPROF, SIGALRM,
                                     SIGCHLD, SIGPIPE, SIGSEGV, SIGBUS, SIGWINCH, 40, 50, 64 };
#define NPROBE (sizeof(probe_signals) / sizeof(probe_signals[0]))

static void *report_mask(void *arg)
{
    sigset_t *seen = arg;
    pthread_sigmask(SIG_BLOCK, NULL, seen);
    return NULL;
}

static int same_mask(const sigset_t *a, const sigset_t *b)
{
    for (int sig = 1; sig <= 64; sig++)
        if (sigismember(a, sig) != sigismember(b, sig))
            return 0;
    return 1;
}

TEST(agent_thread_starts_with_every_signal_blocked)
{
    sigset_t only, before, after, seen;
    pthread_t t;

    sigemptyset(&only);
    sigaddset(&only, SIGUSR2);                   /* the creator blocks one signal and takes the rest */
    CHECK_EQ(pthread_sigmask(SIG_SETMASK, &only, &before), 0);
    sigemptyset(&seen);
    CHECK_EQ(agent_thread_start(&t, NULL, report_mask, &seen), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    for (size_t i = 0; i < NPROBE; i++)
        if (!sigismember(&seen, probe_signals[i]))
            unit_fail(__FILE__, __LINE__, "signal %d not blocked in the agent thread", probe_signals[i]);
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    CHECK(same_mask(&after, &only));             /* the creator's own mask, not the thread's */
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

TEST(agent_thread_start_failure_is_the_error_and_keeps_the_mask)
{
    sigset_t only, before, after;
    pthread_attr_t attr;
    pthread_t t;
    int rc;

    sigemptyset(&only);
    sigaddset(&only, SIGUSR1);
    CHECK_EQ(pthread_sigmask(SIG_SETMASK, &only, &before), 0);
    CHECK_EQ(pthread_attr_init(&attr), 0);
    /* a stack no machine maps: pthread_create fails, nothing runs */
    CHECK_EQ(pthread_attr_setstacksize(&attr, (size_t)1 << 62), 0);
    rc = agent_thread_start(&t, &attr, report_mask, NULL);
    CHECK(rc == EAGAIN || rc == ENOMEM);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    CHECK(same_mask(&after, &only));
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}
