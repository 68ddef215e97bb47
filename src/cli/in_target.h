/* in_target.h - what an attach makes where the target can reach it, in a
 * container's namespaces when the target is in one (in_target.c).  pid 0:
 * the target shares our namespaces, and these are the plain ones. */
#ifndef CLRPROBE_CLI_IN_TARGET_H
#define CLRPROBE_CLI_IN_TARGET_H

#include <stddef.h>

/* cli_listen_private / cli_unlisten_private, in process pid's namespaces:
 * the paths are the container's, the descriptors work from here. */
int target_listen_private(int pid, const char *kind, const char *name, int backlog, int *dirfd, char *dir,
                          size_t dirlen, char *path, size_t pathlen, char *err, size_t errlen);
void target_unlisten_private(int pid, int *fd, int *dirfd, char *dir, char *path);

/* The agent as the target can open it: agent itself (pid 0), or a copy in
 * a private directory of the container's /tmp, removed by
 * target_remove_agent (the loaded library needs no file). */
typedef struct target_agent {
    int pid;                 /* the container's process, 0: nothing placed */
    int dirfd;               /* the directory made there */
    char dir[64];
    char path[4096];         /* what the target opens */
} target_agent;

int target_place_agent(int pid, const char *agent, target_agent *out, char *err, size_t errlen);
void target_remove_agent(target_agent *a);

#endif
