/* test_exc_conformance.c - the agent's exception state machine against the
 * runtime's exception callbacks (docs/exceptions.md: nested exceptions,
 * unmanaged and CLR handlers, unhandled exceptions), driven by the simulated runtime of
 * fake_runtime.h through the real agent's callbacks.
 *
 * Each test delivers the exact callback sequence CoreCLR (.NET 10, seen with
 * `Sample ehcases`) gives for one shape of exception handling, then reads
 * the trace back and compares the exception records, in order, with the
 * expected lines:
 *
 *   thrown #ID TYPE 'MESSAGE' dDEPTH [parent=P] [rethrow_of=R] @ LEAF<..<ROOT
 *   handled #ID by FUNCTION il=IL S/F/U/N [escaped_by=E]
 *   ended #ID OUTCOME S/F/U/N [by=B]
 *
 * (S/F/U/N: frames searched, filters run, frames unwound, finally blocks
 * run.)  The runtime's own quirks are kept: a search that stops at a native
 * boundary is followed by an UnwindFunctionLeave with no Enter. */
#include "unit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fake_runtime.h"
#include "report/profile.h"
#include "trace/format.h"

#define DOMAIN    0x7f00aa000010ull
#define CORE_ASM  0x7f00bb000010ull
#define CORE      0x7f00cc000010ull
#define APP_ASM   0x7f00bb000020ull
#define APP       0x7f00cc000020ull
#define THROWER   0x7f00dd000010ull    /* functions */
#define MID       0x7f00dd000020ull
#define OUTER     0x7f00dd000030ull
#define MAIN      0x7f00dd000040ull
#define FILTERFN  0x7f00dd000050ull
#define CCTOR     0x7f00dd000060ull
#define EXC       0x7f00ee000010ull    /* classes */
#define IOE       0x7f00ee000020ull
#define ARG       0x7f00ee000030ull
#define FMT       0x7f00ee000040ull

static const struct { uint64_t id; const char *name; } functions[] = {
    { THROWER, "Thrower" }, { MID, "Mid" }, { OUTER, "Outer" }, { MAIN, "Main" }, { FILTERFN, "Filter" },
    { CCTOR, ".cctor" }, { 0, "[native]" },
};

static const char *short_name(uint64_t fid)
{
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
        if (functions[i].id == fid)
            return functions[i].name;
    return "?";
}

/* A running process: CoreLib (System.Exception and three exceptions) and
 * the app's module with its functions compiled; the agent attached with
 * exceptions collected and its catch-up done. */
static void world(fake_runtime *rt)
{
    fr_init(rt);
    fr_appdomain(rt, DOMAIN, "clrhost");
    fr_load(rt, FR_APPDOMAIN, DOMAIN);
    fr_assembly(rt, CORE_ASM, DOMAIN, CORE, "System.Private.CoreLib");
    fr_module(rt, CORE, CORE_ASM, "/usr/share/dotnet/System.Private.CoreLib.dll");
    fr_assembly(rt, APP_ASM, DOMAIN, APP, "App");
    fr_module(rt, APP, APP_ASM, "/app/App.dll");
    fr_load(rt, FR_ASSEMBLY, CORE_ASM);
    fr_load(rt, FR_MODULE, CORE);
    fr_load(rt, FR_ASSEMBLY, APP_ASM);
    fr_load(rt, FR_MODULE, APP);
    fr_function(rt, THROWER, APP, "App.Cases", "Thrower");
    fr_function(rt, MID, APP, "App.Cases", "Mid");
    fr_function(rt, OUTER, APP, "App.Cases", "Outer");
    fr_function(rt, MAIN, APP, "App.Program", "Main");
    fr_function(rt, FILTERFN, APP, "App.Cases", "Filter");
    fr_function(rt, CCTOR, APP, "App.Lazy", ".cctor");
    for (uint64_t f = THROWER; f <= CCTOR; f += 0x10)
        fr_load(rt, FR_FUNCTION, f);
    fr_exc_class(rt, CORE, EXC, "System.Exception", 0);
    fr_exc_class(rt, CORE, IOE, "System.InvalidOperationException", EXC);
    fr_exc_class(rt, CORE, ARG, "System.ArgumentException", EXC);
    fr_exc_class(rt, CORE, FMT, "System.FormatException", EXC);
    CHECK_EQ(fr_attach(rt, "modules,jit,exceptions"), S_OK);
    CHECK(rt->mask_low & COR_PRF_MONITOR_EXCEPTIONS);
    CHECK(rt->mask_low & COR_PRF_ENABLE_STACK_SNAPSHOT);
    fr_enable_events(rt);
    CHECK_EQ(fr_attach_complete(rt), S_OK);
}

