// A framed file (framedFileBytes) with its checksum recomputed after an edit of the payload: what a
// save or cache edited on purpose looks like, to test that the contents are checked, not only the frame.
#pragma once

#include "binary_io.h"

#include <cstring>
#include <span>
#include <vector>

namespace shatter
{

inline std::vector<std::byte> resealed(std::vector<std::byte> bytes)
{
    const std::span<const std::byte> payload = std::span<const std::byte>(bytes).subspan(kFramedHeaderSize);
    const std::uint64_t checksum = fnv1a64(payload);
    std::memcpy(bytes.data() + kFramedHeaderSize - sizeof(checksum), &checksum, sizeof(checksum));
    return bytes;
}

} // namespace shatter
