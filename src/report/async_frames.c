/* async_frames.c - async state machines shown as their methods, builders'
 * Start frames folded (async_frames.h). */
#include "report/async_frames.h"

#include <stdio.h>
#include <string.h>

#define RT_CS "System.Runtime.CompilerServices."
#define ASYNC_SUFFIX " [async]"

/* From s (at a '<'), past its matching '>'; NULL if unbalanced before end. */
static const char *skip_angles(const char *s, const char *end)
{
    int depth = 0;
    for (; s < end; s++) {
        if (*s == '<')
            depth++;
        else if (*s == '>' && --depth == 0)
            return s + 1;
    }
    return NULL;
}

/* The last '.' or '+' (c) outside angle brackets in [s, end), or NULL. */
static const char *last_top_level(const char *s, const char *end, char c)
{
    const char *found = NULL;
    int depth = 0;
    for (const char *q = s; q < end; q++) {
        if (*q == '<')
            depth++;
        else if (*q == '>')
            depth--;
        else if (*q == c && depth == 0)
            found = q;
    }
    return found;
}

/* Parses "Outer+<NAME>d__N<ARGS>.MoveNext": the end of Outer, NAME, and
 * ARGS (possibly empty).  Returns 0 if name is not of that form. */
static int parse_state_machine(const char *name, const char **outer_end, const char **m, const char **m_end,
                               const char **args, const char **args_end)
{
    static const char movenext[] = ".MoveNext";
    size_t n = strlen(name), ml = sizeof(movenext) - 1;
    const char *type_end, *plus, *seg, *p;

    if (n <= ml || strcmp(name + n - ml, movenext) != 0)
        return 0;
    type_end = name + n - ml;
    if (last_top_level(name, name + n, '.') != type_end)   /* the method, not a part of a generic argument */
        return 0;
    plus = last_top_level(name, type_end, '+');
    if (!plus || plus == name)
        return 0;
    seg = plus + 1;
    if (*seg != '<' || !(p = skip_angles(seg, type_end)) || p - seg < 3)
        return 0;
    *m = seg + 1;
    *m_end = p - 1;
    if (p >= type_end || *p++ != 'd')
        return 0;
    if (p + 2 <= type_end && p[0] == '_' && p[1] == '_') {      /* "__N": the method's ordinal */
        p += 2;
        if (p >= type_end || *p < '0' || *p > '9')
            return 0;
        while (p < type_end && *p >= '0' && *p <= '9')
            p++;
    }
    *args = *args_end = p;
    if (p < type_end) {                                        /* the generic arguments */
        if (*p != '<' || skip_angles(p, type_end) != type_end)
            return 0;
        *args_end = type_end;
    }
    *outer_end = plus;
    return 1;
}

/* Whether s starts with word and then a character that cannot continue an identifier. */
static const char *after_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(s, word, n) != 0)
        return NULL;
    s += n;
    return (*s == '<' || *s == '.' || *s == '+') ? s : NULL;
}

enum rp_frame_role rp_frame_role(const char *name)
{
    static const char *const builders[] = {
        "AsyncTaskMethodBuilder", "AsyncValueTaskMethodBuilder", "PoolingAsyncValueTaskMethodBuilder",
        "AsyncVoidMethodBuilder", "AsyncMethodBuilderCore", "AsyncIteratorMethodBuilder",
    };
    const char *o, *m, *me, *a, *ae, *end = name + strlen(name);