/* A throw from a stack (leaf first, up to 8 frames; 0 ends it early: use
 * NATIVE for a native frame). */
#define NATIVE 1ull
static void throw_from(fake_runtime *rt, uint64_t obj, uint64_t f0, uint64_t f1, uint64_t f2, uint64_t f3,
                       uint64_t f4, uint64_t f5)
{
    uint64_t in[6] = { f0, f1, f2, f3, f4, f5 }, stack[6];
    int n = 0;
    for (int i = 0; i < 6 && in[i]; i++)
        stack[n++] = in[i] == NATIVE ? 0 : in[i];
    fr_exc_stack(rt, stack, n);
    fr_exc(rt, FR_THROWN, obj, 0);
}

static void ev(fake_runtime *rt, fr_exc_event e, uint64_t a)
{
    fr_exc(rt, e, a, 0);
}

/* The exception records of the trace, one line each (see the top). */
static void summary(const rp_trace *tr, char *out, size_t cap)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < tr->nev && used < cap; i++) {
        const rp_event *e = &tr->ev[i];
        char line[512];
        int n = 0;

        if (e->kind == TK_EXCEPTION_THROWN) {
            const rec_exception_thrown *r = &e->exception_thrown;
            n = snprintf(line, sizeof(line), "thrown #%" PRIu64 " %s '%s' d%" PRIu64, r->exception, r->type,
                         r->message, r->depth);
            if (r->parent)
                n += snprintf(line + n, sizeof(line) - (size_t)n, " parent=%" PRIu64, r->parent);
            if (r->rethrow_of)
                n += snprintf(line + n, sizeof(line) - (size_t)n, " rethrow_of=%" PRIu64, r->rethrow_of);
            n += snprintf(line + n, sizeof(line) - (size_t)n, " @");
            for (uint16_t k = 0; k < r->nstack; k++)
                n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%s", k ? "<" : " ", short_name(r->stack[k]));
        } else if (e->kind == TK_EXCEPTION_HANDLED) {
            const rec_exception_handled *r = &e->exception_handled;
            n = snprintf(line, sizeof(line), "handled #%" PRIu64 " by %s il=%d %u/%u/%u/%u", r->exception,
                         short_name(r->catcher), r->il_offset == EXC_IL_UNKNOWN ? -1 : (int)r->il_offset,
                         r->search_frames, r->filters, r->unwound_frames, r->finallys);
            if (r->escaped_by)
                n += snprintf(line + n, sizeof(line) - (size_t)n, " escaped_by=%" PRIu64, r->escaped_by);
        } else if (e->kind == TK_EXCEPTION_UNHANDLED) {
            const rec_exception_unhandled *r = &e->exception_unhandled;
            const char *names[] = { "?", "unhandled", "native", "filter", "superseded" };
            n = snprintf(line, sizeof(line), "ended #%" PRIu64 " %s %u/%u/%u/%u", r->exception,
                         r->outcome <= 4 ? names[r->outcome] : "?", r->search_frames, r->filters,
                         r->unwound_frames, r->finallys);
            if (r->by)
                n += snprintf(line + n, sizeof(line) - (size_t)n, " by=%" PRIu64, r->by);
        } else {
            continue;
        }
        (void)n;
        used += (size_t)snprintf(out + used, cap - used, "%s\n", line);
    }
}

/* Detaches, reads the trace, compares its exception records with want. */
static void expect(fake_runtime *rt, const char *want)
{
    static char got[8192];
    rp_trace tr;

    CHECK_EQ(fr_detach(rt), 0);
    CHECK_EQ(rt->notimpl_calls, 0);
    if (rt->notimpl_calls)
        printf("    the agent called %s, not implemented by the fake\n", rt->last_notimpl);
    CHECK_EQ(rt->violations, 0);
    fr_print_violations(rt);
    if (fr_load_trace(rt, &tr) == 0) {
        summary(&tr, got, sizeof(got));
        CHECK_STR(got, want);
        rp_free(&tr);
    }
    fr_cleanup(rt);
}

