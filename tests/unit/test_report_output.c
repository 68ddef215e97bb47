/* test_report_output.c - a report's output file when the report cannot
 * finish (cli/output.h): a fatal signal while it is being written removes
 * the temporary file beside the target and leaves no target, and the
 * process still dies of that signal. */
#include "unit.h"
#include "cli/output.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* How many entries dir has (not . and ..). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* A child opens DIR/out.txt as a report does, writes part of it, and gets sig. */
static int interrupted_report(const char *dir, int sig, int *entries_while_written)
{
    char target[256];
    int status = 0, pipefd[2];
    pid_t pid;

    snprintf(target, sizeof(target), "%s/out.txt", dir);
    if (pipe(pipefd) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        cli_output o;
        FILE *f;
        char c = 0;
        close(pipefd[1]);
        signal(sig, SIG_DFL);       /* (a harness that started us in the background ignores SIGINT: the
                                        report keeps what it inherits, and this test is of a fatal one) */
        if (cli_output_open(&o, target, "report", NULL, 0, 0) != 0 || (f = cli_output_stream(&o)) == NULL)
            _exit(3);
        cli_output_remove_on_signal(&o);
        for (int i = 0; i < 10000; i++)
            fprintf(f, "line %d of a report\n", i);
        fflush(f);
        if (read(pipefd[0], &c, 1) != 1)     /* (the parent has looked at the directory) */
            _exit(4);
        raise(sig);
        _exit(5);
    }
    close(pipefd[0]);
    for (int tries = 0; tries < 10000 && entries(dir) == 0; tries++)
        usleep(1000);
    *entries_while_written = entries(dir);
    if (write(pipefd[1], "x", 1) != 1) { }
    close(pipefd[1]);
    waitpid(pid, &status, 0);
    return status;
}

TEST(report_output_fatal_signal_removes_the_partial_file)
{
    static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
    char dir[128];

    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        int during = -1, status;
        snprintf(dir, sizeof(dir), "/tmp/clrprobe-unit-%d-output-XXXXXX", (int)getpid());
        if (!mkdtemp(dir)) {
            unit_fail(__FILE__, __LINE__, "mkdtemp: cannot make a directory");
            return;
        }
        status = interrupted_report(dir, sigs[i], &during);
        CHECK_EQ(during, 1);                         /* the .partial file, while it was written */
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i]);
        if (entries(dir) != 0)
            unit_fail(__FILE__, __LINE__, "signal %d left %d file(s) in %s", sigs[i], entries(dir), dir);
        {
            char cmd[200];
            snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
            if (system(cmd) != 0) { }
        }
    }
}
