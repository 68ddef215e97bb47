/* wire.c - the diagnostics IPC messages as bytes: the 20-byte header,
 * requests (empty ones and AttachProfiler), server replies, wire strings and
 * the ProcessInfo/ProcessInfo2 payload.  Pure: buffers in, buffers out; every
 * length read from the wire is checked against the bytes actually there. */
#include "ipc/ipc_internal.h"

#include <stdlib.h>
#include <string.h>

void ipc_encode_header(uint8_t *buf, uint16_t size, uint8_t command_set, uint8_t command_id)
{
    memcpy(buf, IPC_MAGIC, IPC_MAGIC_SIZE);    /* includes the NUL */
    ipc_put_u16(buf + 14, size);
    buf[16] = command_set;
    buf[17] = command_id;
    ipc_put_u16(buf + 18, 0);
}

int ipc_parse_header(const uint8_t *buf, size_t len, ipc_header_t *out)
{
    if (len < IPC_HEADER_SIZE || memcmp(buf, IPC_MAGIC, IPC_MAGIC_SIZE) != 0)
        return IPC_ERR_PROTOCOL;
    out->size = ipc_get_u16(buf + 14);
    out->command_set = buf[16];
    out->command_id = buf[17];
    out->reserved = ipc_get_u16(buf + 18);
    if (out->size < IPC_HEADER_SIZE)
        return IPC_ERR_PROTOCOL;
    return IPC_OK;
}

int ipc_parse_reply(const uint8_t *buf, size_t len, ipc_reply_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    if (len < IPC_HEADER_SIZE)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "the reply is too short (%zu bytes, a header alone is %d)", len, IPC_HEADER_SIZE);
    if (memcmp(buf, IPC_MAGIC, IPC_MAGIC_SIZE) != 0)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "the reply is not a diagnostics IPC message (bad magic)");
    if (ipc_parse_header(buf, len, &out->header) != IPC_OK)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "the reply's size field (%u) is smaller than its header", (unsigned)out->header.size);
    if (out->header.size > len)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "the reply is truncated (%zu of %u bytes)", len, (unsigned)out->header.size);
    if (out->header.command_set != IPC_SET_SERVER ||
        (out->header.command_id != IPC_ID_OK && out->header.command_id != IPC_ID_ERROR))
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "unexpected reply command 0x%02X/0x%02X (expected a server OK or error)",
                          out->header.command_set, out->header.command_id);
    out->payload = buf + IPC_HEADER_SIZE;
    out->payload_len = (size_t)out->header.size - IPC_HEADER_SIZE;
    out->is_error = out->header.command_id == IPC_ID_ERROR;
    if (out->is_error) {
        if (out->payload_len < 4)
            return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen, "the error reply carries no HRESULT");
        out->hr = (HRESULT)ipc_get_u32(out->payload);
    } else {
        out->hr = out->payload_len >= 4 ? (HRESULT)ipc_get_u32(out->payload) : S_OK;
    }
    return IPC_OK;
}

long ipc_build_empty_request(uint8_t *buf, size_t cap, uint8_t command_set, uint8_t command_id)
{
    if (cap < IPC_HEADER_SIZE)
        return IPC_ERR_TOO_LONG;
    ipc_encode_header(buf, IPC_HEADER_SIZE, command_set, command_id);
    return IPC_HEADER_SIZE;
}

long ipc_encode_string(uint8_t *buf, size_t cap, const char *utf8)
{
    long units = ipc_utf8_to_utf16le(utf8, NULL, 0);
    size_t total;

    if (units < 0)
        return IPC_ERR_ENCODING;
    if ((size_t)units + 1 > (IPC_MAX_MESSAGE - 4) / 2)
        return IPC_ERR_TOO_LONG;
    total = 4 + 2 * ((size_t)units + 1);
    if (total > cap)
        return IPC_ERR_TOO_LONG;
    ipc_put_u32(buf, (uint32_t)units + 1);
    ipc_utf8_to_utf16le(utf8, buf + 4, (size_t)units);
    ipc_put_u16(buf + 4 + 2 * (size_t)units, 0);
    return (long)total;
}

