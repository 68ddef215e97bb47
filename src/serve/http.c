/* http.c - the HTTP server on libmicrohttpd, loaded with dlopen (http.h).
 * The library's header gives the types; each function is reached through
 * a pointer of its own type, found once at start. */
#include "serve/http.h"
#include "serve/token.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MHD_LIBRARY "libmicrohttpd.so.12"

/* The library's functions this file calls. */
static struct {
    void *handle;
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_get_connection_info) *get_connection_info;
} mhd;

struct http_request {
    struct MHD_Connection *connection;
    const char *path;
    int head;
};

struct http_server {
    struct MHD_Daemon *daemon;
    http_handler fn;
    void *ctx;
    unsigned port;
    char token[TOKEN_CAP];      /* asked of every request ("": none asked) */
};

static int load(char *err, size_t errlen)
{
    if (mhd.handle)
        return 0;
    mhd.handle = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!mhd.handle) {
        snprintf(err, errlen, "serve needs libmicrohttpd (%s), which is not installed: install it "
                 "(Debian, Ubuntu: apt-get install libmicrohttpd12; RHEL: dnf install libmicrohttpd)", MHD_LIBRARY);
        return -1;
    }
#define FIND(field, symbol)                                                                         \
    if (!(*(void **)&mhd.field = dlsym(mhd.handle, #symbol))) {                                     \
        snprintf(err, errlen, "%s has no %s: it is too old (0.9.50 or later is needed)", MHD_LIBRARY, #symbol); \
        dlclose(mhd.handle);                                                                        \
        mhd.handle = NULL;                                                                          \
        return -1;                                                                                  \
    }
    FIND(start_daemon, MHD_start_daemon);
    FIND(stop_daemon, MHD_stop_daemon);
    FIND(get_daemon_info, MHD_get_daemon_info);
    FIND(create_response_from_buffer, MHD_create_response_from_buffer);
    FIND(add_response_header, MHD_add_response_header);
    FIND(queue_response, MHD_queue_response);
    FIND(destroy_response, MHD_destroy_response);
    FIND(lookup_connection_value, MHD_lookup_connection_value);
    FIND(get_connection_info, MHD_get_connection_info);
#undef FIND
    return 0;
}

const char *http_path(const http_request *req) { return req->path; }
int http_is_head(const http_request *req) { return req->head; }

int http_client_gone(const http_request *req)
{
    const union MHD_ConnectionInfo *info = mhd.get_connection_info(req->connection,
                                                                   MHD_CONNECTION_INFO_CONNECTION_FD);
    struct pollfd pf;
    if (!info)
        return 0;
    pf.fd = info->connect_fd;
    pf.events = POLLRDHUP;
    pf.revents = 0;
    return poll(&pf, 1, 0) > 0 && (pf.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

const char *http_query(const http_request *req, const char *key)
{
    return mhd.lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, key);
}

void http_text(http_response *res, unsigned status, const char *content_type, const char *text)
{
    res->status = status;
    res->content_type = content_type;
    res->encoding = NULL;
    res->body = strdup(text);
    res->len = res->body ? strlen(text) : 0;
}

static enum MHD_Result answer(struct MHD_Connection *c, const http_response *res, int head)
{
    struct MHD_Response *r;
    enum MHD_Result ok;

    /* (HEAD: the headers of the GET, no body) */
    r = mhd.create_response_from_buffer(head ? 0 : res->len, head ? NULL : res->body,
                                        head ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_FREE);
    if (!r) {
        if (!head)
            free(res->body);
        return MHD_NO;
    }
    if (head)
        free(res->body);
    mhd.add_response_header(r, "Content-Type", res->content_type ? res->content_type : "text/plain; charset=utf-8");
    if (res->encoding)
        mhd.add_response_header(r, "Content-Encoding", res->encoding);
    if (res->status == 401)
        mhd.add_response_header(r, "WWW-Authenticate", "Bearer realm=\"clrprobe serve\"");
    mhd.add_response_header(r, "Cache-Control", "no-store");
    mhd.add_response_header(r, "X-Content-Type-Options", "nosniff");
    ok = mhd.queue_response(c, res->status, r);
    mhd.destroy_response(r);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    http_server *s = cls;
    http_response res = { 404, NULL, NULL, NULL, 0 };
    http_request req = { c, url, 0 };
    int head = !strcmp(method, "HEAD");

    req.head = head;
    (void)version;
    (void)upload_data;
    (void)con_cls;
    /* the credentials before anything else: a caller without them learns
     * nothing, not even which paths exist */
    if (s->token[0] &&
        !token_matches(s->token, mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION))) {
        http_text(&res, 401, NULL, "unauthorized: send the header 'Authorization: Bearer TOKEN' with serve's token\n");
        return answer(c, &res, head);
    }
    if (strcmp(method, "GET") && !head) {
        http_text(&res, 405, NULL, "only GET and HEAD are served\n");
        return answer(c, &res, 0);
    }
    if (*upload_data_size) {
        http_text(&res, 400, NULL, "a GET has no body\n");
        return answer(c, &res, 0);
    }
    s->fn(s->ctx, &req, &res);
    if (!res.body && res.len == 0)
        res.body = strdup("");
    if (!res.body) {
        http_text(&res, 500, NULL, "out of memory\n");
        if (!res.body)
            return MHD_NO;
    }
    return answer(c, &res, head);
}

http_server *http_start(const char *addr, unsigned port, const char *token, http_handler fn, void *ctx, char *err,
                        size_t errlen)
{
    struct sockaddr_in6 a6;
    struct sockaddr_in a4;
    struct sockaddr *sa;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    const union MHD_DaemonInfo *info;
    struct sockaddr_storage bound;
    socklen_t blen = sizeof(bound);
    http_server *s;

    if (load(err, errlen) < 0)
        return NULL;
    memset(&a4, 0, sizeof(a4));
    memset(&a6, 0, sizeof(a6));
    if (inet_pton(AF_INET, addr, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons((uint16_t)port);
        sa = (struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, addr, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons((uint16_t)port);
        sa = (struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errlen, "'%s' is not an IPv4 or IPv6 address", addr);
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->fn = fn;
    s->ctx = ctx;
    if (token && strlen(token) >= sizeof(s->token)) {
        snprintf(err, errlen, "the token is too long");
        free(s);
        return NULL;
    }
    snprintf(s->token, sizeof(s->token), "%s", token ? token : "");
    s->daemon = mhd.start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s,
                                 MHD_OPTION_SOCK_ADDR, sa,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTP_MAX_PER_ADDRESS,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_REQUEST_MEMORY,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_TIMEOUT_S,
                                 MHD_OPTION_END);
    if (!s->daemon) {
        snprintf(err, errlen, "cannot listen on %s%s%s:%u (the port is taken, or needs privileges)",
                 sa->sa_family == AF_INET6 ? "[" : "", addr, sa->sa_family == AF_INET6 ? "]" : "", port);
        free(s);
        return NULL;
    }
    s->port = port;
    info = mhd.get_daemon_info(s->daemon, MHD_DAEMON_INFO_LISTEN_FD);
    if (info && getsockname(info->listen_fd, (struct sockaddr *)&bound, &blen) == 0)
        s->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                    : ((struct sockaddr_in *)&bound)->sin_port);
    return s;
}

unsigned http_port(const http_server *s) { return s->port; }

void http_stop(http_server *s)
{
    if (!s)
        return;
    mhd.stop_daemon(s->daemon);
    free(s);
}
