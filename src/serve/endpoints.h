/* endpoints.h - what `clrprobe serve` answers, by path: /metrics (the
 * Prometheus exposition of every process's runtime metrics), /processes
 * (them as JSON), / (an index). */
#ifndef CLRPROBE_SERVE_ENDPOINTS_H
#define CLRPROBE_SERVE_ENDPOINTS_H

#include "serve/fleet.h"
#include "serve/http.h"

/* The http_handler of serve; ctx is the fleet. */
void endpoints_handle(void *ctx, const http_request *req, http_response *res);

#endif
