/* synth_trace.c - small traces made by hand for the unit tests (see
 * synth_trace.h). */
#include "synth_trace.h"
#include "unit.h"

#include "cli/cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SYNTH_START 1000      /* the trace's start_monotonic_ns */

void synth_begin(synth *s, const char *name)
{
    trace_header_info h = { 7, 0, 0, SYNTH_START, "10.0.0", "test" };
    char err[256];

    memset(s, 0, sizeof(*s));
    snprintf(s->path, sizeof(s->path), "/tmp/clrprobe-unit-%d-%s", (int)getpid(), name);
    CHECK_EQ(trace_writer_open(&s->w, unit_create_file(s->path), s->path, &h, err, sizeof(err)), 0);
    s->buf = trace_writer_buffer_get(s->w);
}

void synth_put(synth *s, uint64_t t, int kind, const rec_any *v)
{
    trace_rec r;
    trace_rec_begin(&r, trace_buffer_begin(s->buf), TRACE_MAX_RECORD, kind, 1, t + SYNTH_START);
    rec_put(&r, kind, v);
    trace_buffer_end(s->buf, trace_rec_finish(&r));
}

void synth_name(synth *s, uint64_t t, uint64_t function, const char *name)
{
    synth_put(s, t, TK_FUNC_NAME, &(rec_any){ .function_name = { .function = function, .module = 1, .name = name } });
}

void synth_thread(synth *s, uint64_t t, uint64_t managed, uint32_t os_tid, const char *name)
{
    synth_put(s, t, TK_THREAD_CREATE, &(rec_any){ .thread_create = { .thread = managed } });
    synth_put(s, t, TK_THREAD_OS, &(rec_any){ .thread_os = { .thread = managed, .os_tid = os_tid, .os_name = "" } });
    synth_put(s, t, TK_THREAD_NAME, &(rec_any){ .thread_name = { .thread = managed, .name = name,
                                                                  .name_len = (uint16_t)strlen(name) } });
}

void synth_alloc(synth *s, uint64_t t, uint64_t thread, uint32_t os_tid, uint32_t method, const char *type,
                 uint64_t size, uint64_t count, uint64_t amount, uint64_t id, const uint64_t *frames, uint16_t n)
{
    synth_put(s, t, TK_ALLOC_SAMPLE, &(rec_any){ .alloc_sample = {
        .thread = thread, .os_tid = os_tid, .method = method, .class_id = 0x7000, .size = size, .count = count,
        .amount = amount, .id = id, .type = type, .nframes = n, .frames = frames } });
}

void synth_live_gc(synth *s, uint64_t t, uint32_t gc, uint32_t alive, uint32_t more, const uint64_t *dead,
                   uint16_t n)
{
    synth_put(s, t, TK_LIVE_GC, &(rec_any){ .live_gc = { .gc = gc, .alive = alive, .more = more, .ndead = n,
                                                          .dead = dead } });
}

void synth_contention(synth *s, uint64_t t, uint64_t thread, uint32_t os_tid, uint64_t duration_ns,
                      const char *type, const uint64_t *frames, uint16_t n)
{
    synth_put(s, t, TK_CONTENTION, &(rec_any){ .contention = {
        .thread = thread, .os_tid = os_tid, .duration_ns = duration_ns, .flags = 0, .lock_id = 0x900,
        .owner_thread = 0x55, .type = type, .nframes = n, .frames = frames } });
}

void synth_sample(synth *s, uint64_t t, uint64_t thread, uint32_t os_tid, uint64_t cpu_ns, const uint64_t *frames,
                  uint16_t n)
{
    synth_put(s, t, TK_SAMPLE, &(rec_any){ .sample = { .thread = thread, .os_tid = os_tid, .cpu_ns = cpu_ns,
                                                        .nframes = n, .frames = frames } });
    synth_put(s, t, TK_SAMPLER_TICK, &(rec_any){ .sampler_tick = { .threads = 1, .period_ns = 10000000 } });
}

int synth_load(synth *s, rp_trace *tr)
{
    char err[256];
    trace_writer_close(s->w, 1, 1u << 30);
    trace_writer_free(s->w);
    s->w = NULL;
    return rp_load(s->path, tr, err, sizeof(err));
}

void synth_done(synth *s, rp_trace *tr)
{
    rp_free(tr);
    unlink(s->path);
}

/* The whole file at path (NUL-terminated; its length in *len), or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;

    if (!f)
        return NULL;
    do {
        if (n + 4096 + 1 > cap) {
            char *nb = realloc(buf, cap = cap * 2 + 8192);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, 4096, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int synth_report(const char *const *args, char **out, size_t *outlen, char **err)
{
    char opath[128], epath[128], *argv[32];
    int argc = 0, saved_out, saved_err, fo, fe, rc;

    argv[argc++] = "report";
    for (; *args && argc < 31; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    snprintf(opath, sizeof(opath), "/tmp/clrprobe-unit-%d-report.out", (int)getpid());
    snprintf(epath, sizeof(epath), "/tmp/clrprobe-unit-%d-report.err", (int)getpid());
    fflush(stdout);
    fflush(stderr);
    fo = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    fe = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    saved_out = dup(1);
    saved_err = dup(2);
    dup2(fo, 1);
    dup2(fe, 2);
    close(fo);
    close(fe);
    rc = cmd_report(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    clearerr(stdout);
    *out = slurp(opath, outlen);
    *err = slurp(epath, NULL);
    if (getenv("SYNTH_DUMP"))                /* (to see what a test got) */
        printf("---- report:\n%s---- stderr:\n%s----\n", *out ? *out : "", *err ? *err : "");
    unlink(opath);
    unlink(epath);
    return rc;
}
