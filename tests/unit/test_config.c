/* test_config.c - the CLRPROBE_CONFIG text: round trips, defaults and every
 * kind of bad input the agent must refuse. */
#include "unit.h"
#include "common/config.h"

static int parse(const char *text, cp_config *c, char *err)
{
    return cp_config_parse(text, c, err, 256);
}

TEST(config_minimal_defaults)
{
    cp_config c;
    char err[256];
    CHECK_EQ(parse("output=/tmp/a.clrp", &c, err), 0);
    CHECK_STR(c.output, "/tmp/a.clrp");
    CHECK_EQ(c.collect, CP_COLLECT_ALL);
    CHECK_EQ(c.pid, 0);
}

/* `clrprobe run`'s trace file as a descriptor: the number and its file's
 * identity travel together, and stand for output. */
TEST(config_output_fd_roundtrip)
{
    cp_config c, d;
    char err[256], text[1024];

    cp_config_init(&c);
    CHECK_EQ(c.output_fd, -1);
    CHECK_EQ(parse("output=/a", &d, err), 0);
    CHECK_EQ(d.output_fd, -1);
    c.output_fd = 7;
    c.output_dev = 2049;
    c.output_ino = 18446744073709551615ull;
    c.pid = 42;
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK(strstr(text, ";output_fd=7;output_id=2049:18446744073709551615") != NULL);
    CHECK(strstr(text, "output=") == NULL);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_EQ(d.output_fd, 7);
    CHECK(d.output_dev == 2049);
    CHECK(d.output_ino == 18446744073709551615ull);
    CHECK_STR(d.output, "");
    CHECK_EQ(parse("output_fd=0;output_id=0:0", &d, err), 0);
    CHECK_EQ(d.output_fd, 0);
}

TEST(config_full_and_roundtrip)
{
    cp_config c, d;
    char err[256], text[1024];
    CHECK_EQ(parse("v=1;output=/tmp/x y%3Bz%25.clrp;collect=jit,gc;pid=42;", &c, err), 0);
    CHECK_STR(c.output, "/tmp/x y;z%.clrp");
    CHECK_EQ(c.collect, CP_COLLECT_JIT | CP_COLLECT_GC);
    CHECK_EQ(c.pid, 42);
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_STR(d.output, c.output);
    CHECK_EQ(d.collect, c.collect);
    CHECK_EQ(d.pid, 42);
    snprintf(c.ctl, sizeof(c.ctl), "/tmp/clrprobe-1/ctl;x");
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_STR(d.ctl, "/tmp/clrprobe-1/ctl;x");
    c.ctl[0] = '\0';
    snprintf(c.run, sizeof(c.run), "/tmp/clrprobe-run-1/run x");
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK(strstr(text, ";pid=42;run=/tmp/clrprobe-run-1/run%20x") != NULL);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_STR(d.run, "/tmp/clrprobe-run-1/run x");
    CHECK_EQ(d.pid, 42);
    c.heap_every_ms = 1500;
    c.heap_count = 3;                       /* (clrprobe heap --count 3 --interval 1.5) */
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK(strstr(text, ";heap_every=1500;heap_count=3") != NULL);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_EQ(d.heap_every_ms, 1500);
    CHECK_EQ(d.heap_count, 3);
    c.heap_method = CP_HEAP_METHOD_ENUMERATE;
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK(strstr(text, ";heap_method=enumerate") != NULL);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_EQ(d.heap_method, CP_HEAP_METHOD_ENUMERATE);
    snprintf(c.main_profiler, sizeof(c.main_profiler), "/opt/apm agent/libapm;1.so");
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK(strstr(text, ";main_profiler=/opt/apm%20agent/libapm%3B1.so") != NULL);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_STR(d.main_profiler, "/opt/apm agent/libapm;1.so");
    CHECK_EQ(parse("v=1;output=/x;main_profiler=", &d, err), -1);
    CHECK(strstr(err, "main_profiler is empty") != NULL);
}

TEST(config_format_escapes)
{
    cp_config c;
    char text[256];
    cp_config_init(&c);
    snprintf(c.output, sizeof(c.output), "/a=b;c%%\n");
    c.collect = CP_COLLECT_THREADS;
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK_STR(text, "v=1;output=/a%3Db%3Bc%25%0A;collect=threads");
    CHECK_EQ(cp_config_format(&c, text, 10), -1);
}

