/* JSX (javascript.grammar's "+jsx" dialects, the "jsx" row) and TSX
 * (typescript.grammar's "tsx" dialect) on seam's recognizer: what acorn-jsx
 * and TypeScript 6.0.3's parser read and refuse, the issue's examples among
 * them, and the mechanics JSX rests on: lexemes taken only where the
 * parser expects them ("%goal all"), the next best lexeme where the best
 * one is left out (the automaton's choices), and closing tags matched with
 * their opening tags (%tags). */
#include "ep_grammar.h"
#include "ep_lexdfa.h"
#include "seam_languages.h"
#include "seam_parser.h"
#include "test_support.h"
#include "test_grammars.h"

#include <string.h>

static ep_grammar *grammar_of(const char *language, int version)
{
    ep_grammar *g = NULL;
    char error[256];
    cr_assert_eq(ep_grammar_of(lg_by_name(language), version, &g, error, sizeof error), SM_OK, "%s", error);
    return g;
}

/* Each valid text is taken at every byte and complete; each invalid one is
 * refused at its marked byte ('|' before it, removed from the text). */
static void judge(const ep_grammar *g, const char *const *valid, size_t nv, const char *const *invalid, size_t ni)
{
    for (size_t i = 0; i < nv; i++)
        cr_assert(test_program(g, valid[i]), "%s", valid[i]);
    for (size_t i = 0; i < ni; i++) {
        const char *bar = strchr(invalid[i], '|');
        cr_assert_not_null(bar, "%s", invalid[i]);
        char text[512];
        size_t at = (size_t)(bar - invalid[i]);
        snprintf(text, sizeof text, "%.*s%s", (int)at, invalid[i], bar + 1);
        bool complete;
        cr_assert_eq(test_accepted(g, text, &complete), at, "%s", invalid[i]);
    }
}
#define JUDGE(g, valid, invalid) judge(g, valid, sizeof valid / sizeof *valid, invalid, sizeof invalid / sizeof *invalid)

Test(jsx, elements_text_and_attributes)
{
    ep_grammar *g = grammar_of("jsx", 2);
    static const char *const valid[] = {
        "const x = <div className=\"a\">hello {name} world</div>;",
        "const x = <a.b-c x-y='1' z={1} {...p}><><br/></>text // not a comment\n</a.b-c>;",
        "x = <div>=x</div> >= 1; if (a < b && c > d) f();",
        "x = <div>`${x}`</div>;",
        "x = <div>/* <b/> */</div>;",
        "x = <class for={1} if>{/* empty */}</class>;",
        "x = <a:b c:d=\"line\nbreak\"></a:b>;",
        "render(<A b={<C />} d=<></>>&amp; {x, y}</A>);",
        "const C = () => <>\n  <p>one</p>\n  <p>two</p>\n</>;\nexport default C;",
        "<a/>;",
    };
    static const char *const invalid[] = {
        "x = <div>a |> b</div>;",
        "x = <div>a |} b</div>;",
        "x = <a><b></a|></b>;",
        "x = <div>hello</span|>;",
        "x = <a b={|}/>;",
        "x = <a>{.|..b}</a>;",
        "x = <a.b|:c />;",
    };
    JUDGE(g, valid, invalid);
    ep_grammar_free(g);
}

Test(jsx, javascript_reads_no_jsx)
{
    ep_grammar *g = grammar_of("javascript", 2);
    bool complete;
    cr_assert_eq(test_accepted(g, "x = <div/>;", &complete), strlen("x = "));
    cr_assert(test_program(g, "x = a < b > c;"));
    ep_grammar_free(g);
}

Test(tsx, the_issues_examples_at_every_byte)
{
    ep_grammar *g = grammar_of("tsx", 0);
    static const char *const valid[] = {
        "let x: Map<string, number[]> = new Map<string, number[]>();",
        "const f = <T,>(x: T) => x;",
        "if (a < b && c > d) {}",
    };
    bool complete;
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
        cr_assert_eq(test_accepted(g, valid[i], &complete), strlen(valid[i]), "%s", valid[i]);
        cr_assert(complete, "%s", valid[i]);
    }
    cr_assert_eq(test_accepted(g, "let x: = 1;", &complete), strlen("let x: "), "refused at '='");
    ep_grammar_free(g);
}

