/* attach_static — a statically linked program that waits: hatrace record -p
 * must refuse it in one line (no C library mapped to load the recorder with). */
#include <unistd.h>

int main(void)
{
    for (int i = 0; i < 600; i++) sleep(1);
    return 0;
}
