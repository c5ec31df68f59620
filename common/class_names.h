/* class_names.h - the names of a classifier's classes, read from a file
 * holding a Python dict literal of class number to name, the format of
 * imagenet1000_clsid_to_human.txt that DeZero's ImageNet.labels() reads
 * with eval:
 *
 *     {0: 'tench, Tinca tinca',
 *      1: 'goldfish, Carassius auratus',
 *      ...
 *      999: "carpenter's kit, tool kit"}
 *
 *     int count;
 *     char **names = nd_read_class_names(path, &count);   // count = 1000
 *     printf("%s\n", names[340]);                          // zebra
 *     nd_free_class_names(names, count);
 *
 * The file is parsed, never run: keys are integers 0 to count - 1, each
 * once, in any order; names are Python string literals, in single or
 * double quotes, with Python's escapes (\\ \' \" \n \t \xhh \ooo
 * \uXXXX ...) and adjacent literals joined, as Python joins them;
 * comments, a trailing comma and any spacing are allowed. Anything else
 * (a missing key, a repeated one, an unfinished string, other syntax)
 * goes to nd_error() naming the file, line and column.
 */
#ifndef ND_CLASS_NAMES_H
#define ND_CLASS_NAMES_H

/* Reads the dict literal at path. Returns names[k] for class k, UTF-8,
 * and their number in *count: a malloc'd array of malloc'd strings that
 * the caller frees with nd_free_class_names. */
char **nd_read_class_names(const char *path, int *count);

/* Frees names and its count strings. Accepts NULL. */
void nd_free_class_names(char **names, int count);

#endif /* ND_CLASS_NAMES_H */
