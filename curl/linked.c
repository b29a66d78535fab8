/*
 * linked.c - libcurl linked at build time: always there.
 */
#include "seam_curl.h"

bool cu_available(char *why, size_t why_size)
{
    (void)why;
    (void)why_size;
    return true;
}

const char *cu_source(void)
{
    return "linked";
}
