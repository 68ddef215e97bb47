/* eventpipe.c - an EventPipe session over the diagnostics socket: the
 * CollectTracing request (CollectTracing3, which can leave stacks out,
 * else CollectTracing2 on runtimes without it), whose connection then
 * carries the session's nettrace stream (read by src/eventpipe/), and
 * StopTracing, sent on a second connection, after which the runtime
 * flushes the stream, ends it and closes the first.  Nothing is loaded into
 * the process and nothing stays behind: the session also ends when the
 * reader's connection closes. */
#include "ipc/ipc_internal.h"
#include "api/corprof.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EP_ID_STOP_TRACING     0x01
#define EP_ID_COLLECT_TRACING2 0x03
#define EP_ID_COLLECT_TRACING3 0x04
#define EP_FORMAT_NETTRACE     1

long ipc_build_collect_tracing(uint8_t *buf, size_t cap, int version, uint32_t buffer_mb,
                               const ipc_ep_provider *providers, size_t n)
{
    size_t pos = IPC_HEADER_SIZE;
    long w;

    if (version != 2 && version != 3)
        return IPC_ERR_PROTOCOL;
    if (cap > IPC_MAX_MESSAGE)
        cap = IPC_MAX_MESSAGE;
    if (cap < pos + 4 + 4 + 1 + (version == 3) + 4)
        return IPC_ERR_TOO_LONG;
    ipc_put_u32(buf + pos, buffer_mb);
    pos += 4;
    ipc_put_u32(buf + pos, EP_FORMAT_NETTRACE);
    pos += 4;
    buf[pos++] = 0;                 /* no rundown: no method names are wanted */
    if (version == 3)
        buf[pos++] = 0;             /* no stacks */
    ipc_put_u32(buf + pos, (uint32_t)n);
    pos += 4;
    for (size_t i = 0; i < n; i++) {
        if (cap - pos < 12)
            return IPC_ERR_TOO_LONG;
        ipc_put_u32(buf + pos, (uint32_t)providers[i].keywords);
        ipc_put_u32(buf + pos + 4, (uint32_t)(providers[i].keywords >> 32));
        ipc_put_u32(buf + pos + 8, providers[i].level);
        pos += 12;
        w = ipc_encode_string(buf + pos, cap - pos, providers[i].name);
        if (w < 0)
            return w;
        pos += (size_t)w;
        if (providers[i].filter && providers[i].filter[0]) {
            w = ipc_encode_string(buf + pos, cap - pos, providers[i].filter);
            if (w < 0)
                return w;
            pos += (size_t)w;
        } else {
            if (cap - pos < 4)
                return IPC_ERR_TOO_LONG;
            ipc_put_u32(buf + pos, 0);
            pos += 4;
        }
    }
    ipc_encode_header(buf, (uint16_t)pos, IPC_SET_EVENTPIPE,
                      version == 3 ? EP_ID_COLLECT_TRACING3 : EP_ID_COLLECT_TRACING2);
    return (long)pos;
}

/* One CollectTracing request on a new connection: the connection (>= 0) with
 * *session set, or a status; *unknown set when the runtime does not know the
 * command (the connection is closed then). */
static int collect(int pid, const ipc_wait *w, int version, const ipc_ep_provider *providers, size_t n,
                   uint64_t *session, int *unknown, char *err, size_t errlen)
{
    uint8_t *msg = malloc(IPC_MAX_MESSAGE);
    uint8_t reply[IPC_HEADER_SIZE + 64];
    size_t reply_len;
    ipc_reply_t r;
    long len;
    int fd, rc;

    *unknown = 0;
    if (!msg)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
    len = ipc_build_collect_tracing(msg, IPC_MAX_MESSAGE, version, 16, providers, n);
    if (len < 0) {
        free(msg);
        return ipc_errorf(len == IPC_ERR_ENCODING ? IPC_ERR_ENCODING : IPC_ERR_TOO_LONG, err, errlen,
                          len == IPC_ERR_ENCODING ? "a provider's name or arguments are not valid UTF-8"
                                                  : "the session's providers do not fit in one diagnostics message");
    }
    fd = ipc_connect_process_until(pid, w, err, errlen);
    if (fd < 0) {
        free(msg);
        return fd;
    }
    rc = ipc_send_until(fd, pid, w, msg, (size_t)len, err, errlen);
    free(msg);
    if (rc == IPC_OK)
        rc = ipc_read_reply_until(fd, pid, w, reply, sizeof(reply), &reply_len, err, errlen);
    if (rc == IPC_OK)
        rc = ipc_parse_reply(reply, reply_len, &r, err, errlen);
    if (rc == IPC_OK && r.is_error) {
        if (r.hr == CORDIAGIPC_E_UNKNOWN_COMMAND)
            *unknown = 1;
        rc = ipc_errorf(IPC_ERR_PROTOCOL, err, errlen, "process %d refused the event session: %s", pid,
                        ipc_hresult_message(r.hr));
    } else if (rc == IPC_OK && r.payload_len < 8) {
        rc = ipc_errorf(IPC_ERR_PROTOCOL, err, errlen, "process %d answered the event session without its id", pid);
    }
    if (rc != IPC_OK) {
        close(fd);
        return rc;
    }
    *session = ipc_get_u64(r.payload);
    return fd;
}

int ipc_eventpipe_start(int pid, int timeout_ms, int cancel_fd, const ipc_ep_provider *providers, size_t n,
                        uint64_t *session, char *err, size_t errlen)
{
    ipc_wait w = ipc_wait_for(timeout_ms, cancel_fd);
    int unknown, fd;

    *session = 0;
    fd = collect(pid, &w, 3, providers, n, session, &unknown, err, errlen);
    if (fd < 0 && unknown)      /* before .NET 7: no CollectTracing3 */
        fd = collect(pid, &w, 2, providers, n, session, &unknown, err, errlen);
    return fd;
}

int ipc_eventpipe_stop(int pid, int timeout_ms, uint64_t session, char *err, size_t errlen)
{
    ipc_wait w = ipc_wait_for(timeout_ms, -1);
    uint8_t msg[IPC_HEADER_SIZE + 8], reply[IPC_HEADER_SIZE + 64];
    size_t reply_len;
    ipc_reply_t r;
    int rc;

    ipc_encode_header(msg, sizeof(msg), IPC_SET_EVENTPIPE, EP_ID_STOP_TRACING);
    ipc_put_u32(msg + IPC_HEADER_SIZE, (uint32_t)session);
    ipc_put_u32(msg + IPC_HEADER_SIZE + 4, (uint32_t)(session >> 32));
    rc = ipc_request_until(pid, &w, msg, sizeof(msg), reply, sizeof(reply), &reply_len, err, errlen);
    if (rc == IPC_OK)
        rc = ipc_parse_reply(reply, reply_len, &r, err, errlen);
    if (rc == IPC_OK && r.is_error)
        rc = ipc_errorf(IPC_ERR_PROTOCOL, err, errlen, "process %d refused to stop the event session: %s", pid,
                        ipc_hresult_message(r.hr));
    return rc;
}
