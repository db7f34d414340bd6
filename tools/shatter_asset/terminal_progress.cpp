#include "terminal_progress.h"

#include <cstdio>
#include <unistd.h>

namespace shatter::tools
{

namespace
{
bool g_barDrawn = false;
}

ProgressCallback terminalProgress(std::string label)
{
    const bool tty = isatty(fileno(stderr)) != 0;
    return [label = std::move(label), tty, lastStage = std::string()](std::string_view stage,
                                                                       double fraction) mutable
    {
        if (!tty)
        {
            if (stage != lastStage)
                std::fprintf(stderr, "%s: %.*s\n", label.c_str(), int(stage.size()), stage.data());
            lastStage = stage;
            return;
        }
        constexpr int kWidth = 30;
        const int filled = int(fraction * kWidth + 0.5);
        std::fprintf(stderr, "\r%s [", label.c_str());
        for (int i = 0; i < kWidth; ++i)
            std::fputc(i < filled ? '#' : '.', stderr);
        std::fprintf(stderr, "] %3d%% %-28.*s", int(fraction * 100 + 0.5), int(stage.size()), stage.data());
        std::fflush(stderr);
        g_barDrawn = true;
    };
}

void finishProgress()
{
    if (g_barDrawn)
        std::fputc('\n', stderr);
    g_barDrawn = false;
}

} // namespace shatter::tools