TEST(config_rejects_bad_input)
{
    static const struct { const char *text, *needle; } bad[] = {
        { "", "empty" },
        { "collect=jit", "no output path" },
        { "output=relative/path", "absolute" },
        { "output=/a;output=/b", "twice" },
        { "output=/a;colour=red", "unknown key 'colour'" },
        { "output=/a;run=relative", "run 'relative' is not an absolute path" },
        { "output=/a;run=/r;run=/r", "twice" },
        { "output=/a;collect=jit,bogus", "unknown collect kind 'bogus'" },
        { "output=/a;collect=", "empty collect list" },
        { "output=/a;collect=jit,", "ends with ','" },
        { "output=/a;v=2", "version" },
        { "output=/a;pid=-3", "pid" },
        { "output=/a;pid=12x", "pid" },
        { "output=/a;pid=+5", "pid" },
        { "output=/a;rate=0", "out of range" },
        { "output=/a;rate=1001", "out of range" },
        { "output=/a;rate=fast", "out of range" },
        { "output=/a;pid= 5", "pid" },
        { "output=/a;pid=99999999999999999999", "pid" },
        { "output=/a%4", "escape" },
        { "output=/a%zz", "escape" },
        { "output=/a%00b", "NUL" },
        { "justtext", "not key=value" },
        { "=value", "bad key" },
        { "output=/a;ctl=relative", "ctl" },
        { "output=/a;ctl=/x;ctl=/y", "twice" },
        { "output=/a;heap_every=50", "heap_every '50'" },
        { "output=/a;heap_count=0", "heap_count '0'" },
        { "output=/a;heap_count=10001", "heap_count '10001'" },
        { "output=/a;heap_count=2", "needs heap_every" },
        { "output=/a;heap_count=1;heap_count=1", "twice" },
        { "output=/a;heap_method=walk", "heap_method 'walk' is not auto, gc or enumerate" },
        { "output_fd=3", "output_fd needs output_id" },
        { "output_id=1:2", "output_id needs output_fd" },
        { "output=/a;output_fd=3;output_id=1:2", "output and output_fd both given" },
        { "output_fd=-1;output_id=1:2", "output_fd '-1'" },
        { "output_fd=x;output_id=1:2", "output_fd 'x'" },
        { "output_fd=9999999;output_id=1:2", "output_fd '9999999'" },
        { "output_fd=3;output_id=12", "output_id '12'" },
        { "output_fd=3;output_id=1:-2", "output_id '1:-2'" },
        { "output_fd=3;output_id=1:2x", "output_id '1:2x'" },
        { "output_fd=3;output_fd=3;output_id=1:2", "twice" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cp_config c;
        char err[256] = "";
        int rc = parse(bad[i].text, &c, err);
        if (rc != -1 || !strstr(err, bad[i].needle))
            unit_fail(__FILE__, __LINE__, "input '%s': rc=%d err='%s' (wanted '%s')",
                      bad[i].text, rc, err, bad[i].needle);
    }
}

/* A reason quotes the value it refuses escaped: a %0A in the configuration
 * cannot put a second line into the message (or the attach protocol). */
TEST(config_reasons_quote_values_escaped)
{
    static const struct { const char *text, *shown; } bad[] = {
        { "output=rel%0Aclrprobe: forged", "output 'rel\\nclrprobe: forged' is not an absolute path" },
        { "output=/a;v=%1B[31m2%0D", "version '\\x1b[31m2\\r' is not supported" },
        { "output=/a;collect=jit,%0Abad", "unknown collect kind '\\nbad'" },
        { "output=/a;k\x1b]0;x\x07ey=1", "entry 'k\\x1b]0' is not key=value" },
        { "output=/a;k\tey=1", "unknown key 'k\\tey'" },
        { "output=/a;pid=1%C2%85", "pid '1\\u0085' is not a positive number" },
        { "output=/a;ctl=x%E2%80%AEtxt.exe", "ctl 'x\\u202etxt.exe' is not an absolute path" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cp_config c;
        char err[256] = "";
        int rc = parse(bad[i].text, &c, err);
        if (rc != -1 || !strstr(err, bad[i].shown) || strpbrk(err, "\n\r\t\x1b\x07"))
            unit_fail(__FILE__, __LINE__, "input %zu: rc=%d err='%s' (wanted '%s')", i, rc, err, bad[i].shown);
    }
    {
        int rate;
        char err[256] = "";
        CHECK_EQ(cp_rate_parse("9\n9", &rate, err, sizeof(err)), -1);
        CHECK(strstr(err, "'9\\n9'") != NULL);
    }
}

TEST(config_rejects_overlong)
{
    static char text[CP_CONFIG_MAX_TEXT + 64];
    cp_config c;
    char err[256];
    memset(text, 'a', sizeof(text) - 1);
    memcpy(text, "output=/", 8);
    text[sizeof(text) - 1] = '\0';
    CHECK_EQ(parse(text, &c, err), -1);
}

TEST(collect_list_names)
{
    uint32_t m;
    char err[256], buf[256];
    CHECK_EQ(cp_collect_parse("all", &m, err, sizeof(err)), 0);
    CHECK_EQ(m, CP_COLLECT_ALL);
    CHECK_EQ(cp_collect_parse(" modules , exceptions", &m, err, sizeof(err)), 0);
    CHECK_EQ(m, CP_COLLECT_MODULES | CP_COLLECT_EXCEPTIONS);
    cp_collect_format(m, buf, sizeof(buf));
    CHECK_STR(buf, "modules,exceptions");
    CHECK_EQ(cp_collect_parse("cpux", &m, err, sizeof(err)), -1);
    CHECK_EQ(cp_collect_parse("cpu", &m, err, sizeof(err)), 0);
    CHECK_EQ(m, CP_COLLECT_CPU);
    CHECK(strstr(err, "valid kinds: all, cpu, appdomains") != NULL);
}

TEST(config_trace_keys_round_trip_and_refusals)
{
    cp_config c, d;
    char err[256], text[2048];
    CHECK_EQ(parse("output=/tmp/a.clrp;trace=Shop.Cart.*, Shop.Dict<K%3B V>.Get;trace_calls=500",
                   &c, err), 0);
    CHECK_STR(c.trace, "Shop.Cart.*, Shop.Dict<K; V>.Get");
    CHECK_EQ(c.trace_calls, 500);
    CHECK(cp_config_format(&c, text, sizeof(text)) > 0);
    CHECK_EQ(parse(text, &d, err), 0);
    CHECK_STR(d.trace, c.trace);
    CHECK_EQ(d.trace_calls, 500);
    CHECK_EQ(parse("output=/tmp/a.clrp;trace=Method", &c, err), -1);
    CHECK(strstr(err, "names no type") != NULL);
    CHECK_EQ(parse("output=/tmp/a.clrp;trace_calls=10", &c, err), -1);
    CHECK(strstr(err, "trace_calls needs trace") != NULL);
    CHECK_EQ(parse("output=/tmp/a.clrp;trace=A.B;trace_calls=0", &c, err), -1);
}
