/* deny_perf.c - runs a command with perf_event_open refused, as a
 * container's default seccomp profile refuses it: `deny_perf ERRNO COMMAND
 * [ARG...]` installs a seccomp filter (no_new_privs first, so no privilege
 * is needed) that fails the call with ERRNO (EPERM, EACCES, ENOSYS: a
 * number or one of those names) and lets every other call through, then
 * executes COMMAND.  The filter is inherited by the command and its
 * threads: the tests run a .NET program under it to see which sampler the
 * agent chooses.
 *
 * `deny_perf --refresh ERRNO|KILL COMMAND [ARG...]` refuses instead only
 * the event limits, ioctl(PERF_EVENT_IOC_REFRESH), which hang Linux 6.16
 * and 6.17: with KILL the process ends by SIGSYS at the first use, so a
 * test sees that the agent never uses them. */
#include <errno.h>
#include <linux/perf_event.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#else
#error "deny_perf: name this machine's AUDIT_ARCH"
#endif

static int errno_of(const char *s)
{
    if (strcmp(s, "EPERM") == 0)
        return EPERM;
    if (strcmp(s, "EACCES") == 0)
        return EACCES;
    if (strcmp(s, "ENOSYS") == 0)
        return ENOSYS;
    if (strcmp(s, "KILL") == 0)
        return -1;
    return atoi(s);
}

int main(int argc, char **argv)
{
    int refresh = argc > 1 && strcmp(argv[1], "--refresh") == 0, err;

    argv += refresh;
    argc -= refresh;
    if (argc < 3 || (err = errno_of(argv[1])) == 0 || err > 4095 || (err < 0 && !refresh)) {
        fprintf(stderr, "usage: deny_perf EPERM|EACCES|ENOSYS|ERRNO COMMAND [ARG...]\n"
                        "       deny_perf --refresh EPERM|EACCES|ENOSYS|ERRNO|KILL COMMAND [ARG...]\n");
        return 2;
    }
    unsigned deny = err < 0 ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | (unsigned)err;
    struct sock_filter limits[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),   /* (its low half) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PERF_EVENT_IOC_REFRESH, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, deny),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog limits_prog = { .len = sizeof(limits) / sizeof(limits[0]), .filter = limits };
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),        /* (another ABI: not filtered) */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, refresh ? &limits_prog : &prog) != 0) {
        perror("deny_perf: seccomp");
        return 2;
    }
    execvp(argv[2], argv + 2);
    perror("deny_perf: exec");
    return 127;
}
