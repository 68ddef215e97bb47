/* output.h - where a command's output goes (`-o`), written so that nothing
 * we did not create is ever destroyed and nothing half-written ever takes a
 * file's place:
 *
 *   -o -, /dev/stdout     standard output (also /dev/stderr, /dev/fd/N): the
 *                         descriptor itself
 *   a device, FIFO, ...   written in place (a FIFO must already have a
 *                         reader: opening never blocks)
 *   a new path            written to a temporary file beside it, moved
 *                         into place when complete (never over a file that
 *                         appeared meanwhile)
 *   an existing file      the same, replacing it only when complete, and
 *                         never when it is the input
 *
 * Every file is created by common/files.h: exclusive, 0600, no links
 * followed except where the kernel's protected_symlinks rule would (every
 * link on the way checked by common/resolve.h, once: what follows is done
 * relative to the target's directory descriptor, never by path again).  A
 * "staged" output is one that another party (the agent) fills: it always
 * gets a regular temporary file, which for a device or standard output is
 * made in $TMPDIR and copied over at the end.  docs/files.md describes the
 * rules for users. */
#ifndef CLRPROBE_CLI_OUTPUT_H
#define CLRPROBE_CLI_OUTPUT_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

typedef enum cli_output_kind {
    CLI_OUT_STDOUT,            /* -o - */
    CLI_OUT_IN_PLACE,          /* not a regular file: written where it is */
    CLI_OUT_NEW,               /* nothing there yet */
    CLI_OUT_REPLACE,           /* an existing regular file */
} cli_output_kind;

#define CLI_OUT_STAGED     0x1u   /* the content goes to a regular file that someone else writes */
#define CLI_OUT_NO_REPLACE 0x2u   /* a default name: an existing file is never replaced */

#define CLI_OUT_EXISTS 1          /* cli_output_open: CLI_OUT_NO_REPLACE and the name is taken */
#define CLI_OUT_INTERRUPTED (-2)  /* cli_output_commit: the copy into the target was interrupted */

typedef struct cli_output {
    const char *what;             /* "report", "trace file": for messages */
    unsigned flags;
    cli_output_kind kind;
    char name[PATH_MAX];          /* as given, for messages */
    char target[PATH_MAX];        /* absolute, links resolved: for messages */
    int dirfd;                    /* the target's directory (O_PATH), found once by common/resolve.h: the
                                   * target and a temporary file beside it are reached through it only */
    char target_name[NAME_MAX + 1];   /* the target's name in dirfd */
    char temp[PATH_MAX];          /* our temporary file, "" if none */
    char temp_name[NAME_MAX + 1]; /* its name in dirfd when it is beside the target, else "" */
    int fd;                       /* where the content is written (the temp, or the target) */
    int target_fd;                /* staged in-place/stdout outputs: the target, filled at commit */
    int interrupt_fd;             /* readable when the user interrupts (cli_output_watch), or -1 */
    FILE *stream;                 /* cli_output_stream() */
} cli_output;

/* Prepares output name.  inputs (ninputs of them, may be none) are the
 * files the command reads: an output that is one of them (the same file,
 * also through a link) is refused.  Returns 0, CLI_OUT_EXISTS (no
 * message), or -1 after printing why the output cannot be written. */
int cli_output_open(cli_output *o, const char *name, const char *what, const char *const *inputs, size_t ninputs,
                    unsigned flags);

/* The trace output of `run` and `attach` (staged: the agent fills it): name,
 * or when name is NULL the first free default name
 * clrprobe-LABEL-YYYYMMDD-HHMMSS[-N].clrp in the working directory.
 * Returns 0, or -1 after a message. */
int cli_output_open_trace(cli_output *o, const char *name, const char *label);

/* A stdio stream on the output (not for staged outputs); NULL after a
 * message if it cannot be made. */
FILE *cli_output_stream(cli_output *o);

/* Size of what was written to a staged output so far, or -1. */
off_t cli_output_size(const cli_output *o);

/* The path a staged output's writer opens: the temporary file. */
const char *cli_output_staging_path(const cli_output *o);

/* Has cli_output_commit's copy into a device, FIFO or standard output
 * watch fd (a signalfd, the read end of a self-pipe): once it is readable,
 * the copy stops.  fd is not read: the caller takes the interruption off. */
/* An output that is not open yet: no descriptors (all -1), so that
 * cli_output_discard of it closes nothing.  cli_output_open does it
 * first; a struct kept before opening (attach_session.h) uses it too. */
void cli_output_init(cli_output *o, const char *name, const char *what, unsigned flags);
void cli_output_watch(cli_output *o, int fd);

/* Puts the complete content in place: moves the temporary file over the
 * target, or copies it into a device, pipe or standard output.  The copy
 * never blocks: a FIFO whose reader stopped reading makes it wait in
 * poll(), which the descriptor of cli_output_watch ends.  Returns 0; -1
 * after a message (a temporary file that holds the content and could not
 * be moved is kept, and the message says where); or CLI_OUT_INTERRUPTED
 * after a message, the temporary file removed. */
int cli_output_commit(cli_output *o);

/* Until the commit, a discard or a keep: SIGHUP, SIGINT, SIGTERM and
 * SIGPIPE (unless ignored) remove o's temporary file before they end the
 * process as they would have, so that an interrupted report leaves no
 * partial file behind.  (For a command with no interruption handling of
 * its own, like report; one output at a time.) */
void cli_output_remove_on_signal(cli_output *o);

/* Gives up: removes our temporary file, never the target. */
void cli_output_discard(cli_output *o);

/* Leaves the temporary file where it is (a message has named it), closing
 * what is open.  Nothing to do after a commit or a discard. */
void cli_output_keep(cli_output *o);

/* The path of the directory dirfd now (it may have been moved since it was
 * resolved), from /proc/self/fd, into out.  0, or -1 when it cannot be
 * said (no /proc, or the directory was removed). */
int cli_output_dir_now(int dirfd, char *out, size_t cap);

/* The name to show for the output once committed (where the file is now:
 * its directory's path as it is at the commit). */
const char *cli_output_display(const cli_output *o);

#endif
