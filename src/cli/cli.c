/*
 * cli.c: the helpers every command shares (cli.h), apart from the command
 * table (scorch.c), so that the commands and the table call each other in
 * one direction only.
 */
#include "cli/cli.h"
#include <stdio.h>

void cli_print_err(const char *file, const struct err *e)
{
	err_print(file, e);
}