Test(tsx, arrows_and_elements_told_apart)
{
    ep_grammar *g = grammar_of("tsx", 0);
    static const char *const valid[] = {
        "const f = <const T,>(x: T) => x;",
        "const f = async <T,>(x: T) => x;",
        "const f = <T extends unknown>(x: T) => <div {...x}>{...y}</div>;",
        "const f = <T = string>(x: T) => x;",
        "x = <T extends A<B>>(x) => 1;",
        "x = <T extends>a</T>;",
        "x = <T extends=\"1\"/>;",
        "x = <a b={} #c />;",
        "f<T>(x); a < b > c;",
        "x = <a>x</ a>;",
    };
    static const char *const invalid[] = {
        "const f = <T>(x: T) =|> x;",
        "let y = <any>z;|",
        "x = <a>< /|a>;",
    };
    JUDGE(g, valid, invalid);
    ep_grammar_free(g);
    /* a .ts file keeps its type assertions and reads no JSX */
    ep_grammar *ts = grammar_of("typescript", 0);
    cr_assert(test_program(ts, "const f = <T>(x: T) => x; let y = <any>z;"));
    cr_assert_not(test_program(ts, "x = <div>a</div>;"));
    ep_grammar_free(ts);
}

/* The automaton keeps, for a state whose best lexeme may be left out, the
 * next best ones, up to one that may not: here "if" is a keyword, else a
 * name (left out too), else a goal lexeme that takes any letters. */
Test(jsx, an_automatons_choices)
{
    ep_lexeme_spec specs[] = {
        {"[a-z]+", 6, false, 0, true},   /* 0: a name, excludable */
        {"if", 2, true, 1, true},        /* 1: a keyword, excludable */
        {"[a-z ]+", 7, false, -1, true}, /* 2: text, excludable */
        {"[0-9]+", 6, false, 0, false},  /* 3: a number */
    };
    ep_dfa dfa;
    char error[128];
    cr_assert_eq(ep_dfa_build(specs, 4, &dfa, error, sizeof error), SM_OK, "%s", error);
    uint32_t s = EP_DFA_START;
    s = ep_dfa_step(&dfa, s, 'i');
    s = ep_dfa_step(&dfa, s, 'f');
    cr_assert_eq(dfa.choice_first[s + 1] - dfa.choice_first[s], 3);
    cr_assert_eq(dfa.choices[dfa.choice_first[s]], 1);
    cr_assert_eq(dfa.choices[dfa.choice_first[s] + 1], 0);
    cr_assert_eq(dfa.choices[dfa.choice_first[s] + 2], 2);
    uint32_t n = ep_dfa_step(&dfa, EP_DFA_START, '7');
    cr_assert_eq(dfa.choice_first[n + 1] - dfa.choice_first[n], 1, "a lexeme that is never left out ends the list");
    ep_dfa_free(&dfa);
}

/* "%goal all but": the goal lexeme's rivals are the lexemes with a text that
 * begins with one of its own, but those spared; a %tags grammar's closing
 * tag must name the innermost open one. */
Test(jsx, goal_all_and_tags_in_a_grammar_of_its_own)
{
    static const char source[] =
        "%layout asi\n"
        "%declare ASI\n"
        "WS: /[ ]+/ %ignore\n"
        "NAME: /[a-z]+/\n"
        "TEXT: /[^<>{}]+/ %goal all but \"x\" %priority -1\n"
        "GT: /\\>/ %goal all %priority -1\n"
        "%tags NAME GT \"<\" \"/\"\n"
        "start: element\n"
        "element: \"<\" NAME GT child* \"<\" \"/\" NAME GT | \"<\" NAME \"/\" GT\n"
        "child: TEXT | element | \"x\"\n";
    ep_grammar *g;
    char error[256];
    cr_assert_eq(ep_grammar_compile(source, strlen(source), &g, error, sizeof error), SM_OK, "%s", error);
    cr_assert(test_program(g, "<a>some text<b/>more</a>"));
    cr_assert(test_program(g, "<a>x<b>x</b></a>"), "a spared lexeme is taken where text may stand");
    cr_assert(test_program(g, "<a>>= 1</a>") == false, "\">\" in text is the tag end's, and refused");
    bool complete;
    cr_assert_eq(test_accepted(g, "<a><b></a></b>", &complete), strlen("<a><b></a"));
    ep_grammar_free(g);
}
