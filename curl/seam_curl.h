/*
 * seam_curl.h - libcurl, linked or loaded when first needed.
 *
 * seam speaks HTTP through libcurl's own API (curl/curl.h).  A normal build
 * links libcurl.  The portable build (meson option `portable`, the binary
 * the VS Code extension carries) does not: libcurl's Debian package pulls
 * some thirty shared libraries, none of them with a static archive, so the
 * portable seam opens libcurl.so.4 (or libcurl-gnutls.so.4, which git
 * installs) the first time HTTP is needed.  Without either, the HTTP
 * backends and `seam model pull` say so, and everything else works.
 */
#ifndef SEAM_CURL_H
#define SEAM_CURL_H

#include <stdbool.h>
#include <stddef.h>

/* True when libcurl can be used.  Otherwise writes why (and what to
 * install) into `why` (`why_size` bytes, always terminated).  Safe from any
 * thread; the library is opened once per process. */
bool cu_available(char *why, size_t why_size);

/* "linked", or the file name of the library that was opened, or
 * "missing" (static). */
const char *cu_source(void);

#endif
