// Offline cooking with the installed Shatter::Cook: builds the cache file the runtime example loads,
// and writes a stand-in piece as glTF beside it.
// The function is the user guide's example, extracted verbatim (tests/tools/consumer.cmake).
// Usage: shatter_cook_example mesh.obj cache.shatter
#include "guide_cook.inc"
#include "guide_export.inc"

#include <string>

int main(int argc, char** argv)
{
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: %s mesh-file cache-file\n", argv[0]);
        return 2;
    }
    if (!cookAsset(argv[1], argv[2]))
        return 1;
    // A tetrahedron with one crack face stands in for a piece.
    shatter::TriMesh piece;
    piece.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    piece.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    const std::uint8_t crack[4] = {0, 0, 0, 1};
    const std::shared_ptr<const shatter::Asset> asset = shatter::loadAsset(argv[2]);
    return writePiece(*asset, piece, crack, Eigen::Isometry3d::Identity(),
                      (std::string(argv[2]) + ".gltf").c_str())
               ? 0
               : 1;
}
