/* main_profiler.c - another profiler loaded as the process's main one?
 * (main_profiler.h).  Only the startup profiler can be seen from inside:
 * the environment names it (common/profiler_env.h) and the dynamic loader
 * says whether it is loaded (RTLD_NOLOAD never loads anything).  A profiler
 * another tool attached cannot be: the command that attaches us asks for
 * the notification role itself (common/identity.h). */
#include "agent/core/main_profiler.h"
#include "common/profiler_env.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void main_profiler_self(char *path, size_t cap)
{
    Dl_info info;

    if (dladdr((void *)main_profiler_self, &info) && info.dli_fname)
        snprintf(path, cap, "%s", info.dli_fname);
    else if (cap)
        path[0] = '\0';
}

int main_profiler_foreign(char *path, size_t cap)
{
    char named[PATH_MAX], var[64], self[PATH_MAX];
    struct stat a, b;
    void *handle;

    if (!cp_startup_profiler(NULL, named, sizeof(named), var, sizeof(var)))
        return 0;
    main_profiler_self(self, sizeof(self));
    if (self[0] && stat(self, &a) == 0 && stat(named, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return 0;                           /* the startup profiler is this agent */
    handle = dlopen(named, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        return 0;                           /* named, but not loaded (failed, or cancelled and unloaded) */
    dlclose(handle);
    snprintf(path, cap, "%s", named);
    return 1;
}
