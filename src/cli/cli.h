/*
 * cli.h: the subcommand table's entry points and the few helpers every
 * command shares (printing a located error, exit codes). Only src/cli knows
 * about argv, exit codes and the terminal.
 */
#ifndef SCORCH_CLI_H
#define SCORCH_CLI_H

#include "util/err.h"

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
int cmd_diff(int argc, char **argv);

/* Print "scorch: FILE: offset N: message" (or without offset) to stderr. */
void cli_print_err(const char *file, const struct err *e);

#endif
