#include "log.h"

#include <chrono>

namespace shatter::demo
{
namespace
{
double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} // namespace

const char* toString(LogLevel level)
{
    switch (level)
    {
    case LogLevel::Info:
        return "info";
    case LogLevel::Warning:
        return "warning";
    case LogLevel::Error:
        return "error";
    }
    return "?";
}

Log::Log() : start(now()) {}

Log::~Log()
{
    if (file)
        std::fclose(file);
}

bool Log::openFile(const std::filesystem::path& path)
{
    std::lock_guard lock(mutex);
    if (file)
        std::fclose(file);
    file = std::fopen(path.c_str(), "w");
    return file != nullptr;
}

void Log::write(LogLevel level, std::string text)
{
    std::lock_guard lock(mutex);
    LogLine line{level, now() - start, std::move(text)};
    std::fprintf(stderr, "[shatter_demo] %s: %s\n", toString(level), line.text.c_str());
    if (file)
    {
        std::fprintf(file, "%8.3f %s: %s\n", line.time, toString(level), line.text.c_str());
        std::fflush(file);
    }
    ++written;
    if (level == LogLevel::Error)
        ++errors;
    kept.push_back(std::move(line));
    while (kept.size() > kMaxLines)
        kept.pop_front();
}

std::vector<LogLine> Log::lines() const
{
    std::lock_guard lock(mutex);
    return {kept.begin(), kept.end()};
}

std::size_t Log::count() const
{
    std::lock_guard lock(mutex);
    return written;
}

std::size_t Log::errorCount() const
{
    std::lock_guard lock(mutex);
    return errors;
}

} // namespace shatter::demo
