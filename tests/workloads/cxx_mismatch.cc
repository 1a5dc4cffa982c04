// cxx_mismatch.cc — each mismatched pair memcheck reports, once, between
// matched ones: new/free, malloc/delete, new[]/delete, new/delete[],
// new[]/realloc. Prints the releases validate must call mismatched, in order.
// The pointers pass through a volatile sink so the compiler keeps every call.
#include <cstdio>
#include <cstdlib>

static void *volatile sink;
template <class T> static T *keep(T *p) { sink = p; return static_cast<T *>(sink); }

int main()
{
    delete keep(new int(1));                              // matched
    std::free(keep(new int(2)));                          // new, free
    delete keep(static_cast<int *>(std::malloc(sizeof(int))));  // malloc, delete
    delete[] keep(new int[4]);                            // matched
    delete keep(new int[4]);                              // new[], delete
    delete[] keep(new int(3));                            // new, delete[]
    char *c = keep(new char[8]);
    std::free(keep(static_cast<char *>(std::realloc(c, 4096))));  // new[], realloc (then free: matched)
    std::free(keep(std::malloc(16)));                     // matched
    std::printf("free\ndelete\ndelete\ndelete[]\nrealloc\n");
    return 0;
}