    if (parse_state_machine(name, &o, &m, &me, &a, &ae))
        return RP_FRAME_STATE_MACHINE;
    if (strncmp(name, "System.Threading.ExecutionContext.Run", 37) == 0)
        return RP_FRAME_ASYNC_RESUME;
    if (strncmp(name, RT_CS, sizeof(RT_CS) - 1) != 0)
        return RP_FRAME_PLAIN;
    name += sizeof(RT_CS) - 1;
    for (size_t i = 0; i < sizeof(builders) / sizeof(builders[0]); i++) {
        const char *p = after_word(name, builders[i]), *dot, *method;
        if (!p)
            continue;
        dot = last_top_level(p, end, '.');
        if (!dot)
            return RP_FRAME_PLAIN;
        method = dot + 1;
        /* a box: AsyncTaskMethodBuilder<T>+AsyncStateMachineBox<SM>, PoolingAsyncValueTaskMethodBuilder<T>+StateMachineBox<SM> */
        {
            const char *plus = last_top_level(p, dot, '+');
            if (plus) {
                const char *box = plus + 1;
                if (!after_word(box, "AsyncStateMachineBox") && !after_word(box, "StateMachineBox") &&
                    !after_word(box, "DebugFinalizableAsyncStateMachineBox"))
                    return RP_FRAME_PLAIN;
                if (strcmp(method, "ExecutionContextCallback") == 0)
                    return RP_FRAME_ASYNC_START;
                if (after_word(method, "MoveNext") || strcmp(method, "MoveNext") == 0 ||
                    strcmp(method, "ExecuteFromThreadPool") == 0)
                    return RP_FRAME_ASYNC_RESUME;
                return RP_FRAME_PLAIN;
            }
        }
        if (strncmp(method, "Start<", 6) == 0 ||
            (strcmp(builders[i], "AsyncIteratorMethodBuilder") == 0 && strncmp(method, "MoveNext<", 9) == 0))
            return RP_FRAME_ASYNC_START;
        return RP_FRAME_PLAIN;
    }
    return RP_FRAME_PLAIN;
}

long rp_async_method_name(const char *name, char *out, size_t len)
{
    const char *o, *m, *me, *a, *ae;
    size_t need;

    if (!parse_state_machine(name, &o, &m, &me, &a, &ae))
        return -1;
    need = (size_t)(o - name) + 1 + (size_t)(me - m) + (size_t)(ae - a) + sizeof(ASYNC_SUFFIX) - 1;
    if (need + 1 > len)
        return -1;
    {
        char *w = out;
        memcpy(w, name, (size_t)(o - name));
        w += o - name;
        *w++ = '.';
        memcpy(w, m, (size_t)(me - m));
        w += me - m;
        memcpy(w, a, (size_t)(ae - a));
        w += ae - a;
        memcpy(w, ASYNC_SUFFIX, sizeof(ASYNC_SUFFIX));
    }
    return (long)need;
}

/* Whether kick is the kick-off method of the async method named async_name ("kick [async]"). */
static int is_kick_off(const char *kick, const char *async_name)
{
    size_t k = strlen(kick), a = strlen(async_name), s = sizeof(ASYNC_SUFFIX) - 1;
    return a == k + s && strncmp(kick, async_name, k) == 0 && strcmp(async_name + k, ASYNC_SUFFIX) == 0;
}

uint32_t rp_async_fold(uint32_t *frames, uint32_t n, const unsigned char *role, const uint32_t *renamed,
                       char *const *names)
{
    uint32_t out = 0, kept_at = UINT32_MAX;    /* the raw position of the last frame kept */
    int prev = RP_FRAME_PLAIN;                 /* the raw caller's role */

    for (uint32_t k = 0; k < n; k++) {
        uint32_t f = frames[k];
        int r = role[f];

        if (r == RP_FRAME_ASYNC_START) {
            prev = r;
            continue;
        }
        if (r == RP_FRAME_STATE_MACHINE && renamed[f] != UINT32_MAX &&
            (prev == RP_FRAME_ASYNC_START || prev == RP_FRAME_ASYNC_RESUME)) {
            f = renamed[f];
            /* Start frames were folded between the kick-off method and here */
            if (prev == RP_FRAME_ASYNC_START && out > 0 && kept_at + 1 < k && is_kick_off(names[frames[out - 1]], names[f]))
                out--;
        }
        prev = r;
        frames[out++] = f;
        kept_at = k;
    }
    return out ? out : n;
}

/* A frame of a task's completion: the builder setting the result, the task
 * running its continuations. */
static int completion_marker(const char *name)
{
    return strstr(name, ".SetResult") || strstr(name, ".TrySetResult") || strstr(name, ".SetException") ||
           strstr(name, ".TrySetException") || strstr(name, ".RunContinuations") ||
           strstr(name, ".FinishContinuations") || strstr(name, "Task.Finish");
}

