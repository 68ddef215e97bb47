/* commands.c - the two diagnostics commands clrprobe uses: AttachProfiler
 * (load the agent into a running process; sent, then answered when the
 * caller sees the reply arrive) and ProcessInfo2 / ProcessInfo (who is this
 * process, which runtime: one exchange under one deadline).  Each is one
 * connection. */
#include "ipc/ipc_internal.h"
#include "api/corprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IPC_REPLY_REST_MS 5000      /* for the rest of a reply that has begun */

int ipc_attach_profiler_send(int pid, int timeout_ms, const GUID *clsid, const char *agent_path,
                             const void *client_data, uint32_t client_len, int cancel_fd,
                             char *err, size_t errlen)
{
    ipc_wait w = ipc_wait_for(timeout_ms, cancel_fd);
    uint8_t *msg;
    long len;
    int fd, rc;

    if (timeout_ms < 0)
        timeout_ms = 0;
    msg = malloc(IPC_MAX_MESSAGE);
    if (!msg)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
    len = ipc_build_attach_profiler(msg, IPC_MAX_MESSAGE, (uint32_t)timeout_ms, clsid, agent_path,
                                    client_data, client_len);
    if (len == IPC_ERR_ENCODING) {
        free(msg);
        return ipc_errorf(IPC_ERR_ENCODING, err, errlen, "the agent path is not valid UTF-8: %s", agent_path);
    }
    if (len < 0) {
        free(msg);
        return ipc_errorf(IPC_ERR_TOO_LONG, err, errlen,
                          "the agent path and the configuration do not fit in one diagnostics message "
                          "(%d bytes at most)", IPC_MAX_MESSAGE);
    }
    fd = ipc_connect_process_until(pid, &w, err, errlen);
    if (fd >= 0) {
        rc = ipc_send_until(fd, pid, &w, msg, (size_t)len, err, errlen);
        if (rc != IPC_OK) {
            close(fd);
            fd = rc;
        }
    }
    free(msg);
    return fd;
}

int ipc_attach_profiler_reply(int fd, int pid, HRESULT *hr_out, char *err, size_t errlen)
{
    /* Called once the reply has begun to arrive: the rest follows at once. */
    ipc_wait w = ipc_wait_for(IPC_REPLY_REST_MS, -1);
    uint8_t reply[IPC_HEADER_SIZE + 64];
    size_t reply_len;
    ipc_reply_t r;
    int rc;

    *hr_out = E_FAIL;
    rc = ipc_read_reply_until(fd, pid, &w, reply, sizeof(reply), &reply_len, err, errlen);
    if (rc != IPC_OK)
        return rc;
    rc = ipc_parse_reply(reply, reply_len, &r, err, errlen);
    if (rc != IPC_OK) {
        size_t n = err ? strlen(err) : 0;
        if (err && n < errlen)
            snprintf(err + n, errlen - n, " (from process %d)", pid);
        return rc;
    }
    *hr_out = r.hr;
    return IPC_OK;
}

/* One ProcessInfo-family request: IPC_OK with *r pointing into reply. */
static int ask(int pid, const ipc_wait *w, uint8_t id, uint8_t *reply, ipc_reply_t *r, char *err, size_t errlen)
{
    uint8_t msg[IPC_HEADER_SIZE];
    size_t reply_len;
    int rc;

    ipc_build_empty_request(msg, sizeof(msg), IPC_SET_PROCESS, id);
    rc = ipc_request_until(pid, w, msg, sizeof(msg), reply, IPC_MAX_MESSAGE, &reply_len, err, errlen);
    if (rc != IPC_OK)
        return rc;
    rc = ipc_parse_reply(reply, reply_len, r, err, errlen);
    if (rc != IPC_OK) {
        size_t n = err ? strlen(err) : 0;
        if (err && n < errlen)
            snprintf(err + n, errlen - n, " (from process %d)", pid);
    }
    return rc;
}

int ipc_process_info(int pid, int timeout_ms, ipc_process_info_t *out, char *err, size_t errlen)
{
    ipc_wait w = ipc_wait_for(timeout_ms, -1);
    uint8_t *reply = malloc(IPC_MAX_MESSAGE);
    int version = 2, rc;
    ipc_reply_t r;

    memset(out, 0, sizeof(*out));
    if (!reply)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
    rc = ask(pid, &w, IPC_ID_PROCESS_INFO2, reply, &r, err, errlen);
    if (rc == IPC_OK && r.is_error && r.hr == CORDIAGIPC_E_UNKNOWN_COMMAND) {
        version = 1;    /* .NET Core 3.x / .NET 5 */
        rc = ask(pid, &w, IPC_ID_PROCESS_INFO, reply, &r, err, errlen);
    }
    if (rc != IPC_OK)
        goto done;
    if (r.is_error) {
        rc = ipc_errorf(IPC_ERR_PROTOCOL, err, errlen, "process %d refused to describe itself: %s",
                        pid, ipc_hresult_message(r.hr));
        goto done;
    }
    rc = ipc_decode_process_info(r.payload, r.payload_len, version, out);
    if (rc == IPC_ERR_PROTOCOL)
        ipc_errorf(rc, err, errlen, "process %d sent a malformed ProcessInfo%s reply", pid,
                   version == 2 ? "2" : "");
    else if (rc != IPC_OK)
        ipc_errorf(rc, err, errlen, "out of memory");
done:
    free(reply);
    return rc;
}
