/* test_exc_machine.c - the exception state machine alone (agent/exceptions/exc_machine.h):
 * what the conformance tests cannot reach through the simulated runtime
 * cheaply: nesting deeper than it follows, callbacks that come with no
 * exception under way (an attach in the middle of one), and the time asked
 * for only when something ends. */
#include "unit.h"
#include "agent/exceptions/exc_machine.h"

#include <string.h>

typedef struct seen { int handled, ended, nows; int outcome[8]; } seen;

static void on_handled(void *ctx, const exc_state *e, uint64_t t, uint64_t by)
{
    (void)e; (void)t; (void)by;
    ((seen *)ctx)->handled++;
}

static void on_ended(void *ctx, const exc_state *e, uint64_t t, int outcome, uint64_t by)
{
    seen *s = ctx;
    (void)e; (void)t; (void)by;
    s->ended++;
    if (outcome >= 0 && outcome < 8)
        s->outcome[outcome]++;
}

static uint64_t now(void *ctx)
{
    ((seen *)ctx)->nows++;
    return 77;
}

TEST(exc_machine_nesting_deeper_than_followed)
{
    exc_thread th;
    seen s;
    exc_sink sink = { on_handled, on_ended, now, &s };
    exc_state *x = NULL;

    memset(&th, 0, sizeof(th));
    memset(&s, 0, sizeof(s));
    /* each one thrown in the filter of the one before */
    for (uint64_t i = 1; i <= EXC_MAX_DEPTH + 2; i++) {
        x = exc_thrown(&th, &sink, i, 0x1000 + i, 10 * i);
        CHECK(x != NULL);
        exc_search_function_enter(&th, 0x50);
        exc_search_filter_enter(&th, 0x50);
    }
    CHECK_EQ(th.too_deep, 1);
    CHECK(th.n >= 1 && th.n <= EXC_MAX_DEPTH);
    CHECK_EQ(x->depth, (uint32_t)th.n);
    /* the filters end, innermost first: every one still followed is dropped as escaping its filter */
    while (th.n > 1)
        exc_search_filter_leave(&th, &sink, 0);
    CHECK_EQ(s.outcome[EXC_FILTER], s.ended);
    CHECK(s.nows >= 1);                       /* asked for the time, as it ended them */
}

TEST(exc_machine_callbacks_without_an_exception_are_ignored)
{
    exc_thread th;
    seen s;
    exc_sink sink = { on_handled, on_ended, now, &s };

    memset(&th, 0, sizeof(th));
    memset(&s, 0, sizeof(s));
    /* an attach in the middle of an exception: its callbacks come, its throw did not */
    exc_search_function_enter(&th, 0x10);
    exc_search_catcher_found(&th, 0x10);
    CHECK_EQ(exc_unwind_function_enter(&th, &sink, 0x10, 5), 0);
    exc_unwind_finally_enter(&th, 0x10);
    exc_unwind_finally_leave(&th, &sink, 6);
    exc_catcher_enter(&th, &sink, 0x10, 3, 7);
    exc_catcher_leave(&th, &sink, 8);
    exc_search_filter_leave(&th, &sink, 9);
    CHECK_EQ(th.n, 0);
    CHECK_EQ(s.handled + s.ended, 0);
    CHECK_EQ(s.nows, 0);
}
