/* test_class_names.c - class names read from a Python dict literal
 * (common/class_names.h), the format of ImageNet's
 * imagenet1000_clsid_to_human.txt: a file using both quote styles,
 * Python's escapes, comments and the rest, with the names Python's
 * eval gives for it; then files that are not such a dict, each refused
 * with its place and reason. */
#include "class_names.h"
#include "nd_test.h"
#include "scratch.h"

/* Writes text to name in the scratch folder; returns the path (static,
 * until the next call). */
static const char *scratch_text(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Keys out of order, both quotes, escapes, a comment, joined literals,
 * a triple-quoted and an empty name, a trailing comma. */
static const char fixture[] =
    "# a comment, as a file may start with one\n"
    "{0: 'tench, Tinca tinca',\n"
    " 3: \"carpenter's kit, tool kit\",\n"
    " 1: 'goldfish, Carassius auratus',\n"
    " 2: 'great white shark, white shark, man-eater, man-eating shark, "
    "Carcharodon carcharias',\n"
    " 4: 'it\\'s \"quoted\"\\\\back\\tslash',  # an end-of-line comment\n"
    " 5: 'caf\\xe9 \\u00e9t\\u00E9 \\101\\1010',\n"
    " 6: 'joined ' \"literals\"\n"
    "    u' too',\n"
    " 7: '''triple 'quoted'\n"
    "name''',\n"
    " 8: '',\n"
    " 9: 'kept \\d and \\\n"
    "continued',\n"
    "}\n";

/* What eval(open(path).read()) gives, by Python 3.11, encoded UTF-8. */
static const char *const fixture_names[] = {
    "tench, Tinca tinca",
    "goldfish, Carassius auratus",
    "great white shark, white shark, man-eater, man-eating shark, "
    "Carcharodon carcharias",
    "carpenter's kit, tool kit",
    "it's \"quoted\"\\back\tslash",
    "caf\xc3\xa9 \xc3\xa9t\xc3\xa9 AA0",
    "joined literals too",
    "triple 'quoted'\nname",
    "",
    "kept \\d and continued",
};

static void test_reads_python_dict(void **state)
{
    (void)state;
    int count = -1;
    char **names = nd_read_class_names(scratch_text("labels.txt", fixture),
                                       &count);
    assert_int_equal(count, 10);
    for (int i = 0; i < count; i++)
        assert_string_equal(names[i], fixture_names[i]);
    nd_free_class_names(names, count);
    nd_free_class_names(NULL, 0);
}

/* The real file's first and last lines, with nothing between but one
 * class: its shape, on one line, without a trailing comma. */
static void test_one_line(void **state)
{
    (void)state;
    int count = -1;
    char **names = nd_read_class_names(scratch_text("one.txt",
        "{0: 'tench, Tinca tinca', 1: 'toilet tissue, toilet paper, "
        "bathroom tissue'}"), &count);
    assert_int_equal(count, 2);
    assert_string_equal(names[1], "toilet tissue, toilet paper, bathroom "
                                  "tissue");
    nd_free_class_names(names, count);
}

/* Each bad file: the message has its place (line:column) and reason. */
static void expect_refused(const char *text, const char *want)
{
    int count = -1;
    const char *path = scratch_text("bad.txt", text);
    EXPECT_ND_ERROR(nd_read_class_names(path, &count), want);
    EXPECT_MESSAGE_HAS("nd_read_class_names: ");
    EXPECT_MESSAGE_HAS("/bad.txt:");
    assert_int_equal(count, -1);
}

static void test_bad_files(void **state)
{
    (void)state;
    expect_refused("", ":1:1: expected '{' (a dict of class numbers to "
                   "names), found the end of the file");
    expect_refused("[0, 1]", ":1:1: expected '{'");
    expect_refused("{}", ":1:3: the dict holds no classes");
    expect_refused("{0: 'a', 2: 'c'}", ":1:10: class 2, but the 2 classes "
                   "must be numbered 0 to 1, each once");
    expect_refused("{0: 'a',\n 1: 'b',\n 0: 'c'}", ":3:2: class 0 appears "
                   "twice");
    expect_refused("{0: 'a,\n 1: 'b'}", ":1:5: this string does not end "
                   "on its line");
    expect_refused("{0: '''a}", ":1:5: this string does not end");
    expect_refused("{0: 'a' 1: 'b'}", ":1:9: expected ',' or '}', found "
                   "'1'");
    expect_refused("{0 'a'}", ":1:4: expected ':' after the class number");
    expect_refused("{0: a}", ":1:5: expected a string in quotes, found "
                   "'a'");
    expect_refused("{0: r'a'}", "(only plain string literals are read)");
    expect_refused("{'0': 'a'}", ":1:2: expected a class number, found "
                   "'''");
    expect_refused("{-1: 'a'}", ":1:2: expected a class number");
    expect_refused("{01: 'a'}", ":1:2: a class number with a leading 0");
    expect_refused("{0: 'a'}}", ":1:9: expected the end of the file after "
                   "the dict, found '}'");
    expect_refused("{0: 'a'", ":1:8: expected ',' or '}', found the end "
                   "of the file");
    expect_refused("{0: '\\x4'}", "\\x takes 2 hex digits");
    expect_refused("{0: '\\ud800'}", "the escape names U+D800, which is "
                   "not a character");
    expect_refused("{0: '\\N{DASH}'}", "\\N{...} escapes (characters by "
                   "name) are not supported");
    expect_refused("{99999999999: 'a'}", "class numbers go up to 999999");
}

static void test_missing_file(void **state)
{
    (void)state;
    char path[256];
    int count = -1;
    snprintf(path, sizeof path, "%s/none.txt", scratch);
    EXPECT_ND_ERROR(nd_read_class_names(path, &count), "nd_read_class_"
                    "names: cannot open ");
    EXPECT_MESSAGE_HAS("/none.txt: No such file or directory");
    EXPECT_ND_ERROR(nd_read_class_names(scratch, &count), "nd_read_class_"
                    "names: cannot read ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_python_dict),
        cmocka_unit_test(test_one_line),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests_name("class_names", tests, make_scratch,
                                       remove_scratch);
}