TEST(exc_conformance_plain_throw_and_catch)
{
    fake_runtime rt;
    uint64_t a;

    world(&rt);
    a = fr_exc_object(&rt, IOE, "plain throw");
    throw_from(&rt, a, THROWER, OUTER, MAIN, 0, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, a);
    ev(&rt, FR_CATCH_LEAVE, 0);
    CHECK_EQ(rt.snapshots, 1);
    expect(&rt, "thrown #1 System.InvalidOperationException 'plain throw' d1 @ Thrower<Outer<Main\n"
                "handled #1 by Outer il=28 2/0/2/0\n");
}

/* A filter that says no: the first pass goes on to the next frame. */
TEST(exc_conformance_filter_returns_false)
{
    fake_runtime rt;
    uint64_t a;

    world(&rt);
    a = fr_exc_object(&rt, ARG, "filter says no");
    throw_from(&rt, a, THROWER, MID, OUTER, MAIN, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, MID);
    ev(&rt, FR_FILTER_ENTER, MID);
    ev(&rt, FR_FILTER_LEAVE, 0);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    for (uint64_t f = THROWER; f <= MID; f += 0x10) {
        ev(&rt, FR_UNWIND_ENTER, f);
        ev(&rt, FR_UNWIND_LEAVE, 0);
    }
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, a);
    ev(&rt, FR_CATCH_LEAVE, 0);
    expect(&rt, "thrown #1 System.ArgumentException 'filter says no' d1 @ Thrower<Mid<Outer<Main\n"
                "handled #1 by Outer il=28 3/1/3/0\n");
}

/* A filter that says yes: its function catches. */
TEST(exc_conformance_filter_returns_true)
{
    fake_runtime rt;
    uint64_t a;

    world(&rt);
    a = fr_exc_object(&rt, ARG, "filter says yes");
    throw_from(&rt, a, THROWER, MID, MAIN, 0, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, MID);
    ev(&rt, FR_FILTER_ENTER, MID);
    ev(&rt, FR_FILTER_LEAVE, 0);
    ev(&rt, FR_CATCHER_FOUND, MID);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    fr_exc(&rt, FR_CATCH_ENTER, MID, a);
    ev(&rt, FR_CATCH_LEAVE, 0);
    expect(&rt, "thrown #1 System.ArgumentException 'filter says yes' d1 @ Thrower<Mid<Main\n"
                "handled #1 by Mid il=28 2/1/2/0\n");
}

/* A finally on the way out, in the second pass; a message the runtime has
 * not built yet (_message null) is empty. */
TEST(exc_conformance_finally_on_the_way_out)
{
    fake_runtime rt;
    uint64_t a;

    world(&rt);
    a = fr_exc_object(&rt, IOE, NULL);
    throw_from(&rt, a, THROWER, MID, OUTER, MAIN, 0, 0);
    for (uint64_t f = THROWER; f <= MID; f += 0x10) {
        ev(&rt, FR_SEARCH_ENTER, f);
        ev(&rt, FR_SEARCH_LEAVE, 0);
    }
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    ev(&rt, FR_FINALLY_ENTER, MID);
    ev(&rt, FR_FINALLY_LEAVE, 0);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, a);
    ev(&rt, FR_CATCH_LEAVE, 0);
    expect(&rt, "thrown #1 System.InvalidOperationException '' d1 @ Thrower<Mid<Outer<Main\n"
                "handled #1 by Outer il=28 3/0/3/1\n");
}

/* An exception thrown in a filter escapes it: the filter counts as false,
 * the runtime drops the nested exception, the first pass goes on. */
