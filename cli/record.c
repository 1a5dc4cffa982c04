/* record.c — placeholder until the record subcommand lands. */
#include <stdio.h>
#include "commands.h"

int cmd_record(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "hatrace: 'record' is not built yet\n");
    return 2;
}
