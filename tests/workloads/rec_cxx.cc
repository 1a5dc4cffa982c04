// rec_cxx.cc — C++ new/delete, new[]/delete[] and a growing std::vector. The
// recorder interposes the operators: new and new[] are recorded as such, one
// event each. 72-byte objects and 3000-byte arrays are this program's alone.
// Deletes of a type's objects are sized (the recorder keeps the size given);
// one 80-byte block is deleted with a wrong size, 40.
#include <cstdio>
#include <memory>
#include <vector>

struct Obj { char pad[72]; };

static void *volatile sink;  // keeps the compiler from pairing the calls away

int main()
{
    const int n = 5000;
    std::vector<Obj *> v;
    for (int i = 0; i < n; i++) v.push_back(new Obj());
    for (Obj *o : v) delete o;
    for (int i = 0; i < n / 10; i++) {
        char *a = new char[3000];
        a[0] = 1;
        delete[] a;
    }
    auto u = std::make_unique<Obj>();
    sink = ::operator new(80);
    ::operator delete(sink, 40);  // the wrong size
    std::printf("size72 %d\nsize3000 %d\nwrong_sized 1\n", n + 1, n / 10);
    return 0;
}
