/* commands.c - the two diagnostics commands clrprobe uses: AttachProfiler
 * (load the agent into a running process) and ProcessInfo2 / ProcessInfo
 * (who is this process, which runtime).  Each is one connection: build the
 * request, exchange it under one deadline, decode the reply. */
#include "ipc/ipc_internal.h"
#include "api/corprof.h"

#include <stdlib.h>
#include <string.h>

int ipc_attach_profiler(int pid, int timeout_ms, const GUID *clsid, const char *agent_path,
                        const void *client_data, uint32_t client_len, HRESULT *hr_out,
                        char *err, size_t errlen)
{
    uint8_t *msg, *reply;
    size_t reply_len;
    ipc_reply_t r;
    long len;
    int rc, total;

    *hr_out = E_FAIL;
    if (timeout_ms < 0)
        timeout_ms = 0;
    total = timeout_ms > INT32_MAX - IPC_ATTACH_GRACE_MS ? INT32_MAX : timeout_ms + IPC_ATTACH_GRACE_MS;
    msg = malloc(IPC_MAX_MESSAGE);
    reply = malloc(IPC_MAX_MESSAGE);
    if (!msg || !reply) {
        rc = ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
        goto done;
    }
    len = ipc_build_attach_profiler(msg, IPC_MAX_MESSAGE, (uint32_t)timeout_ms, clsid, agent_path,
                                    client_data, client_len);
    if (len == IPC_ERR_ENCODING) {
        rc = ipc_errorf(IPC_ERR_ENCODING, err, errlen, "the agent path is not valid UTF-8: %s", agent_path);
        goto done;
    }
    if (len < 0) {
        rc = ipc_errorf(IPC_ERR_TOO_LONG, err, errlen,
                        "the agent path and the configuration do not fit in one diagnostics message "
                        "(%d bytes at most)", IPC_MAX_MESSAGE);
        goto done;
    }
    rc = ipc_request_until(pid, ipc_now_ms() + total, total, msg, (size_t)len, reply, IPC_MAX_MESSAGE,
                           &reply_len, err, errlen);
    if (rc == IPC_ERR_TIMEOUT) {
        size_t n = err ? strlen(err) : 0;
        if (err && n < errlen)
            snprintf(err + n, errlen - n, "; the attach may still complete in the background");
        goto done;
    }
    if (rc != IPC_OK)
        goto done;
    rc = ipc_parse_reply(reply, reply_len, &r, err, errlen);
    if (rc != IPC_OK) {
        size_t n = err ? strlen(err) : 0;
        if (err && n < errlen)
            snprintf(err + n, errlen - n, " (from process %d)", pid);
        goto done;
    }
    *hr_out = r.hr;
done:
    free(msg);
    free(reply);
    return rc;
}

/* One ProcessInfo-family request: IPC_OK with *r pointing into reply. */
static int ask(int pid, int64_t deadline, int total_ms, uint8_t id, uint8_t *reply, ipc_reply_t *r,
               char *err, size_t errlen)
{
    uint8_t msg[IPC_HEADER_SIZE];
    size_t reply_len;
    int rc;

    ipc_build_empty_request(msg, sizeof(msg), IPC_SET_PROCESS, id);
    rc = ipc_request_until(pid, deadline, total_ms, msg, sizeof(msg), reply, IPC_MAX_MESSAGE, &reply_len,
                           err, errlen);
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
    int64_t deadline = ipc_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    uint8_t *reply = malloc(IPC_MAX_MESSAGE);
    int version = 2, rc;
    ipc_reply_t r;

    memset(out, 0, sizeof(*out));
    if (!reply)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
    rc = ask(pid, deadline, timeout_ms, IPC_ID_PROCESS_INFO2, reply, &r, err, errlen);
    if (rc == IPC_OK && r.is_error && r.hr == CORDIAGIPC_E_UNKNOWN_COMMAND) {
        version = 1;    /* .NET Core 3.x / .NET 5 */
        rc = ask(pid, deadline, timeout_ms, IPC_ID_PROCESS_INFO, reply, &r, err, errlen);
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
