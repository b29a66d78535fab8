/*
 * alloc.c - allocation wrappers and the out-of-memory policy (see seam_base.h).
 */
#include "seam_base.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The only mutable global in seam: a countdown used by tests to make the
 * n-th allocation fail.  Negative means off. */
static long sm__fail_countdown = -1;

void sm_alloc_fail_after(long count)
{
    sm__fail_countdown = count;
}

/* Whether the injected failure point has been reached. */
static bool sm__injected_failure(void)
{
    if (sm__fail_countdown < 0)
        return false;
    if (sm__fail_countdown == 0)
        return true;
    sm__fail_countdown--;
    return false;
}

static void sm__out_of_memory(size_t size)
{
    fprintf(stderr, "seam: out of memory allocating %zu bytes\n", size);
    abort();
}

void *sm_try_malloc(size_t size)
{
    if (sm__injected_failure())
        return NULL;
    return malloc(size ? size : 1);
}

void *sm_try_realloc(void *ptr, size_t size)
{
    if (sm__injected_failure())
        return NULL;
    return realloc(ptr, size ? size : 1);
}

void *sm_malloc(size_t size)
{
    void *ptr = sm_try_malloc(size);
    if (!ptr)
        sm__out_of_memory(size);
    return ptr;
}

void *sm_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        sm__out_of_memory(SIZE_MAX);
    void *ptr = sm_malloc(count * size);
    memset(ptr, 0, count * size);
    return ptr;
}

void *sm_realloc(void *ptr, size_t size)
{
    void *grown = sm_try_realloc(ptr, size);
    if (!grown)
        sm__out_of_memory(size);
    return grown;
}

char *sm_strndup(const char *text, size_t len)
{
    char *copy = sm_malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    return copy;
}

char *sm_strdup(const char *text)
{
    return sm_strndup(text, strlen(text));
}

void sm_free(void *ptr)
{
    free(ptr);
}

void sm__array_reserve(void **items, uint32_t *capacity, size_t elem_size, uint64_t need)
{
    if (need <= *capacity)
        return;
    if (need > UINT32_MAX)
        sm__out_of_memory((size_t)need * elem_size);
    uint64_t grown = *capacity ? (uint64_t)*capacity * 2 : 8;
    while (grown < need)
        grown *= 2;
    if (grown > UINT32_MAX)
        grown = UINT32_MAX;
    *items = sm_realloc(*items, (size_t)grown * elem_size);
    *capacity = (uint32_t)grown;
}

const char *sm_strerror(int code)
{
    switch (code) {
    case SM_OK: return "success";
    case SM_ENOMEM: return "out of memory";
    case SM_ETOOBIG: return "too large";
    case SM_EINVAL: return "invalid input";
    case SM_EUTF8: return "invalid UTF-8";
    case SM_EIO: return "input/output error";
    case SM_ERANGE: return "position out of range";
    case SM_ENOTFOUND: return "not found";
    case SM_ECANCELED: return "canceled";
    case SM_ETIMEDOUT: return "timed out";
    default: return "unknown error";
    }
}

void sm_advise_filled(void *ptr, size_t size)
{
    const uintptr_t page = 4096, huge = (uintptr_t)2 << 20;
    if (!ptr || size < huge)
        return;
    uintptr_t start = ((uintptr_t)ptr + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)ptr + size) & ~(page - 1);
    if (end > start)
        madvise((void *)start, end - start, MADV_HUGEPAGE);
}
