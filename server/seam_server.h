/*
 * seam_server.h - the seam program: its commands and, later, the daemon.
 */
#ifndef SEAM_SERVER_H
#define SEAM_SERVER_H

#include "seam_base.h"

/* What a tree-sitter parse of a Python text found. */
typedef struct srv_syntax_summary {
    char root_type[32];        /* the root node's type, "module" for Python */
    uint32_t node_count;       /* named and anonymous nodes */
    uint32_t top_level_count;  /* named children of the root */
    bool has_error;            /* an ERROR or MISSING node exists */
    uint32_t error_row;        /* zero-based row of the first error, if any */
    uint32_t error_column;     /* its byte column */
} srv_syntax_summary;

/* Parses text[0..len) with tree-sitter-python and summarises the tree.
 * Returns SM_OK, SM_EINVAL if the parser cannot be set up, or SM_ENOMEM. */
int srv_syntax_summarize(const char *text, size_t len, srv_syntax_summary *summary);

/* `seam check`: reads JSON Lines cases from `in` and writes one result line
 * per case to `out` (see check.c).  Returns the exit status. */
int srv_cmd_check(FILE *in, FILE *out);

/* Runs the seam command line (argv as main receives it) and returns the
 * process's exit status. */
int srv_main(int argc, char **argv);

#endif
