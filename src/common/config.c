/* config.c - parsing and formatting of the agent configuration text
 * (format described in config.h and docs/config.md).  Pure code: no
 * allocation, no I/O, so the agent can call it from Initialize. */
#include "common/config.h"
#include "common/escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; uint32_t bit; } collect_kinds[] = {
    { "appdomains",  CP_COLLECT_APPDOMAINS },
    { "assemblies",  CP_COLLECT_ASSEMBLIES },
    { "modules",     CP_COLLECT_MODULES },
    { "classes",     CP_COLLECT_CLASSES },
    { "jit",         CP_COLLECT_JIT },
    { "threads",     CP_COLLECT_THREADS },
    { "gc",          CP_COLLECT_GC },
    { "suspensions", CP_COLLECT_SUSPENSIONS },
    { "exceptions",  CP_COLLECT_EXCEPTIONS },
    { "cpu",         CP_COLLECT_CPU },
    { "alloc",       CP_COLLECT_ALLOC },
    { "live",        CP_COLLECT_LIVE },
    { "contention",  CP_COLLECT_CONTENTION },
    { "alloc-all",   CP_COLLECT_ALLOC_ALL },
    { "wall",        CP_COLLECT_WALL },
};
#define NKINDS (sizeof(collect_kinds) / sizeof(collect_kinds[0]))

/* Sets err to a reason for refusing the configuration.  The values quoted
 * in it come from the user or from a program's environment and may hold
 * anything (a %0A decodes to a line break that would forge a second line of
 * a message, or of the attach control protocol that carries it), so the
 * whole reason is escaped (common/escape.h). */
