/*
 * loaded.c - libcurl opened at run time (the portable build).
 *
 * Each libcurl function seam calls is defined here with libcurl's own
 * signature and forwards to the function of that name in the library
 * opened by cu__open.  Without the library, each fails the way libcurl
 * reports failure (NULL handle, CURLE_FAILED_INIT), and cu_available says
 * why.  The table is the process's one view of one shared library: filled
 * once under pthread_once, read-only after.
 */
#define CURL_DISABLE_TYPECHECK 1
#include "seam_curl.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sonames tried in order: OpenSSL's build, then GnuTLS's (the one git
 * and apt's https transport install). */
static const char *const cu__sonames[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};

typedef void (*cu__fn)(void);

static struct {
    pthread_once_t once;
    void *lib;
    const char *soname;
    char error[256];
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL *);
    void (*easy_reset)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_assign)(CURLM *, curl_socket_t, void *);
    CURLMcode (*multi_socket_action)(CURLM *, curl_socket_t, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} cu__lib = {.once = PTHREAD_ONCE_INIT};

static bool cu__bind(void *lib)
{
#define CU_BIND(field, name)                                            \
    do {                                                                \
        *(void **)&cu__lib.field = dlsym(lib, name);                    \
        if (!cu__lib.field) {                                           \
            snprintf(cu__lib.error, sizeof cu__lib.error,               \
                     "%s has no %s (too old a libcurl)", cu__lib.soname, name); \
            return false;                                               \
        }                                                               \
    } while (0)
    CU_BIND(global_init, "curl_global_init");
    CU_BIND(easy_init, "curl_easy_init");
    CU_BIND(easy_cleanup, "curl_easy_cleanup");
    CU_BIND(easy_setopt, "curl_easy_setopt");
    CU_BIND(easy_getinfo, "curl_easy_getinfo");
    CU_BIND(easy_perform, "curl_easy_perform");
    CU_BIND(easy_reset, "curl_easy_reset");
    CU_BIND(easy_strerror, "curl_easy_strerror");
    CU_BIND(multi_init, "curl_multi_init");
    CU_BIND(multi_cleanup, "curl_multi_cleanup");
    CU_BIND(multi_add_handle, "curl_multi_add_handle");
    CU_BIND(multi_remove_handle, "curl_multi_remove_handle");
    CU_BIND(multi_setopt, "curl_multi_setopt");
    CU_BIND(multi_assign, "curl_multi_assign");
    CU_BIND(multi_socket_action, "curl_multi_socket_action");
    CU_BIND(multi_info_read, "curl_multi_info_read");
    CU_BIND(slist_append, "curl_slist_append");
    CU_BIND(slist_free_all, "curl_slist_free_all");
#undef CU_BIND
    return true;
}

static void cu__open(void)
{
    /* SEAM_LIBCURL names the library to open instead (a path or a
     * soname); the tests use it to run without libcurl. */
    const char *chosen = getenv("SEAM_LIBCURL");
    size_t count = sizeof cu__sonames / sizeof cu__sonames[0];
    for (size_t i = 0; i < (chosen && *chosen ? 1 : count); i++) {
        const char *name = chosen && *chosen ? chosen : cu__sonames[i];
        void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            continue;
        cu__lib.soname = name;
        if (!cu__bind(lib)) {
            dlclose(lib);
            cu__lib.soname = NULL;
            return;
        }
        cu__lib.lib = lib;
        return;
    }
    snprintf(cu__lib.error, sizeof cu__lib.error,
             "libcurl is not installed (seam looks for %s): on Debian or Ubuntu, apt install libcurl4",
             chosen && *chosen ? chosen : "libcurl.so.4 or libcurl-gnutls.so.4");
}

static bool cu__ready(void)
{
    pthread_once(&cu__lib.once, cu__open);
    return cu__lib.lib != NULL;
}

bool cu_available(char *why, size_t why_size)
{
    if (cu__ready())
        return true;
    if (why && why_size)
        snprintf(why, why_size, "%s", cu__lib.error);
    return false;
}

