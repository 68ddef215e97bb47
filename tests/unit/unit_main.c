/* unit_main.c - runs every TEST() linked into the unit-test binary.
 * Usage: unit_tests [NAME-SUBSTRING]   prints one line per test and a
 * closing "N passed, N failed" line; exits non-zero if anything failed. */
#include "unit.h"

#include "common/files.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_TESTS 1024

static struct { const char *name; unit_fn fn; const char *file; } tests[MAX_TESTS];
static int ntests;
static int current_failures;

int unit_create_file(const char *path)
{
    unlink(path);
    return cp_file_create(path, 0);
}

void unit_temp_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "/tmp/clrprobe-unit-%s-XXXXXX", name);
    if (!mkdtemp(buf))
        buf[0] = '\0';
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

void unit_remove_tree(const char *path)
{
    if (path[0])
        nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void unit_register(const char *name, unit_fn fn, const char *file)
{
    if (ntests < MAX_TESTS) {
        tests[ntests].name = name;
        tests[ntests].fn = fn;
        tests[ntests].file = file;
        ntests++;
    }
}

void unit_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "    %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    current_failures++;
}

int unit_failures(void)
{
    return current_failures;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;

    for (int i = 0; i < ntests; i++) {
        if (filter && !strstr(tests[i].name, filter))
            continue;
        current_failures = 0;
        tests[i].fn();
        if (current_failures) {
            printf("FAIL %s (%s)\n", tests[i].name, tests[i].file);
            failed++;
        } else {
            printf("ok   %s\n", tests[i].name);
            passed++;
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
