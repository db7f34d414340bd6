#include "binary_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>

namespace shatter
{

std::uint64_t fnv1a64(std::span<const std::byte> bytes, std::uint64_t seed)
{
    std::uint64_t hash = seed;
    for (std::byte b : bytes)
    {
        hash ^= std::uint64_t(b);
        hash *= 0x100000001b3ull;
    }
    return hash;
}

std::uint64_t quickHash64(std::span<const std::byte> bytes)
{
    constexpr std::uint64_t kMultiplier = 0x9e3779b97f4a7c15ull;
    std::uint64_t hash = bytes.size() * kMultiplier;
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8)
    {
        std::uint64_t word;
        std::memcpy(&word, bytes.data() + i, 8);
        hash = (hash ^ word) * kMultiplier;
        hash ^= hash >> 29;
    }
    std::uint64_t tail = 0;
    if (i < bytes.size())
        std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
    hash = (hash ^ tail) * kMultiplier;
    return hash ^ (hash >> 29);
}

void BinaryWriter::vec3s(const std::vector<Vec3>& values)
{
    value<std::uint64_t>(values.size());
    for (const Vec3& v : values)
    {
        value(v.x());
        value(v.y());
        value(v.z());
    }
}

std::string BinaryReader::string()
{
    const auto chars = array<char>(1 << 20);
    return std::string(chars.begin(), chars.end());
}

std::vector<Vec3> BinaryReader::vec3s()
{
    const std::uint64_t count = value<std::uint64_t>();
    if (count > remaining() / (3 * sizeof(Real)))
        fail("point array of " + std::to_string(count) + " elements does not fit in the file");
    std::vector<Vec3> values(count);
    for (Vec3& v : values)
    {
        v.x() = value<Real>();
        v.y() = value<Real>();
        v.z() = value<Real>();
    }
    return values;
}

std::span<const std::byte> BinaryReader::byteView(std::size_t& offset)
{
    const std::uint64_t count = value<std::uint64_t>();
    if (count > remaining())
        fail("array of " + std::to_string(count) + " elements does not fit in the file");
    offset = m_offset;
    return {take(count), count};
}

void BinaryReader::fail(const std::string& problem) const
{
    throw Error(m_source, problem);
}

const std::byte* BinaryReader::take(std::size_t count)
{
    if (count > remaining())
        fail("file is truncated (needed " + std::to_string(count) + " more bytes at offset " +
             std::to_string(m_offset) + ", " + std::to_string(remaining()) + " left)");
    const std::byte* p = m_bytes.data() + m_offset;
    m_offset += count;
    return p;
}

ReadOnlyFile::ReadOnlyFile(std::string path) : m_path(std::move(path))
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(m_path, ec))
        throw Error(m_path, "no such file");
    m_descriptor = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat status
    {
    };
    if (m_descriptor < 0 || ::fstat(m_descriptor, &status) != 0 || !S_ISREG(status.st_mode))
    {
        if (m_descriptor >= 0)
            ::close(m_descriptor);
        throw Error(m_path, "cannot open the file for reading");
    }
    m_size = std::uint64_t(status.st_size);
}

ReadOnlyFile::~ReadOnlyFile()
{
    ::close(m_descriptor);
}

std::vector<std::byte> ReadOnlyFile::read(std::uint64_t offset, std::uint64_t count) const
{
    if (offset > m_size || count > m_size - offset)
        throw Error(m_path, "cannot read " + std::to_string(count) + " bytes at offset " +
                                std::to_string(offset) + " of a " + std::to_string(m_size) + "-byte file");
    std::vector<std::byte> bytes(count);
    std::uint64_t done = 0;
    while (done < count)
    {
        const ssize_t n = ::pread(m_descriptor, bytes.data() + done, count - done, off_t(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw Error(m_path, "cannot read the file");
        done += std::uint64_t(n);
    }
    return bytes;
}

std::vector<std::byte> framedFileBytes(const FileKind& kind, std::span<const std::byte> payload)
{
    BinaryWriter file;
    for (char c : kind.magic)
        file.value(c);
    file.value(kind.version);
    file.value(std::uint32_t(0));
    file.value(std::uint64_t(payload.size()));
    file.value(fnv1a64(payload));
    std::vector<std::byte> bytes = file.bytes();
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    return bytes;
}

std::span<const std::byte> framedPayload(std::span<const std::byte> bytes, const FileKind& kind,
                                         const std::string& source)
{
    const std::string name = kind.name;
    if (bytes.size() < kFramedHeaderSize)
        throw Error(source, "not a Shatter " + name + " (only " + std::to_string(bytes.size()) + " bytes)");
    BinaryReader header(bytes.first(kFramedHeaderSize), source);
    std::array<char, 8> magic;
    for (char& c : magic)
        c = header.value<char>();
    if (magic != kind.magic)
        throw Error(source, "not a Shatter " + name + " (wrong magic bytes)");
    const auto version = header.value<std::uint32_t>();
    if (version != kind.version)
        throw Error(source, name + " format version " + std::to_string(version) +
                                ", this build reads version " + std::to_string(kind.version) + "; " +
                                kind.otherVersionAdvice);
    header.value<std::uint32_t>();
    const auto payloadSize = header.value<std::uint64_t>();
    const auto checksum = header.value<std::uint64_t>();
    const std::span<const std::byte> payload = bytes.subspan(kFramedHeaderSize);
    if (payload.size() != payloadSize)
        throw Error(source, name + " is truncated or padded: header says " + std::to_string(payloadSize) +
                                " payload bytes, file has " + std::to_string(payload.size()));
    if (fnv1a64(payload) != checksum)
        throw Error(source, name + " is corrupt (checksum mismatch)");
    return payload;
}

std::vector<std::byte> readFileBytes(const std::string& path)
{
    const ReadOnlyFile file(path);
    return file.read(0, file.size());
}

void writeFileBytes(const std::string& path, std::span<const std::byte> bytes)
{
    // A name of its own per writer: several processes may write the same cache file at once (ctest
    // runs test processes side by side), and the rename makes whichever finishes last win whole.
    static std::atomic<unsigned> counter{0};
    const std::string temporary =
        path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        if (!file)
            throw Error(path, "cannot open the file for writing");
        file.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!file)
            throw Error(path, "cannot write the file (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec)
        throw Error(path, "cannot replace the file: " + ec.message());
}

} // namespace shatter
