/* replay.c — placeholder until the replay subcommand lands. */
#include <stdio.h>
#include "commands.h"

int cmd_replay(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "hatrace: 'replay' is not built yet\n");
    return 2;
}