long ipc_build_attach_profiler(uint8_t *buf, size_t cap, uint32_t attach_timeout_ms,
                               const GUID *clsid, const char *agent_path,
                               const void *client_data, uint32_t client_len)
{
    size_t pos = IPC_HEADER_SIZE, limit = cap < IPC_MAX_MESSAGE ? cap : IPC_MAX_MESSAGE;
    long n;

    if (ipc_utf8_to_utf16le(agent_path, NULL, 0) < 0)
        return IPC_ERR_ENCODING;
    if (limit < IPC_HEADER_SIZE + 4 + 16)
        return IPC_ERR_TOO_LONG;
    ipc_put_u32(buf + pos, attach_timeout_ms);
    pos += 4;
    ipc_put_u32(buf + pos, clsid->Data1);
    ipc_put_u16(buf + pos + 4, clsid->Data2);
    ipc_put_u16(buf + pos + 6, clsid->Data3);
    memcpy(buf + pos + 8, clsid->Data4, 8);
    pos += 16;
    n = ipc_encode_string(buf + pos, limit - pos, agent_path);
    if (n < 0)
        return n;
    pos += (size_t)n;
    if (client_len > limit || limit - pos < 4 + (size_t)client_len)
        return IPC_ERR_TOO_LONG;
    ipc_put_u32(buf + pos, client_len);
    pos += 4;
    if (client_len)
        memcpy(buf + pos, client_data, client_len);
    pos += client_len;
    ipc_encode_header(buf, (uint16_t)pos, IPC_SET_PROFILER, IPC_ID_ATTACH_PROFILER);
    return (long)pos;
}

int ipc_decode_string(const uint8_t *buf, size_t len, size_t *pos, char **out)
{
    uint32_t count;
    size_t need;

    *out = NULL;
    if (*pos > len || len - *pos < 4)
        return IPC_ERR_PROTOCOL;
    count = ipc_get_u32(buf + *pos);
    if ((size_t)count > (len - *pos - 4) / 2)
        return IPC_ERR_PROTOCOL;
    need = ipc_utf16le_to_utf8(buf + *pos + 4, count, NULL, 0);
    *out = malloc(need + 1);
    if (!*out)
        return IPC_ERR_SYSTEM;
    ipc_utf16le_to_utf8(buf + *pos + 4, count, *out, need + 1);
    *pos += 4 + 2 * (size_t)count;
    return IPC_OK;
}

void ipc_process_info_free(ipc_process_info_t *info)
{
    free(info->command_line);
    free(info->os);
    free(info->arch);
    free(info->entrypoint);
    free(info->runtime_version);
    memset(info, 0, sizeof(*info));
}

int ipc_decode_process_info(const uint8_t *payload, size_t len, int version, ipc_process_info_t *out)
{
    char **fields[5];
    int nfields = version >= 2 ? 5 : 3, i, rc;
    size_t pos = 24;

    memset(out, 0, sizeof(*out));
    if (len < 24)
        return IPC_ERR_PROTOCOL;
    out->pid = ipc_get_u64(payload);
    memcpy(out->cookie, payload + 8, 16);
    fields[0] = &out->command_line;
    fields[1] = &out->os;
    fields[2] = &out->arch;
    fields[3] = &out->entrypoint;
    fields[4] = &out->runtime_version;
    for (i = 0; i < 5; i++) {
        if (i < nfields)
            rc = ipc_decode_string(payload, len, &pos, fields[i]);
        else
            rc = (*fields[i] = calloc(1, 1)) ? IPC_OK : IPC_ERR_SYSTEM;
        if (rc != IPC_OK) {
            ipc_process_info_free(out);
            return rc;
        }
    }
    out->version = version >= 2 ? 2 : 1;
    return IPC_OK;
}
