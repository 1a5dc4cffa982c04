/* main.c — the hatrace command: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char help[] =
    "usage: hatrace COMMAND [OPTIONS] ...\n"
    "\n"
    "Record every heap operation of a program as a HATF trace, and read,\n"
    "check, convert and replay such traces.\n"
    "\n"
    "commands:\n"
    "  record    run a program and write its heap trace\n"
    "  dump      print a trace in the text form, one event per line\n"
    "  stats     counts, sizes and peaks of a trace (the paper's Table 3)\n"
    "  validate  deep check of a trace; one line per problem\n"
    "  convert   convert between the container, raw HATF 1.0 and text, or to CSV\n"
    "  replay    replay a trace against one or more allocators, or under a\n"
    "            grid of their settings to find the best\n"
    "  report    write one self-contained HTML page about a trace\n"
    "\n"
    "formats (--from/--to): hatrace (the container, recognised by its magic),\n"
    "hatf1.0 (a raw HATF 1.0 stream), text (the text form), metatf (Meta-TF,\n"
    "the paper's self-describing form, recognised by its magic).\n"
    "\n"
    "'hatrace COMMAND --help' describes each command's options.\n"
    "exit status: 0 ok, 1 bad input or failure, 2 bad usage, 3 partial (a damaged\n"
    "or cut trace read as far as it goes); hatrace record: the command's, or 125\n"
    "when a trace of the run is missing or incomplete (see record --help).\n"
    "\n"
    "  -h, --help       this help\n"
    "  -V, --version    print the version\n";

static const struct {
    const char *name;
    int (*run)(int, char **);
} commands[] = {
    { "record", cmd_record }, { "dump", cmd_dump }, { "stats", cmd_stats },
    { "validate", cmd_validate }, { "convert", cmd_convert }, { "replay", cmd_replay },
    { "report", cmd_report },
};

int main(int argc, char **argv)
{
    if (argc < 2) return cli_usage(NULL, "missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0)
        return cli_help(help);
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("hatrace %s (HATF 1.0, container %d.%d)\n", HATRACE_VERSION,
               HATF_CONTAINER_VERSION_MAJOR, HATF_CONTAINER_VERSION_MINOR);
        return cli_finish_stdout(CLI_OK);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    if (cmd[0] == '-') return cli_usage(NULL, "unknown option %s", cmd);
    return cli_usage(NULL, "unknown command '%s'", cmd);
}
