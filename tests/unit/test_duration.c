/* test_duration.c - the command line's one duration parser: every accepted
 * form, the refused ones, ranges, and the messages. */
#include "unit.h"
#include "common/duration.h"

#include <math.h>

static double dur(const char *text)
{
    double v = -1;
    char err[256];
    if (cp_duration_parse("--duration", text, 0, 1e6, &v, err, sizeof(err)) < 0)
        return -1;
    return v;
}

#define CHECK_DUR(text, want) \
    do { double got_ = dur(text); \
         if (fabs(got_ - (want)) > 1e-9) unit_fail(__FILE__, __LINE__, "'%s' -> %g, expected %g", text, got_, (double)(want)); } while (0)

TEST(duration_plain_seconds)
{
    CHECK_DUR("5", 5);
    CHECK_DUR("0", 0);
    CHECK_DUR("1.5", 1.5);
    CHECK_DUR(".25", 0.25);
    CHECK_DUR("2.", 2);
    CHECK_DUR("1000000", 1e6);
}

TEST(duration_units)
{
    CHECK_DUR("500ms", 0.5);
    CHECK_DUR("5s", 5);
    CHECK_DUR("1.5s", 1.5);
    CHECK_DUR("2m", 120);
    CHECK_DUR("0.5m", 30);
    CHECK_DUR("1h", 3600);
    CHECK_DUR("1m30s", 90);
    CHECK_DUR("1h5m", 3900);
    CHECK_DUR("1h2m3s500ms", 3723.5);
    CHECK_DUR("1.5ms", 0.0015);
}

TEST(duration_dotnet_trace_forms)
{
    CHECK_DUR("00:00:00:05", 5);            /* dotnet-trace's dd:hh:mm:ss */
    CHECK_DUR("01:00:00:00", 86400);
    CHECK_DUR("00:01:02:03", 3723);
    CHECK_DUR("00:00:05", 5);               /* hh:mm:ss */
    CHECK_DUR("00:00:01.5", 1.5);
    CHECK_DUR("1.02:03:04", 86400 + 7384);  /* TimeSpan d.hh:mm:ss */
    CHECK_DUR("00:00:00:00.25", 0.25);
}

TEST(duration_refused)
{
    static const char *bad[] = {
        "", "x", "-1", "-1s", "5 s", " 5", "5s ", "1e3", "inf", "nan", "5sec", "5S", "1d", "1.2.3",
        "30s1m",        /* units must go from the largest down */
        "1m1m", "5ms5s", "s", "ms", ".", ".s", "5s5", "1:2", "00:05", "00:00:60", "00:60:00", "24:00:00",
        "00:00:00:00:05", "1.00:00:00:05", "00:00:05:", ":00:00:05", "0x10", "1,5", "5m5ms5s",
        "1234567890123", "1234567890123s",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (dur(bad[i]) != -1)
            unit_fail(__FILE__, __LINE__, "'%s' accepted as %g", bad[i], dur(bad[i]));
}

TEST(duration_messages_and_ranges)
{
    char err[256];
    double v = 7;

    CHECK_EQ(-1, cp_duration_parse("--duration", "x", 0, 1e6, &v, err, sizeof(err)));
    CHECK_STR(err, "--duration 'x' is not a duration: give " CP_DURATION_FORMS);
    CHECK(v == 7);
    CHECK_EQ(-1, cp_duration_parse("--duration", "00:05", 0, 1e6, &v, err, sizeof(err)));
    CHECK(strstr(err, "ambiguous") && strstr(err, "hh:mm:ss"));
    CHECK_EQ(-1, cp_duration_parse("--timeout", "2h", 0.001, 3600, &v, err, sizeof(err)));
    CHECK_STR(err, "--timeout '2h' is out of range (0.001 to 3600 seconds)");
    CHECK_EQ(-1, cp_duration_parse("--timeout", "0", 0.001, 3600, &v, err, sizeof(err)));
    CHECK_EQ(0, cp_duration_parse("--timeout", "1h", 0.001, 3600, &v, err, sizeof(err)));
    CHECK(v == 3600);
    CHECK_EQ(0, cp_duration_parse("--timeout", "1ms", 0.001, 3600, &v, NULL, 0));
    /* a long value is cut in the message */
    char longv[200];
    memset(longv, '9', sizeof(longv) - 1);
    longv[sizeof(longv) - 1] = '\0';
    CHECK_EQ(-1, cp_duration_parse("--duration", longv, 0, 1e6, &v, err, sizeof(err)));
    CHECK(strlen(err) < 200);
}
