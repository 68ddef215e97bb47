/* writer.h - the agent side of the trace file: an append-only writer with
 * one buffer per thread, so that threads recording events do not contend on
 * a shared lock.  A buffer becomes one checksummed chunk when it fills up,
 * when the flusher calls trace_writer_flush() (every 250 ms), and
 * when the trace is closed.  If a write fails (disk full, file gone) the
 * writer stops recording for good; the program is never affected. */
#ifndef CLRPROBE_TRACE_WRITER_H
#define CLRPROBE_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_writer trace_writer;
typedef struct trace_buffer trace_buffer;

typedef struct trace_header_info {
    uint32_t pid;
    uint32_t flags;                /* TRACE_FLAG_* */
    uint64_t start_realtime_ns;
    uint64_t start_monotonic_ns;
    const char *runtime_version;
    const char *command_line;
} trace_header_info;

/* Writes the header to fd (an empty regular file, opened for writing as
 * common/files.h says; the writer owns it from now on, and closes it even
 * on failure) and starts the trace.  name is for messages.  Returns 0, or
 * -1 with a one-line reason in err.  The writer never creates or removes a
 * path: that is its caller's business. */
int trace_writer_open(trace_writer **out, int fd, const char *name, const trace_header_info *hdr,
                      char *err, size_t errlen);

/* A buffer for the calling thread (recycled from exited threads when
 * possible).  NULL when out of memory. */
trace_buffer *trace_writer_buffer_get(trace_writer *w);

/* The thread that owned b is gone: flush b and keep it for reuse. */
void trace_writer_buffer_put(trace_writer *w, trace_buffer *b);

/* Reserves room for one record of at most TRACE_MAX_RECORD bytes and locks
 * the buffer; NULL (and nothing locked) once the writer has stopped.  Encode
 * with the kind's encoder (rec_KIND_put, trace/records.h), then call
 * trace_buffer_end(). */
uint8_t *trace_buffer_begin(trace_buffer *b);
void trace_buffer_end(trace_buffer *b, size_t record_len);

/* Writes a record made elsewhere (used for notes and by tests). */
void trace_buffer_append(trace_buffer *b, const uint8_t *record, size_t len);

/* Turns every non-empty buffer into a chunk. */
void trace_writer_flush(trace_writer *w);

/* Writes one finished record as a chunk of its own (outside thread buffers). */
void trace_writer_append_record(trace_writer *w, const uint8_t *record, size_t len);

/* Records a TK_NOTE from the calling thread context (own small buffer). */
void trace_writer_note(trace_writer *w, uint32_t tid, uint64_t t, const char *text);

/* Nonzero once a write has failed and recording stopped. */
int trace_writer_stopped(const trace_writer *w);

/* Flushes everything, appends TK_TRACE_END and closes the file.  Buffers
 * stay allocated (threads may still hold them); further records are
 * dropped.  Returns 0, or -1 if the trace could not be completed. */
int trace_writer_close(trace_writer *w, uint32_t tid, uint64_t t);

/* Frees the writer and all buffers.  Only when no thread can use them. */
void trace_writer_free(trace_writer *w);

/* Test hook: the chunk payload capacity of each buffer. */
size_t trace_writer_buffer_capacity(void);

#endif