static void config_error(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void config_error(char *err, size_t errlen, const char *fmt, ...)
{
    char raw[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    esc_buf(err, errlen, raw, strlen(raw), NULL);
}

const char *cp_collect_valid_names(void)
{
    return "all, cpu, appdomains, assemblies, modules, classes, jit, threads, gc, suspensions, exceptions, "
           "alloc, live, contention, alloc-all, wall";
}

void cp_config_init(cp_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->version = CP_CONFIG_VERSION;
    cfg->collect = CP_COLLECT_ALL;
    cfg->rate = CP_RATE_DEFAULT;
    cfg->sampler = CP_SAMPLER_DEFAULT;
    cfg->output_fd = -1;
    cfg->clock_fd = -1;
    cfg->stack_fd = -1;
}

int cp_sampler_parse(const char *text, int *sampler, char *err, size_t errlen)
{
    if (strcmp(text, "signal") == 0)
        *sampler = CP_SAMPLER_SIGNAL;
    else if (strcmp(text, "suspend") == 0)
        *sampler = CP_SAMPLER_SUSPEND;
    else if (strcmp(text, "perf") == 0)
        *sampler = CP_SAMPLER_PERF;
    else if (strcmp(text, "auto") == 0)
        *sampler = CP_SAMPLER_AUTO;
    else if (strcmp(text, "percpu") == 0)
        *sampler = CP_SAMPLER_PERCPU;
    else if (strcmp(text, "kstack") == 0)
        *sampler = CP_SAMPLER_KSTACK;
    else {
        config_error(err, errlen, "sampler '%.32s' is not auto, kstack, percpu, perf, signal or suspend", text);
        return -1;
    }
    return 0;
}

const char *cp_sampler_name(int sampler)
{
    return sampler == CP_SAMPLER_SUSPEND ? "suspend" : sampler == CP_SAMPLER_PERF ? "perf"
         : sampler == CP_SAMPLER_AUTO    ? "auto" : sampler == CP_SAMPLER_PERCPU ? "percpu"
         : sampler == CP_SAMPLER_KSTACK  ? "kstack" : "signal";
}

int cp_collect_parse(const char *list, uint32_t *mask, char *err, size_t errlen)
{
    uint32_t m = 0;
    const char *p = list;

    if (!list || !*list) {
        config_error(err, errlen, "empty collect list (valid kinds: %s)", cp_collect_valid_names());
        return -1;
    }
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        size_t i;

        while (n && *p == ' ') { p++; n--; }
        while (n && p[n - 1] == ' ') n--;
        if (n == 3 && memcmp(p, "all", 3) == 0) {
            m |= CP_COLLECT_ALL;
        } else {
            for (i = 0; i < NKINDS; i++) {
                if (strlen(collect_kinds[i].name) == n && memcmp(p, collect_kinds[i].name, n) == 0)
                    break;
            }
            if (i == NKINDS) {
                config_error(err, errlen, "unknown collect kind '%.*s' (valid kinds: %s)",
                         (int)(n > 64 ? 64 : n), p, cp_collect_valid_names());
                return -1;
            }
            m |= collect_kinds[i].bit;
        }
        if (!end)
            break;
        p = end + 1;
        if (!*p) {
            config_error(err, errlen, "collect list ends with ',' (valid kinds: %s)", cp_collect_valid_names());
            return -1;
        }
    }
    *mask = m;
    return 0;
}

void cp_collect_format(uint32_t mask, char *buf, size_t buflen)
{
    size_t used = 0;

    if (buflen == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < NKINDS; i++) {
        if (!(mask & collect_kinds[i].bit))
            continue;
        int n = snprintf(buf + used, buflen - used, "%s%s", used ? "," : "", collect_kinds[i].name);
        if (n < 0 || (size_t)n >= buflen - used)
            return;
        used += (size_t)n;
    }
}

int cp_rate_parse(const char *text, int *rate, char *err, size_t errlen)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (!text[0] || *end || errno || v < CP_RATE_MIN || v > CP_RATE_MAX) {
        config_error(err, errlen, "sampling rate '%.32s' is out of range (%d..%d samples per second)", text,
                 CP_RATE_MIN, CP_RATE_MAX);
        return -1;
    }
    *rate = (int)v;
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes the percent-encoded value [p, p+n) into out. */
static int decode_value(const char *p, size_t n, char *out, size_t outlen, const char *key,
                        char *err, size_t errlen)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)p[i];
        if (c == '%') {
            if (i + 2 >= n) {
                config_error(err, errlen, "bad %%-escape in value of '%s'", key);
                return -1;
            }
            int h = hexval((unsigned char)p[i + 1]), l = hexval((unsigned char)p[i + 2]);
            if (h < 0 || l < 0) {
                config_error(err, errlen, "bad %%-escape in value of '%s'", key);
                return -1;
            }
            c = h * 16 + l;
            if (c == 0) {
                config_error(err, errlen, "NUL byte in value of '%s'", key);
                return -1;
            }
            i += 2;
        }
        if (o + 1 >= outlen) {
            config_error(err, errlen, "value of '%s' is too long (limit %zu bytes)", key, outlen - 1);
            return -1;
        }
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return 0;
}

/* A descriptor number (0..CP_OUTPUT_FD_MAX), the value of key, into *fd:
 * 0, or -1 with the reason in err. */
static int parse_fd(const char *key, const char *value, int *fd, char *err, size_t errlen)
{
    char *e;
    long v;

    errno = 0;
    v = strtol(value, &e, 10);
    if (value[0] < '0' || value[0] > '9' || *e || errno || v > CP_OUTPUT_FD_MAX) {
        config_error(err, errlen, "%s '%.32s' is not a descriptor number (0..%d)", key, value, CP_OUTPUT_FD_MAX);
        return -1;
    }
    *fd = (int)v;
    return 0;
}

/* "DEV:INO", two unsigned decimal numbers: 0, or -1. */
static int parse_file_id(const char *value, unsigned long long *dev, unsigned long long *ino)
{
    char *e;

    if (value[0] < '0' || value[0] > '9')
        return -1;
    errno = 0;
    *dev = strtoull(value, &e, 10);
    if (errno || *e != ':' || e[1] < '0' || e[1] > '9')
        return -1;
    *ino = strtoull(e + 1, &e, 10);
    return errno || *e ? -1 : 0;
}

