// libFuzzer harness for the asset cache loader. The input is a cache file's payload: the harness puts
// the header in front with the right size and checksum, so that mutations reach the structural checks
// instead of stopping at the checksum (a hand-edited or buggy file is checksum-valid too). An accepted
// file must then work: the object state is made and queried at its first tet nodes, as collision detection
// would. shatter::Error is the expected answer to a bad file; anything else is a bug.
#include "asset_data.h"
#include "fuzz_input_file.h"
#include "object_state.h"

#include "shatter/asset.h"
#include "shatter/error.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const shatter::fuzz::InputFile input("asset.shatter");
    const std::vector<std::byte> file =
        shatter::assetFileBytes(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size));
    input.write(file.data(), file.size());
    try
    {
        const auto state = shatter::makeObjectState(shatter::loadAsset(input.path()));
        const shatter::Asset& asset = state->asset();
        const std::size_t probes = std::min<std::size_t>(asset.tetMesh.nodes.size(), 64);
        for (std::size_t i = 0; i < probes; ++i)
        {
            const shatter::Vec3& p = asset.tetMesh.nodes[i];
            (void)state->penetration(p, 0);
            (void)state->sphereTest(p, 0.01, 0);
        }
    }
    catch (const shatter::Error&)
    {
    }
    return 0;
}
