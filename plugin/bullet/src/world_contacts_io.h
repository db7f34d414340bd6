// The file frame of saveWorldContacts / restoreWorldContacts (collision.h, world_contacts_io.cpp), for
// the fuzz harness that frames edited payloads. Not installed.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace shatter
{

/// A world contacts file around `payload` (the fuzz harness frames its mutations with it).
std::vector<std::byte> worldContactsFileBytes(std::span<const std::byte> payload);

} // namespace shatter
