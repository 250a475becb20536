/*
 * cli.c: the helpers every command shares (cli.h), apart from the command
 * table (scorch.c), so that the commands and the table call each other in
 * one direction only.
 */
#include "cli/cli.h"
#include <stdio.h>

void cli_print_err(const char *file, const struct err *e)
{
	if (e->has_offset)
		fprintf(stderr, "scorch: %s: offset %llu: %s\n", file,
			(unsigned long long)e->offset, e->msg);
	else
		fprintf(stderr, "scorch: %s: %s\n", file, e->msg);
}
