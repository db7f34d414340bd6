// The harnesses' input as a file: the importers and loaders under test take paths, and a file is what a
// user hands them. One file per process (libFuzzer's -jobs and -fork run several processes).
#pragma once

#include "binary_io.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <unistd.h>

namespace shatter::fuzz
{

class InputFile
{
public:
    explicit InputFile(const std::string& name)
        : m_directory(std::filesystem::temp_directory_path() / ("shatter-fuzz-" + std::to_string(::getpid())))
    {
        std::filesystem::create_directories(m_directory);
        m_path = m_directory / name;
    }
    ~InputFile()
    {
        std::error_code ignored;
        std::filesystem::remove_all(m_directory, ignored);
    }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    const std::filesystem::path& path() const { return m_path; }

    /// Throws shatter::Error when the file cannot be written (outside the harnesses' try: a crash).
    void write(const void* data, std::size_t size) const
    {
        writeFileBytes(m_path.string(), std::span(static_cast<const std::byte*>(data), size));
    }

private:
    std::filesystem::path m_directory;
    std::filesystem::path m_path;
};

} // namespace shatter::fuzz
