/*
 * cli.h: the subcommand table's entry points and the few helpers every
 * command shares (printing a located error, exit codes). Only src/cli knows
 * about argv, exit codes and the terminal.
 */
#ifndef SCORCH_CLI_H
#define SCORCH_CLI_H

#include "util/err.h"
#include <stdbool.h>

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_BADINPUT 2

int cmd_record(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_header(int argc, char **argv);
int cmd_perfparser(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* Record options shared by record and top (cmd_record.c); each prints one
 * line prefixed with the command's name and returns EXIT_BADINPUT on a bad
 * value, else 0. */
struct record_opts;
int cli_record_call_graph(struct record_opts *o, const char *arg);
int cli_record_events(struct record_opts *o, const char *list);
int cli_record_ids(struct record_opts *o, const char *list, bool tids);
int cli_record_freq(struct record_opts *o, const char *arg);
/* The default event when none was given, -F capped at the kernel's maximum,
 * and the prefix of later messages. */
void cli_record_defaults(struct record_opts *o, const char *prefix);
int cmd_diff(int argc, char **argv);
int cmd_hotspot(int argc, char **argv);
int cmd_list(int argc, char **argv);

/* Print "scorch: FILE: offset N: message" (or without offset) to stderr. */
void cli_print_err(const char *file, const struct err *e);

#endif
