// TetGen wrapper. Debian's libtet is built with TETLIBRARY, so TetGen reports failures by throwing an
// int (terminatetetgen); we catch it and raise shatter::Error with TetGen's meaning of the code.
#include "tetrahedralize.h"

#include "shatter/error.h"

#include <tetgen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <sstream>

namespace shatter
{

namespace
{

const char* tetgenFailure(int code)
{
    switch (code)
    {
    case 1:
        return "TetGen ran out of memory";
    case 2:
        return "TetGen hit an internal error";
    case 3:
        return "TetGen found a self-intersection in the surface";
    case 4:
        return "TetGen found a very small input feature (closer than its tolerance)";
    case 5:
        return "TetGen found two very close input facets";
    case 10:
        return "TetGen rejected the input";
    default:
        return "TetGen failed";
    }
}

// Solid angle of triangle (a, b, c) seen from the origin (Van Oosterom & Strackee), for the winding
// number that decides whether a candidate hole point lies in a cavity.
Real solidAngle(const Vec3& a, const Vec3& b, const Vec3& c)
{
    const Real la = a.norm(), lb = b.norm(), lc = c.norm();
    const Real numerator = a.dot(b.cross(c));
    const Real denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    return Real(2) * std::atan2(numerator, denominator);
}

Real windingNumber(const TriMesh& mesh, const Vec3& p)
{
    Real sum = 0;
    for (const Triangle& t : mesh.triangles)
        sum += solidAngle(mesh.vertices[t[0]] - p, mesh.vertices[t[1]] - p, mesh.vertices[t[2]] - p);
    return sum / (Real(4) * std::numbers::pi_v<Real>);
}

// Labels triangles by connected shell (shared edges).
std::vector<Index> shellLabels(const TriMesh& mesh, Index& shellCount)
{
    std::map<std::pair<Index, Index>, std::vector<Index>> edgeTriangles;
    for (Index t = 0; t < mesh.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k)
        {
            Index a = mesh.triangles[t][k], b = mesh.triangles[t][(k + 1) % 3];
            edgeTriangles[{std::min(a, b), std::max(a, b)}].push_back(t);
        }
    std::vector<std::vector<Index>> adjacency(mesh.triangles.size());
    for (const auto& [edge, tris] : edgeTriangles)
        for (Index i : tris)
            for (Index j : tris)
                if (i != j)
                    adjacency[i].push_back(j);
    std::vector<Index> label(mesh.triangles.size(), kInvalidIndex);
    shellCount = 0;
    std::vector<Index> stack;
    for (Index seed = 0; seed < mesh.triangles.size(); ++seed)
    {
        if (label[seed] != kInvalidIndex)
            continue;
        label[seed] = shellCount;
        stack.push_back(seed);
        while (!stack.empty())
        {
            const Index t = stack.back();
            stack.pop_back();
            for (Index n : adjacency[t])
                if (label[n] == kInvalidIndex)
                {
                    label[n] = shellCount;
                    stack.push_back(n);
                }
        }
        ++shellCount;
    }
    return label;
}

// One point inside each cavity (a shell of negative volume), handed to TetGen as a hole so the void
// is not meshed. A candidate is pushed off a cavity triangle along its normal, which points into the
// void, and accepted when the whole surface's winding number says it is outside the solid.
std::vector<Vec3> cavityHolePoints(const TriMesh& mesh)
{
    Index shellCount = 0;
    const std::vector<Index> label = shellLabels(mesh, shellCount);
    if (shellCount < 2)
        return {};
    std::vector<Real> volume(shellCount, 0);
    for (Index t = 0; t < mesh.triangles.size(); ++t)
    {
        const Triangle& tri = mesh.triangles[t];
        volume[label[t]] += mesh.vertices[tri[0]].dot(mesh.vertices[tri[1]].cross(mesh.vertices[tri[2]]));
    }
    std::vector<Vec3> holes;
    for (Index shell = 0; shell < shellCount; ++shell)
    {
        if (volume[shell] >= 0)
            continue;
        for (Index t = 0; t < mesh.triangles.size(); ++t)
        {
            if (label[t] != shell || mesh.area(t) <= 0)
                continue;
            const Triangle& tri = mesh.triangles[t];
            const Vec3 centroid = (mesh.vertices[tri[0]] + mesh.vertices[tri[1]] + mesh.vertices[tri[2]]) / 3;
            const Vec3 candidate = centroid + mesh.normal(t) * (Real(0.2) * std::sqrt(mesh.area(t)));
            if (windingNumber(mesh, candidate) < Real(0.5))
            {
                holes.push_back(candidate);
                break;
            }
        }
    }
    return holes;
}

Real longestEdge(const TriMesh& mesh)
{
    Real longest = 0;
    for (const Triangle& t : mesh.triangles)
        for (int k = 0; k < 3; ++k)
            longest = std::max(longest, (mesh.vertices[t[k]] - mesh.vertices[t[(k + 1) % 3]]).norm());
    return longest;
}

// TetGen's -a bound: a regular tet with edge maxEdgeFactor × the longest surface edge; 0 without one.
Real maxTetVolume(const TriMesh& surface, const TetrahedralizeSettings& options)
{
    const Real edge = options.maxEdgeFactor * longestEdge(surface);
    return edge * edge * edge / (Real(6) * std::numbers::sqrt2_v<Real>);
}

} // namespace

TetCountEstimate estimateTetCount(const TriMesh& surface, const TetrahedralizeSettings& options)
{
    // Fitted to TetGen's output for the shipped meshes (1.4 to 2.3 tets per triangle) and a finely and
    // evenly meshed 500,000-triangle sphere (4.1 million tets, most of them set by the volume bound).
    constexpr Real kTetsPerTriangle = 2.3;
    constexpr Real kTetsPerVolumeBound = 2.5; // tets average 40 % of the largest volume allowed
    TetCountEstimate estimate;
    estimate.bySurface = kTetsPerTriangle * Real(surface.triangles.size());
    if (options.maxEdgeFactor > 0)
        estimate.byVolume =
            kTetsPerVolumeBound * std::abs(surface.signedVolume()) / maxTetVolume(surface, options);
    return estimate;
}

TetMesh tetrahedralize(const TriMesh& surface, const std::string& sourceName,
                       const TetrahedralizeSettings& options)
{
    if (!(options.maxRadiusEdgeRatio >= 1 && options.maxRadiusEdgeRatio <= 2))
        throw Error(sourceName, "maxRadiusEdgeRatio must be in [1, 2], got " +
                                    std::to_string(options.maxRadiusEdgeRatio));
    if (!(options.maxEdgeFactor >= 0))
        throw Error(sourceName, "maxEdgeFactor must be >= 0");
    if (surface.triangles.empty())
        throw Error(sourceName, "cannot tetrahedralize an empty surface");
    if (options.maxTets < 1)
        throw Error(sourceName, "maxTets must be >= 1");

    tetgenio in;
    in.firstnumber = 0;
    in.numberofpoints = int(surface.vertices.size());
    in.pointlist = new REAL[surface.vertices.size() * 3];
    for (std::size_t i = 0; i < surface.vertices.size(); ++i)
        for (int k = 0; k < 3; ++k)
            in.pointlist[3 * i + k] = surface.vertices[i][k];
    in.numberoffacets = int(surface.triangles.size());
    in.facetlist = new tetgenio::facet[surface.triangles.size()];
    for (std::size_t f = 0; f < surface.triangles.size(); ++f)
    {
        tetgenio::facet& facet = in.facetlist[f];
        tetgenio::init(&facet);
        facet.numberofpolygons = 1;
        facet.polygonlist = new tetgenio::polygon[1];
        tetgenio::init(&facet.polygonlist[0]);
        facet.polygonlist[0].numberofvertices = 3;
        facet.polygonlist[0].vertexlist = new int[3];
        for (int k = 0; k < 3; ++k)
            facet.polygonlist[0].vertexlist[k] = int(surface.triangles[f][k]);
    }
    const std::vector<Vec3> holes = cavityHolePoints(surface);
    if (!holes.empty())
    {
        in.numberofholes = int(holes.size());
        in.holelist = new REAL[holes.size() * 3];
        for (std::size_t h = 0; h < holes.size(); ++h)
            for (int k = 0; k < 3; ++k)
                in.holelist[3 * h + k] = holes[h][k];
    }

    // p: piecewise linear complex; q: quality bound; Y: no Steiner point on the surface; z: 0-based;
    // Q: quiet; a: maximum tet volume (a regular tet with edge maxEdgeFactor * longest surface edge).
    std::ostringstream switches;
    switches.precision(17);
    switches << "pYzQq" << options.maxRadiusEdgeRatio;
    if (options.maxEdgeFactor > 0)
        switches << "a" << maxTetVolume(surface, options);
    std::string switchString = switches.str();

    tetgenio out;
    try
    {
        tetgenbehavior behavior;
        if (!behavior.parse_commandline(switchString.data()))
            throw Error(sourceName, "TetGen rejected the switches '" + switchString + "'");
        tetrahedralize(&behavior, &in, &out);
    }
    catch (int code)
    {
        throw Error(sourceName, std::string(tetgenFailure(code)) + " (code " + std::to_string(code) + ")");
    }
    if (out.numberoftetrahedra <= 0 || out.numberofpoints < int(surface.vertices.size()))
        throw Error(sourceName, "TetGen produced no tetrahedra");
    if (std::uint64_t(out.numberoftetrahedra) > options.maxTets)
        throw Error(sourceName, "TetGen made " + std::to_string(out.numberoftetrahedra) +
                                    " tetrahedra, more than TetrahedralizeSettings::maxTets (" +
                                    std::to_string(options.maxTets) +
                                    "): simplify the mesh or raise maxTets (shatter_asset build --max-tets)");

    TetMesh mesh;
    mesh.surfaceNodeCount = Index(surface.vertices.size());
    mesh.nodes.resize(std::size_t(out.numberofpoints));
    for (int i = 0; i < out.numberofpoints; ++i)
        mesh.nodes[i] = Vec3(out.pointlist[3 * i], out.pointlist[3 * i + 1], out.pointlist[3 * i + 2]);
    for (Index i = 0; i < mesh.surfaceNodeCount; ++i)
        if (mesh.nodes[i] != surface.vertices[i])
            throw Error(sourceName, "TetGen moved surface vertex " + std::to_string(i));

    // TetGen may leave unused input points when it drops duplicates; interior nodes are always used.
    mesh.tets.resize(std::size_t(out.numberoftetrahedra));
    for (int t = 0; t < out.numberoftetrahedra; ++t)
    {
        Tet& tet = mesh.tets[t];
        for (int k = 0; k < 4; ++k)
            tet[k] = Index(out.tetrahedronlist[4 * t + k]);
        if (mesh.tetVolume(Index(t)) < 0)
            std::swap(tet[2], tet[3]);
        if (!(mesh.tetVolume(Index(t)) > 0))
            throw Error(sourceName, "TetGen produced a flat tetrahedron " + std::to_string(t));
    }
    mesh.buildConnectivity();
    for (Index i = 0; i < mesh.surfaceNodeCount; ++i)
        if (mesh.nodeTetOffsets[i] == mesh.nodeTetOffsets[i + 1])
            throw Error(sourceName, "surface vertex " + std::to_string(i) + " is in no tetrahedron");
    return mesh;
}

SurfaceTetFaces mapSurfaceToTets(const TriMesh& surface, const TetMesh& tets, const std::string& sourceName)
{
    // Key each tet face by its sorted nodes; a surface triangle must be exactly one tet's boundary face.
    std::map<std::array<Index, 3>, std::pair<Index, std::uint8_t>> faces;
    for (Index t = 0; t < tets.tetCount(); ++t)
        for (std::uint8_t f = 0; f < 4; ++f)
        {
            std::array<Index, 3> key;
            for (int k = 0; k < 3; ++k)
                key[k] = tets.tets[t][kTetFaces[f][k]];
            if (std::max({key[0], key[1], key[2]}) >= tets.surfaceNodeCount)
                continue;
            std::sort(key.begin(), key.end());
            faces.emplace(key, std::make_pair(t, f));
        }
    SurfaceTetFaces result;
    result.tet.resize(surface.triangles.size());
    result.face.resize(surface.triangles.size());
    for (Index s = 0; s < surface.triangles.size(); ++s)
    {
        std::array<Index, 3> key = surface.triangles[s];
        std::sort(key.begin(), key.end());
        const auto it = faces.find(key);
        if (it == faces.end())
            throw Error(sourceName,
                        "surface triangle " + std::to_string(s) + " is not a face of any tetrahedron");
        result.tet[s] = it->second.first;
        result.face[s] = it->second.second;
    }
    return result;
}

} // namespace shatter
