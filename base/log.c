/*
 * log.c - the levelled logger.  Writes to stderr and an optional file, never
 * to stdout.
 */
#include "seam_base.h"

#include <string.h>
#include <time.h>

static const char *const sm__level_names[] = {"error", "warn", "info", "debug", "trace"};

void sm_logger_init(sm_logger *log, sm_log_level level)
{
    log->level = level;
    log->file = NULL;
    log->to_stderr = true;
}

int sm_logger_open_file(sm_logger *log, const char *path)
{
    FILE *file = fopen(path, "a");
    if (!file)
        return SM_EIO;
    if (log->file)
        fclose(log->file);
    log->file = file;
    return SM_OK;
}

void sm_logger_close(sm_logger *log)
{
    if (log->file)
        fclose(log->file);
    log->file = NULL;
}

int sm_log_level_parse(const char *name, sm_log_level *level)
{
    for (int i = 0; i <= SM_LOG_TRACE; i++) {
        if (strcmp(name, sm__level_names[i]) == 0) {
            *level = (sm_log_level)i;
            return SM_OK;
        }
    }
    return SM_EINVAL;
}

const char *sm_log_level_name(sm_log_level level)
{
    if ((int)level < 0 || level > SM_LOG_TRACE)
        return "?";
    return sm__level_names[level];
}

void sm_logv(sm_logger *log, sm_log_level level, const char *fmt, va_list args)
{
    if (!log || level > log->level)
        return;
    char line[2048];
    vsnprintf(line, sizeof line, fmt, args);
    if (log->to_stderr)
        fprintf(stderr, "seam %s: %s\n", sm__level_names[level], line);
    if (log->file) {
        fprintf(log->file, "%llu seam %s: %s\n",
                (unsigned long long)(sm_now_ns() / 1000000), sm__level_names[level], line);
        fflush(log->file);
    }
}

void sm_log(sm_logger *log, sm_log_level level, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    sm_logv(log, level, fmt, args);
    va_end(args);
}

uint64_t sm_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
