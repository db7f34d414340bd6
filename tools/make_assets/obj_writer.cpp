#include "obj_writer.h"

#include "shatter/error.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace shatter::assets
{

void quantize(TriMesh& mesh)
{
    for (Vec3& v : mesh.vertices)
        for (int k = 0; k < 3; ++k)
            v[k] = std::round(v[k] * Real(1e6)) / Real(1e6) + Real(0); // + 0 maps -0 to +0
}

void writeObj(const TriMesh& mesh, const std::filesystem::path& path,
              const std::vector<std::string>& comments)
{
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file)
        throw Error(path.string(), "cannot open for writing");
    for (const std::string& line : comments)
        file << "# " << line << '\n';
    char buffer[128];
    for (const Vec3& v : mesh.vertices)
    {
        const int length = std::snprintf(buffer, sizeof buffer, "v %.6f %.6f %.6f\n", v.x(), v.y(), v.z());
        file.write(buffer, length);
    }
    for (const Triangle& t : mesh.triangles)
    {
        const int length = std::snprintf(buffer, sizeof buffer, "f %u %u %u\n", unsigned(t[0] + 1),
                                         unsigned(t[1] + 1), unsigned(t[2] + 1));
        file.write(buffer, length);
    }
    file.close();
    if (!file)
        throw Error(path.string(), "write failed");
}

} // namespace shatter::assets
