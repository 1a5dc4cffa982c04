// stacks_cxx.cc — C++ allocation sites with known names and counts, for the
// demangled frames of the site report (tests/integration/stacks_names.sh):
//   shop::Store::open(int)                       120 x new Basket, each deleted
//                                                before the next allocation
//   shop::Crate* shop::restock<shop::Crate>(unsigned long)
//                                                 30 x new Crate[n], 5 leaked
//   shop::Ledger::note(int)                        18 x new long[2], each deleted,
//                                                from two callers (7 from
//                                                audit_a, 11 from audit_b): two
//                                                stacks, one function
// All reach malloc through operator new (libstdc++).
#include <cstdio>

#define KEEP() __asm__ volatile("" ::: "memory")  // no tail calls: frames stay

namespace shop {

struct Basket { long items[6]; };
struct Crate { char slots[100]; };

class Store {
public:
    __attribute__((noinline)) Basket *open(int n);
};

Basket *Store::open(int n)
{
    Basket *b = new Basket();
    b->items[0] = n;
    KEEP();
    return b;
}

template <typename T> __attribute__((noinline)) T *restock(unsigned long n)
{
    T *t = new T[n];
    KEEP();
    return t;
}

struct Ledger {
    __attribute__((noinline)) static long *note(int n);
};

long *Ledger::note(int n)
{
    long *e = new long[2];
    e[0] = n;
    KEEP();
    return e;
}

__attribute__((noinline)) void audit_a()
{
    for (int i = 0; i < 7; i++) {
        delete[] Ledger::note(i);
        KEEP();
    }
}

__attribute__((noinline)) void audit_b()
{
    for (int i = 0; i < 11; i++) {
        delete[] Ledger::note(i);
        KEEP();
    }
}

}  // namespace shop

int main()
{
    shop::Store s;
    for (int i = 0; i < 120; i++) {
        shop::Basket *b = s.open(i);
        KEEP();
        delete b;
    }
    shop::Crate *kept[5];
    for (int i = 0; i < 30; i++) {
        shop::Crate *c = shop::restock<shop::Crate>(2);
        KEEP();
        if (i % 6 == 0) kept[i / 6] = c;
        else delete[] c;
    }
    shop::audit_a();
    shop::audit_b();
    std::printf("%p\n", (void *)kept[4]);  // the five crates stay live to the end
    return 0;
}
