/* report_page.h — the page hatrace report writes (cli/report.c), made at
 * build time by report/embed.mjs from report/page.html, report.css,
 * report.js and the libraries npm installs (report/package-lock.json): the
 * page before and after the place of the trace's data. Without node and npm
 * at build time the Makefile makes it empty (report_page_made 0). */
#ifndef HATRACE_CLI_REPORT_PAGE_H
#define HATRACE_CLI_REPORT_PAGE_H

#include <stddef.h>

extern const int report_page_made;
extern const char report_page_before[], report_page_after[];
extern const size_t report_page_before_len, report_page_after_len;

#endif
