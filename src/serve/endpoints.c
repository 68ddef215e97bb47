/* endpoints.c - the paths `clrprobe serve` answers (endpoints.h).  No
 * request names a file or writes one; every answer is made in memory. */
#include "serve/endpoints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char index_text[] =
    "clrprobe serve: the .NET processes of this host\n"
    "\n"
    "/metrics     their runtime metrics, in the Prometheus text format\n"
    "/processes   them, as JSON\n";

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

void endpoints_handle(void *ctx, const http_request *req, http_response *res)
{
    fleet *f = ctx;
    const char *path = http_path(req);

    if (!strcmp(path, "/metrics"))
        write_body(res, "text/plain; version=0.0.4; charset=utf-8", fleet_write_metrics, f);
    else if (!strcmp(path, "/processes"))
        write_body(res, "application/json", fleet_write_processes, f);
    else if (!strcmp(path, "/"))
        http_text(res, 200, NULL, index_text);
    else
        http_text(res, 404, NULL, "not found: see / for what is served\n");
}
