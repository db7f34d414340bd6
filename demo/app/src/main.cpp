// shatter_demo: the interactive demo of Shatter. See app.h and `shatter_demo --help`.
#include "app.h"
#include "cli.h"

#include <cstdio>
#include <exception>

int main(int argc, char** argv)
{
    shatter::demo::DemoSettings options;
    if (auto exitCode = shatter::demo::parseCommandLine(argc, argv, options))
        return *exitCode;
    try
    {
        shatter::demo::App app(options);
        return app.run();
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "shatter_demo: %s\n", e.what());
        return 1;
    }
}
