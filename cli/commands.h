/* commands.h — the subcommands of the hatrace command, one file each. */
#ifndef HATRACE_CLI_COMMANDS_H
#define HATRACE_CLI_COMMANDS_H

/* Each takes argv after the subcommand name (argv[0] is the subcommand) and
 * returns the process exit code: 0 ok, 1 bad input or failure, 2 bad usage. */
int cmd_dump(int argc, char **argv);      /* cli/dump.c */
int cmd_convert(int argc, char **argv);   /* cli/convert.c */
int cmd_stats(int argc, char **argv);     /* cli/stats.c */
int cmd_validate(int argc, char **argv);  /* cli/validate.c */
int cmd_record(int argc, char **argv);    /* cli/record.c */
int cmd_replay(int argc, char **argv);    /* cli/replay.c */
int cmd_report(int argc, char **argv);    /* cli/report.c */

#endif
