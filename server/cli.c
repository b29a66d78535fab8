/*
 * cli.c - the seam command line.
 */
#include "seam_server.h"

#include <errno.h>
#include <string.h>

#define SRV_MAX_FILE_BYTES (64u << 20)

static const char srv__usage[] =
    "usage: seam [command] [options]\n"
    "\n"
    "seam is a language server that gives fill-in-the-middle code completions\n"
    "which are always syntactically valid where they are inserted.\n"
    "\n"
    "commands:\n"
    "  (none), lsp [--stdio]\n"
    "                   serve the Language Server Protocol on stdin and stdout\n"
    "  lsp --listen HOST:PORT\n"
    "                   serve one TCP client at a time (for debugging)\n"
    "                   options: --config FILE, --log-file FILE, --log-level LEVEL\n"
    "  --version        print the version and the backends built in, and exit\n"
    "  --help           print this help and exit\n"
    "  parse FILE       parse a file with its language's tree-sitter grammar and\n"
    "                   summarise the tree\n"
    "  check [--language NAME] [--source-type module|script] [--python-version V]\n"
    "                   read JSON Lines cases {id, left, middle, right} on stdin and\n"
    "                   write {id, accepted, complete, setup_us, feed_us} for each;\n"
    "                   \"semantic\": true in a case adds the semantic pruners' verdict;\n"
    "                   \"cut\": true reads the statements around the cursor only;\n"
    "                   \"typing\": true binds the right context as far as it is\n"
    "                   written, as a completion does (adds \"binding\");\n"
    "                   \"python_version\": \"3.9\" .. \"3.14\" or \"auto\" (the default:\n"
    "                   the project here, else python3 on PATH) picks the grammar;\n"
    "                   \"language\": a case's language (python, the default,\n"
    "                   javascript, json, typescript, jsx or tsx); \"source_type\":\n"
    "                   \"module\" or \"script\" (the default) is a JavaScript or JSX\n"
    "                   case's goal\n"
    "  complete FILE:LINE:COL [--json] [--SETTING VALUE]...\n"
    "                   print a completion at LINE:COL (1-based, COL in characters),\n"
    "                   valid where it is inserted; --json adds its tokens, timings,\n"
    "                   round trips, rejected candidates and how much of the code\n"
    "                   after the cursor bound it (binding).  Settings: --backend\n"
    "                   embedded|llamacpp|openai|ollama, --endpoint URL, --model NAME,\n"
    "                   --template NAME, --max-tokens N, --multiline true, ...;\n"
    "                   --workspace-trusted true lets the file's folder's .venv run\n"
    "                   (docs/SECURITY.md); --language NAME reads the file in that\n"
    "                   language (else its name or #! line tells; a file in no\n"
    "                   language seam completes is an error); --source-type\n"
    "                   module|script sets a JavaScript file's goal (else Node's\n"
    "                   rules: .mjs, .cjs, package.json's type, module syntax)\n"
    "  model list [--json]\n"
    "                   the known fill-in-the-middle models and the GGUF files in\n"
    "                   the models folder (seam uses the first when no backend is set)\n"
    "  model pull NAME | model pull USER/REPO FILE.gguf [--revision REV] [--no-verify]\n"
    "                   download a GGUF model from Hugging Face (HF_ENDPOINT, HF_TOKEN)\n"
    "                   into the models folder, resumable and checked by SHA-256\n"
    "                   (--no-verify: take it unchecked when the server states none)\n";

int srv_read_file(const char *path, sm_buf *out)
{
    return sm_read_file(path, SRV_MAX_FILE_BYTES, out);
}

static int srv__cmd_parse(const char *path)
{
    sm_buf text;
    int rc = srv_read_file(path, &text);
    if (rc) {
        fprintf(stderr, "seam: cannot read %s: %s\n", path,
                rc == SM_EIO ? strerror(errno) : sm_strerror(rc));
        return 1;
    }
    cfg_config config;
    cfg_init(&config);
    char why[512];
    const lg_language *language = srv_language_of(&config, NULL, path, text.data, text.len, why, sizeof why);
    cfg_free(&config);
    if (!language) {
        fprintf(stderr, "seam: cannot parse %s\n", why);
        sm_buf_free(&text);
        return 1;
    }
    if (!language->tree_sitter) {
        fprintf(stderr, "seam: cannot parse %s: seam has no tree-sitter grammar for %s\n", path, language->title);
        sm_buf_free(&text);
        return 1;
    }
    srv_syntax_summary summary;
    rc = srv_syntax_summarize(language, text.data ? text.data : "", text.len, &summary);
    size_t len = text.len;
    bool deep = rc == SM_ETOOBIG && sm_brackets_deeper_than(text.data, text.len, SM_TREE_SITTER_MAX_DEPTH);
    sm_buf_free(&text);
    if (rc) {
        fprintf(stderr, "seam: cannot parse %s: %s\n", path,
                deep ? "brackets nest deeper than tree-sitter can take (4096)" : sm_strerror(rc));
        return 1;
    }
    printf("%s: %zu bytes, %s with %u top-level nodes, %u nodes in all",
           path, len, summary.root_type, summary.top_level_count, summary.node_count);
    if (summary.has_error)
        printf(", first syntax error at %u:%u\n", summary.error_row + 1, summary.error_column + 1);
    else
        printf(", no syntax errors\n");
    return summary.has_error ? 2 : 0;
}

int srv_main(int argc, char **argv)
{
    if (argc == 1 || strcmp(argv[1], "lsp") == 0 ||
        (strncmp(argv[1], "--", 2) == 0 && strcmp(argv[1], "--version") != 0 && strcmp(argv[1], "--help") != 0))
        return srv_cmd_lsp(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("seam %s\n", SEAM_VERSION);
#ifdef SEAM_HAVE_INPROC
        printf("backends: embedded, llamacpp, openai, ollama, llama (GGUF models in process, libllama)\n");
#else
        printf("backends: embedded, llamacpp, openai, ollama (built without libllama: no llama backend; "
               "scripts/install.sh builds it in)\n");
#endif
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(srv__usage, stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return srv_cmd_check(argc, argv, stdin, stdout);
    if (argc >= 2 && strcmp(argv[1], "complete") == 0)
        return srv_cmd_complete(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "model") == 0)
        return srv_cmd_model(argc, argv);
    if (argc == 3 && strcmp(argv[1], "parse") == 0)
        return srv__cmd_parse(argv[2]);
    fputs(srv__usage, stderr);
    return 64;
}
