/* main.c - the clrprobe command: dispatches to the subcommands. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: clrprobe <command> [options]\n"
    "\n"
    "A profiler for .NET (CoreCLR) programs on Linux.\n"
    "\n"
    "commands:\n"
    "  run      run a program under the profiler and record a trace\n"
    "  attach   attach to a running .NET process, record, then detach\n"
    "  heap     heap snapshots of a running .NET process\n"
    "  report   analyse a trace: summary, events as JSON lines, flame graphs and profile files\n"
    "  ps       list the running .NET processes clrprobe can attach to\n"
    "\n"
    "'clrprobe <command> --help' describes a command.  clrprobe --version prints the version.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("clrprobe %s\n", CLRPROBE_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "report"))
        return cmd_report(argc - 1, argv + 1);
    if (!strcmp(argv[1], "ps"))
        return cmd_ps(argc - 1, argv + 1);
    if (!strcmp(argv[1], "attach"))
        return cmd_attach(argc - 1, argv + 1);
    if (!strcmp(argv[1], "heap"))
        return cmd_heap(argc - 1, argv + 1);
    cli_error("unknown command '%s' (commands: run, attach, heap, ps, report; see clrprobe --help)", argv[1]);
    return EXIT_USAGE;
}
