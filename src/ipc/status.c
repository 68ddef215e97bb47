/* status.c - the ipc_status names and the error-sentence helper used by the
 * rest of src/ipc/. */
#include "ipc/ipc_internal.h"

#include <stdarg.h>
#include <unistd.h>

const char *ipc_status_name(int status)
{
    switch (status) {
    case IPC_OK:             return "ok";
    case IPC_ERR_NO_PROCESS: return "no process";
    case IPC_ERR_NO_SOCKET:  return "no socket";
    case IPC_ERR_PERMISSION: return "permission denied";
    case IPC_ERR_REFUSED:    return "refused";
    case IPC_ERR_TIMEOUT:    return "timeout";
    case IPC_ERR_PROTOCOL:   return "protocol error";
    case IPC_ERR_ENCODING:   return "encoding error";
    case IPC_ERR_TOO_LONG:   return "too long";
    case IPC_ERR_SYSTEM:     return "system error";
    case IPC_ERR_CANCELLED:  return "cancelled";
    default:                 return "unknown status";
    }
}

int ipc_errorf(int status, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

int ipc_permission_error(int pid, char *err, size_t errlen)
{
    if (geteuid() == 0)
        return ipc_errorf(IPC_ERR_PERMISSION, err, errlen, IPC_MSG_PERMISSION_ROOT, pid);
    return ipc_errorf(IPC_ERR_PERMISSION, err, errlen, IPC_MSG_PERMISSION, pid);
}
