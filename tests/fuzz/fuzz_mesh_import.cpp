// libFuzzer harness for the mesh importers: the input is a whole mesh file, imported with and without
// repair through importMesh under the extension this binary was built for (SHATTER_FUZZ_EXTENSION: ply and
// off use Shatter's own readers, obj and stl assimp's). A MeshError or shatter::Error is the expected answer
// to a bad file; anything else escaping, a crash, a leak or an allocation past libFuzzer's limit is a bug.
#include "fuzz_input_file.h"
#include "mesh_import.h"

#include "shatter/error.h"

#include <cstddef>
#include <cstdint>

// Assimp's ASCII STL, OBJ and glTF importers leak a few hundred bytes inside assimp when they reject a
// corrupt file (mesh_import.cpp); that is assimp's, so LeakSanitizer ignores allocations made there.
extern "C" const char* __lsan_default_suppressions()
{
    return "leak:libassimp.so\n";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const shatter::fuzz::InputFile input("mesh." SHATTER_FUZZ_EXTENSION);
    input.write(data, size);
    shatter::ImportSettings settings;
    settings.repair = (size & 1) != 0; // both paths: validation alone, and repair
    try
    {
        const shatter::TriMesh mesh = shatter::importMesh(input.path(), settings);
        // importMesh promises a closed, valid mesh: at least a tetrahedron's worth of triangles.
        if (mesh.triangles.size() < 4)
            __builtin_trap();
    }
    catch (const shatter::Error&)
    {
    }
    return 0;
}
