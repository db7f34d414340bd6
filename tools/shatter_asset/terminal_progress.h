// A progress bar for terminals: redraws one line on stderr when it is a terminal, prints one line
// per stage otherwise (CI logs stay readable).
#pragma once

#include "shatter/progress.h"

#include <string>

namespace shatter::tools
{

/// Returns a ProgressCallback drawing a bar labelled `label`; call finishProgress() when done.
ProgressCallback terminalProgress(std::string label);
void finishProgress();

} // namespace shatter::tools
