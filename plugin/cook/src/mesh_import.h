// Mesh import: read a surface mesh file, weld it, validate it as the boundary of one solid object,
// and optionally repair it (ImportSettings, public in shatter/cook.h). The first stage of the asset
// pipeline: everything after it (TetGen, the distance field) may assume a closed, oriented, manifold,
// non-self-intersecting surface.
//
// Checks run in this order, so each defect is reported as itself rather than as a consequence:
//   file: ReadFailed, UnknownFormat, Empty
//   values: BadIndices, NonFinite, HugeCoordinates          (then vertices are welded)
//   faces: DegenerateTriangles, DuplicateTriangles          (repair removes them)
//   topology: NonManifoldEdges, NonManifoldVertices,
//             InconsistentOrientation                       (repair reorients)
//             BoundaryEdges                                 (repair closes the holes)
//   geometry: SelfIntersection, MultipleComponents
//
// Components: the mesh must describe one solid. A closed shell nested inside another is a cavity of
// the same object (the hollow of a ceramic piggy bank) and is wound with its normals pointing into
// the cavity, away from the solid; outer shells are wound outward, so the total signed volume is
// the solid's volume. Shells wound the other way are flipped and the flip noted in the report; this
// is not an error. Two separate outer shells, or a shell loose inside a cavity, are
// MultipleComponents; two overlapping shells are a SelfIntersection.
#pragma once

#include "mesh_validate.h"
#include "shatter/cook.h"
#include "shatter/mesh.h"

#include <filesystem>
#include <string>
#include <vector>

namespace shatter
{

/// Throws shatter::Error naming the first setting that is out of range.
void checkImportSettings(const ImportSettings& options);

/// What import found and changed; pass one to importMesh or checkMesh to have it filled.
struct ImportReport
{
    std::vector<std::string> notes; ///< one sentence per change, e.g. "flipped inside-out mesh"
    Index inputVertices = 0;        ///< as read (some formats store a copy per triangle corner)
    Index inputTriangles = 0;       ///< as read, after splitting polygons into triangles
    Index weldedVertices = 0;       ///< vertices merged into a coincident one
    Index removedTriangles = 0;     ///< degenerate and duplicate triangles removed by repair
    Index flippedTriangles = 0;     ///< triangles re-wound, for consistency or to face outward
    Index holesClosed = 0;          ///< boundary loops closed by repair
    Index addedTriangles = 0;       ///< triangles added to close holes
    Index shells = 0;               ///< closed surfaces of the result: 1 + cavities
    Index cavities = 0;             ///< shells nested in the outer one, wound inward
};

/// Reads a mesh file and returns it welded, validated and (with options.repair) repaired. The
/// format follows the extension: PLY, OFF and OBJ by Shatter's strict readers; STL (ASCII and
/// binary), glTF and anything else assimp reads through assimp, with polygons triangulated and all
/// meshes of the scene merged under their node transforms. Vertices come out numbered in order of
/// first use by the triangles, so a mesh stored in two formats imports identically. Throws
/// MeshError naming the file for any bad input (and shatter::Error for bad options); never returns
/// a mesh that fails validation. Safe to call from several threads at once.
TriMesh importMesh(const std::filesystem::path& file, const ImportSettings& options = {},
                   ImportReport* report = nullptr);

/// The same weld, validation and repair for an in-memory mesh (procedural assets). `sourceName`
/// names it in errors. Vertex order is kept, apart from merged and unused vertices dropping out and
/// hole-filling vertices being appended; triangle order is kept too, apart from removed triangles
/// dropping out and added ones (cap splits, hole fills) being appended.
TriMesh checkMesh(TriMesh mesh, const std::string& sourceName, const ImportSettings& options = {},
                  ImportReport* report = nullptr);

} // namespace shatter
