/* test_run_follow.c - how `clrprobe run` names the trace of a process its
 * program started (cli/run_follow.c): after the program, or the .dll that
 * `dotnet` runs, in characters safe in a file name. */
#include "unit.h"
#include "cli/run_follow.h"

static const char *name_of(const char *cmdline, size_t len)
{
    static char name[FOLLOW_NAME_MAX + 1];
    follow_program_name(cmdline, len, name, sizeof(name));
    return name;
}

#define NAME_OF(lit) name_of(lit, sizeof(lit) - 1)

TEST(follow_names_programs)
{
    CHECK_STR(NAME_OF("/app/bin/MyApp\0--port\0" "80\0"), "MyApp");
    CHECK_STR(NAME_OF("/usr/share/dotnet/dotnet\0exec\0--runtimeconfig\0/x/y.json\0/sdk/MSBuild.dll\0-node\0"),
              "MSBuild");
    CHECK_STR(NAME_OF("dotnet\0/sdk/Roslyn/bincore/VBCSCompiler.dll\0-pipename:x\0"), "VBCSCompiler");
    CHECK_STR(NAME_OF("/usr/bin/dotnet\0run\0--project\0P\0"), "dotnet");
    CHECK_STR(NAME_OF("./we ird;name\0"), "we_ird_name");
    CHECK_STR(NAME_OF("/x/.hidden\0"), "_hidden");
    CHECK_STR(name_of("", 0), "process");
    CHECK_STR(NAME_OF("/x/\0"), "process");
    CHECK_EQ(strlen(NAME_OF("/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\0")),
             FOLLOW_NAME_MAX);
}
