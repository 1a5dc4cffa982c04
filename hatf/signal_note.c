/* signal_note.c — the comment a recorder writes for a signal a process dies
 * of, or that a handler of the program took (include/hatf.h,
 * HATF_SIGNAL_PREFIX): written by the recorder, read by every tool, in one
 * place so the two agree.
 */
#include <stdio.h>
#include <string.h>

#include "hatf.h"

HATF_API int hatf_signal_format(const hatf_signal *s, char *buf, size_t cap)
{
    const char *abbrev = sigabbrev_np(s->sig);
    char name[16];
    if (abbrev) snprintf(name, sizeof name, "SIG%s", abbrev);
    else snprintf(name, sizeof name, "SIG%d", s->sig);
    int n;
    if (s->code > 0)
        n = snprintf(buf, cap, HATF_SIGNAL_PREFIX "%d %s code=%d addr=0x%llx thread=%llu %s", s->sig, name, s->code,
                     (unsigned long long)s->addr, (unsigned long long)s->thread, s->fatal ? "fatal" : "handled");
    else
        n = snprintf(buf, cap, HATF_SIGNAL_PREFIX "%d %s code=%d pid=%llu thread=%llu %s", s->sig, name, s->code,
                     (unsigned long long)s->addr, (unsigned long long)s->thread, s->fatal ? "fatal" : "handled");
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

HATF_API int hatf_signal_parse(const hatf_event *ev, hatf_signal *out)
{
    size_t mark = sizeof HATF_SIGNAL_PREFIX - 1;
    if (ev->op != HATF_OP_COMMENT || ev->data_len <= mark || ev->data_len >= 128 ||
        memcmp(ev->data, HATF_SIGNAL_PREFIX, mark))
        return 0;
    char text[128], fate[16];
    memcpy(text, ev->data + mark, ev->data_len - mark);
    text[ev->data_len - mark] = 0;
    hatf_signal s;
    memset(&s, 0, sizeof s);
    unsigned long long v, th;
    int head = 0, used = 0;
    if (sscanf(text, "%d %15s code=%d %n", &s.sig, s.name, &s.code, &head) != 3 || !head || s.sig <= 0) return 0;
    const char *rest = text + head;
    int n = s.code > 0 ? sscanf(rest, "addr=0x%llx thread=%llu %15s%n", &v, &th, fate, &used)
                       : sscanf(rest, "pid=%llu thread=%llu %15s%n", &v, &th, fate, &used);
    if (n != 3 || rest[used] || (strcmp(fate, "fatal") && strcmp(fate, "handled"))) return 0;
    s.addr = v;
    s.thread = th;
    s.fatal = !strcmp(fate, "fatal");
    *out = s;
    return 1;
}
