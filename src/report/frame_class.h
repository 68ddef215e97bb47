/* frame_class.h - what kind of code a profile's frame is, from its name
 * alone (the agent names native frames "OBJECT!symbol" or "OBJECT+0xSTART",
 * its fixed frames "[...]", managed ones "Namespace.Type.Method"): the
 * program's, the runtime's dispatch (thread start, the thread pool's and
 * timers' loops, execution contexts, task and continuation runners), a
 * thread's native start, or native code of an object.  The text report's
 * "by total" tables leave a sample's process roots out with it
 * (rp_frame_root_prefix). */
#ifndef CLRPROBE_REPORT_FRAME_CLASS_H
#define CLRPROBE_REPORT_FRAME_CLASS_H

#include <stddef.h>
#include <stdint.h>

enum rp_code_class {
    RP_CODE_PROGRAM,        /* a managed method the runtime does not use to dispatch */
    RP_CODE_DISPATCH,       /* a managed method of the runtime's dispatch (thread start, thread-pool loop, ...) */
    RP_CODE_NATIVE,         /* native code: "OBJECT!symbol", "OBJECT+0xSTART", "[native code]" */
    RP_CODE_THREAD_START,   /* native code every thread or the process starts in (libc, the host) */
    RP_CODE_SPECIAL,        /* one of the agent's or report's bracketed frames: "[stub: ...]", "[unknown code]" */
};

enum rp_code_class rp_frame_classify(const char *name);

/* The native object a native frame's name names ("libcoreclr.so" of
 * "libcoreclr.so+0x4b0210"), into buf; 0 (buf "") if the name is not of
 * that form. */
int rp_frame_object(const char *name, char *buf, size_t len);

/* How many of a stack's frames (root first, classes given per frame) are
 * the process's roots: from the root, native frames under the first managed
 * frame, the runtime's dispatch methods and threads' native starts, up to
 * the program's first frame; never the stack's last managed frame nor a
 * native frame above every managed one. */
uint32_t rp_frame_root_prefix(const uint8_t *classes, uint32_t n);

#endif
