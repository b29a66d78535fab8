/*
 * fuzz_check.c - libFuzzer target for `seam check`: the input is what it
 * reads on stdin (JSON Lines cases).  Whatever the bytes: no crash, no
 * leak, and one line of JSON out for each line in.
 */
#include "seam_server.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *in = fmemopen((void *)data, size, "r");
    char *written = NULL;
    size_t written_len = 0;
    FILE *out = open_memstream(&written, &written_len);
    if (!in || !out)
        abort();
    static srv_grammars grammars = {.version = 311}; /* each compiled once for the process */
    static struct sx_env *env;  /* the stdlib's modules, read once */
    srv_check_cases(&grammars, &env, in, out);
    fclose(in);
    fclose(out);
    /* every line written is a JSON object */
    for (char *line = written, *end; line && *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            abort();
        cJSON *json = cJSON_ParseWithLength(line, (size_t)(end - line));
        if (!cJSON_IsObject(json))
            abort();
        cJSON_Delete(json);
    }
    free(written);
    return 0;
}
