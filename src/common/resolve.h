/* resolve.h - resolving a path link by link, as the kernel does, with the
 * fs.protected_symlinks rule, and a stricter one of ours for links of other
 * users and in their directories, applied to every link met on the way: the
 * links of the path as given, and the links inside each link's target
 * (a link of ours that leads to another user's link in /tmp counts as
 * much as that link named directly).  The walk holds a descriptor of each
 * directory it enters (O_PATH, never following a link to open one), and
 * hands the last one to the caller: what it then creates, renames or
 * opens is relative to that descriptor, so a link swapped into the path
 * after the check is not followed.  docs/files.md describes the rule. */
#ifndef CLRPROBE_COMMON_RESOLVE_H
#define CLRPROBE_COMMON_RESOLVE_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

#define CP_LINK_HOPS_MAX 40          /* links followed in one resolution: the kernel's MAXSYMLINKS */

/* Where a path leads, its links resolved. */
typedef struct cp_resolved {
    int dirfd;                       /* O_PATH descriptor of the directory holding name; -1 when closed */
    char name[NAME_MAX + 1];         /* the last name in it, never a link ("." when the path is a directory
                                      * named by its own path, /tmp/ or /tmp/..) */
    char path[PATH_MAX];             /* absolute and free of links: the directory's path, '/', name */
    int exists;                      /* something is at name: st is what (never a link) */
    int dangling;                    /* nothing is at name, and name came from a link: a link to nothing */
    int links;                       /* links followed */
    struct stat st;
} cp_resolved;

/* Resolves path (absolute).  The rule for each link that is not ours (the
 * effective uid's): following it is refused when it lies in a sticky,
 * world-writable directory (/tmp) and does not belong to the directory's
 * owner - the link someone else planted where we write (the kernel's
 * protected_symlinks rule); when it belongs to another user (neither us nor
 * root), who may point it anywhere; and when it lies in a directory that
 * belongs to another user, who may have put it there.  So only our own
 * links and root's links in directories of ours or root's are followed.
 * Returns 0 with r filled (r->dirfd open: cp_resolved_close it), -1 when a
 * link must not be followed (why says which, whose and where, and what to
 * do), -2 when the path cannot be resolved (errno: ELOOP past
 * CP_LINK_HOPS_MAX links, ENOENT or ENOTDIR on the way, ENAMETOOLONG, ...).
 * On failure nothing is left open. */
int cp_resolve(const char *path, cp_resolved *r, char *why, size_t whylen);

/* Closes r->dirfd (if open). */
void cp_resolved_close(cp_resolved *r);

#endif
