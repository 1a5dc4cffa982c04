// supp_leaks.cc — leaks with known call stacks, for leak suppressions
// (tests/integration/suppress.sh): keep_cache leaks 3 blocks of 100 bytes,
// real_leak 2 of 50 (new[]); as a C++ program it loads libstdc++, whose emergency
// exception pool is allocated once while it loads and never freed (the
// built-in suppression's). Prints "FUNCTION OBJECTS BYTES" per leak.
#include <cstdio>
#include <cstdlib>

#define KEEP() __asm__ volatile("" ::: "memory")  // no tail calls: frames stay

char *kept[5];  // global: the allocations cannot be optimised away

__attribute__((noinline)) void keep_cache(int i)
{
    kept[i] = new char[100];
    KEEP();
}

__attribute__((noinline)) void real_leak(int i)
{
    kept[3 + i] = new char[50];
    KEEP();
}

int main()
{
    for (int i = 0; i < 3; i++) keep_cache(i);
    for (int i = 0; i < 2; i++) real_leak(i);
    for (int i = 0; i < 10; i++) {  // not leaks: freed
        void *volatile p = malloc(30);
        free(p);
    }
    std::printf("keep_cache 3 300\nreal_leak 2 100\n");
    return 0;
}
