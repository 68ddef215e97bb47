/* endpoints.c - the paths `clrprobe serve` answers (endpoints.h).  No
 * request names a file or writes one; every answer is made in memory. */
#include "serve/endpoints.h"
#include "serve/profiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char index_text[] =
    "clrprobe serve: the .NET processes of this host\n"
    "\n"
    "/metrics     their runtime metrics, in the Prometheus text format\n"
    "/processes   them, as JSON\n"
    "/pid/PID/debug/pprof/profile?seconds=N   a CPU profile of N seconds (default 30, at most 60)\n"
    "/pid/PID/debug/pprof/allocs?seconds=N    the allocations of N seconds (default 10)\n"
    "/pid/PID/debug/pprof/heap                the live objects (a heap snapshot)\n"
    "/pid/PID/debug/pprof/mutex?seconds=N     the lock waits of N seconds (default 10; also delta_mutex)\n"
    "/pid/PID/debug/pprof/goroutine           every thread's stack now\n"
    "(each a gzipped pprof profile, for go tool pprof, Pyroscope, Parca)\n";

/* A body written by fn into memory. */
static void write_body(http_response *res, const char *content_type, void (*fn)(fleet *, FILE *), fleet *f)
{
    size_t len = 0;
    FILE *out = open_memstream(&res->body, &len);
    if (!out) {
        http_text(res, 500, NULL, "out of memory\n");
        return;
    }
    fn(f, out);
    if (fclose(out) != 0) {
        free(res->body);
        http_text(res, 500, NULL, "out of memory\n");
        return;
    }
    res->status = 200;
    res->content_type = content_type;
    res->len = len;
}

static int client_there(const void *req)
{
    return !http_client_gone(req);
}

/* /pid/PID/debug/pprof/KIND: a profile of a process the fleet serves. */
static void pprof(fleet *f, const http_request *req, const char *path, http_response *res)
{
    char kind_name[32], err[600], text[700];
    const char *q = http_query(req, "seconds");
    unsigned long seconds;
    profile_kind kind;
    unsigned status;
    int pid, n = 0;
    char *end;

    if (sscanf(path, "/pid/%9d/debug/pprof/%31[a-z_]%n", &pid, kind_name, &n) != 2 || path[n] ||
        profile_kind_of(kind_name, &kind) < 0) {
        http_text(res, 404, NULL, "not found: see / for what is served\n");
        return;
    }
    if (http_is_head(req)) {        /* (a profile is made only when its body is wanted) */
        http_text(res, 405, NULL, "a profile is made by GET\n");
        return;
    }
    if (!fleet_has(f, pid)) {
        snprintf(text, sizeof(text), "no .NET process %d is served here (see /processes)\n", pid);
        http_text(res, 404, NULL, text);
        return;
    }
    seconds = kind == PROFILE_CPU ? PROFILE_DEFAULT_SECONDS : PROFILE_WINDOW_SECONDS;
    if (q) {
        seconds = strtoul(q, &end, 10);
        if (!q[0] || *end || seconds < 1 || seconds > PROFILE_MAX_SECONDS) {
            snprintf(text, sizeof(text), "seconds must be a whole number from 1 to %d\n", PROFILE_MAX_SECONDS);
            http_text(res, 400, NULL, text);
            return;
        }
    }
    if (profile_make(pid, kind, (unsigned)seconds, client_there, req, &res->body, &res->len, &status, err,
                     sizeof(err)) < 0) {
        snprintf(text, sizeof(text), "%s\n", err);
        http_text(res, status, NULL, text);
        return;
    }
    res->status = 200;
    res->content_type = "application/octet-stream";
}

void endpoints_handle(void *ctx, const http_request *req, http_response *res)
{
    fleet *f = ctx;
    const char *path = http_path(req);

    if (!strncmp(path, "/pid/", 5)) {
        pprof(f, req, path, res);
        return;
    }

    if (!strcmp(path, "/metrics"))
        write_body(res, "text/plain; version=0.0.4; charset=utf-8", fleet_write_metrics, f);
    else if (!strcmp(path, "/processes"))
        write_body(res, "application/json", fleet_write_processes, f);
    else if (!strcmp(path, "/"))
        http_text(res, 200, NULL, index_text);
    else
        http_text(res, 404, NULL, "not found: see / for what is served\n");
}
