#include "progress_bar.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace shatter::cli
{

ProgressBar::ProgressBar(std::string l, bool log)
    : label(std::move(l)), terminal(isatty(fileno(stderr)) != 0), logStages(log)
{
}

ProgressBar::~ProgressBar()
{
    finish();
}

void ProgressBar::update(double fraction, std::string_view text)
{
    if (!terminal)
    {
        if (logStages && text != lastText)
            std::fprintf(stderr, "%s: %.*s\n", label.c_str(), int(text.size()), text.data());
        lastText = text;
        return;
    }
    fraction = std::clamp(fraction, 0.0, 1.0);
    const int percent = int(fraction * 100);
    if (percent == lastPercent && text == lastText)
        return;
    lastPercent = percent;
    lastText = text;
    constexpr int kWidth = 30;
    const int filled = int(fraction * kWidth + 0.5);
    std::fprintf(stderr, "\r%s [", label.c_str());
    for (int i = 0; i < kWidth; ++i)
        std::fputc(i < filled ? '#' : '.', stderr);
    std::fprintf(stderr, "] %3d%% %-40.*s", percent, int(text.size()), text.data());
    std::fflush(stderr);
    drawn = true;
}

void ProgressBar::finish()
{
    if (drawn)
        std::fputc('\n', stderr);
    drawn = false;
    lastPercent = -1;
}

ProgressCallback ProgressBar::callback()
{
    return [this](std::string_view stage, double fraction)
    {
        update(fraction, stage);
    };
}

} // namespace shatter::cli