int cp_config_parse(const char *text, cp_config *cfg, char *err, size_t errlen)
{
    char value[CP_PATH_MAX];
    int seen_v = 0, seen_output = 0, seen_collect = 0, seen_pid = 0, seen_ctl = 0, seen_rate = 0, seen_run = 0, seen_heap = 0,
        seen_count = 0, seen_method = 0, seen_max = 0, seen_sampler = 0, seen_trace = 0, seen_calls = 0,
        seen_main = 0, seen_fd = 0, seen_id = 0, seen_clock = 0, seen_stack = 0, seen_why = 0;
    const char *p = text;

    cp_config_init(cfg);
    if (!text || !*text) {
        config_error(err, errlen, "configuration is empty (expected e.g. 'output=/tmp/app.clrp')");
        return -1;
    }
    if (strlen(text) > CP_CONFIG_MAX_TEXT) {
        config_error(err, errlen, "configuration is longer than %d bytes", CP_CONFIG_MAX_TEXT);
        return -1;
    }
    while (*p) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        char key[32];
        size_t klen;

        if (n == 0) {               /* tolerate empty entries: "a=1;;b=2;" */
            p = end ? end + 1 : p + n;
            continue;
        }
        if (!eq) {
            config_error(err, errlen, "entry '%.*s' is not key=value", (int)(n > 64 ? 64 : n), p);
            return -1;
        }
        klen = (size_t)(eq - p);
        if (klen == 0 || klen >= sizeof(key)) {
            config_error(err, errlen, "bad key in entry '%.*s'", (int)(n > 64 ? 64 : n), p);
            return -1;
        }
        memcpy(key, p, klen);
        key[klen] = '\0';
        if (decode_value(eq + 1, n - klen - 1, value, sizeof(value), key, err, errlen) < 0)
            return -1;

        if (strcmp(key, "v") == 0) {
            if (seen_v++) goto duplicate;
            if (strcmp(value, "1") != 0) {
                config_error(err, errlen, "configuration version '%.16s' is not supported (this agent reads v=1)",
                         value);
                return -1;
            }
        } else if (strcmp(key, "output") == 0) {
            if (seen_output++) goto duplicate;
            if (value[0] != '/') {
                config_error(err, errlen, "output '%.200s' is not an absolute path", value);
                return -1;
            }
            memcpy(cfg->output, value, strlen(value) + 1);
        } else if (strcmp(key, "output_fd") == 0) {
            if (seen_fd++) goto duplicate;
            if (parse_fd(key, value, &cfg->output_fd, err, errlen) < 0)
                return -1;
        } else if (strcmp(key, "clock_fd") == 0) {
            if (seen_clock++) goto duplicate;
            if (parse_fd(key, value, &cfg->clock_fd, err, errlen) < 0)
                return -1;
        } else if (strcmp(key, "stack_fd") == 0) {
            if (seen_stack++) goto duplicate;
            if (parse_fd(key, value, &cfg->stack_fd, err, errlen) < 0)
                return -1;
        } else if (strcmp(key, "clock_why") == 0) {
            if (seen_why++) goto duplicate;
            if (strlen(value) >= sizeof(cfg->clock_why)) {
                config_error(err, errlen, "clock_why is longer than %zu bytes", sizeof(cfg->clock_why) - 1);
                return -1;
            }
            memcpy(cfg->clock_why, value, strlen(value) + 1);
        } else if (strcmp(key, "output_id") == 0) {
            if (seen_id++) goto duplicate;
            if (parse_file_id(value, &cfg->output_dev, &cfg->output_ino) < 0) {
                config_error(err, errlen, "output_id '%.64s' is not DEVICE:INODE (two decimal numbers)", value);
                return -1;
            }
        } else if (strcmp(key, "collect") == 0) {
            if (seen_collect++) goto duplicate;
            if (cp_collect_parse(value, &cfg->collect, err, errlen) < 0)
                return -1;
        } else if (strcmp(key, "pid") == 0) {
            char *e;
            if (seen_pid++) goto duplicate;
            long v;
            errno = 0;
            v = strtol(value, &e, 10);
            if (value[0] < '1' || value[0] > '9' || *e || errno || v <= 0 || v > 0x7fffffff) {
                config_error(err, errlen, "pid '%.32s' is not a positive number", value);
                return -1;
            }
            cfg->pid = v;
        } else if (strcmp(key, "rate") == 0) {
            if (seen_rate++) goto duplicate;
            if (cp_rate_parse(value, &cfg->rate, err, errlen) < 0)
                return -1;
        } else if (strcmp(key, "sampler") == 0) {
            if (seen_sampler++) goto duplicate;
            if (cp_sampler_parse(value, &cfg->sampler, err, errlen) < 0)
                return -1;
        } else if (strcmp(key, "ctl") == 0) {
            if (seen_ctl++) goto duplicate;
            if (value[0] != '/') {
                config_error(err, errlen, "ctl '%.200s' is not an absolute path", value);
                return -1;
            }
            memcpy(cfg->ctl, value, strlen(value) + 1);
        } else if (strcmp(key, "run") == 0) {
            if (seen_run++) goto duplicate;
            if (value[0] != '/') {
                config_error(err, errlen, "run '%.200s' is not an absolute path", value);
                return -1;
            }
            memcpy(cfg->run, value, strlen(value) + 1);
        } else if (strcmp(key, "main_profiler") == 0) {
            if (seen_main++) goto duplicate;
            if (!value[0]) {
                config_error(err, errlen, "main_profiler is empty (expected the main profiler's library)");
                return -1;
            }
            memcpy(cfg->main_profiler, value, strlen(value) + 1);
        } else if (strcmp(key, "heap_every") == 0) {
            char *e;
            long v;
            if (seen_heap++) goto duplicate;
            errno = 0;
            v = strtol(value, &e, 10);
            if (value[0] < '1' || value[0] > '9' || *e || errno || v < CP_HEAP_EVERY_MIN_MS ||
                v > CP_HEAP_EVERY_MAX_MS) {
                config_error(err, errlen, "heap_every '%.32s' is not a number of milliseconds (%d..%ld)", value,
                             CP_HEAP_EVERY_MIN_MS, CP_HEAP_EVERY_MAX_MS);
                return -1;
            }
            cfg->heap_every_ms = v;
        } else if (strcmp(key, "heap_method") == 0) {
            if (seen_method++) goto duplicate;
            if (strcmp(value, "auto") == 0)
                cfg->heap_method = CP_HEAP_METHOD_AUTO;
            else if (strcmp(value, "gc") == 0)
                cfg->heap_method = CP_HEAP_METHOD_GC;
            else if (strcmp(value, "enumerate") == 0)
                cfg->heap_method = CP_HEAP_METHOD_ENUMERATE;
            else {
                config_error(err, errlen, "heap_method '%.32s' is not auto, gc or enumerate", value);
                return -1;
            }
        } else if (strcmp(key, "heap_max_objects") == 0) {
            char *e;
            long v;
            if (seen_max++) goto duplicate;
            errno = 0;
            v = strtol(value, &e, 10);
            if (value[0] < '1' || value[0] > '9' || *e || errno || v > 1000000000L) {
                config_error(err, errlen, "heap_max_objects '%.32s' is not a number of objects (1..1000000000)", value);
                return -1;
            }
            cfg->heap_max_objects = v;
        } else if (strcmp(key, "heap_count") == 0) {
            char *e;
            long v;
            if (seen_count++) goto duplicate;
            errno = 0;
            v = strtol(value, &e, 10);
            if (value[0] < '1' || value[0] > '9' || *e || errno || v > CP_HEAP_COUNT_MAX) {
                config_error(err, errlen, "heap_count '%.32s' is not a number of snapshots (1..%d)", value,
                             CP_HEAP_COUNT_MAX);
                return -1;
            }
            cfg->heap_count = v;
        } else if (strcmp(key, "trace") == 0) {
            mp_list l;
            if (seen_trace++) goto duplicate;
            if (strlen(value) > MP_MAX_TEXT || mp_parse(value, &l, err, errlen) < 0) {
                if (strlen(value) > MP_MAX_TEXT)
                    config_error(err, errlen, "trace is longer than %d characters", MP_MAX_TEXT);
                return -1;
            }
            memcpy(cfg->trace, value, strlen(value) + 1);
        } else if (strcmp(key, "trace_calls") == 0) {
            char *e;
            long v;
            if (seen_calls++) goto duplicate;
            errno = 0;
            v = strtol(value, &e, 10);
            if (value[0] < '1' || value[0] > '9' || *e || errno || v > CP_TRACE_CALLS_MAX) {
                config_error(err, errlen, "trace_calls '%.32s' is not a number of calls (1..%ld)", value,
                             CP_TRACE_CALLS_MAX);
                return -1;
            }
            cfg->trace_calls = v;
        } else {
            config_error(err, errlen, "unknown key '%s' (valid keys: v, output, output_fd, output_id, collect, rate, sampler, pid, ctl, "
                         "run, main_profiler, clock_fd, stack_fd, clock_why, heap_every, heap_count, heap_method, heap_max_objects, trace, trace_calls)",
                         key);
            return -1;
        }
        p = end ? end + 1 : p + n;
        continue;
duplicate:
        config_error(err, errlen, "key '%s' given twice", key);
        return -1;
    }
    if (cfg->heap_count > 1 && cfg->heap_every_ms == 0) {
        config_error(err, errlen, "heap_count %ld needs heap_every (the time between the snapshots)", cfg->heap_count);
        return -1;
    }
    if (cfg->trace_calls && !cfg->trace[0]) {
        config_error(err, errlen, "trace_calls needs trace (the methods to trace)");
        return -1;
    }
    if (seen_fd != seen_id) {
        config_error(err, errlen, "%s needs %s (the descriptor and the identity of its file go together)",
                     seen_fd ? "output_fd" : "output_id", seen_fd ? "output_id" : "output_fd");
        return -1;
    }
    if (seen_fd && seen_output) {
        config_error(err, errlen, "output and output_fd both given: the trace file is one or the other");
        return -1;
    }
    if (!seen_output && !seen_ctl && !seen_fd) {  /* (with ctl, the trace arrives over the control socket) */
        config_error(err, errlen, "no output path (expected 'output=/absolute/path')");
        return -1;
    }
    return 0;
}