/* A frame that may lie between a completing method and the continuation
 * its completion runs: the task and builder machinery, execution contexts,
 * the state machine box, the runtime's bracketed frames. */
static int continuation_plumbing(const char *name)
{
    return name[0] == '[' || strncmp(name, RT_CS, sizeof(RT_CS) - 1) == 0 ||
           strncmp(name, "System.Threading.Tasks.", 23) == 0 ||
           strncmp(name, "System.Threading.ExecutionContext.", 34) == 0;
}

static int is_async_frame(const char *name)
{
    size_t n = strlen(name), s = sizeof(ASYNC_SUFFIX) - 1;
    return n > s && strcmp(name + n - s, ASYNC_SUFFIX) == 0;
}

uint32_t rp_async_uninvert(uint32_t *frames, uint32_t n, char *const *names)
{
    uint32_t out = 0;
    long chain = -1;          /* where the chain of completions the current async frame ends began (out) */
    int plumbing_only = 0, marker = 0;

    for (uint32_t k = 0; k < n; k++) {
        const char *name = names[frames[k]];
        if (is_async_frame(name)) {
            if (chain >= 0 && plumbing_only && marker)
                out = (uint32_t)chain;           /* the methods whose completion resumed this one: over */
            else
                chain = out;
            frames[out++] = frames[k];
            plumbing_only = 1;
            marker = 0;
            continue;
        }
        frames[out++] = frames[k];
        if (!plumbing_only)
            continue;
        if (completion_marker(name))
            marker = 1;
        else if (!continuation_plumbing(name)) {
            plumbing_only = 0;
            chain = -1;
        }
    }
    return out;
}

/* The state machine a box frame runs ("...AsyncStateMachineBox<SM>.MoveNext"
 * or ".ExecuteFromThreadPool"), as its method's name into out; 0 if name is
 * no such frame. */
static int box_method(const char *name, char *out, size_t len)
{
    static const char box[] = "AsyncStateMachineBox<";
    const char *b = strstr(name, box), *sm, *end;
    char moved[1024];

    if (!b)
        return 0;
    sm = b + sizeof(box) - 1;
    end = skip_angles(sm - 1, name + strlen(name));
    if (!end || (strcmp(end, ".MoveNext") != 0 && strcmp(end, ".ExecuteFromThreadPool") != 0))
        return 0;
    if ((size_t)(end - 1 - sm) + 10 > sizeof(moved))
        return 0;
    snprintf(moved, sizeof(moved), "%.*s.MoveNext", (int)(end - 1 - sm), sm);
    return rp_async_method_name(moved, out, len) > 0;
}

long rp_async_name_boxes(uint32_t *frames, uint32_t n, const rp_frame_names *fn)
{
    char method[1100], next[1100];

    for (uint32_t k = 0; k < n; k++) {
        uint32_t j;
        long f;
        if (!box_method(fn->name(fn->ctx, frames[k]), method, sizeof(method)))
            continue;
        /* the plumbing after it, up to the program's next frame or the task's completion: a later box,
         * or the machine's own frame, names it already */
        for (j = k + 1; j < n; j++) {
            const char *name = fn->name(fn->ctx, frames[j]);
            if (strcmp(name, method) == 0 || box_method(name, next, sizeof(next)) || completion_marker(name) ||
                !continuation_plumbing(name))
                break;
        }
        if (j < n && (strcmp(fn->name(fn->ctx, frames[j]), method) == 0 ||
                      box_method(fn->name(fn->ctx, frames[j]), next, sizeof(next))))
            continue;
        if ((f = fn->intern(fn->ctx, method)) < 0)
            return -1;
        /* the machine's MoveNext was inlined into the box: the box names it, where the MoveNext would have
         * been (after the plumbing that calls it) */
        memmove(&frames[k], &frames[k + 1], (j - k - 1) * sizeof(*frames));
        frames[j - 1] = (uint32_t)f;
        k = j - 1;
    }
    return n;
}