const char *cu_source(void)
{
    return cu__ready() ? cu__lib.soname : "missing";
}

/* ---- libcurl's API, forwarded ------------------------------------------ */

CURLcode curl_global_init(long flags)
{
    return cu__ready() ? cu__lib.global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
    return cu__ready() ? cu__lib.easy_init() : NULL;
}

void curl_easy_cleanup(CURL *curl)
{
    if (curl && cu__ready())
        cu__lib.easy_cleanup(curl);
}

/* An option's number says the type of its argument (curl.h's CURLOPTTYPE_*
 * bases): long below 10000, a pointer below 20000, a function below 30000,
 * curl_off_t below 40000, a blob pointer above.  Easy and multi options
 * share the bases. */
#define CU__FORWARD_OPTION(fn, handle, option, ap)                                      \
    ((option) < CURLOPTTYPE_OBJECTPOINT     ? fn(handle, option, va_arg(ap, long))       \
     : (option) < CURLOPTTYPE_FUNCTIONPOINT ? fn(handle, option, va_arg(ap, void *))     \
     : (option) < CURLOPTTYPE_OFF_T         ? fn(handle, option, va_arg(ap, cu__fn))     \
     : (option) < CURLOPTTYPE_BLOB          ? fn(handle, option, va_arg(ap, curl_off_t)) \
                                            : fn(handle, option, va_arg(ap, void *)))

CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
    if (!cu__ready())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, option);
    CURLcode rc = CU__FORWARD_OPTION(cu__lib.easy_setopt, curl, option, ap);
    va_end(ap);
    return rc;
}

/* Every piece of information is written through a pointer. */
CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
    if (!cu__ready())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    CURLcode rc = cu__lib.easy_getinfo(curl, info, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

CURLcode curl_easy_perform(CURL *curl)
{
    return cu__ready() ? cu__lib.easy_perform(curl) : CURLE_FAILED_INIT;
}

void curl_easy_reset(CURL *curl)
{
    if (curl && cu__ready())
        cu__lib.easy_reset(curl);
}

const char *curl_easy_strerror(CURLcode code)
{
    return cu__ready() ? cu__lib.easy_strerror(code) : cu__lib.error;
}

CURLM *curl_multi_init(void)
{
    return cu__ready() ? cu__lib.multi_init() : NULL;
}

CURLMcode curl_multi_cleanup(CURLM *multi)
{
    return cu__ready() ? cu__lib.multi_cleanup(multi) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_add_handle(CURLM *multi, CURL *curl)
{
    return cu__ready() ? cu__lib.multi_add_handle(multi, curl) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *curl)
{
    return cu__ready() ? cu__lib.multi_remove_handle(multi, curl) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_setopt(CURLM *multi, CURLMoption option, ...)
{
    if (!cu__ready())
        return CURLM_BAD_HANDLE;
    va_list ap;
    va_start(ap, option);
    CURLMcode rc = CU__FORWARD_OPTION(cu__lib.multi_setopt, multi, option, ap);
    va_end(ap);
    return rc;
}

CURLMcode curl_multi_assign(CURLM *multi, curl_socket_t socket, void *data)
{
    return cu__ready() ? cu__lib.multi_assign(multi, socket, data) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_socket_action(CURLM *multi, curl_socket_t socket, int mask, int *running)
{
    return cu__ready() ? cu__lib.multi_socket_action(multi, socket, mask, running) : CURLM_BAD_HANDLE;
}

CURLMsg *curl_multi_info_read(CURLM *multi, int *left)
{
    return cu__ready() ? cu__lib.multi_info_read(multi, left) : NULL;
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text)
{
    return cu__ready() ? cu__lib.slist_append(list, text) : NULL;
}

void curl_slist_free_all(struct curl_slist *list)
{
    if (list && cu__ready())
        cu__lib.slist_free_all(list);
}
