// libFuzzer harness for the scene loader: the input is a scene file's text, parsed by parseScene as
// shatter_run and the demo parse it (mesh paths resolve next to the file, in an empty folder). A
// shatter::Error naming the file is the expected answer to a bad scene; a JSON library exception or
// anything else escaping is a bug, and so is a loaded scene that breaks a documented range.
#include "fuzz_input_file.h"

#include "shatter/error.h"
#include "shatter/scenes/scene.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const shatter::fuzz::InputFile input("scene.json");
    const std::string text(reinterpret_cast<const char*>(data), size);
    try
    {
        const shatter::scenes::Scene scene = shatter::scenes::parseScene(text, input.path());
        const bool inRange = scene.timeStep >= 1e-5 && scene.timeStep <= 0.1 && scene.substeps >= 1 &&
                             scene.duration > 0 && std::isfinite(scene.duration) &&
                             scene.solverIterations >= 1 && scene.gravity.allFinite() &&
                             scene.objects.size() <= 10000 && scene.events.size() <= 10000;
        if (!inRange)
            __builtin_trap();
    }
    catch (const shatter::Error&)
    {
    }
    return 0;
}
