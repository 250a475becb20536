/*
 * cli.h: the subcommand table's entry points and the few helpers every
 * command shares (printing a located error, exit codes). Only src/cli knows
 * about argv, exit codes and the terminal.
 */
#ifndef SCORCH_CLI_H
#define SCORCH_CLI_H

#include "util/err.h"
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
int cmd_annotate(int argc, char **argv);

/* What record and top share (cmd_record.c). cli_record_set: the options
 * both take (-e, -F, -c, -g, --call-graph, -m, -p, -t, -a) as an opts_parse
 * handler falls back to (cli/opts.h); a bad value prints one line with the
 * prefix set by cli_record_prefix ("scorch record" unless told) and gives
 * EXIT_BADINPUT. */
struct record_opts;
struct opts;
void cli_record_prefix(const char *prefix);
int cli_record_set(struct record_opts *o, struct opts *p, int id, const char *v);
/* The default event when none was given; -F capped at the kernel's maximum
 * (said unless o->quiet). */
void cli_record_defaults(struct record_opts *o);
/* --off-cpu (record, top): add sched:sched_switch (else context-switches
 * -c 1, said in one line unless quiet) and the switch records; 0, or
 * EXIT_BADINPUT after printing why (with cli_record_prefix's name). */
int cli_record_offcpu(struct record_opts *o);
/* SIGINT, SIGTERM (and SIGHUP when hup) set ->stop, aux_sig sets ->aux,
 * SIGCHLD only interrupts, SIGPIPE and SIGXFSZ are ignored; the open-files
 * limit raised to its maximum (one fd per event, CPU and thread). */
struct cli_signals {
	volatile sig_atomic_t stop, aux;
};
struct cli_signals *cli_record_signals(int aux_sig, bool hup);
int cmd_diff(int argc, char **argv);
int cmd_hotspot(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_buildid_cache(int argc, char **argv);
int cmd_archive(int argc, char **argv);

/* The build-id cache (cmd_buildid_cache.c): its directory, $HOME/.debug
 * (false when HOME is not an absolute path or the name does not fit), and
 * its size limit, SCORCH_BUILDID_CACHE_MAX (bytes, K/M/G; 0: none; default
 * 4G). */
bool cli_buildid_cache_dir(char *out, size_t cap);
uint64_t cli_buildid_cache_max(void);

/* Print "scorch: FILE: offset N: message" (or without offset) to stderr. */
void cli_print_err(const char *file, const struct err *e);

#endif
