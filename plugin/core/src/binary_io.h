// Bounds-checked binary serialisation for the asset cache: every read says which file is truncated or
// corrupt instead of reading past the end.
#pragma once

#include "shatter/error.h"
#include "shatter/math.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace shatter
{

/// 64-bit FNV-1a hash, used as the cache payload checksum and as the source fingerprint.
std::uint64_t fnv1a64(std::span<const std::byte> bytes, std::uint64_t seed = 0xcbf29ce484222325ull);

/// A 64-bit hash eight bytes at a time, several times faster than fnv1a64: tells whether bytes in
/// memory changed since they were hashed; never stored, so free to change.
std::uint64_t quickHash64(std::span<const std::byte> bytes);

/// Appends plain values and arrays to a byte buffer (little-endian host layout).
class BinaryWriter
{
public:
    // Room for small writes up front: GCC 12 otherwise warns (-Wstringop-overflow) about the growth of
    // a vector it believes holds only the first value written.
    BinaryWriter() { m_bytes.reserve(64); }

    template <class T>
    void value(const T& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        const auto* p = reinterpret_cast<const std::byte*>(&v);
        m_bytes.insert(m_bytes.end(), p, p + sizeof(T));
    }
    template <class T>
    void array(const std::vector<T>& values)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        value<std::uint64_t>(values.size());
        const auto* p = reinterpret_cast<const std::byte*>(values.data());
        m_bytes.insert(m_bytes.end(), p, p + values.size() * sizeof(T));
    }
    void string(const std::string& s)
    {
        value<std::uint64_t>(s.size());
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        m_bytes.insert(m_bytes.end(), p, p + s.size());
    }
    void vec3s(const std::vector<Vec3>& values);

    const std::vector<std::byte>& bytes() const { return m_bytes; }

private:
    std::vector<std::byte> m_bytes;
};

/// Reads what BinaryWriter wrote; throws shatter::Error naming `source` on truncated or absurd data.
class BinaryReader
{
public:
    BinaryReader(std::span<const std::byte> bytes, std::string source)
        : m_bytes(bytes), m_source(std::move(source))
    {
    }
    /// A reader of bytes it owns (shared by its copies).
    static BinaryReader owning(std::vector<std::byte> bytes, std::string source)
    {
        auto owned = std::make_shared<const std::vector<std::byte>>(std::move(bytes));
        BinaryReader reader(*owned, std::move(source));
        reader.m_owned = std::move(owned);
        return reader;
    }

    template <class T>
    T value()
    {
        static_assert(std::is_trivially_copyable_v<T>);
        T v;
        std::memcpy(&v, take(sizeof(T)), sizeof(T));
        return v;
    }
    template <class T>
    std::vector<T> array(std::uint64_t maxCount = std::uint64_t(1) << 32)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::uint64_t count = value<std::uint64_t>();
        if (count > maxCount || count > remaining() / sizeof(T))
            fail("array of " + std::to_string(count) + " elements does not fit in the file");
        std::vector<T> values(count);
        if (count > 0)
            std::memcpy(values.data(), take(count * sizeof(T)), count * sizeof(T));
        return values;
    }
    std::string string();
    std::vector<Vec3> vec3s();
    /// An array of bytes as BinaryReader::array<std::byte> reads it, without the copy: a view into the
    /// reader's bytes, and its offset among them.
    std::span<const std::byte> byteView(std::size_t& offset);

    std::size_t remaining() const { return m_bytes.size() - m_offset; }
    const std::string& source() const { return m_source; }
    [[noreturn]] void fail(const std::string& problem) const;

private:
    const std::byte* take(std::size_t count);

    std::shared_ptr<const std::vector<std::byte>> m_owned; // null when reading someone else's bytes
    std::span<const std::byte> m_bytes;
    std::size_t m_offset = 0;
    std::string m_source;
};

/// A regular file held open and read at offsets (pread: safe from several threads at once). An asset
/// loaded from its cache reads its sections back through it, so a cache file that another process
/// replaces or removes meanwhile (writers replace files by rename) does not change what it reads.
class ReadOnlyFile
{
public:
    /// Opens `path`; throws shatter::Error naming it when it is missing, not a file or unreadable.
    explicit ReadOnlyFile(std::string path);
    ~ReadOnlyFile();
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

    std::uint64_t size() const { return m_size; } ///< in bytes, when opened
    const std::string& path() const { return m_path; }
    /// `count` bytes from `offset`; throws shatter::Error naming the file when they cannot all be read.
    std::vector<std::byte> read(std::uint64_t offset, std::uint64_t count) const;

private:
    std::string m_path;
    int m_descriptor = -1;
    std::uint64_t m_size = 0;
};

/// What identifies a kind of framed file (framedFileBytes): its magic bytes, format version, and for
/// messages its name ("asset file") and how to replace one of another version.
struct FileKind
{
    std::array<char, 8> magic;
    std::uint32_t version;
    const char* name;
    const char* otherVersionAdvice;
};

/// A framed file: a header (magic, version, 4 reserved bytes, payload size, FNV-1a checksum of the
/// payload) followed by the payload.
std::vector<std::byte> framedFileBytes(const FileKind& kind, std::span<const std::byte> payload);
/// The payload of a framed file of `kind`, after checking its magic, version, size and checksum; throws
/// shatter::Error naming `source` and the problem.
std::span<const std::byte> framedPayload(std::span<const std::byte> bytes, const FileKind& kind,
                                         const std::string& source);
/// The size of the header framedFileBytes writes.
inline constexpr std::size_t kFramedHeaderSize = 8 + 4 + 4 + 8 + 8;

/// Reads a whole file; throws shatter::Error naming the file when it cannot be read.
std::vector<std::byte> readFileBytes(const std::string& path);
/// Writes a whole file atomically (temporary file + rename), so a crash never leaves half a cache.
void writeFileBytes(const std::string& path, std::span<const std::byte> bytes);

} // namespace shatter
