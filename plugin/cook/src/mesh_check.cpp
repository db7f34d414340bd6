// checkMesh: the validation and repair sequence of mesh import (order and policy in mesh_import.h).
//
// Each check runs only once the earlier ones pass, because later checks assume what earlier ones
// establish: the edge table needs valid indices, fan tracing needs at most two triangles per edge,
// hole tracing needs consistent winding and single fans, the intersection test needs non-degenerate
// triangles and the nesting test needs closed, non-intersecting shells. After any repair the result
// is validated again from scratch, so a repair step that went wrong shows up as an error instead of
// a bad mesh handed to TetGen.
#include "mesh_import.h"
#include "mesh_repair.h"

#include <cmath>
#include <cstdio>

namespace shatter
{

namespace
{

std::string countOf(Index n, const char* singular, const char* plural)
{
    return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

class Checker
{
public:
    Checker(const std::string& source, const ImportSettings& options, ImportReport& report, bool verifying)
        : source(source), options(options), report(report), verifying(verifying)
    {
    }

    TriMesh run(TriMesh mesh)
    {
        if (mesh.triangles.empty())
            fail(MeshProblem::Empty, "there are no triangles");
        require(MeshProblem::BadIndices, findBadIndices(mesh));
        if (const Index unused = removeUnusedVertices(mesh))
            note("ignored " + countOf(unused, "vertex", "vertices") + " no triangle uses");
        require(MeshProblem::NonFinite, findNonFiniteVertices(mesh));
        require(MeshProblem::HugeCoordinates, findHugeCoordinates(mesh, options.maxAbsCoordinate));
        const Aabb box = mesh.bounds();
        const Real size = (box.max - box.min).norm();
        if (size < options.minSize)
        {
            char text[160];
            std::snprintf(text, sizeof text,
                          "the mesh is %g across (bounding-box diagonal), less than ImportSettings::minSize "
                          "%g; scale it up",
                          size, options.minSize);
            fail(MeshProblem::TooSmall, text);
        }
        report.weldedVertices += weldVertices(mesh, options.weldTolerance * size);

        removeBadTriangles(mesh);
        EdgeTable edges(mesh);
        require(MeshProblem::NonManifoldEdges, findNonManifoldEdges(mesh, edges));
        require(MeshProblem::NonManifoldVertices, findNonManifoldVertices(mesh, edges));
        if (const MeshDefect defect = findInconsistentOrientation(mesh, edges))
        {
            repairOrRequire(MeshProblem::InconsistentOrientation, defect);
            const std::optional<Index> flipped = orientConsistently(mesh);
            if (!flipped)
                fail(MeshProblem::InconsistentOrientation,
                     "the surface is not orientable (one-sided, like a Moebius strip): " + defect.detail);
            note("made the winding consistent by flipping " + countOf(*flipped, "triangle", "triangles"));
            report.flippedTriangles += *flipped;
            edges = EdgeTable(mesh);
        }
        if (const MeshDefect defect = findBoundaryEdges(mesh, edges))
        {
            repairOrRequire(MeshProblem::BoundaryEdges, defect);
            closeHoles(mesh);
            edges = EdgeTable(mesh);
        }
        if (options.checkSelfIntersections)
            require(MeshProblem::SelfIntersection, findSelfIntersections(mesh));
        orientShells(mesh, edges);

        if (repaired && !verifying)
        {
            ImportSettings strict = options;
            strict.repair = false;
            ImportReport scratch;
            Checker(source, strict, scratch, true).run(mesh);
        }
        return mesh;
    }

private:
    [[noreturn]] void fail(MeshProblem problem, const std::string& detail) const
    {
        throw MeshError(source, problem, verifying || repaired ? "after repair, " + detail : detail);
    }
    void require(MeshProblem problem, const MeshDefect& defect) const
    {
        if (defect)
            fail(problem, defect.detail);
    }
    void repairOrRequire(MeshProblem problem, const MeshDefect& defect)
    {
        if (!options.repair)
            fail(problem, defect.detail);
        repaired = true;
    }
    void note(std::string text)
    {
        if (!verifying)
            report.notes.push_back(std::move(text));
    }

    void removeBadTriangles(TriMesh& mesh)
    {
        if (options.repair)
            if (const Index splits = splitCapNeighbours(mesh))
                note("split " + countOf(splits, "triangle", "triangles") +
                     " at the middle vertex of a zero-area neighbour");
        std::vector<Index> bad;
        if (const MeshDefect defect = findDegenerateTriangles(mesh, &bad))
        {
            repairOrRequire(MeshProblem::DegenerateTriangles, defect);
            removeTriangles(mesh, bad);
            note("removed " + countOf(defect.count, "degenerate triangle", "degenerate triangles"));
            report.removedTriangles += defect.count;
        }
        bad.clear();
        if (const MeshDefect defect = findDuplicateTriangles(mesh, &bad))
        {
            repairOrRequire(MeshProblem::DuplicateTriangles, defect);
            removeTriangles(mesh, bad);
            note("removed " + countOf(defect.count, "duplicate triangle", "duplicate triangles"));
            report.removedTriangles += defect.count;
        }
        if (mesh.triangles.empty())
            fail(MeshProblem::Empty,
                 "no triangles are left after removing the degenerate and duplicate ones");
        removeUnusedVertices(mesh);
    }

    void closeHoles(TriMesh& mesh)
    {
        const HoleFillResult filled = fillHoles(mesh);
        if (filled.holes > 0)
            note("closed " + countOf(filled.holes, "hole", "holes") + " (" +
                 countOf(filled.triangles, "triangle", "triangles") + ", " +
                 countOf(filled.vertices, "new vertex", "new vertices") + ")");
        report.holesClosed += filled.holes;
        report.addedTriangles += filled.triangles;
        const EdgeTable edges(mesh);
        if (const MeshDefect left = findBoundaryEdges(mesh, edges))
            fail(MeshProblem::BoundaryEdges, "could not close every hole; " + left.detail);
    }

    // Nesting policy (mesh_import.h): even depth is solid on the inside (outward winding), odd depth
    // is a cavity (inward winding); a second even-depth shell is a second piece.
    void orientShells(TriMesh& mesh, const EdgeTable& edges)
    {
        const std::vector<Shell> shells = findShells(mesh, edges);
        std::vector<const Shell*> pieces; // solid on the inside
        const Shell* loose = nullptr;
        for (const Shell& shell : shells)
        {
            if (shell.depth % 2 != 0)
                continue;
            pieces.push_back(&shell);
            if (shell.depth >= 2 && !loose)
                loose = &shell;
        }
        if (pieces.size() > 1)
        {
            const std::string detail = countOf(Index(shells.size()), "closed shell", "closed shells") +
                                       " form " + std::to_string(pieces.size()) + " separate solid pieces";
            if (loose)
                fail(MeshProblem::MultipleComponents, detail + ": the shell of triangle " +
                                                          std::to_string(loose->triangles.front()) +
                                                          " lies loose inside a cavity");
            fail(MeshProblem::MultipleComponents,
                 detail + ": the shells of triangles " + std::to_string(pieces[0]->triangles.front()) +
                     " and " + std::to_string(pieces[1]->triangles.front()) + " do not enclose each other");
        }
        report.shells = Index(shells.size());
        report.cavities = 0;
        for (const Shell& shell : shells)
        {
            const bool cavity = shell.depth % 2 == 1;
            report.cavities += cavity ? 1 : 0;
            if (cavity ? shell.volume <= 0 : shell.volume >= 0)
                continue;
            flipTriangles(mesh, shell.triangles);
            report.flippedTriangles += Index(shell.triangles.size());
            if (shells.size() == 1)
                note("flipped inside-out mesh (" +
                     countOf(Index(shell.triangles.size()), "triangle", "triangles") + ")");
            else
                note(std::string(cavity ? "flipped the cavity shell of triangle "
                                        : "flipped the inside-out shell of triangle ") +
                     std::to_string(shell.triangles.front()) + (cavity ? " to face into the cavity" : ""));
        }
    }

    const std::string& source;
    const ImportSettings& options;
    ImportReport& report;
    bool verifying;
    bool repaired = false;
};

} // namespace

void checkImportSettings(const ImportSettings& options)
{
    if (!(options.weldTolerance >= 0 && options.weldTolerance <= 1e-3))
        throw Error("ImportSettings::weldTolerance",
                    "must be in [0, 1e-3], is " + std::to_string(options.weldTolerance));
    if (!(options.maxAbsCoordinate > 0))
        throw Error("ImportSettings::maxAbsCoordinate",
                    "must be positive, is " + std::to_string(options.maxAbsCoordinate));
    if (!(options.minSize >= 0 && options.minSize < options.maxAbsCoordinate))
        throw Error("ImportSettings::minSize",
                    "must be in [0, maxAbsCoordinate), is " + std::to_string(options.minSize));
}

TriMesh checkMesh(TriMesh mesh, const std::string& sourceName, const ImportSettings& options,
                  ImportReport* report)
{
    checkImportSettings(options);
    ImportReport local;
    ImportReport& out = report ? *report : local;
    out = ImportReport{};
    out.inputVertices = Index(mesh.vertices.size());
    out.inputTriangles = Index(mesh.triangles.size());
    return Checker(sourceName, options, out, false).run(std::move(mesh));
}

} // namespace shatter
