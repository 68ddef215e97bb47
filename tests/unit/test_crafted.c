/* test_crafted.c - the hostile traces of tests/data/crafted (crafted.h):
 * the files are what the code writes, and the report says what is wrong
 * with each instead of reading or writing out of bounds, allocating what an
 * index asks for, or running as long as a time span read from the trace.
 * (tests/e2e/test_hostile_traces.sh runs them through every format and view
 * of the command.) */
#include "unit.h"
#include "crafted.h"
#include "synth_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA "tests/data/crafted"

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    long len;

    *n = 0;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)len + 1)) != NULL && fread(p, 1, (size_t)len, f) == (size_t)len)
        *n = (size_t)len;
    fclose(f);
    return p;
}

/* CRAFTED_WRITE=DIR writes the files into DIR (how they were made). */
TEST(crafted_traces_are_what_the_code_writes)
{
    const char *dir = getenv("CRAFTED_WRITE");

    for (size_t i = 0; i < ncrafted_traces; i++) {
        char path[256], made[128];
        unsigned char *a, *b;
        size_t na, nb;

        snprintf(path, sizeof(path), "%s/%s.clrp", dir ? dir : DATA, crafted_traces[i].name);
        if (dir) {
            unlink(path);
            crafted_traces[i].write(path);
            continue;
        }
        snprintf(made, sizeof(made), "/tmp/clrprobe-unit-%d-crafted", (int)getpid());
        unlink(made);
        crafted_traces[i].write(made);
        a = read_all(path, &na);
        b = read_all(made, &nb);
        CHECK(a != NULL);
        CHECK(na > 0 && na < 4096);
        if (a && b && (na != nb || memcmp(a, b, na) != 0))
            unit_fail(__FILE__, __LINE__, "%s differs from what crafted.c writes (CRAFTED_WRITE=%s rewrites it)",
                      path, DATA);
        free(a);
        free(b);
        unlink(made);
    }
}

static int report(const char *trace, const char *format, const char *extra, char **out, size_t *outlen)
{
    char path[256], *err = NULL;
    const char *args[8];
    int n = 0, rc;

    snprintf(path, sizeof(path), "%s/%s.clrp", DATA, trace);
    args[n++] = path;
    args[n++] = "--format";
    args[n++] = format;
    if (extra)
        args[n++] = extra;
    args[n] = NULL;
    rc = synth_report(args, out, outlen, &err);
    free(err);
    return rc;
}

TEST(crafted_heap_types_no_record_names_are_a_damaged_snapshot)
{
    char *out = NULL;
    size_t n = 0;

    CHECK_EQ(report("heap_stray_type", "text", NULL, &out, &n), 0);
    CHECK(out && strstr(out, "damaged: 2 objects have a type index that no type record of the trace names"));
    CHECK(out && strstr(out, "App.Named"));
    free(out);
    CHECK_EQ(report("heap_stray_type", "jsonl", NULL, &out, &n), 0);
    CHECK(out && strstr(out, "\"unnamed_type_objects\":2"));
    free(out);
    /* (these read and wrote through the stray index) */
    CHECK_EQ(report("heap_stray_type", "html", NULL, &out, &n), 0);
    CHECK(out && strstr(out, "App.Named"));
    free(out);
    CHECK_EQ(report("heap_stray_type", "pprof", "--heap", &out, &n), 0);
    CHECK(n > 0);
    free(out);
    CHECK_EQ(report("heap_stray_type", "heapsnapshot", NULL, &out, &n), 0);
    CHECK(out && strstr(out, "App.Named"));
    free(out);
}

TEST(crafted_heap_huge_type_indexes_size_nothing)
{
    char *out = NULL;
    size_t n = 0;

    CHECK_EQ(report("heap_huge_type", "text", NULL, &out, &n), 0);
    CHECK(out && strstr(out, "damaged: 3 objects have a type index"));
    CHECK(out && strstr(out, "Top types by retained size"));
    free(out);
    CHECK_EQ(report("heap_huge_type", "jsonl", NULL, &out, &n), 0);
    CHECK(out && strstr(out, "\"kind\":\"heap_type\""));
    free(out);
    CHECK_EQ(report("heap_huge_type", "pprof", "--heap", &out, &n), 0);
    free(out);
}

TEST(crafted_far_sample_timeline_is_bounded_by_its_input)
{
    char *out = NULL;
    size_t n = 0;

    alarm(60);                               /* (it ran until killed, filling the disk) */
    CHECK_EQ(report("sample_far_time", "chrome", NULL, &out, &n), 0);
    alarm(0);
    CHECK(out && strstr(out, "\"CPU samples per second\""));
    CHECK(n < 64 * 1024);
    free(out);
}
