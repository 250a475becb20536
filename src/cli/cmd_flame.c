/* cmd_flame.c: placeholder until its issue lands; says so and fails. */
#include "cli/cli.h"
#include <stdio.h>

int cmd_flame(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "scorch: 'flame' is not available in this build yet\n");
	return EXIT_FAIL;
}
