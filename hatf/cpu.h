/* cpu.h — which instructions this CPU has, as glibc's loader found them.
 *
 * Asked of glibc (<sys/platform/x86.h>, from its own CPUID reads at start)
 * rather than with CPUID or gcc's __builtin_cpu_*: in a virtual machine each
 * CPUID traps to the hypervisor (~14 us a call on a 2-CPU VM), and linking
 * __builtin_cpu_supports brings libgcc's constructor, which runs some twenty of
 * them in every process libhatrace.so is preloaded into, whether or not it
 * ever asks (~0.3 ms a process). */
#ifndef HATF_CPU_H
#define HATF_CPU_H

#if (defined(__x86_64__) || defined(__i386__)) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define HATF_CPU_GLIBC 1
#endif
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static inline int hatf_cpu_popcnt(void)
{
#ifdef HATF_CPU_GLIBC
    return CPU_FEATURE_ACTIVE(POPCNT);
#else
    return __builtin_cpu_supports("popcnt");
#endif
}

static inline int hatf_cpu_bmi2(void)
{
#ifdef HATF_CPU_GLIBC
    return CPU_FEATURE_ACTIVE(BMI2);
#else
    return __builtin_cpu_supports("bmi2");
#endif
}

/* pdep and pext are microcoded (tens of cycles or more) on AMD before family
 * 19h: families 15h and 17h (Zen 1 and 2), and Hygon's 18h (a Zen 1). Only a
 * CPU with SSE4A (AMD's and Hygon's alone) is asked its family, with one CPUID. */
static inline int hatf_cpu_pdep_fast(void)
{
    if (!hatf_cpu_bmi2()) return 0;
#ifdef HATF_CPU_GLIBC
    if (!CPU_FEATURE_PRESENT(SSE4A)) return 1;
#endif
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 1;
    unsigned family = (a >> 8) & 0xfu;
    if (family == 0xfu) family += (a >> 20) & 0xffu;
    return family != 0x15 && family != 0x17 && family != 0x18;
}
#endif

#endif
