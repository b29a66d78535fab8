#include "seam_server.h"
#include "test_support.h"

#include <string.h>

SEAM_SUITE(server);

Test(server, tree_sitter_parses_valid_python)
{
    const char *source = "import os\n\ndef f(x):\n    return x + 1\n\nclass A:\n    pass\n";
    srv_syntax_summary summary;
    cr_assert_eq(srv_syntax_summarize(source, strlen(source), &summary), SM_OK);
    cr_assert_str_eq(summary.root_type, "module");
    cr_assert_eq(summary.top_level_count, 3);
    cr_assert_not(summary.has_error);
    cr_assert_gt(summary.node_count, 10);
}

Test(server, tree_sitter_locates_a_syntax_error)
{
    const char *source = "x = 1\ndef f(:\n    pass\n";
    srv_syntax_summary summary;
    cr_assert_eq(srv_syntax_summarize(source, strlen(source), &summary), SM_OK);
    cr_assert(summary.has_error);
    cr_assert_eq(summary.error_row, 1);
}
