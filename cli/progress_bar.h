// The command-line programs' progress bar (shatter_asset, shatter_run): one line on stderr, redrawn
// in place when stderr is a terminal. In a pipe or a CI log it draws nothing, or, if asked, prints one
// line per stage so that the log still says what a long build was doing.
#pragma once

#include "shatter/progress.h"

#include <string>
#include <string_view>

namespace shatter::cli
{

class ProgressBar
{
public:
    /// `label` prefixes the bar. With `logStages`, a non-terminal stderr gets "label: text" whenever
    /// the text changes; otherwise nothing is written unless stderr is a terminal.
    explicit ProgressBar(std::string label, bool logStages = false);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    /// Redraws if the shown percentage or text changed. fraction is clamped to [0, 1].
    void update(double fraction, std::string_view text = {});
    /// Ends the line (idempotent).
    void finish();
    /// A ProgressCallback (stage, fraction) that updates this bar; the bar must outlive it.
    ProgressCallback callback();

private:
    std::string label;
    bool terminal = false;
    bool logStages = false;
    bool drawn = false;
    int lastPercent = -1;
    std::string lastText;
};

} // namespace shatter::cli