/* Appends s percent-encoded; returns new length or -1 on overflow. */
static int put_encoded(char *buf, size_t buflen, size_t used, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        int plain = c > 0x20 && c < 0x7f && c != '%' && c != ';' && c != '=';
        size_t need = plain ? 1 : 3;
        if (used + need >= buflen)
            return -1;
        if (plain) {
            buf[used++] = (char)c;
        } else {
            buf[used++] = '%';
            buf[used++] = hex[c >> 4];
            buf[used++] = hex[c & 15];
        }
    }
    buf[used] = '\0';
    return (int)used;
}

int cp_config_format(const cp_config *cfg, char *buf, size_t buflen)
{
    char collect[256];
    int n = snprintf(buf, buflen, "v=%d", CP_CONFIG_VERSION);

    if (n < 0 || (size_t)n >= buflen)
        return -1;
    if (cfg->output[0]) {
        if ((size_t)n + 8 >= buflen)
            return -1;
        memcpy(buf + n, ";output=", 9);
        n = put_encoded(buf, buflen, (size_t)n + 8, cfg->output);
        if (n < 0)
            return -1;
    }
    if (cfg->output_fd >= 0) {
        int k = snprintf(buf + n, buflen - (size_t)n, ";output_fd=%d;output_id=%llu:%llu", cfg->output_fd,
                         cfg->output_dev, cfg->output_ino);
        if (k < 0 || (size_t)k >= buflen - (size_t)n)
            return -1;
        n += k;
    }
    if (cfg->clock_fd >= 0) {
        int k = snprintf(buf + n, buflen - (size_t)n, ";clock_fd=%d", cfg->clock_fd);
        if (k < 0 || (size_t)k >= buflen - (size_t)n)
            return -1;
        n += k;
    }
    if (cfg->stack_fd >= 0) {
        int k = snprintf(buf + n, buflen - (size_t)n, ";stack_fd=%d", cfg->stack_fd);
        if (k < 0 || (size_t)k >= buflen - (size_t)n)
            return -1;
        n += k;
    }
    if (cfg->clock_why[0]) {
        if ((size_t)n + 11 >= buflen)
            return -1;
        memcpy(buf + n, ";clock_why=", 12);
        n = put_encoded(buf, buflen, (size_t)n + 11, cfg->clock_why);
        if (n < 0)
            return -1;
    }
    cp_collect_format(cfg->collect, collect, sizeof(collect));
    int m = snprintf(buf + n, buflen - (size_t)n, ";collect=%s", collect);
    if (m < 0 || (size_t)m >= buflen - (size_t)n)
        return -1;
    n += m;
    if (cfg->rate != CP_RATE_DEFAULT) {
        m = snprintf(buf + n, buflen - (size_t)n, ";rate=%d", cfg->rate);
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->sampler != CP_SAMPLER_DEFAULT) {
        m = snprintf(buf + n, buflen - (size_t)n, ";sampler=%s", cp_sampler_name(cfg->sampler));
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->heap_every_ms > 0) {
        m = snprintf(buf + n, buflen - (size_t)n, ";heap_every=%ld", cfg->heap_every_ms);
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->heap_method != CP_HEAP_METHOD_AUTO) {
        m = snprintf(buf + n, buflen - (size_t)n, ";heap_method=%s",
                     cfg->heap_method == CP_HEAP_METHOD_GC ? "gc" : "enumerate");
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->heap_max_objects > 0) {
        m = snprintf(buf + n, buflen - (size_t)n, ";heap_max_objects=%ld", cfg->heap_max_objects);
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->heap_count > 0) {
        m = snprintf(buf + n, buflen - (size_t)n, ";heap_count=%ld", cfg->heap_count);
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->trace[0]) {
        if ((size_t)n + 7 >= buflen)
            return -1;
        memcpy(buf + n, ";trace=", 8);
        n = put_encoded(buf, buflen, (size_t)n + 7, cfg->trace);
        if (n < 0)
            return -1;
    }
    if (cfg->trace_calls > 0) {
        m = snprintf(buf + n, buflen - (size_t)n, ";trace_calls=%ld", cfg->trace_calls);
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->pid > 0) {
        m = snprintf(buf + n, buflen - (size_t)n, ";pid=%ld", cfg->pid);
        if (m < 0 || (size_t)m >= buflen - (size_t)n)
            return -1;
        n += m;
    }
    if (cfg->ctl[0]) {
        if ((size_t)n + 5 >= buflen)
            return -1;
        memcpy(buf + n, ";ctl=", 6);
        n = put_encoded(buf, buflen, (size_t)n + 5, cfg->ctl);
        if (n < 0)
            return -1;
    }
    if (cfg->run[0]) {
        if ((size_t)n + 5 >= buflen)
            return -1;
        memcpy(buf + n, ";run=", 6);
        n = put_encoded(buf, buflen, (size_t)n + 5, cfg->run);
        if (n < 0)
            return -1;
    }
    if (cfg->main_profiler[0]) {
        if ((size_t)n + 15 >= buflen)
            return -1;
        memcpy(buf + n, ";main_profiler=", 16);
        n = put_encoded(buf, buflen, (size_t)n + 15, cfg->main_profiler);
    }
    return n;
}
