/* cmd_perfparser.c: placeholder until its issue lands; says so and fails. */
#include "cli/cli.h"
#include <stdio.h>

int cmd_perfparser(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "scorch: 'perfparser' is not available in this build yet\n");
	return EXIT_FAIL;
}
