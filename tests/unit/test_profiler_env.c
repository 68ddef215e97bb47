/* test_profiler_env.c - the profiler variables of an environment
 * (src/common/profiler_env.c): a block read as /proc/PID/environ holds it,
 * and this process's own, in the runtime's lookup order. */
#include "unit.h"
#include "common/profiler_env.h"

#include <stdlib.h>

#define ENV(s) (&(cp_env){ s, sizeof(s) - 1 })

TEST(profiler_env_lookup_in_a_block)
{
    char v[32];
    static const char env[] = "A=1\0TMPDIRX=no\0TMPDIR=/x/y\0LAST=z";
    const cp_env e = { env, sizeof(env) - 1 };

    CHECK_EQ(cp_env_lookup(&e, "TMPDIR", v, sizeof(v)), 1);
    CHECK_STR(v, "/x/y");
    CHECK_EQ(cp_env_lookup(&e, "LAST", v, sizeof(v)), 1);   /* no final NUL */
    CHECK_STR(v, "z");
    CHECK_EQ(cp_env_lookup(&e, "TMP", v, sizeof(v)), 0);
    CHECK_EQ(cp_env_lookup(&e, "TMPDIR", v, 3), 1);         /* truncated */
    CHECK_STR(v, "/x");
    CHECK_EQ(cp_env_lookup(ENV(""), "TMPDIR", v, sizeof(v)), 0);
}

TEST(profiler_env_lookup_in_this_process)
{
    char v[32];

    setenv("CLRPROBE_TEST_PROFILER_ENV", "yes", 1);
    CHECK_EQ(cp_env_lookup(&(cp_env){ NULL, 0 }, "CLRPROBE_TEST_PROFILER_ENV", v, sizeof(v)), 1);
    CHECK_STR(v, "yes");
    CHECK_EQ(cp_env_lookup(NULL, "CLRPROBE_TEST_PROFILER_ENV", v, 2), 1);
    CHECK_STR(v, "y");
    unsetenv("CLRPROBE_TEST_PROFILER_ENV");
    CHECK_EQ(cp_env_lookup(NULL, "CLRPROBE_TEST_PROFILER_ENV", v, sizeof(v)), 0);
}

TEST(profiler_env_startup_profiler)
{
    char path[256], var[64];

    CHECK_EQ(0, cp_startup_profiler(ENV("A=1\0CORECLR_PROFILER_PATH_64=/x.so\0"), path, sizeof(path), var,
                                    sizeof(var)));          /* not enabled */
    CHECK_EQ(0, cp_startup_profiler(ENV("CORECLR_ENABLE_PROFILING=0\0CORECLR_PROFILER_PATH=/x.so\0"), path,
                                    sizeof(path), var, sizeof(var)));
    CHECK_EQ(0, cp_startup_profiler(ENV("CORECLR_ENABLE_PROFILING=1\0"), path, sizeof(path), var, sizeof(var)));
    CHECK_EQ(1, cp_startup_profiler(ENV("CORECLR_ENABLE_PROFILING=1\0CORECLR_PROFILER_PATH=/a.so\0"), path,
                                    sizeof(path), var, sizeof(var)));
    CHECK_STR(path, "/a.so");
    CHECK_STR(var, "CORECLR_PROFILER_PATH");
#if defined(__x86_64__)
    /* the bitness-specific name first */
    CHECK_EQ(1, cp_startup_profiler(ENV("CORECLR_PROFILER_PATH=/a.so\0CORECLR_ENABLE_PROFILING=1\0"
                                        "CORECLR_PROFILER_PATH_64=/b.so\0"), path, sizeof(path), var, sizeof(var)));
    CHECK_STR(path, "/b.so");
    CHECK_STR(var, "CORECLR_PROFILER_PATH_64");
#endif
    /* .NET 11's aliases; a hexadecimal DWORD */
    CHECK_EQ(1, cp_startup_profiler(ENV("DOTNET_ENABLE_PROFILING=0x10\0DOTNET_PROFILER_PATH=/c.so\0"), path,
                                    sizeof(path), var, sizeof(var)));
    CHECK_STR(path, "/c.so");
    /* an empty path names nothing */
    CHECK_EQ(0, cp_startup_profiler(ENV("CORECLR_ENABLE_PROFILING=1\0CORECLR_PROFILER_PATH=\0"), path,
                                    sizeof(path), var, sizeof(var)));
}

TEST(profiler_env_notification_list)
{
    char var[64], value[256];

    CHECK_EQ(0, cp_notification_list(ENV("A=1\0"), var, sizeof(var), value, sizeof(value)));
    CHECK_STR(var, "CORECLR_NOTIFICATION_PROFILERS");
    CHECK_STR(value, "");
    CHECK_EQ(1, cp_notification_list(ENV("CORECLR_NOTIFICATION_PROFILERS=/a.so={1};\0"), var, sizeof(var), value,
                                     sizeof(value)));
    CHECK_STR(var, "CORECLR_NOTIFICATION_PROFILERS");
    CHECK_STR(value, "/a.so={1};");
#if defined(__x86_64__)
    CHECK_EQ(1, cp_notification_list(ENV("CORECLR_NOTIFICATION_PROFILERS=/a.so={1}\0"
                                         "CORECLR_NOTIFICATION_PROFILERS_64=/b.so={2}\0"), var, sizeof(var), value,
                                     sizeof(value)));
    CHECK_STR(var, "CORECLR_NOTIFICATION_PROFILERS_64");
    CHECK_STR(value, "/b.so={2}");
#endif
    /* set but empty still counts: it is the one the runtime reads */
    CHECK_EQ(1, cp_notification_list(ENV("DOTNET_NOTIFICATION_PROFILERS=\0"), var, sizeof(var), value, sizeof(value)));
    CHECK_STR(var, "DOTNET_NOTIFICATION_PROFILERS");
}

TEST(profiler_env_notification_list_append)
{
    char v[64];

    v[0] = '\0';
    CHECK_EQ(cp_notification_list_append(v, sizeof(v), "/a.so", "{1}"), 0);
    CHECK_STR(v, "/a.so={1};");
    CHECK_EQ(cp_notification_list_append(v, sizeof(v), "/b.so", "{2}"), 0);
    CHECK_STR(v, "/a.so={1};/b.so={2};");
    /* a list whose last entry has no ';' gets one first (runtimes before #130584 would drop that entry) */
    snprintf(v, sizeof(v), "/x.so={9}");
    CHECK_EQ(cp_notification_list_append(v, sizeof(v), "/a.so", "{1}"), 0);
    CHECK_STR(v, "/x.so={9};/a.so={1};");
    /* what the list cannot hold, or what does not fit: the list unchanged */
    snprintf(v, sizeof(v), "/x.so={9};");
    CHECK_EQ(cp_notification_list_append(v, sizeof(v), "/a;b.so", "{1}"), -1);
    CHECK_EQ(cp_notification_list_append(v, sizeof(v), "/a=b.so", "{1}"), -1);
    CHECK_EQ(cp_notification_list_append(v, 16, "/a.so", "{1}"), -1);
    CHECK_STR(v, "/x.so={9};");
}
