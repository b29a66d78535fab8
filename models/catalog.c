/*
 * catalog.c - models known to fill in the middle well in seam.
 *
 * Qwen2.5-Coder was trained on fill-in-the-middle and its GGUF files are
 * the ones llama.cpp's own FIM presets fetch.  Sizes are about; the
 * checksum comes from the server at download time.
 */
#include "seam_models.h"

#include <stdio.h>
#include <strings.h>

static const md_known md__known[] = {
    {"qwen2.5-coder-1.5b", "ggml-org/Qwen2.5-Coder-1.5B-Q8_0-GGUF", "qwen2.5-coder-1.5b-q8_0.gguf",
     1646570000ull, "the default: good completions at CPU speed (Q8_0)"},
    {"qwen2.5-coder-0.5b", "ggml-org/Qwen2.5-Coder-0.5B-Q8_0-GGUF", "qwen2.5-coder-0.5b-q8_0.gguf",
     531000000ull, "the smallest: fast on any machine, weaker completions (Q8_0)"},
    {"qwen2.5-coder-3b", "ggml-org/Qwen2.5-Coder-3B-Q8_0-GGUF", "qwen2.5-coder-3b-q8_0.gguf",
     3290000000ull, "better completions; wants 8 GB of memory or a GPU (Q8_0)"},
    {"qwen2.5-coder-7b", "ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF", "qwen2.5-coder-7b-q8_0.gguf",
     8100000000ull, "the best of these; wants 16 GB of memory or a GPU (Q8_0)"},
};

const md_known *md_known_models(size_t *count)
{
    *count = sizeof md__known / sizeof md__known[0];
    return md__known;
}

const md_known *md_known_find(const char *name)
{
    for (size_t i = 0; i < sizeof md__known / sizeof md__known[0]; i++)
        if (strcasecmp(md__known[i].name, name) == 0)
            return &md__known[i];
    return NULL;
}

void md_format_bytes(uint64_t bytes, char *out, size_t out_size)
{
    if (bytes >= 1000000000ull)
        snprintf(out, out_size, "%.2f GB", (double)bytes / 1e9);
    else if (bytes >= 1000000ull)
        snprintf(out, out_size, "%.0f MB", (double)bytes / 1e6);
    else if (bytes >= 1000ull)
        snprintf(out, out_size, "%.0f kB", (double)bytes / 1e3);
    else
        snprintf(out, out_size, "%llu bytes", (unsigned long long)bytes);
}