TEST(exc_conformance_exception_escapes_a_filter)
{
    fake_runtime rt;
    uint64_t a, b;

    world(&rt);
    a = fr_exc_object(&rt, ARG, "filter escapes");
    b = fr_exc_object(&rt, FMT, "thrown in a filter");
    throw_from(&rt, a, THROWER, MID, OUTER, MAIN, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, MID);
    ev(&rt, FR_FILTER_ENTER, MID);
    throw_from(&rt, b, FILTERFN, MID, THROWER, MID, OUTER, MAIN);      /* (the filter runs on the thrower's stack) */
    ev(&rt, FR_SEARCH_ENTER, FILTERFN);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, MID);
    ev(&rt, FR_UNWIND_LEAVE, 0);                  /* (as CoreCLR: the boundary, no Enter) */
    ev(&rt, FR_UNWIND_ENTER, FILTERFN);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    ev(&rt, FR_FILTER_LEAVE, 0);                  /* the filter of the first one ends: it said no */
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    for (uint64_t f = THROWER; f <= MID; f += 0x10) {
        ev(&rt, FR_UNWIND_ENTER, f);
        ev(&rt, FR_UNWIND_LEAVE, 0);
    }
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, a);
    ev(&rt, FR_CATCH_LEAVE, 0);
    expect(&rt, "thrown #1 System.ArgumentException 'filter escapes' d1 @ Thrower<Mid<Outer<Main\n"
                "thrown #2 System.FormatException 'thrown in a filter' d2 parent=1 @ Filter<Mid<Thrower<Mid<Outer<Main\n"
                "ended #2 filter 2/0/2/0\n"
                "handled #1 by Outer il=28 3/1/3/0\n");
}

/* An exception thrown in a finally escapes it: the first one's processing
 * never resumes. */
TEST(exc_conformance_exception_escapes_a_finally)
{
    fake_runtime rt;
    uint64_t a, b;

    world(&rt);
    a = fr_exc_object(&rt, IOE, "lost in a finally");
    b = fr_exc_object(&rt, ARG, "thrown in a finally");
    throw_from(&rt, a, THROWER, MID, OUTER, MAIN, 0, 0);
    for (uint64_t f = THROWER; f <= MID; f += 0x10) {
        ev(&rt, FR_SEARCH_ENTER, f);
        ev(&rt, FR_SEARCH_LEAVE, 0);
    }
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    ev(&rt, FR_FINALLY_ENTER, MID);
    throw_from(&rt, b, THROWER, MID, OUTER, MAIN, 0, 0);
    for (uint64_t f = THROWER; f <= MID; f += 0x10) {
        ev(&rt, FR_SEARCH_ENTER, f);
        ev(&rt, FR_SEARCH_LEAVE, 0);
    }
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    for (uint64_t f = THROWER; f <= MID; f += 0x10) {
        ev(&rt, FR_UNWIND_ENTER, f);
        ev(&rt, FR_UNWIND_LEAVE, 0);
    }
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, b);
    ev(&rt, FR_CATCH_LEAVE, 0);
    expect(&rt, "thrown #1 System.InvalidOperationException 'lost in a finally' d1 @ Thrower<Mid<Outer<Main\n"
                "thrown #2 System.ArgumentException 'thrown in a finally' d2 parent=1 @ Thrower<Mid<Outer<Main\n"
                "ended #1 superseded 3/0/2/1 by=2\n"
                "handled #2 by Outer il=28 3/0/3/0\n");
}

/* An exception caught inside a finally: the first one resumes. */
TEST(exc_conformance_exception_caught_inside_a_finally)
{
    fake_runtime rt;
    uint64_t a, b;

    world(&rt);
    a = fr_exc_object(&rt, IOE, "survives a finally");
    b = fr_exc_object(&rt, ARG, "caught inside a finally");
    throw_from(&rt, a, THROWER, MID, OUTER, MAIN, 0, 0);
    for (uint64_t f = THROWER; f <= MID; f += 0x10) {
        ev(&rt, FR_SEARCH_ENTER, f);
        ev(&rt, FR_SEARCH_LEAVE, 0);
    }
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    ev(&rt, FR_FINALLY_ENTER, MID);
    throw_from(&rt, b, THROWER, MID, OUTER, MAIN, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, MID);
    ev(&rt, FR_CATCHER_FOUND, MID);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    fr_exc(&rt, FR_CATCH_ENTER, MID, b);
    ev(&rt, FR_CATCH_LEAVE, 0);
    ev(&rt, FR_FINALLY_LEAVE, 0);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, a);
    ev(&rt, FR_CATCH_LEAVE, 0);
    expect(&rt, "thrown #1 System.InvalidOperationException 'survives a finally' d1 @ Thrower<Mid<Outer<Main\n"
                "thrown #2 System.ArgumentException 'caught inside a finally' d2 parent=1 @ Thrower<Mid<Outer<Main\n"
                "handled #2 by Mid il=28 2/0/2/0\n"
                "handled #1 by Outer il=28 3/0/3/1\n");
}

