// Offline cooking with the installed Shatter::Cook: builds the cache file the runtime example loads.
// The function is the user guide's example, extracted verbatim (tests/tools/consumer.cmake).
// Usage: shatter_cook_example mesh.obj cache.shatter
#include "guide_cook.inc"

int main(int argc, char** argv)
{
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: %s mesh-file cache-file\n", argv[0]);
        return 2;
    }
    return cookAsset(argv[1], argv[2]) ? 0 : 1;
}
