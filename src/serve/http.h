/* http.h - the HTTP server of `clrprobe serve`: libmicrohttpd (Debian's
 * libmicrohttpd12), loaded when serve starts rather than linked, so that
 * the other commands need nothing more than the C library.  A thread per
 * connection (a profile request takes its seconds), bounded: connections
 * in all and per client address, the memory a request may use, idle time.
 * Only GET and HEAD, without a body. */
#ifndef CLRPROBE_SERVE_HTTP_H
#define CLRPROBE_SERVE_HTTP_H

#include <stddef.h>

#define HTTP_MAX_CONNECTIONS    32
#define HTTP_MAX_PER_ADDRESS    16
#define HTTP_REQUEST_MEMORY     (64 * 1024)   /* a request's line, headers and query */
#define HTTP_IDLE_TIMEOUT_S     30

typedef struct http_request http_request;

/* What a handler answers: a status, a content type, a body (malloc'd:
 * the server frees it) and an optional Content-Encoding. */
typedef struct http_response {
    unsigned status;
    const char *content_type;
    const char *encoding;
    char *body;
    size_t len;
} http_response;

typedef void (*http_handler)(void *ctx, const http_request *req, http_response *res);

/* The request's path (no query) and a query argument (NULL when absent). */
const char *http_path(const http_request *req);
const char *http_query(const http_request *req, const char *key);

/* Whether it is a HEAD (its answer's body is not sent). */
int http_is_head(const http_request *req);

/* Whether its client has closed the connection (a long request that has
 * waited its turn need not be made then). */
int http_client_gone(const http_request *req);

typedef struct http_server http_server;

/* Serves on addr ("127.0.0.1", "::1", "0.0.0.0", "::") and port (0: any
 * free one) until http_stop; when token is not NULL, every request must
 * carry "Authorization: Bearer TOKEN" (else 401, before anything else is
 * looked at).  NULL with err set when libmicrohttpd is not installed or
 * the address cannot be bound. */
http_server *http_start(const char *addr, unsigned port, const char *token, http_handler fn, void *ctx, char *err,
                        size_t errlen);

/* The port it listens on. */
unsigned http_port(const http_server *s);

/* Stops: no new connection, the ones in progress finished. */
void http_stop(http_server *s);

/* A response made of text (copied). */
void http_text(http_response *res, unsigned status, const char *content_type, const char *text);

#endif
