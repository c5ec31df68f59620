/* long_line.c - a fixture for tests/book_check.sh: line 4 is 81 columns,
 * line 5 is 80 (allowed), and the tab on line 6 takes it to 81. */
int ok;
int this_line_is_81_columns_and_the_check_must_say_so_______________________ = 1;
int this_line_is_80_columns_and_the_check_accepts_it_______________________ = 1;
	int tabbed_line_that_reaches_81_columns_____________________________ = 1;
