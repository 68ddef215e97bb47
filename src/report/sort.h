/* sort.h - qsort for arrays that may be empty: the C standard wants
 * qsort's array to be a valid pointer even when it has no element, and an
 * empty array here is often NULL (nothing was allocated for it). */
#ifndef CLRPROBE_REPORT_SORT_H
#define CLRPROBE_REPORT_SORT_H

#include <stdlib.h>

static inline void rp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

#endif
