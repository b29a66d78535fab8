/* The registry of languages (languages/): which language a document is in. */
#include "seam_languages.h"
#include "test_support.h"

#include <string.h>

Test(languages, by_name_and_language_id)
{
    const lg_language *python = lg_by_name("python");
    cr_assert_not_null(python);
    cr_assert_str_eq(python->name, "python");
    cr_assert_eq(lg_by_language_id("python"), python);
    cr_assert_null(lg_by_name("javascript"));
    cr_assert_null(lg_by_language_id("javascript"));
    cr_assert_null(lg_by_language_id("plaintext"));
    cr_assert_null(lg_by_name(NULL));
    cr_assert_null(lg_by_language_id(NULL));
    size_t count = 0;
    for (const lg_language *const *l = lg_languages(); *l; l++)
        count++;
    cr_assert_eq(count, 1);
    char names[64];
    lg_names(names, sizeof names);
    cr_assert_str_eq(names, "python");
}

Test(languages, by_the_files_name)
{
    const lg_language *python = lg_by_name("python");
    cr_assert_eq(lg_by_file("/src/app.py", NULL, 0), python);
    cr_assert_eq(lg_by_file("stubs/os.pyi", NULL, 0), python);
    cr_assert_eq(lg_by_file("gui.pyw", "", 0), python);
    cr_assert_null(lg_by_file("blog.js", NULL, 0));
    cr_assert_null(lg_by_file("/a.py/Makefile", NULL, 0), "a dot in a folder's name is not the file's");
    cr_assert_null(lg_by_file(".py", NULL, 0), "a hidden file named .py has no ending");
    cr_assert_null(lg_by_file("notes.txt", NULL, 0));
    cr_assert_null(lg_by_file(NULL, NULL, 0));
}

Test(languages, by_the_hashbang_line)
{
    const lg_language *python = lg_by_name("python");
    static const char *const yes[] = {
        "#!/usr/bin/python3\nprint(1)\n", "#!/usr/bin/env python3\n", "#! /usr/bin/env python\n",
        "#!/usr/bin/env -S python3 -u\n", "#!/usr/local/bin/python3.12 -E\n", "#!/opt/pypy3/bin/pypy3",
        "#!/usr/bin/python3\r\nx = 1\r\n",
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        cr_assert_eq(lg_by_file("tool", yes[i], strlen(yes[i])), python, "%s", yes[i]);
    static const char *const no[] = {
        "#!/bin/sh\nexec python3 \"$@\"\n", "#!/usr/bin/env node\n", "# python3\n", "#!\n", "", "#!/usr/bin/env -S\n",
        "#!/usr/bin/pythonista\n",
    };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        cr_assert_null(lg_by_file("tool", no[i], strlen(no[i])), "%s", no[i]);
    /* a #! line tells only for a name with no ending */
    cr_assert_null(lg_by_file("x.js", "#!/usr/bin/python3\n", 19));
    cr_assert_eq(lg_by_file("/home/a.b/tool", "#!/usr/bin/python3\n", 19), python);
}
