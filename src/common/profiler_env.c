/* profiler_env.c - the profiler variables of an environment, in the
 * runtime's lookup order (profiler_env.h). */
#include "common/profiler_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runtime's suffixes for this architecture, most specific first
 * (ProfilingAPIUtility::AttemptLoadProfilerForStartup and the notification
 * list's lookup). */
static const char *const suffixes[] = {
#if defined(__aarch64__)
    "_ARM64", "_64", "",
#elif defined(__arm__)
    "_ARM32", "_32", "",
#elif defined(__x86_64__)
    "_64", "",
#else
    "_32", "",
#endif
};
#define NSUFFIXES (sizeof(suffixes) / sizeof(suffixes[0]))
static const char *const prefixes[] = { "CORECLR_", "DOTNET_" };

int cp_env_lookup(const cp_env *env, const char *name, char *out, size_t cap)
{
    size_t nlen = strlen(name), i = 0;
    const char *value = NULL;
    size_t vlen = 0;

    if (!env || !env->block) {
        value = getenv(name);
        vlen = value ? strlen(value) : 0;
    }
    while (env && env->block && !value && i < env->len) {
        const char *entry = env->block + i;
        const char *nul = memchr(entry, '\0', env->len - i);
        size_t elen = nul ? (size_t)(nul - entry) : env->len - i;

        if (elen > nlen && memcmp(entry, name, nlen) == 0 && entry[nlen] == '=') {
            value = entry + nlen + 1;
            vlen = elen - nlen - 1;
        }
        i += elen + 1;
    }
    if (!value)
        return 0;
    if (cap) {
        if (vlen > cap - 1)
            vlen = cap - 1;
        memcpy(out, value, vlen);
        out[vlen] = '\0';
    }
    return 1;
}

int cp_startup_profiler(const cp_env *env, char *path, size_t cap, char *var, size_t varcap)
{
    char value[64], name[64];
    int enabled = 0;

    for (size_t i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "%sENABLE_PROFILING", prefixes[i]);
        if (cp_env_lookup(env, name, value, sizeof(value)) && strtoul(value, NULL, 16) != 0)
            enabled = 1;
    }
    if (!enabled)
        return 0;
    for (size_t i = 0; i < 2; i++) {
        for (size_t k = 0; k < NSUFFIXES; k++) {
            snprintf(name, sizeof(name), "%sPROFILER_PATH%s", prefixes[i], suffixes[k]);
            if (cp_env_lookup(env, name, path, cap) && path[0]) {
                snprintf(var, varcap, "%s", name);
                return 1;
            }
        }
    }
    return 0;
}

int cp_notification_list(const cp_env *env, char *var, size_t varcap, char *value, size_t cap)
{
    char name[64];

    for (size_t i = 0; i < 2; i++) {
        for (size_t k = 0; k < NSUFFIXES; k++) {
            snprintf(name, sizeof(name), "%sNOTIFICATION_PROFILERS%s", prefixes[i], suffixes[k]);
            if (cp_env_lookup(env, name, value, cap)) {
                snprintf(var, varcap, "%s", name);
                return 1;
            }
        }
    }
    snprintf(var, varcap, "CORECLR_NOTIFICATION_PROFILERS");
    if (cap)
        value[0] = '\0';
    return 0;
}

int cp_notification_list_append(char *value, size_t cap, const char *path, const char *clsid)
{
    size_t len = strlen(value);
    const char *sep = len && value[len - 1] != ';' ? ";" : "";
    int n;

    if (strpbrk(path, ";="))
        return -1;
    n = snprintf(value + len, cap - len, "%s%s=%s;", sep, path, clsid);
    if (n < 0 || (size_t)n >= cap - len) {
        value[len] = '\0';
        return -1;
    }
    return 0;
}