/* A catch clause that throws (or rethrows the same object): the catch is
 * left by the new exception, which its caller catches. */
static void catch_then_throw(int rethrow)
{
    fake_runtime rt;
    uint64_t a, b;
    char want[1024];

    world(&rt);
    a = fr_exc_object(&rt, IOE, "replaced in a catch");
    b = rethrow ? a : fr_exc_object(&rt, ARG, "thrown in a catch");
    throw_from(&rt, a, THROWER, MID, OUTER, MAIN, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, MID);
    ev(&rt, FR_CATCHER_FOUND, MID);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    fr_exc(&rt, FR_CATCH_ENTER, MID, a);
    if (rethrow)
        usleep(2000);         /* (a stack for the same type again: exceptions.h samples them per millisecond) */
    throw_from(&rt, b, MID, OUTER, MAIN, 0, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, MID);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MID);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, b);
    ev(&rt, FR_CATCH_LEAVE, 0);
    snprintf(want, sizeof(want),
             "thrown #1 System.InvalidOperationException 'replaced in a catch' d1 @ Thrower<Mid<Outer<Main\n"
             "thrown #2 %s d2 parent=1%s @ Mid<Outer<Main\n"
             "handled #1 by Mid il=28 2/0/2/0 escaped_by=2\n"
             "handled #2 by Outer il=28 2/0/2/0\n",
             rethrow ? "System.InvalidOperationException 'replaced in a catch'"
                     : "System.ArgumentException 'thrown in a catch'",
             rethrow ? " rethrow_of=1" : "");
    expect(&rt, want);
}

TEST(exc_conformance_exception_escapes_a_catch)
{
    catch_then_throw(0);
}

TEST(exc_conformance_rethrow)
{
    catch_then_throw(1);
}

/* Handled by unmanaged code or by the runtime (a type initializer's
 * exception): the first pass stops at the native boundary with no catcher,
 * the unwind runs, no catch clause follows; the runtime then throws a new
 * exception of its own, not nested in the first. */
TEST(exc_conformance_handled_outside_managed_code)
{
    fake_runtime rt;
    uint64_t a, b;

    world(&rt);
    a = fr_exc_object(&rt, IOE, "from a type initializer");
    b = fr_exc_object(&rt, ARG, "the runtime's");
    throw_from(&rt, a, THROWER, CCTOR, NATIVE, OUTER, MAIN, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, CCTOR);
    ev(&rt, FR_UNWIND_LEAVE, 0);                  /* (the boundary) */
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, CCTOR);
    throw_from(&rt, b, OUTER, MAIN, 0, 0, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_CATCHER_FOUND, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    fr_exc(&rt, FR_CATCH_ENTER, OUTER, b);
    ev(&rt, FR_CATCH_LEAVE, 0);
    expect(&rt, "thrown #1 System.InvalidOperationException 'from a type initializer' d1 @ Thrower<.cctor<[native]<Outer<Main\n"
                "ended #1 native 2/0/0/0\n"
                "thrown #2 System.ArgumentException 'the runtime's' d1 @ Outer<Main\n"
                "handled #2 by Outer il=28 1/0/1/0\n");
}

/* Unhandled: the first pass searches the whole stack and finds no catcher;
 * the record is in the file as the second pass begins (the process dies
 * right after it). */
