// A one-line progress bar on stderr, drawn only when stderr is a terminal (logs and pipes stay clean).
#pragma once

#include <string>
#include <string_view>

namespace shatter::run
{

class ProgressBar
{
public:
    /// `label` prefixes the bar; nothing is drawn unless stderr is a terminal.
    explicit ProgressBar(std::string label);
    ~ProgressBar();

    /// Redraws if the shown percentage or text changed. fraction in [0, 1].
    void update(double fraction, std::string_view text = {});
    /// Ends the line (idempotent).
    void finish();

    bool visible() const { return terminal; }

private:
    std::string label;
    bool terminal = false;
    bool drawn = false;
    int lastPercent = -1;
    std::string lastText;
};

} // namespace shatter::run
