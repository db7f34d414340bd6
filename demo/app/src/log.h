// The demo's log: every message goes to stderr (and an optional file) and is kept for the UI's log
// panel, so that errors such as a rejected mesh are visible in both places.
#pragma once

#include <cstdio>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace shatter::demo
{

enum class LogLevel
{
    Info,
    Warning,
    Error,
};

struct LogLine
{
    LogLevel level = LogLevel::Info;
    double time = 0; ///< s since the log was created
    std::string text;
};

/// Thread-safe message sink (the asset build runs on a worker thread).
class Log
{
public:
    Log();
    ~Log();
    Log(const Log&) = delete;
    Log& operator=(const Log&) = delete;

    /// Also appends every message to `file` (truncated first). Returns false if it cannot be opened.
    bool openFile(const std::filesystem::path& file);
    void write(LogLevel level, std::string text);
    void info(std::string text) { write(LogLevel::Info, std::move(text)); }
    void warning(std::string text) { write(LogLevel::Warning, std::move(text)); }
    void error(std::string text) { write(LogLevel::Error, std::move(text)); }

    /// A copy of the kept lines (the last `kMaxLines`).
    std::vector<LogLine> lines() const;
    /// Number of messages written so far (to notice new ones).
    std::size_t count() const;
    std::size_t errorCount() const;

    static constexpr std::size_t kMaxLines = 500;

private:
    mutable std::mutex mutex;
    std::deque<LogLine> kept;
    std::size_t written = 0;
    std::size_t errors = 0;
    std::FILE* file = nullptr;
    double start = 0;
};

const char* toString(LogLevel level);

} // namespace shatter::demo