TEST(exc_conformance_unhandled_is_in_the_file_before_the_end)
{
    fake_runtime rt;
    rp_trace tr;
    uint64_t a;
    int seen = 0;

    world(&rt);
    a = fr_exc_object(&rt, IOE, "clrprobe unhandled");
    throw_from(&rt, a, THROWER, OUTER, MAIN, 0, 0, 0);
    ev(&rt, FR_SEARCH_ENTER, THROWER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, OUTER);
    ev(&rt, FR_SEARCH_LEAVE, 0);
    ev(&rt, FR_SEARCH_ENTER, MAIN);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, THROWER);
    /* still attached, as a process about to abort: read the file now */
    if (fr_load_trace(&rt, &tr) == 0) {
        for (size_t i = 0; i < tr.nev; i++)
            if (tr.ev[i].kind == TK_EXCEPTION_UNHANDLED && tr.ev[i].exception_unhandled.exception == 1 &&
                tr.ev[i].exception_unhandled.outcome == EXC_OUTCOME_UNHANDLED)
                seen = 1;
        rp_free(&tr);
    }
    CHECK(seen);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, OUTER);
    ev(&rt, FR_UNWIND_LEAVE, 0);
    ev(&rt, FR_UNWIND_ENTER, MAIN);
    expect(&rt, "thrown #1 System.InvalidOperationException 'clrprobe unhandled' d1 @ Thrower<Outer<Main\n"
                "ended #1 unhandled 3/0/0/0\n");
}

/* Stacks are sampled per type and thread (at most one a millisecond; the
 * first always): every exception is recorded, and the exceptions view
 * counts each one, its stack standing for those that had none. */
TEST(exc_conformance_stacks_sampled_every_exception_counted)
{
    fake_runtime rt;
    rp_trace tr;
    rp_profile prof;
    uint64_t objs[6];
    int stacked = 0, thrown = 0, first_stacked = 0;

    world(&rt);
    for (int i = 0; i < 6; i++)
        objs[i] = fr_exc_object(&rt, IOE, "again");
    for (int i = 0; i < 6; i++) {
        if (i == 5)
            usleep(2000);                     /* the last one: surely a millisecond after the first */
        throw_from(&rt, objs[i], THROWER, OUTER, MAIN, 0, 0, 0);
        ev(&rt, FR_SEARCH_ENTER, THROWER);
        ev(&rt, FR_SEARCH_LEAVE, 0);
        ev(&rt, FR_SEARCH_ENTER, OUTER);
        ev(&rt, FR_CATCHER_FOUND, OUTER);
        ev(&rt, FR_SEARCH_LEAVE, 0);
        ev(&rt, FR_UNWIND_ENTER, THROWER);
        ev(&rt, FR_UNWIND_LEAVE, 0);
        ev(&rt, FR_UNWIND_ENTER, OUTER);
        fr_exc(&rt, FR_CATCH_ENTER, OUTER, objs[i]);
        ev(&rt, FR_CATCH_LEAVE, 0);
    }
    CHECK_EQ(fr_detach(&rt), 0);
    CHECK_EQ(rt.violations, 0);
    CHECK(rt.snapshots >= 2 && rt.snapshots <= 6);
    if (fr_load_trace(&rt, &tr) == 0) {
        for (size_t i = 0; i < tr.nev; i++) {
            const rec_exception_thrown *r = &tr.ev[i].exception_thrown;
            if (tr.ev[i].kind != TK_EXCEPTION_THROWN)
                continue;
            CHECK_STR(r->message, "again");                 /* every one recorded, with its message */
            if (r->nstack) {
                CHECK_EQ(r->nstack, 3);
                CHECK_EQ(r->nil, 3);                        /* each frame's IL offset, from its map */
                for (uint16_t k = 0; k < r->nil && k < 3; k++)
                    CHECK_EQ(r->il[k], FR_IL_AT(k));
                if (thrown == 0)
                    first_stacked = 1;
                stacked++;
            }
            thrown++;
        }
        CHECK_EQ(thrown, 6);
        CHECK(first_stacked);
        CHECK_EQ(stacked, rt.snapshots);
        CHECK_EQ(fr_count(&tr, TK_EXCEPTION_HANDLED, 0), 6);
        if (rp_profile_build(&tr, RP_VIEW_EXCEPTIONS, NULL, &prof) == 0) {
            CHECK_EQ(prof.nsamples, (size_t)stacked);
            CHECK_EQ(prof.weight_total, 6);                 /* each exception once */
            rp_profile_free(&prof);
        }
        rp_free(&tr);
    }
    fr_cleanup(&rt);
}
